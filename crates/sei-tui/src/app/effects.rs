//! Runs the commands `update` returns: starts and stops watches, streams, reads and action
//! jobs, each in its own task (aborted with what it runs when replaced), through the console's
//! port (`app::port`). Never blocks the loop.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::action::{ActionRequest, Finished};
use super::action_error::ActionError;
use super::errors::{JournalReadError, SeedProbeError, SettingSaveError};
use super::jobs::{self, ClusterEnvs, PendingActions};
use super::model::{Cmd, Msg, SavedSetting};
use super::port::{ConsolePort, PortFuture};
use crate::chain::RpcFailure;
use crate::fleet::detail::NodeIdLookup;
use crate::fleet::store::ObjectKey;
use crate::ops::chain_health::READ_TIMEOUT;
use crate::ports::logs::{LogError, LogRequest, PodLogs};
use crate::ports::node_rpc::{NodeRpc, RpcTarget};
use crate::ports::probe::{ProbeTarget, SeedProber};

/// The longest a preview (its reads and permission checks) may take.
const PREPARE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Owner of the running watch tasks.
pub struct Effects {
    tx: mpsc::Sender<Msg>,
    /// The clusters and the world beyond the terminal.
    port: Arc<dyn ConsolePort>,
    /// Each watched cluster's scope watches.
    scope_tasks: BTreeMap<String, JoinHandle<()>>,
    detail_task: Option<JoinHandle<()>>,
    /// The logs view's stream (at most one).
    logs_task: Option<JoinHandle<()>>,
    pending_actions: PendingActions,
    prepare_task: Option<JoinHandle<()>>,
    run_task: Option<JoinHandle<()>>,
    /// The nodes' RPC per context (port-forwards through that cluster's API server), made on
    /// first use.
    node_rpcs: BTreeMap<String, Arc<dyn NodeRpc>>,
    /// The doctor's reads besides the watched fleet (handed in by the composition root).
    doctor_reader: Option<Arc<dyn crate::ops::doctor_reads::DoctorReader>>,
    /// The webhooks of `[notify]` (handed in by the composition root).
    notifier: Option<Arc<dyn crate::ports::notify::Notifier>>,
}

impl Effects {
    pub fn new(port: Arc<dyn ConsolePort>, tx: mpsc::Sender<Msg>) -> Effects {
        Effects {
            tx,
            port,
            scope_tasks: BTreeMap::new(),
            detail_task: None,
            logs_task: None,
            pending_actions: PendingActions::default(),
            prepare_task: None,
            run_task: None,
            node_rpcs: BTreeMap::new(),
            doctor_reader: None,
            notifier: None,
        }
    }

    /// Reads for the doctor what it does not watch (`Cmd::ReadDoctor`).
    pub fn with_doctor_reader(
        mut self,
        reader: Arc<dyn crate::ops::doctor_reads::DoctorReader>,
    ) -> Effects {
        self.doctor_reader = Some(reader);
        self
    }

    /// Queues `Cmd::Notify` for the webhooks (the notifier the composition root made).
    pub fn with_notifier(mut self, notifier: Arc<dyn crate::ports::notify::Notifier>) -> Effects {
        self.notifier = Some(notifier);
        self
    }

    /// The RPC reader of `context`'s cluster: port-forwards with its kubeconfig identity.
    fn node_rpc(&mut self, context: &str) -> Result<Arc<dyn NodeRpc>, RpcFailure> {
        if let Some(rpc) = self.node_rpcs.get(context) {
            return Ok(rpc.clone());
        }
        let rpc = self.port.node_rpc(context)?;
        self.node_rpcs.insert(context.to_owned(), rpc.clone());
        Ok(rpc)
    }

    /// Reads `chain`'s reference RPC in a task; the read comes back as `Msg::ReferenceRead`.
    fn read_reference(&mut self, chain: String, url: crate::chain::ReferenceUrl) {
        let (read, tx) = (self.port.read_reference(url, READ_TIMEOUT), self.tx.clone());
        tokio::spawn(async move {
            let read = read.await;
            let _ = tx.send(Msg::ReferenceRead { chain, read }).await;
        });
    }

    /// Reads the nodes' RPC in one task per cluster, each reading sent back as it ends.
    fn read_health(&mut self, keys: Vec<ObjectKey>) {
        let mut by_context: BTreeMap<String, Vec<ObjectKey>> = BTreeMap::new();
        for key in keys {
            by_context
                .entry(key.context.to_string())
                .or_default()
                .push(key);
        }
        for (context, keys) in by_context {
            let rpc = self.node_rpc(&context);
            let tx = self.tx.clone();
            tokio::spawn(async move {
                let reads = keys.into_iter().map(|key| {
                    let rpc = rpc.clone();
                    let tx = tx.clone();
                    async move {
                        let target = RpcTarget::new(&key.namespace, &key.name);
                        let outcome = match &rpc {
                            Ok(rpc) => {
                                crate::ops::chain_health::read(rpc.as_ref(), &target, READ_TIMEOUT)
                                    .await
                            }
                            Err(failure) => Err(failure.clone()),
                        };
                        let at = jiff::Timestamp::now();
                        let reading = crate::chain::Reading { at, outcome };
                        let _ = tx.send(Msg::HealthRead { key, reading }).await;
                    }
                });
                futures::future::join_all(reads).await;
            });
        }
    }

    /// The cluster of each part of `request`, in order.
    fn request_envs(&self, request: &ActionRequest) -> Result<ClusterEnvs, ActionError> {
        request
            .parts
            .iter()
            .map(|part| self.port.action_cluster(&part.context))
            .collect()
    }

    fn action_envs(&self, id: u64, request: &ActionRequest) -> Option<ClusterEnvs> {
        match self.request_envs(request) {
            Ok(found) => Some(found),
            Err(error) => {
                let tx = self.tx.clone();
                let finished = Finished {
                    ok: false,
                    message: error.to_string(),
                };
                tokio::spawn(async move {
                    let _ = tx.send(Msg::ActionFinished { id, finished }).await;
                });
                None
            }
        }
    }

    pub fn run(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::WatchCluster {
                context,
                namespace,
                epoch,
            } => {
                if let Some(task) = self.scope_tasks.remove(&context) {
                    task.abort();
                }
                let watches =
                    self.port
                        .watch_scope(context.clone(), namespace, epoch, self.tx.clone());
                let task = tokio::spawn(watches);
                self.scope_tasks.insert(context, task);
            }
            Cmd::StopScope => {
                for (_, task) in std::mem::take(&mut self.scope_tasks) {
                    task.abort();
                }
            }
            Cmd::WatchDetail { node, epoch } => {
                abort(&mut self.detail_task);
                let watches = self.port.watch_detail(node, epoch, self.tx.clone());
                self.detail_task = Some(tokio::spawn(watches));
            }
            Cmd::StopDetail => abort(&mut self.detail_task),
            Cmd::StreamLogs {
                epoch,
                context,
                request,
            } => {
                abort(&mut self.logs_task);
                let tx = self.tx.clone();
                let Some(logs) = self.port.logs(&context) else {
                    return;
                };
                self.logs_task = Some(tokio::spawn(async move {
                    stream_logs(logs.as_ref(), request, epoch, tx).await;
                }));
            }
            Cmd::StopLogs => abort(&mut self.logs_task),
            Cmd::SaveLogs { file_name, lines } => {
                tokio::spawn(super::log_save::write(file_name, lines, self.tx.clone()));
            }
            Cmd::ListNamespaces { context } => {
                let tx = self.tx.clone();
                let Some(list) = self.port.list_namespaces(&context) else {
                    return;
                };
                tokio::spawn(async move {
                    let _ = tx.send(Msg::Namespaces(list.await)).await;
                });
            }
            Cmd::ReadJournal => {
                let tx = self.tx.clone();
                let actions = self.port.action_journal();
                let journal = actions.as_ref().and_then(|j| j.journal.clone());
                let own_holder = actions.map(|j| j.holder).unwrap_or_default();
                let clusters = self.port.clusters();
                tokio::spawn(async move {
                    let reader = journal.clone();
                    let read = tokio::task::spawn_blocking(move || match reader {
                        Some(journal) => journal
                            .read()
                            .map_err(|e| JournalReadError::Read(Arc::new(e))),
                        None => Err(JournalReadError::NoLocation),
                    })
                    .await
                    .unwrap_or_else(|e| Err(JournalReadError::Task(Arc::new(e))));
                    // The runs of consoles that died are closed first (`ops::interrupted`).
                    let read = match (read, journal) {
                        (Ok(mut contents), Some(journal)) => {
                            let clusters: Vec<(&str, &dyn crate::ports::ClusterApi)> = clusters
                                .iter()
                                .map(|(c, k)| (c.as_str(), k.as_ref()))
                                .collect();
                            let holders = crate::ops::runners::local_holders();
                            let with = crate::ops::interrupted::CloseWith {
                                holders: &holders,
                                own_holder: &own_holder,
                                clusters: &clusters,
                                now: jiff::Timestamp::now(),
                            };
                            let closed =
                                crate::ops::interrupted::close(&contents.entries, |_| true, &with)
                                    .await;
                            for line in closed {
                                if journal.append(&line).is_ok() {
                                    contents.entries.push(line);
                                }
                            }
                            Ok(contents)
                        }
                        (read, _) => read,
                    };
                    let _ = tx.send(Msg::Journal(read)).await;
                });
            }
            Cmd::PrepareAction {
                id,
                request,
                executor,
            } => {
                abort(&mut self.prepare_task);
                let tx = self.tx.clone();
                let pending = self.pending_actions.clone();
                let envs = match self.request_envs(&request) {
                    Ok(found) => found,
                    Err(message) => {
                        let result = Err(message);
                        tokio::spawn(async move {
                            let _ = tx.send(Msg::ActionPrepared { id, result }).await;
                        });
                        return;
                    }
                };
                self.prepare_task = Some(tokio::spawn(async move {
                    let prepare = jobs::prepare(&envs, id, &request, executor, &pending);
                    // Each request has its own deadline; this bounds the whole preview too.
                    let result = tokio::time::timeout(PREPARE_DEADLINE, prepare)
                        .await
                        .unwrap_or_else(|_| {
                            Err(ActionError::PreviewTimeout(PREPARE_DEADLINE.as_secs()))
                        });
                    let _ = tx.send(Msg::ActionPrepared { id, result }).await;
                }));
            }
            Cmd::CancelAction { id } => {
                abort(&mut self.prepare_task);
                if let Ok(mut pending) = self.pending_actions.lock() {
                    pending.remove(&id);
                }
            }
            Cmd::RunAction {
                id,
                request,
                executor,
            } => {
                let Some(envs) = self.action_envs(id, &request) else {
                    return;
                };
                // The update allows one action at a time; a finished task is simply replaced.
                self.run_task = Some(tokio::spawn(jobs::run(
                    envs,
                    id,
                    request,
                    executor,
                    self.pending_actions.clone(),
                    self.tx.clone(),
                )));
            }
            Cmd::RecordRefusal {
                kind,
                namespace,
                nodes,
                reason,
            } => {
                if let Some(journal) = self.port.action_journal() {
                    let tx = self.tx.clone();
                    tokio::task::spawn_blocking(move || {
                        if let Err(err) =
                            jobs::record_refusal(&journal, kind, &namespace, &nodes, reason)
                        {
                            let _ = tx.try_send(Msg::JournalUnwritable(err.to_string()));
                        }
                    });
                }
            }
            Cmd::SaveSetting { path, setting } => {
                tokio::spawn(save_setting(path, setting, self.tx.clone()));
            }
            Cmd::ProbeSeed { key, target } => {
                let prober = self.port.prober();
                let lookup = target
                    .node_id
                    .is_none()
                    .then(|| self.port.seed_node_id(&key))
                    .flatten();
                tokio::spawn(probe_seed(prober, lookup, key, target, self.tx.clone()));
            }
            Cmd::RunPlugin(run) => {
                tokio::spawn(super::plugins::background(run, self.tx.clone()));
            }
            Cmd::Dump { path, what, text } => {
                tokio::spawn(super::dump::write(path, what, text, self.tx.clone()));
            }
            Cmd::ReadHealth { keys } => self.read_health(keys),
            Cmd::ReadReference { chain, url } => self.read_reference(chain, url),
            Cmd::Notify(notification) => {
                if let Some(notifier) = &self.notifier {
                    notifier.notify(*notification);
                }
            }
            Cmd::ReadDoctor { context, namespace } => {
                let Some(reader) = self.doctor_reader.clone() else {
                    return;
                };
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let reads = reader.read(&context, namespace.as_deref()).await;
                    let _ = tx
                        .send(Msg::DoctorRead {
                            context,
                            reads: Box::new(reads),
                        })
                        .await;
                });
            }
            Cmd::ReadRunners {
                context,
                namespace,
                checked,
            } => {
                let Some(read) = self.port.read_runners(&context, namespace, checked) else {
                    return;
                };
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let runners = read.await;
                    let _ = tx
                        .send(Msg::Runners {
                            context,
                            runners: Box::new(runners),
                        })
                        .await;
                });
            }
            Cmd::ReadRollouts {
                context,
                namespaces,
            } => {
                let Some(read) = self.port.read_rollouts(&context, namespaces) else {
                    return;
                };
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let read = read.await;
                    let _ = tx.send(Msg::Rollouts { context, read }).await;
                });
            }
        }
    }
}

impl Drop for Effects {
    fn drop(&mut self) {
        for (_, task) in std::mem::take(&mut self.scope_tasks) {
            task.abort();
        }
        abort(&mut self.detail_task);
        abort(&mut self.logs_task);
        abort(&mut self.prepare_task);
        // A running action stops with the console; the embedded executor resumes a half-done
        // plan on the next run, and a hand-off plan runs on in the controller.
        abort(&mut self.run_task);
    }
}

fn abort(task: &mut Option<JoinHandle<()>>) {
    if let Some(task) = task.take() {
        task.abort();
    }
}

/// Lines sent to the loop in one message at most (a 5,000-line tail arrives in a few).
const LOG_BATCH: usize = 500;

/// Pause before asking again for a log that is not there yet (no pod yet, a container waiting
/// to start), while the view stays open.
const LOG_RETRY: std::time::Duration = std::time::Duration::from_secs(3);

/// Streams one container's log to the loop in batches of the lines already read (no timer: a
/// quiet log sends each line as it comes), then says how it ended. The loop's channel is
/// bounded, so a flood waits here, never in the loop. A running container's log that is not
/// there yet is asked for again every few seconds, the reason shown meanwhile.
pub async fn stream_logs(
    logs: &dyn PodLogs,
    request: LogRequest,
    epoch: u64,
    tx: mpsc::Sender<Msg>,
) {
    use futures::StreamExt;
    let mut lines = loop {
        match logs.open(&request).await {
            Ok(lines) => break lines.ready_chunks(LOG_BATCH),
            Err(error) => {
                let again = request.follow
                    && matches!(
                        error,
                        LogError::PodMissing { .. } | LogError::Unavailable(_)
                    );
                let mut line = log_error_line(&request, &error);
                if again {
                    line.push_str(&format!(" (asking again every {} s)", LOG_RETRY.as_secs()));
                }
                let sent = tx
                    .send(Msg::LogEnded {
                        epoch,
                        error: Some(line),
                    })
                    .await;
                if !again || sent.is_err() {
                    return;
                }
                tokio::time::sleep(LOG_RETRY).await;
            }
        }
    };
    while let Some(batch) = lines.next().await {
        let mut good = Vec::with_capacity(batch.len());
        let mut broken = None;
        for line in batch {
            match line {
                Ok(line) => good.push(line),
                Err(error) => broken = Some(log_error_line(&request, &error)),
            }
        }
        if !good.is_empty() && tx.send(Msg::LogLines { epoch, lines: good }).await.is_err() {
            return;
        }
        if let Some(error) = broken {
            let _ = tx
                .send(Msg::LogEnded {
                    epoch,
                    error: Some(error),
                })
                .await;
            return;
        }
    }
    let _ = tx.send(Msg::LogEnded { epoch, error: None }).await;
}

/// The one line the logs view shows for a refused or broken stream.
fn log_error_line(request: &LogRequest, error: &LogError) -> String {
    match error {
        LogError::PodMissing { .. } => format!("no logs: {error}"),
        LogError::Forbidden(_) => format!(
            "no logs: {error} (reading them needs get pods/log in namespace {})",
            request.namespace
        ),
        LogError::Broken(_) => format!(
            "container {} of pod {}: {error}",
            request.container, request.pod
        ),
        LogError::Unavailable(_) | LogError::Failed(_) => format!(
            "no logs of container {} of pod {}: {error}",
            request.container, request.pod
        ),
    }
}

/// The longest a seed probe (its NodeID lookup, then the handshake) may take.
const PROBE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);
/// The handshake's own bound (upstream's default `p2p.handshake-timeout`).
const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Probes one seed off the loop: its NodeID from the node-key Secret or the sidecar when the
/// target has none yet (`lookup`: the fleet knows NodeIDs only of an opened node), then the
/// handshake.
async fn probe_seed(
    prober: Option<Arc<dyn SeedProber>>,
    lookup: Option<PortFuture<'static, Option<NodeIdLookup>>>,
    key: ObjectKey,
    mut target: ProbeTarget,
    tx: mpsc::Sender<Msg>,
) {
    let outcome = match prober {
        None => Err(SeedProbeError::Unavailable),
        Some(prober) => {
            let probe = async {
                if let Some(lookup) = lookup {
                    match lookup.await {
                        Some(NodeIdLookup::Found { node_id, source }) => {
                            target.node_id = Some(node_id);
                            target.node_id_source = source.to_string();
                        }
                        Some(NodeIdLookup::NotFound { reasons }) => {
                            target.node_id_source = reasons.join("; ");
                        }
                        None => {}
                    }
                }
                prober.probe(&target, HANDSHAKE_TIMEOUT).await
            };
            tokio::time::timeout(PROBE_DEADLINE, probe)
                .await
                .map_err(|_| SeedProbeError::TimedOut(PROBE_DEADLINE.as_secs()))
        }
    };
    let at = jiff::Timestamp::now();
    let _ = tx.send(Msg::SeedProbed { key, at, outcome }).await;
}

/// Writes one setting with `toml_edit` off the loop's thread (a small file, but still disk I/O).
pub(crate) async fn save_setting(path: PathBuf, setting: SavedSetting, tx: mpsc::Sender<Msg>) {
    let to_save = setting.clone();
    let result = tokio::task::spawn_blocking(move || match &to_save {
        SavedSetting::Theme(theme) => crate::config::edit::save_theme(&path, *theme),
        SavedSetting::Filter { context, filter } => {
            crate::config::edit::save_filter(&path, context, filter)
        }
    })
    .await
    .map_err(|e| SettingSaveError::Task(Arc::new(e)))
    .and_then(|saved| saved.map_err(|e| SettingSaveError::Write(Arc::new(e))));
    let _ = tx.send(Msg::SettingSaved { setting, result }).await;
}
