//! Pausing and resuming a node: `spec.paused` set or cleared by one merge patch that also carries
//! the node's console-action record. Upstream, a paused node's reconcile syncs only its
//! StatefulSet, scaled to zero replicas (the pod terminates, the volumes stay), and returns:
//! no plan starts or advances until the field is cleared. A Failed node is left alone
//! (upstream: no effect on nodes in PhaseFailed). With a live controller its reconcile scales
//! the StatefulSet; with the embedded executor the console applies it once itself, as that
//! reconcile would. Then the pod is waited for (gone, or Running and Ready again), bounded.
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use crate::actions::event::ActionKind;
use crate::actions::statefulset_diff::{StatefulSetPreview, statefulset_preview, statefulset_text};
use crate::actions::waves::pod_is_ready;
use crate::api::{Phase, SeiNode};
use crate::executor::lease::node_lease_name;
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::ports::access::PermissionCheck;
use crate::ports::{ClusterObject, ObjectKind};
use crate::tasks::TaskEnv;
use crate::tasks::apply_statefulset::sync_statefulset;

/// The journal's and Events' names of the two actions.
pub const PAUSE: ActionKind = ActionKind::new("pause", "ConsoleNodePause");
pub const RESUME: ActionKind = ActionKind::new("resume", "ConsoleNodeResume");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[PAUSE, RESUME];

/// The longest the console waits for the pod to go or come back.
const POD_DEADLINE: Duration = Duration::from_secs(300);
const POD_POLL: Duration = Duration::from_millis(500);

/// A pause (`paused: true`) or resume as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PauseInput {
    pub node: String,
    /// `true`: pause; `false`: resume.
    pub paused: bool,
    /// Wait for the pod to be gone (pause) or Running and Ready (resume).
    pub wait: bool,
    pub dry_run: bool,
}

impl PauseInput {
    fn verb(&self) -> &'static str {
        if self.paused { "pause" } else { "resume" }
    }
}

/// Everything known before the patch.
#[derive(Debug, Clone, PartialEq)]
pub struct PausePrepared {
    pub input: PauseInput,
    pub namespace: String,
    /// The StatefulSet the node gets, dry-run applied over the live one.
    pub statefulset: StatefulSetPreview,
    /// `Running, Ready` of pod `<node>-0`, `None`: no pod.
    pub pod: Option<String>,
    /// Who scales the StatefulSet: the controller (its holder) or this console.
    pub embedded: bool,
    /// Already as asked: nothing to do.
    pub already: Option<String>,
    /// Why it cannot run (a Failed node).
    pub blocked: Option<String>,
    pub permissions: PermissionVerdict,
    pub confirm_names: Vec<String>,
}

fn pod_words(pod: &Pod) -> String {
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "unknown".to_owned());
    let ready = if pod_is_ready(pod) {
        "Ready"
    } else {
        "not Ready"
    };
    format!("{phase}, {ready}")
}

async fn read_pod(ops: &Ops<'_>, name: &str) -> Result<Option<Pod>, OpsError> {
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

/// The node with `spec.paused` as asked.
fn as_asked(node: &SeiNode, paused: bool) -> SeiNode {
    let mut node = node.clone();
    node.spec.paused = Some(paused);
    node
}

/// The calls: the node read and patched, the pod read, the Event, the node's Lease, and with
/// the embedded executor the StatefulSet applied.
fn checks(namespace: &str, node: &str, embedded: bool) -> Vec<PermissionCheck> {
    let lease = node_lease_name(node);
    let mut checks = vec![
        PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("get", "", "pods", namespace, format!("{node}-0")),
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
    ];
    if embedded {
        checks.push(PermissionCheck::new(
            "get",
            "apps",
            "statefulsets",
            namespace,
            node,
        ));
        checks.push(PermissionCheck::new(
            "patch",
            "apps",
            "statefulsets",
            namespace,
            node,
        ));
    }
    checks
}

/// Reads the node and its pod, previews the StatefulSet it gets, checks every call.
pub async fn prepare(ops: &Ops<'_>, input: PauseInput) -> Result<PausePrepared, OpsError> {
    let (namespace, name) = (ops.namespace(), input.node.as_str());
    let node = ops.read_node(name).await?;
    let pod = read_pod(ops, &format!("{name}-0")).await?;
    let embedded = ops.executor_choice().await?.embedded;
    let statefulset = statefulset_preview(
        ops.ports.cluster,
        ops.ports.renderer,
        &as_asked(&node, input.paused),
    )
    .await;
    let failed = node.status.as_ref().and_then(|s| s.phase) == Some(Phase::Failed);
    let blocked = failed.then(|| {
        format!(
            "{namespace}/{name} is Failed: spec.paused has no effect on nodes in PhaseFailed; \
             delete and recreate to recover from a failed node"
        )
    });
    let already = (node.spec.is_paused() == input.paused).then(|| {
        let state = if input.paused { "paused" } else { "not paused" };
        format!("{namespace}/{name} is already {state}: nothing to do")
    });
    let permissions = ops
        .check(checks(namespace, name, embedded), !input.dry_run)
        .await;
    Ok(PausePrepared {
        namespace: namespace.to_owned(),
        statefulset,
        pod: pod.as_ref().map(pod_words),
        embedded,
        already,
        blocked,
        permissions,
        confirm_names: if needs_typed_name(&node) {
            vec![name.to_owned()]
        } else {
            Vec::new()
        },
        input,
    })
}

impl PausePrepared {
    fn text(&self) -> String {
        let (namespace, node) = (&self.namespace, &self.input.node);
        let mut text = if self.input.paused {
            format!(
                "pause {namespace}/{node}: spec.paused -> true; reconciliation is frozen (no plan \
                 starts or advances) and StatefulSet {node} scales to 0 replicas: pod {node}-0 \
                 terminates (its volumes and data stay)\n"
            )
        } else {
            format!(
                "resume {namespace}/{node}: spec.paused -> false; reconciliation goes on and \
                 StatefulSet {node} scales back: pod {node}-0 starts again\n"
            )
        };
        let pod = self.pod.as_deref().unwrap_or("none");
        text.push_str(&format!("  pod now: {pod}\n"));
        let mut diff = String::new();
        statefulset_text(&mut diff, &self.statefulset);
        for line in diff.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        text.push_str(if self.embedded {
            "  the console applies the StatefulSet itself (embedded executor: no live controller)\n"
        } else {
            "  the controller's reconcile applies the StatefulSet\n"
        });
        if self.input.wait {
            let until = if self.input.paused {
                "gone"
            } else {
                "Running and Ready"
            };
            text.push_str(&format!(
                "  then: waits up to {} s for pod {node}-0 to be {until}\n",
                POD_DEADLINE.as_secs()
            ));
        }
        if let Some(reason) = self.blocked.as_ref().or(self.already.as_ref()) {
            text.push_str(&format!("✗ cannot run: {reason}\n"));
        }
        text
    }
}

impl Operation for PauseInput {
    type Prepared = PausePrepared;

    fn kind(&self) -> ActionKind {
        if self.paused { PAUSE } else { RESUME }
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.node.clone()]
    }

    fn detail(&self) -> String {
        format!("spec.paused {}", self.paused)
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        let effect = if self.paused {
            "StatefulSet to 0, pod terminates"
        } else {
            "StatefulSet back, pod starts"
        };
        format!("{} {namespace}/{} ({effect})", self.verb(), self.node)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, PausePrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes `spec.paused`; a live controller applies the StatefulSet.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &["spec.paused"],
            hands_off: true,
        }
    }
}

impl Previewed for PausePrepared {
    fn kind(&self) -> ActionKind {
        Operation::kind(&self.input)
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.input.node.clone()]
    }

    fn detail(&self) -> String {
        Operation::detail(&self.input)
    }

    fn text(&self) -> String {
        PausePrepared::text(self)
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        let json = serde_json::json!({"event": "preview", "preview": {
            "namespace": self.namespace, "node": self.input.node, "paused": self.input.paused,
            "pod": self.pod, "statefulset": self.statefulset, "embedded": self.embedded,
            "already": self.already, "blocked": self.blocked,
        }});
        vec![PreviewLine::Preview {
            text: PausePrepared::text(self),
            json,
        }]
    }

    fn refusal(&self) -> Option<OpsError> {
        if let Some(reason) = self.blocked.as_ref().or(self.already.as_ref()) {
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
        let node = &self.input.node;
        if self.input.paused {
            format!("pause {node} (its pod {node}-0 terminates)?")
        } else {
            format!("resume {node} (its pod {node}-0 starts again)?")
        }
    }

    /// Already paused (or not): the command says so and asks nothing.
    fn nothing_to_do(&self) -> Option<String> {
        self.already.clone()
    }

    fn dry_run_end(&self) -> RunEnd {
        crate::ops::action::one_node_dry_run_end(
            &self.input.node,
            self.blocked.as_deref(),
            "dry run: nothing was changed",
        )
    }

    /// No plan is persisted: who would execute one matters only for the StatefulSet, which the
    /// preview names.
    fn follows_a_plan(&self) -> bool {
        false
    }

    fn lease(&self) -> Option<String> {
        Some(self.input.node.clone())
    }

    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(pause(ops, self, report))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Patches `spec.paused` with the record, applies the StatefulSet when no controller will,
/// records the Event and journal line, and waits for the pod.
async fn pause(
    ops: &Ops<'_>,
    prepared: &PausePrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let input = &prepared.input;
    let (namespace, name) = (ops.namespace(), input.node.as_str());
    let (kind, nodes, detail) = (
        Operation::kind(input),
        vec![name.to_owned()],
        input.detail(),
    );
    // Read now, under the Lease: the record appends to the node's record as it is.
    let stored = ops.read_node(name).await?;
    let what = format!(
        "spec.paused {} -> {}",
        stored.spec.is_paused(),
        input.paused
    );
    let record = ops.action_record(kind, Some(&stored), &what, None, report);
    let mut patch = serde_json::json!({"spec": {"paused": input.paused}});
    console_actions::add_to_patch(&mut patch, &record);
    let mut patched = ops
        .ports
        .cluster
        .patch_seinode(namespace, name, &patch)
        .await
        .map_err(OpsError::cluster(format!("patching spec.paused of {name}")))?;
    let uid = patched.metadata.uid.clone().unwrap_or_default();
    ops.event(kind, name, &uid, &what, report).await;
    ops.journal(kind, &nodes, &detail, Outcome::Started, None, report);
    report.note(&Note::Info(format!("{namespace}/{name}: {what}")));
    if prepared.embedded {
        let env = TaskEnv {
            cluster: ops.ports.cluster,
            sidecar: ops.ports.sidecar,
            renderer: ops.ports.renderer,
            now: ops.ports.clock.now(),
        };
        if let Err(err) = sync_statefulset(&env, &mut patched).await {
            let why = OpsError::Step(format!(
                "spec.paused is set but StatefulSet {name} was not applied: {err}"
            ));
            return Ok(ops.finish(kind, &nodes, &detail, name, Err(why), report));
        }
        report.note(&Note::Info(format!(
            "StatefulSet {name} applied by the console (embedded executor)"
        )));
    }
    if !input.wait {
        return Ok(RunEnd::done(format!(
            "spec.paused is {}; not waiting (--no-wait)",
            input.paused
        )));
    }
    let outcome = wait_pod(ops, name, input.paused, report).await;
    Ok(ops.finish(kind, &nodes, &detail, name, outcome, report))
}

/// Polls pod `<node>-0` until it is gone (`paused`) or Running and Ready, saying each state it
/// passes through.
async fn wait_pod(
    ops: &Ops<'_>,
    node: &str,
    paused: bool,
    report: &dyn Report,
) -> Result<String, OpsError> {
    let pod_name = format!("{node}-0");
    let namespace = ops.namespace();
    let deadline = POD_DEADLINE.min(ops.settings.driver.deadline);
    let started = tokio::time::Instant::now();
    let polls = (deadline.as_millis() / POD_POLL.as_millis()).max(1);
    let mut last = String::new();
    for attempt in 0..=polls {
        if attempt > 0 {
            tokio::time::sleep(POD_POLL).await;
        }
        let now = match read_pod(ops, &pod_name).await {
            Ok(None) if paused => {
                return Ok(format!(
                    "{namespace}/{node} paused: pod {pod_name} gone after {} s",
                    started.elapsed().as_secs()
                ));
            }
            Ok(Some(pod)) if !paused && pod_is_ready(&pod) && running(&pod) => {
                return Ok(format!(
                    "{namespace}/{node} resumed: pod {pod_name} Running and Ready after {} s",
                    started.elapsed().as_secs()
                ));
            }
            Ok(Some(pod)) if pod.metadata.deletion_timestamp.is_some() => "terminating".to_owned(),
            Ok(Some(pod)) => pod_words(&pod),
            Ok(None) => "no pod yet".to_owned(),
            Err(err) => format!("cannot read the pod: {err}"),
        };
        if now != last {
            report.note(&Note::Info(format!("{pod_name}: {now}")));
            last = now;
        }
    }
    let until = if paused { "gone" } else { "Running and Ready" };
    Err(OpsError::Step(format!(
        "pod {namespace}/{pod_name} not {until} {} s after spec.paused was set to {paused}: {last}",
        deadline.as_secs()
    )))
}

fn running(pod: &Pod) -> bool {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
}
