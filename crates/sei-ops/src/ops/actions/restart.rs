//! Restarting a node: its pod `<node>-0` is deleted so that its StatefulSet creates it again
//! (same spec, same volumes), then the new pod is waited for until it is Running and Ready.
//! No plan and no spec change: the controller sees nothing to do.
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use crate::actions::event::ActionKind;
use crate::actions::waves::pod_is_ready;
use crate::executor::lease::node_lease_name;
use crate::journal::Outcome;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::ports::access::PermissionCheck;
use crate::ports::{ClusterObject, ObjectKind, Propagation};

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("restart", "ConsolePodRestart");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND];

/// The longest the console waits for the new pod (bounded further by the driver's deadline).
const NEW_POD_DEADLINE: Duration = Duration::from_secs(300);
const NEW_POD_POLL: Duration = Duration::from_millis(500);

/// A restart as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartInput {
    pub node: String,
    /// Wait for the new pod to be Running and Ready.
    pub wait: bool,
    pub dry_run: bool,
}

/// The pod as the preview found it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodState {
    pub name: String,
    pub uid: String,
    pub phase: String,
    pub ready: bool,
    /// Container restarts, summed.
    pub restarts: i32,
    /// `status.startTime` (RFC 3339), once the kubelet started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
}

impl PodState {
    pub(crate) fn of(pod: &Pod) -> PodState {
        let status = pod.status.as_ref();
        PodState {
            name: pod.metadata.name.clone().unwrap_or_default(),
            uid: pod.metadata.uid.clone().unwrap_or_default(),
            phase: status
                .and_then(|s| s.phase.clone())
                .unwrap_or_else(|| "unknown".to_owned()),
            ready: pod_is_ready(pod),
            restarts: status
                .and_then(|s| s.container_statuses.as_ref())
                .map_or(0, |c| c.iter().map(|c| c.restart_count).sum()),
            started_at: status
                .and_then(|s| s.start_time.as_ref())
                .map(|t| t.0.to_string()),
        }
    }

    /// `Running, Ready, 2 restarts`.
    pub(crate) fn words(&self) -> String {
        let ready = if self.ready { "Ready" } else { "not Ready" };
        format!("{}, {ready}, {} restarts", self.phase, self.restarts)
    }
}

/// Everything known before the pod is deleted.
#[derive(Debug, Clone, PartialEq)]
pub struct RestartPrepared {
    pub input: RestartInput,
    pub namespace: String,
    /// The pod now; `None`: there is none to delete.
    pub pod: Option<PodState>,
    pub permissions: PermissionVerdict,
    pub confirm_names: Vec<String>,
    pub question: String,
}

impl RestartPrepared {
    fn pod_name(&self) -> String {
        format!("{}-0", self.input.node)
    }

    fn blocked(&self) -> Option<String> {
        self.pod.is_none().then(|| {
            format!(
                "pod {}/{} does not exist: its StatefulSet has created none, nothing to restart",
                self.namespace,
                self.pod_name()
            )
        })
    }

    fn text(&self) -> String {
        let (namespace, node, pod) = (&self.namespace, &self.input.node, self.pod_name());
        let mut text = format!(
            "restart {namespace}/{node}: delete pod {pod}; StatefulSet {node} creates it again \
             (same spec, same volumes: the data stays)\n"
        );
        match &self.pod {
            Some(state) => text.push_str(&format!("  pod now: {}\n", state.words())),
            None => text.push_str("  pod now: none\n"),
        }
        if self.input.wait {
            text.push_str(&format!(
                "  then: waits up to {} s for the new pod to be Running and Ready\n",
                NEW_POD_DEADLINE.as_secs()
            ));
        }
        if let Some(reason) = self.blocked() {
            text.push_str(&format!("✗ cannot run: {reason}\n"));
        }
        text
    }
}

/// The calls of a restart: reading the node and its pod, deleting the pod, the Event, the node's
/// Lease.
fn restart_checks(namespace: &str, node: &str) -> Vec<PermissionCheck> {
    let pod = format!("{node}-0");
    let lease = node_lease_name(node);
    vec![
        PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("get", "", "pods", namespace, pod.clone()),
        PermissionCheck::new("delete", "", "pods", namespace, pod),
        PermissionCheck::new("create", "", "events", namespace, ""),
        PermissionCheck::new(
            "get",
            "coordination.k8s.io",
            "leases",
            namespace,
            lease.clone(),
        ),
        PermissionCheck::new("create", "coordination.k8s.io", "leases", namespace, ""),
        PermissionCheck::new("update", "coordination.k8s.io", "leases", namespace, lease),
    ]
}

pub(crate) async fn read_pod(ops: &Ops<'_>, name: &str) -> Result<Option<Pod>, OpsError> {
    let namespace = ops.namespace();
    match ops
        .ports
        .cluster
        .get(ObjectKind::Pod, namespace, name)
        .await
    {
        Ok(Some(ClusterObject::Pod(pod))) => Ok(Some(pod)),
        Ok(_) => Ok(None),
        Err(source) => Err(OpsError::Cluster {
            context: format!("reading pod {namespace}/{name}"),
            source,
        }),
    }
}

/// Reads the node and its pod and checks every call (unless a dry run).
pub async fn prepare(ops: &Ops<'_>, input: RestartInput) -> Result<RestartPrepared, OpsError> {
    let node = ops.read_node(&input.node).await?;
    let pod = read_pod(ops, &format!("{}-0", input.node)).await?;
    let checks = restart_checks(ops.namespace(), &input.node);
    let permissions = ops.check(checks, !input.dry_run).await;
    let confirm_names = if needs_typed_name(&node) {
        vec![input.node.clone()]
    } else {
        Vec::new()
    };
    Ok(RestartPrepared {
        question: format!("restart {} (delete pod {}-0)?", input.node, input.node),
        namespace: ops.namespace().to_owned(),
        pod: pod.as_ref().map(PodState::of),
        input,
        permissions,
        confirm_names,
    })
}

impl Operation for RestartInput {
    type Prepared = RestartPrepared;

    fn kind(&self) -> ActionKind {
        crate::ops::actions::restart::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.node.clone()]
    }

    fn detail(&self) -> String {
        format!("delete pod {}-0", self.node)
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        format!("{namespace}/{} (pod {}-0)", self.node, self.node)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, RestartPrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes nothing of the SeiNode (it deletes the pod), and no controller carries it out.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &[],
            hands_off: false,
        }
    }
}

impl Previewed for RestartPrepared {
    fn kind(&self) -> ActionKind {
        crate::ops::actions::restart::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.input.node.clone()]
    }

    fn detail(&self) -> String {
        Operation::detail(&self.input)
    }

    fn text(&self) -> String {
        RestartPrepared::text(self)
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        let json = serde_json::json!({"event": "preview", "preview": {
            "namespace": self.namespace, "node": self.input.node, "pod": self.pod_name(),
            "current": self.pod, "blocked": self.blocked(),
        }});
        vec![PreviewLine::Preview {
            text: RestartPrepared::text(self),
            json,
        }]
    }

    fn refusal(&self) -> Option<OpsError> {
        if let Some(reason) = self.blocked() {
            return Some(OpsError::Step(format!("{reason}; nothing was changed")));
        }
        self.permissions.refusal()
    }

    fn permissions(&self) -> &PermissionVerdict {
        &self.permissions
    }

    fn confirm_names(&self) -> Vec<String> {
        self.confirm_names.clone()
    }

    fn question(&self) -> String {
        self.question.clone()
    }

    fn dry_run_end(&self) -> RunEnd {
        crate::ops::action::one_node_dry_run_end(
            &self.input.node,
            self.blocked().as_deref(),
            "dry run: nothing was changed",
        )
    }

    /// No plan: who would execute one does not matter.
    fn follows_a_plan(&self) -> bool {
        false
    }

    fn lease(&self) -> Option<String> {
        Some(self.input.node.clone())
    }

    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(restart(ops, self, report))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Deletes the pod (read again under the Lease), records it, and waits for the new one.
async fn restart(
    ops: &Ops<'_>,
    prepared: &RestartPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let namespace = ops.namespace();
    let name = prepared.input.node.as_str();
    let nodes = vec![name.to_owned()];
    let detail = Operation::detail(&prepared.input);
    let kind = crate::ops::actions::restart::KIND;
    let pod_name = prepared.pod_name();
    let node = ops.read_node(name).await?;
    let Some(pod) = read_pod(ops, &pod_name).await? else {
        return Err(OpsError::Step(format!(
            "pod {namespace}/{pod_name} is gone since the preview; nothing was changed"
        )));
    };
    let before = PodState::of(&pod);
    delete_pod(ops, &pod_name).await?;
    let what = format!(
        "pod {pod_name} deleted for its StatefulSet to create it again (was {})",
        before.words()
    );
    let uid = node.metadata.uid.clone().unwrap_or_default();
    ops.event(kind, name, &uid, &what, report).await;
    ops.journal(kind, &nodes, &detail, Outcome::Started, None, report);
    report.note(&Note::Info(what));
    if !prepared.input.wait {
        return Ok(RunEnd::done(
            "pod deleted; its StatefulSet creates it again; not waiting (--no-wait)",
        ));
    }
    let deadline = NEW_POD_DEADLINE.min(ops.settings.driver.deadline);
    let outcome = wait_new_pod(ops, &pod_name, &before.uid, deadline, report)
        .await
        .map(|(waited, _)| {
            format!(
                "pod {namespace}/{pod_name} created again: Running and Ready after {} s",
                waited.as_secs()
            )
        });
    Ok(ops.finish(kind, &nodes, &detail, name, outcome, report))
}

async fn delete_pod(ops: &Ops<'_>, pod_name: &str) -> Result<(), OpsError> {
    let namespace = ops.namespace();
    ops.ports
        .cluster
        .delete(ObjectKind::Pod, namespace, pod_name, Propagation::Default)
        .await
        .map_err(|source| OpsError::Cluster {
            context: format!("deleting pod {namespace}/{pod_name}"),
            source,
        })?;
    Ok(())
}

/// A pod restarted by [`restart_pod`]: the one deleted, and its successor Running and Ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Restarted {
    pub before: PodState,
    pub after: PodState,
    pub waited: Duration,
}

/// Deletes the pod `<node>-0` (`before`, as read) and waits for its StatefulSet's new one to be
/// Running and Ready (another UID), bounded by the driver's deadline: what another action's
/// restart step does (the address change: seid reads config.toml only at start).
pub(crate) async fn restart_pod(
    ops: &Ops<'_>,
    node: &str,
    before: &PodState,
    report: &dyn Report,
) -> Result<Restarted, OpsError> {
    let pod_name = format!("{node}-0");
    delete_pod(ops, &pod_name).await?;
    report.note(&Note::Info(format!(
        "pod {pod_name} deleted for its StatefulSet to create it again (was {})",
        before.words()
    )));
    let deadline = NEW_POD_DEADLINE.min(ops.settings.driver.deadline);
    let (waited, after) = wait_new_pod(ops, &pod_name, &before.uid, deadline, report).await?;
    Ok(Restarted {
        before: before.clone(),
        after,
        waited,
    })
}

/// Polls until a pod of another UID than `old_uid` is Running and Ready, saying each state the
/// new pod passes through; how long it took and the new pod, or why it is not Ready at the
/// deadline.
async fn wait_new_pod(
    ops: &Ops<'_>,
    pod_name: &str,
    old_uid: &str,
    deadline: Duration,
    report: &dyn Report,
) -> Result<(Duration, PodState), OpsError> {
    let started = tokio::time::Instant::now();
    let polls = (deadline.as_millis() / NEW_POD_POLL.as_millis()).max(1);
    let mut last = String::new();
    for attempt in 0..=polls {
        if attempt > 0 {
            tokio::time::sleep(NEW_POD_POLL).await;
        }
        let now = match read_pod(ops, pod_name).await {
            Ok(Some(pod)) if pod.metadata.uid.as_deref() != Some(old_uid) => {
                let state = PodState::of(&pod);
                if state.ready && state.phase == "Running" {
                    return Ok((started.elapsed(), state));
                }
                format!("new pod: {}", state.words())
            }
            Ok(Some(_)) => "the old pod is terminating".to_owned(),
            Ok(None) => "no pod yet".to_owned(),
            Err(err) => format!("cannot read the pod: {err}"),
        };
        if now != last {
            report.note(&Note::Info(format!("{pod_name}: {now}")));
            last = now;
        }
    }
    Err(OpsError::Step(format!(
        "pod {}/{pod_name} not Running and Ready {} s after its deletion: {last}",
        ops.namespace(),
        deadline.as_secs()
    )))
}
