//! Running an action after its preview and confirmation: the changes, the Event and journal
//! line per node, then following each plan. The commands print what [`Report`] receives; the
//! console shows it in its progress dialog.
use std::time::Instant;

use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::NodeKey;
use crate::actions::render_fix::{PlatformSource, render_failure_fix};
use crate::actions::waves::{Gate, plan_waves, wave_gate};
use crate::api::SeiNode;
use crate::config::{ExecutorMode, WaveDefaults};
use crate::executor::driver::{Driver, DriverConfig, DriverError, Persisted, Progress};
use crate::journal::Outcome;
use crate::planner::PlanContext;
use crate::platform::PlatformConfig;
use crate::ports::{Clock, ClusterApi, ClusterObject, ObjectKind, SidecarApi, SidecarTarget};
use crate::tasks::WorkloadRenderer;

use super::Recorder;
use super::follow::{ExecutorChoice, choose_executor, follow_plan};
use super::steps::{SeedRequest, StepError, create_seed, pin_image, set_address};

/// Plans the console follows for one node of a rollout: the plan found Active (an init plan),
/// the update plan after it, and one spare.
const MAX_PLANS_PER_ROLLOUT_NODE: usize = 3;

/// How often the wave gate re-reads a node and its pod.
const GATE_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Where notes and plan progress go.
pub trait Report: Send + Sync {
    /// A line for the operator ("wave 1 of 2: a", "a: plan X persisted", warnings).
    fn note(&self, message: &str);
    /// A progress event of `node`'s plan; `total` is the plan's task count when known.
    fn progress(&self, node: &str, progress: &Progress, total: usize);
}

/// How an action ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    pub ok: bool,
    /// The last line: what happened, or where it stopped and what to do.
    pub message: String,
    /// The node it stopped at.
    pub failed_node: Option<String>,
}

impl RunEnd {
    fn done(message: impl Into<String>) -> RunEnd {
        RunEnd {
            ok: true,
            message: message.into(),
            failed_node: None,
        }
    }

    fn failed(node: &str, message: impl Into<String>) -> RunEnd {
        RunEnd {
            ok: false,
            message: message.into(),
            failed_node: Some(node.to_owned()),
        }
    }
}

/// What an action works with; borrowed so the commands and the console can own the parts.
pub struct Runner<'a> {
    pub client: &'a kube::Client,
    pub cluster: &'a dyn ClusterApi,
    pub sidecar: &'a dyn SidecarApi,
    pub renderer: &'a dyn WorkloadRenderer,
    pub platform: &'a PlatformConfig,
    pub clock: &'a dyn Clock,
    pub driver_config: DriverConfig,
    pub recorder: Recorder,
    pub executor: ExecutorMode,
    pub controller_namespace: &'a str,
    /// Where `platform` came from, named in the fix of a render failure.
    pub platform_source: &'a PlatformSource,
}

impl Runner<'_> {
    pub fn driver(&self) -> Driver<'_> {
        Driver {
            cluster: self.cluster,
            sidecar: self.sidecar,
            renderer: self.renderer,
            clock: self.clock,
            config: self.driver_config.clone(),
        }
    }

    fn namespace(&self) -> &str {
        &self.recorder.namespace
    }

    fn journal(
        &self,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
        report: &dyn Report,
    ) {
        if let Err(err) = self
            .recorder
            .journal(nodes, detail, outcome, reason, self.clock)
        {
            report.note(&format!("warning: {err}"));
        }
    }

    async fn event(&self, node: &str, uid: &str, what: &str, report: &dyn Report) {
        if let Err(err) = self.recorder.event(node, uid, what, self.clock).await {
            report.note(&format!("warning: {err}"));
        }
    }

    /// Follows `node`'s Active plan: `Ok(None)` when it completed, `Ok(Some(reason))` when it
    /// failed, `Err` when it could not be followed.
    pub async fn follow(&self, node: &str, report: &dyn Report) -> Result<Option<String>, String> {
        let choice = self.executor_choice().await?;
        if let Some(note) = &choice.note {
            report.note(note);
        }
        // The plan was persisted before following: its task count numbers the progress lines.
        let mut total = match self.cluster.get_seinode(self.namespace(), node).await {
            Ok(Some(stored)) => stored
                .status
                .as_ref()
                .and_then(|s| s.plan.as_ref())
                .map_or(0, |plan| plan.tasks.len()),
            _ => 0,
        };
        let mut emit = |p: &Progress| {
            if let Progress::PlanResumed { total: t, .. } = p {
                total = *t;
            }
            if let Progress::PlanPersisted { tasks, .. } = p {
                total = tasks.len();
            }
            report.progress(node, p, total);
        };
        let driver = self.driver();
        follow_plan(&driver, choice.embedded, self.namespace(), node, &mut emit)
            .await
            .map_err(|e| {
                let fix = match &e {
                    DriverError::RenderFailed(failure) => failure
                        .render_error()
                        .and_then(|error| render_failure_fix(error, self.platform_source)),
                    _ => None,
                };
                let fix = fix.map(|f| format!("; fix: {f}")).unwrap_or_default();
                format!("{}/{node}: {e}{fix}", self.namespace())
            })
    }

    /// Pins `image` on `nodes` in waves; each wave starts when the previous one completed, the
    /// first failure halts the rest. Without `wait`, every node is changed at once.
    pub async fn rollout(
        &self,
        nodes: &[SeiNode],
        image: &ImageRef,
        waves: WaveDefaults,
        wait: bool,
        report: &dyn Report,
    ) -> Result<RunEnd, StepError> {
        let detail = format!("image {image}");
        let waves = plan_waves(nodes, waves.canary, waves.batch);
        if !wait && waves.len() > 1 {
            report.note("--no-wait: every node is changed now; waves need waiting");
        }
        let mut done = 0;
        for (index, wave) in waves.iter().enumerate() {
            let names: Vec<&str> = wave.iter().map(SeiNode::name).collect();
            report.note(&format!(
                "wave {} of {}: {}",
                index + 1,
                waves.len(),
                names.join(", ")
            ));
            let mut to_follow = Vec::new();
            let mut halted = None;
            for node in wave {
                let name = node.name();
                let persisted = pin_image(
                    self.client,
                    &self.driver(),
                    self.namespace(),
                    name,
                    image,
                    &self.platform.images.sidecar,
                )
                .await?;
                let uid = node.metadata.uid.as_deref().unwrap_or("");
                let what = format!("image {} -> {image}", node.spec.image);
                self.event(name, uid, &what, report).await;
                match &persisted {
                    Persisted::Built(plan) => {
                        report.note(&format!("{name}: plan {} persisted", plan.id));
                        to_follow.push(name);
                    }
                    // An init (or earlier) plan was Active: it goes first, the image after it.
                    Persisted::Resumed(plan) => {
                        report.note(&format!(
                            "{name}: plan {} already active; following it first",
                            plan.id
                        ));
                        to_follow.push(name);
                    }
                    Persisted::None(reason) => {
                        // Not on the image and nothing will take it there: this wave failed.
                        let reason = format!("no plan: {reason}");
                        self.journal(
                            &[name.to_owned()],
                            &detail,
                            Outcome::Failed,
                            Some(reason.clone()),
                            report,
                        );
                        halted.get_or_insert((name, reason));
                        continue;
                    }
                }
                self.journal(&[name.to_owned()], &detail, Outcome::Started, None, report);
            }
            if !wait {
                to_follow.clear();
            }
            let deadline = Instant::now() + self.driver_config.deadline;
            let image_text = image.to_string();
            let results = futures::future::join_all(
                to_follow
                    .iter()
                    .map(|name| self.follow_to_image(name, &image_text, deadline, report)),
            )
            .await;
            for (name, result) in to_follow.iter().zip(results) {
                let one = [(*name).to_owned()];
                match result {
                    Ok(None) => self.journal(&one, &detail, Outcome::Succeeded, None, report),
                    Ok(Some(reason)) | Err(reason) => {
                        self.journal(&one, &detail, Outcome::Failed, Some(reason.clone()), report);
                        halted.get_or_insert((*name, reason));
                    }
                }
            }
            done += wave.len();
            if let Some((name, reason)) = halted {
                let left = nodes.len() - done;
                return Ok(RunEnd::failed(
                    name,
                    format!(
                        "rollout halted at {}/{name}: {reason}; {left} node(s) not started; run the same command again to resume",
                        self.namespace()
                    ),
                ));
            }
        }
        Ok(RunEnd::done(if wait {
            "rollout complete"
        } else {
            "image pinned and plans persisted; not waiting (--no-wait)"
        }))
    }

    /// Follows `name`'s plan, then the plans its completion still leaves the node needing to
    /// run `image`, then waits for the wave gate. A plan Active before the pin (an init plan)
    /// ends without the image, and an init plan observes no image at all: the controller's next
    /// reconcile builds the update plan. With no controller live the console is that reconcile
    /// and persists and follows the next plan itself (a bounded number, so a planner that keeps
    /// building plans cannot loop).
    async fn follow_to_image(
        &self,
        name: &str,
        image: &str,
        deadline: Instant,
        report: &dyn Report,
    ) -> Result<Option<String>, String> {
        let namespace = self.namespace();
        for _ in 0..MAX_PLANS_PER_ROLLOUT_NODE {
            if let Some(failed) = self.follow(name, report).await? {
                return Ok(Some(failed));
            }
            let node = self.read_node(name).await?;
            let on_image = node
                .status
                .as_ref()
                .is_some_and(|s| s.current_image() == image);
            if on_image || !self.executor_choice().await?.embedded {
                break;
            }
            match self
                .driver()
                .persist(namespace, name, &self.platform.images.sidecar)
                .await
            {
                Ok(Persisted::Built(plan)) => {
                    report.note(&format!("{name}: plan {} persisted", plan.id));
                }
                Ok(Persisted::Resumed(_)) => {}
                Ok(Persisted::None(_)) => break,
                Err(e) => return Err(format!("{namespace}/{name}: {e}")),
            }
        }
        self.await_gate(name, image, deadline).await
    }

    /// The stored SeiNode `name`; gone is an error.
    async fn read_node(&self, name: &str) -> Result<SeiNode, String> {
        let namespace = self.namespace();
        self.cluster
            .get_seinode(namespace, name)
            .await
            .map_err(|e| format!("{namespace}/{name}: {e}"))?
            .ok_or_else(|| format!("SeiNode {namespace}/{name} disappeared"))
    }

    /// Who executes plans now: the console (`embedded`, or `auto` with no live controller) or
    /// the controller.
    async fn executor_choice(&self) -> Result<ExecutorChoice, String> {
        choose_executor(
            self.executor,
            self.cluster,
            self.controller_namespace,
            self.clock.now(),
        )
        .await
        .map_err(|e| format!("reading the controller's Lease: {e}"))
    }

    /// Waits until the node runs the image and its pod is Ready (the wave gate after a Complete
    /// plan), polling until `deadline`. `Ok(Some(reason))` when the deadline passed first.
    async fn await_gate(
        &self,
        name: &str,
        image: &str,
        deadline: Instant,
    ) -> Result<Option<String>, String> {
        let namespace = self.namespace();
        loop {
            let node = self.read_node(name).await?;
            let pod = self
                .cluster
                .get(ObjectKind::Pod, namespace, &format!("{name}-0"))
                .await
                .map_err(|e| format!("{namespace}/{name}-0: {e}"))?;
            let pod = match &pod {
                Some(ClusterObject::Pod(pod)) => Some(pod),
                _ => None,
            };
            match wave_gate(&node, pod, image) {
                Gate::Passed => return Ok(None),
                Gate::Waiting(why) if Instant::now() >= deadline => {
                    return Ok(Some(format!("plan complete but {why} at the deadline")));
                }
                Gate::Waiting(_) => tokio::time::sleep(GATE_POLL).await,
            }
        }
    }

    /// Sets `node`'s external address, persists the update plan carrying it, and follows it.
    pub async fn address(
        &self,
        node: &SeiNode,
        address: &ExternalAddress,
        ctx: &PlanContext,
        wait: bool,
        report: &dyn Report,
    ) -> Result<RunEnd, StepError> {
        let name = node.name();
        let nodes = vec![name.to_owned()];
        let detail = format!("external address {address}");
        let (patched, plan) = set_address(
            self.client,
            self.cluster,
            self.namespace(),
            name,
            address,
            ctx,
        )
        .await?;
        let uid = patched.metadata.uid.clone().unwrap_or_default();
        let from = match node.spec.external_address() {
            "" => "(unset)",
            from => from,
        };
        self.event(
            name,
            &uid,
            &format!("external address {from} -> {address}"),
            report,
        )
        .await;
        report.note(&format!("{name}: plan {} persisted", plan.id));
        self.journal(&nodes, &detail, Outcome::Started, None, report);
        if !wait {
            return Ok(RunEnd::done(
                "address set and update plan persisted; not waiting (--no-wait)",
            ));
        }
        Ok(match self.follow(name, report).await {
            Ok(None) => {
                self.journal(&nodes, &detail, Outcome::Succeeded, None, report);
                RunEnd::done("external address propagated")
            }
            Ok(Some(reason)) | Err(reason) => {
                self.journal(
                    &nodes,
                    &detail,
                    Outcome::Failed,
                    Some(reason.clone()),
                    report,
                );
                RunEnd::failed(name, format!("{}/{name}: {reason}", self.namespace()))
            }
        })
    }

    /// Creates the seed (and the Secret of a generated key), follows its init plan, then checks
    /// that the sidecar reports the key's NodeID. `verified` in the result says it did.
    pub async fn seed(
        &self,
        request: &SeedRequest,
        key: &NodeKey,
        generated: bool,
        wait: bool,
        report: &dyn Report,
    ) -> Result<(RunEnd, bool), StepError> {
        let name = request.name.as_str();
        let nodes = vec![name.to_owned()];
        let node_id = key.node_id();
        let detail = format!(
            "seed for chain {} with image {}",
            request.chain_id, request.image
        );
        let created = create_seed(self.client, request, generated.then_some(key)).await?;
        let uid = created.metadata.uid.clone().unwrap_or_default();
        let what = format!(
            "seed created with NodeID {node_id} (Secret {})",
            request.secret_name
        );
        self.event(name, &uid, &what, report).await;
        let detail_with_id = format!("{detail}, NodeID {node_id}");
        self.journal(&nodes, &detail_with_id, Outcome::Started, None, report);
        if !wait {
            return Ok((RunEnd::done("seed created; not waiting (--no-wait)"), false));
        }
        let persisted = self
            .driver()
            .persist(self.namespace(), name, &self.platform.images.sidecar)
            .await
            .map_err(|e| StepError(format!("{}/{name}: {e}", self.namespace())))?;
        if let Persisted::None(reason) = &persisted {
            return Err(StepError(format!("{name}: no init plan: {reason}")));
        }
        let failed = |reason: String| {
            self.journal(
                &nodes,
                &detail,
                Outcome::Failed,
                Some(reason.clone()),
                report,
            );
            (RunEnd::failed(name, reason), false)
        };
        match self.follow(name, report).await {
            Ok(None) => {}
            Ok(Some(reason)) => {
                return Ok(failed(format!("{}/{name}: {reason}", self.namespace())));
            }
            // A render failure (with its fix) or a driver error, already naming the node.
            Err(reason) => return Ok(failed(reason)),
        }
        let target = SidecarTarget::new(self.namespace(), name);
        let reported = read_node_id(self.sidecar, &target).await.map_err(|e| {
            StepError(format!(
                "the seed runs but its sidecar's node ID could not be read: {e}"
            ))
        })?;
        if reported != node_id {
            return Ok(failed(format!(
                "the sidecar reports NodeID {reported}, the key says {node_id}"
            )));
        }
        self.journal(&nodes, &detail_with_id, Outcome::Succeeded, None, report);
        let message = match &request.external_address {
            Some(address) => format!("seed running; peer {}", key.peer_string(address)),
            None => {
                format!("seed running; NodeID {node_id} (no external address for a peer string)")
            }
        };
        Ok((RunEnd::done(message), true))
    }
}

/// How long a Running seed's sidecar may keep answering "node key not there yet".
const NODE_ID_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);
const NODE_ID_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// `/v0/node-id`, retried while the answer is transient (the key file can appear a moment after
/// the pod starts), bounded by [`NODE_ID_DEADLINE`].
async fn read_node_id(
    sidecar: &dyn SidecarApi,
    target: &SidecarTarget,
) -> Result<String, crate::ports::SidecarError> {
    let deadline = tokio::time::Instant::now() + NODE_ID_DEADLINE;
    loop {
        match sidecar.node_id(target).await {
            Err(err) if err.is_transient() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(NODE_ID_POLL).await;
            }
            answer => return answer,
        }
    }
}
