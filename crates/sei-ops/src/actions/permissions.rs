//! Every Kubernetes call an operator action will make, as permission checks asked before the
//! first change (SelfSubjectAccessReview, `kube::access`). The list follows the code paths: the
//! action's own calls (selecting nodes, the spec change, the `Console*` Event), persisting the
//! plan, and — when the console executes the plan itself — the embedded executor's calls: its
//! node Lease, status writes, Events, and the calls each planned task type declares
//! (`tasks::api_calls`), with the sidecar calls through the API server's pod proxy when that
//! transport is used.
use crate::api::{PlanPhase, SeiNode, TaskKind, TaskPlan};
use crate::config::ExecutorMode;
use crate::executor::lease::{CONTROLLER_LEASE_NAME, node_lease_name};
use crate::platform::CONFIG_MAP_NAME;
pub use crate::ports::SidecarReach;
use crate::ports::access::PermissionCheck;
use crate::tasks::api_calls::{ApiCall, CallObject, SidecarCall, TaskCalls, task_calls};

impl FromIterator<PermissionCheck> for Checks {
    fn from_iter<I: IntoIterator<Item = PermissionCheck>>(iter: I) -> Self {
        let mut checks = Checks::default();
        checks.extend(iter);
        checks
    }
}

/// How the plan of an action is executed, which decides the calls beyond the action's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutionScope {
    pub executor: ExecutorMode,
    /// How sidecar calls travel, and so what they need.
    pub sidecar_reach: SidecarReach,
    /// Namespace of the controller's leader Lease (read in `auto`) and its ConfigMap.
    pub controller_namespace: String,
    /// The platform config comes from the controller's ConfigMap (no `--platform-config`).
    pub reads_platform_config_map: bool,
}

/// An ordered list of checks without repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checks(Vec<PermissionCheck>);

impl Checks {
    pub fn push(&mut self, check: PermissionCheck) {
        if !self.0.contains(&check) {
            self.0.push(check);
        }
    }

    pub fn extend(&mut self, checks: impl IntoIterator<Item = PermissionCheck>) {
        for check in checks {
            self.push(check);
        }
    }

    pub fn as_slice(&self) -> &[PermissionCheck] {
        &self.0
    }

    pub fn into_vec(self) -> Vec<PermissionCheck> {
        self.0
    }
}

fn check(
    verb: &'static str,
    group: &'static str,
    resource: &'static str,
    namespace: &str,
    name: impl Into<String>,
) -> PermissionCheck {
    PermissionCheck::new(verb, group, resource, namespace, name)
}

/// The tasks the executor will run for a node: the node's Active plan (which runs first, to
/// its end), then the plan about to be persisted after it.
pub fn tasks_to_run(node: &SeiNode, new_plan: Option<&TaskPlan>) -> Vec<TaskKind> {
    let active = node
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .filter(|p| p.phase == PlanPhase::Active);
    active
        .into_iter()
        .chain(new_plan)
        .flat_map(|plan| plan.tasks.iter().map(|t| t.kind.clone()))
        .collect()
}

/// `rollout`: for each node (name and the tasks it will run), the spec change, the plan and,
/// unless `--no-wait`, the wave gate; listing first when nodes are selected by label or mode.
pub fn rollout_checks(
    scope: &ExecutionScope,
    namespace: &str,
    nodes: &[(String, Vec<TaskKind>)],
    selected: bool,
    waits: bool,
) -> Checks {
    let mut checks = Checks::default();
    if selected {
        checks.extend(select_nodes_checks(namespace));
    }
    for (node, tasks) in nodes {
        checks.extend(pod_needs_checks(namespace));
        checks.extend(spec_change_checks(namespace, node));
        checks.extend(plan_checks(scope, namespace, node, tasks));
        if waits {
            checks.extend(wave_gate_checks(namespace, node));
        }
    }
    checks
}

/// A rollout's health gate: the node's RPC read through a port-forward to its pod (port 26657).
pub fn health_gate_checks(namespace: &str, node: &str) -> Vec<PermissionCheck> {
    let pod = format!("{node}-0");
    vec![check("create", "", "pods", namespace, &pod).subresource("portforward")]
}

/// `address`: the spec change and the update plan carrying the new address.
pub fn address_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    tasks: &[TaskKind],
) -> Checks {
    let mut checks: Checks = pod_needs_checks(namespace).into_iter().collect();
    checks.extend(spec_change_checks(namespace, node));
    checks.extend(plan_checks(scope, namespace, node, tasks));
    checks
}

/// The seed's node key: a new Secret, or an existing one that is only read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedKey<'a> {
    Generated,
    Existing(&'a str),
}

/// `seed create`: the Secret (or reading it), the SeiNode, its Event and its init plan.
pub fn seed_create_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    key: SeedKey<'_>,
    tasks: &[TaskKind],
) -> Checks {
    let mut checks: Checks = [
        match key {
            SeedKey::Generated => check("create", "", "secrets", namespace, ""),
            SeedKey::Existing(secret) => check("get", "", "secrets", namespace, secret),
        },
        check("create", "sei.io", "seinodes", namespace, ""),
        check("create", "", "events", namespace, ""),
        // Waiting for the seed's pod to be Ready before reporting it running.
        check("list", "", "pods", namespace, ""),
    ]
    .into_iter()
    .collect();
    checks.extend(pod_needs_checks(namespace));
    checks.extend(plan_checks(scope, namespace, node, tasks));
    checks
}

/// The preview reads the ServiceAccount the rendered pod runs as (a missing one blocks).
pub fn pod_needs_checks(namespace: &str) -> Vec<PermissionCheck> {
    vec![check("get", "", "serviceaccounts", namespace, "")]
}

/// Listing the SeiNodes of a namespace (rollout by `--selector` / `--mode`).
pub fn select_nodes_checks(namespace: &str) -> Vec<PermissionCheck> {
    vec![check("list", "sei.io", "seinodes", namespace, "")]
}

/// Changing one SeiNode's spec (`patch`) and recording the `Console*` Event on it.
pub fn spec_change_checks(namespace: &str, node: &str) -> Vec<PermissionCheck> {
    vec![
        check("get", "sei.io", "seinodes", namespace, node),
        check("patch", "sei.io", "seinodes", namespace, node),
        check("create", "", "events", namespace, ""),
    ]
}

/// The rollout's wave gate: the node and its pod are read until it runs the image and is Ready.
pub fn wave_gate_checks(namespace: &str, node: &str) -> Vec<PermissionCheck> {
    vec![
        check("get", "sei.io", "seinodes", namespace, node),
        check("get", "", "pods", namespace, format!("{node}-0")),
    ]
}

/// Persisting `tasks` as the node's plan and following it to the end with `scope`'s executor.
pub fn plan_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    tasks: &[TaskKind],
) -> Vec<PermissionCheck> {
    let mut checks = Checks::default();
    if scope.reads_platform_config_map {
        checks.push(check(
            "get",
            "",
            "configmaps",
            &scope.controller_namespace,
            CONFIG_MAP_NAME,
        ));
    }
    // Persisting: read the node, probe a Running node's sidecar, write the plan into status.
    checks.push(check("get", "sei.io", "seinodes", namespace, node));
    checks.extend(sidecar_checks(
        scope,
        namespace,
        node,
        &[SidecarCall::Healthz],
    ));
    checks.push(check("patch", "sei.io", "seinodes", namespace, node).subresource("status"));
    // A plan that does not progress names the Warning events of the node's StatefulSet and pod.
    checks.push(check("list", "", "events", namespace, ""));
    // `auto` reads the controller's Lease to choose; the embedded executor reads it before
    // every step, never executing beside a live controller.
    if scope.executor != ExecutorMode::Controller {
        checks.push(check(
            "get",
            "coordination.k8s.io",
            "leases",
            &scope.controller_namespace,
            CONTROLLER_LEASE_NAME,
        ));
    }
    // A live controller executes the plan; the console only reads the node. `auto` may fall
    // back to the embedded executor, so it needs everything that one does.
    if scope.executor != ExecutorMode::Controller {
        checks.extend(embedded_executor_checks(scope, namespace, node, tasks));
    }
    checks.into_vec()
}

/// The embedded executor's own calls for one node and each planned task's calls.
fn embedded_executor_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    tasks: &[TaskKind],
) -> Vec<PermissionCheck> {
    let lease = node_lease_name(node);
    let mut checks = Checks::default();
    checks.extend([
        check("get", "coordination.k8s.io", "leases", namespace, &lease),
        check("create", "coordination.k8s.io", "leases", namespace, ""),
        check("update", "coordination.k8s.io", "leases", namespace, &lease),
        check("patch", "sei.io", "seinodes", namespace, node).subresource("status"),
        check("create", "", "events", namespace, ""),
    ]);
    for task in tasks {
        checks.extend(task_checks(scope, namespace, node, task));
    }
    checks.into_vec()
}

/// The sidecar calls of a node. Reads are GETs, task submissions POSTs and deletions DELETEs,
/// so the verb is `get`, `create` or `delete`: on `pods/proxy` through the pod proxy, on
/// `seinodetasks` of the node for kube-rbac-proxy's own review (upstream
/// `GenerateRBACProxyConfigMap`), after `create pods/portforward` for a port-forward.
fn sidecar_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    calls: &[SidecarCall],
) -> Vec<PermissionCheck> {
    let pod = format!("{node}-0");
    let verbs = calls.iter().map(|call| pod_proxy_verb(*call));
    let proxy_review = |verb| check(verb, "sei.io", "seinodetasks", namespace, node);
    match scope.sidecar_reach {
        SidecarReach::Direct => Vec::new(),
        SidecarReach::PodProxy => verbs
            .map(|verb| check(verb, "", "pods", namespace, &pod).subresource("proxy"))
            .collect(),
        SidecarReach::PortForward => {
            std::iter::once(check("create", "", "pods", namespace, &pod).subresource("portforward"))
                .chain(verbs.map(proxy_review))
                .collect()
        }
        SidecarReach::InCluster => verbs.map(proxy_review).collect(),
    }
}

/// Through the pod proxy the RBAC verb follows the HTTP method of the sidecar call.
fn pod_proxy_verb(call: SidecarCall) -> &'static str {
    match call {
        // POST /v0/tasks
        SidecarCall::SubmitTask => "create",
        // GET /v0/tasks/{id}, GET /v0/healthz
        SidecarCall::GetTask | SidecarCall::Healthz => "get",
    }
}

/// The permissions of one planned task, from the calls the task type declares
/// (`tasks::api_calls`).
fn task_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    task: &TaskKind,
) -> Vec<PermissionCheck> {
    match task_calls(task) {
        TaskCalls::Kubernetes(calls) => calls
            .iter()
            .map(|call| api_call_check(call, namespace, node))
            .collect(),
        TaskCalls::Sidecar(calls) => sidecar_checks(scope, namespace, node, calls),
        TaskCalls::Refused => Vec::new(),
    }
}

/// A task's declared Kubernetes call for `node` in `namespace`.
fn api_call_check(call: &ApiCall, namespace: &str, node: &str) -> PermissionCheck {
    let (namespace, name) = match call.object {
        CallObject::InNamespace => (namespace, String::new()),
        CallObject::NamedAfterNode => (namespace, node.to_owned()),
        CallObject::NodePod => (namespace, format!("{node}-0")),
        CallObject::ClusterScoped => ("", String::new()),
    };
    check(call.verb, call.group, call.resource, namespace, name)
}

#[cfg(test)]
mod tests;
