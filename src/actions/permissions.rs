//! Every Kubernetes call an operator action will make, as permission checks asked before the
//! first change (SelfSubjectAccessReview, `kube::access`). The list follows the code paths: the
//! action's own calls (selecting nodes, the spec change, the `Console*` Event), persisting the
//! plan, and — when the console executes the plan itself — the embedded executor's calls: its
//! node Lease, status writes, Events, and each planned task's calls (`tasks/`), plus the sidecar
//! calls through the API server's pod proxy when that transport is used.
use crate::api::TaskExecutor;
use crate::api::TaskKind;
use crate::api::{PlanPhase, SeiNode, TaskPlan};
use crate::config::ExecutorMode;
use crate::executor::lease::{CONTROLLER_LEASE_NAME, node_lease_name};
use crate::platform::CONFIG_MAP_NAME;
pub use crate::ports::SidecarReach;
use crate::ports::access::PermissionCheck;

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
    name: &str,
) -> PermissionCheck {
    PermissionCheck::new(verb, group, resource, namespace, name)
}

/// The tasks the executor will run for a node: the plan about to be persisted, else the node's
/// Active plan (which persisting resumes).
pub fn tasks_to_run(node: &SeiNode, new_plan: Option<&TaskPlan>) -> Vec<TaskKind> {
    let active = node
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .filter(|p| p.phase == PlanPhase::Active);
    new_plan
        .or(active)
        .map(|plan| plan.tasks.iter().map(|t| t.kind.clone()).collect())
        .unwrap_or_default()
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
        checks.extend(spec_change_checks(namespace, node));
        checks.extend(plan_checks(scope, namespace, node, tasks));
        if waits {
            checks.extend(wave_gate_checks(namespace, node));
        }
    }
    checks
}

/// `address`: the spec change and the update plan carrying the new address.
pub fn address_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    tasks: &[TaskKind],
) -> Checks {
    let mut checks: Checks = spec_change_checks(namespace, node).into_iter().collect();
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
    checks.extend(plan_checks(scope, namespace, node, tasks));
    checks
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
        check("get", "", "pods", namespace, &format!("{node}-0")),
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
    checks.extend(sidecar_checks(scope, namespace, node, false));
    checks.push(check("patch", "sei.io", "seinodes", namespace, node).subresource("status"));
    if scope.executor == ExecutorMode::Auto {
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
    submits: bool,
) -> Vec<PermissionCheck> {
    let pod = format!("{node}-0");
    let verbs: &[&'static str] = if submits {
        &["get", "create", "delete"]
    } else {
        &["get"]
    };
    let proxy_review = |verb| check(verb, "sei.io", "seinodetasks", namespace, node);
    match scope.sidecar_reach {
        SidecarReach::Direct => Vec::new(),
        SidecarReach::PodProxy => verbs
            .iter()
            .map(|verb| check(verb, "", "pods", namespace, &pod).subresource("proxy"))
            .collect(),
        SidecarReach::PortForward => {
            std::iter::once(check("create", "", "pods", namespace, &pod).subresource("portforward"))
                .chain(verbs.iter().map(|verb| proxy_review(verb)))
                .collect()
        }
        SidecarReach::InCluster => verbs.iter().map(|verb| proxy_review(verb)).collect(),
    }
}

/// The Kubernetes calls of one planned task (the `tasks/` module's code paths). Server-side
/// apply needs `patch`, and `create` when the object does not exist yet.
fn task_checks(
    scope: &ExecutionScope,
    namespace: &str,
    node: &str,
    task: &TaskKind,
) -> Vec<PermissionCheck> {
    let ns = namespace;
    let pod = format!("{node}-0");
    let apply = |group, resource, name: &str| {
        vec![
            check("patch", group, resource, ns, name),
            check("create", group, resource, ns, ""),
        ]
    };
    match task {
        TaskKind::EnsureDataPvc => vec![
            check("get", "", "persistentvolumeclaims", ns, ""),
            check("create", "", "persistentvolumeclaims", ns, ""),
            check("get", "", "persistentvolumes", "", ""),
        ],
        TaskKind::ValidateSigningKey
        | TaskKind::ValidateNodeKey
        | TaskKind::ValidateOperatorKeyring => vec![check("get", "", "secrets", ns, "")],
        TaskKind::ApplyRbacProxyConfig => apply("", "configmaps", ""),
        TaskKind::ApplyStatefulSet => {
            let mut checks = vec![
                check("get", "apps", "statefulsets", ns, node),
                // An immutable field changed: the StatefulSet is deleted and re-applied.
                check("delete", "apps", "statefulsets", ns, node),
            ];
            checks.extend(apply("apps", "statefulsets", node));
            checks
        }
        TaskKind::ApplyService => apply("", "services", node),
        TaskKind::ReplacePod => vec![
            check("get", "apps", "statefulsets", ns, node),
            check("list", "", "pods", ns, ""),
            check("delete", "", "pods", ns, &pod),
        ],
        TaskKind::ObserveImage => vec![check("get", "apps", "statefulsets", ns, node)],
        TaskKind::DeployBootstrapService => vec![check("create", "", "services", ns, "")],
        TaskKind::DeployBootstrapJob => vec![check("create", "batch", "jobs", ns, "")],
        TaskKind::AwaitBootstrapComplete => vec![check("get", "batch", "jobs", ns, "")],
        TaskKind::TeardownBootstrap => vec![
            check("get", "batch", "jobs", ns, ""),
            check("delete", "batch", "jobs", ns, ""),
            check("get", "", "services", ns, ""),
            check("delete", "", "services", ns, ""),
        ],
        // Group tasks of a SeiNodeDeployment; node plans never hold them.
        TaskKind::UpdateNodeImage | TaskKind::AwaitNodesRunning | TaskKind::CollectAndSetPeers => {
            vec![
                check("list", "sei.io", "seinodes", ns, ""),
                check("patch", "sei.io", "seinodes", ns, ""),
            ]
        }
        other if other.executor() == TaskExecutor::Sidecar => {
            sidecar_checks(scope, namespace, node, true)
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::planner::UPDATE_PROGRESSION as UPDATE_PLAN;

    fn scope(executor: ExecutorMode, pod_proxy: bool, config_map: bool) -> ExecutionScope {
        let sidecar_reach = if pod_proxy {
            SidecarReach::PodProxy
        } else {
            SidecarReach::Direct
        };
        ExecutionScope {
            executor,
            sidecar_reach,
            controller_namespace: "ctl".into(),
            reads_platform_config_map: config_map,
        }
    }

    fn texts(checks: &[PermissionCheck]) -> Vec<String> {
        checks.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn embedded_update_plan_needs_the_executor_lease_status_events_and_every_task_call() {
        let checks = plan_checks(
            &scope(ExecutorMode::Embedded, false, false),
            "ns",
            "rpc-0",
            &UPDATE_PLAN,
        );
        assert_eq!(
            texts(&checks),
            [
                r#"get seinodes.sei.io "rpc-0" in namespace "ns""#,
                r#"patch seinodes.sei.io/status "rpc-0" in namespace "ns""#,
                r#"get leases.coordination.k8s.io "sei-console-exec-rpc-0" in namespace "ns""#,
                r#"create leases.coordination.k8s.io in namespace "ns""#,
                r#"update leases.coordination.k8s.io "sei-console-exec-rpc-0" in namespace "ns""#,
                r#"create events in namespace "ns""#,
                r#"get statefulsets.apps "rpc-0" in namespace "ns""#,
                r#"delete statefulsets.apps "rpc-0" in namespace "ns""#,
                r#"patch statefulsets.apps "rpc-0" in namespace "ns""#,
                r#"create statefulsets.apps in namespace "ns""#,
                r#"patch services "rpc-0" in namespace "ns""#,
                r#"create services in namespace "ns""#,
                r#"list pods in namespace "ns""#,
                r#"delete pods "rpc-0-0" in namespace "ns""#,
            ]
        );
    }

    #[test]
    fn through_the_pod_proxy_sidecar_calls_need_pods_proxy() {
        let checks = plan_checks(
            &scope(ExecutorMode::Embedded, true, false),
            "ns",
            "a",
            &[TaskKind::ConfigPatch],
        );
        let texts = texts(&checks);
        for expected in [
            r#"get pods/proxy "a-0" in namespace "ns""#,
            r#"create pods/proxy "a-0" in namespace "ns""#,
            r#"delete pods/proxy "a-0" in namespace "ns""#,
        ] {
            assert!(
                texts.contains(&expected.to_owned()),
                "{expected}: {texts:?}"
            );
        }
    }

    #[test]
    fn through_a_port_forward_sidecar_calls_need_the_forward_and_the_proxy_review() {
        let embedded = ExecutionScope {
            sidecar_reach: SidecarReach::PortForward,
            ..scope(ExecutorMode::Embedded, false, false)
        };
        let listed = texts(&plan_checks(&embedded, "ns", "a", &[TaskKind::ConfigPatch]));
        for expected in [
            r#"create pods/portforward "a-0" in namespace "ns""#,
            r#"get seinodetasks.sei.io "a" in namespace "ns""#,
            r#"create seinodetasks.sei.io "a" in namespace "ns""#,
            r#"delete seinodetasks.sei.io "a" in namespace "ns""#,
        ] {
            assert!(
                listed.contains(&expected.to_owned()),
                "{expected}: {listed:?}"
            );
        }
        assert!(
            !listed.iter().any(|t| t.contains("pods/proxy")),
            "{listed:?}"
        );
        // A live controller calls the sidecar itself; the console only probes it.
        let controller = ExecutionScope {
            sidecar_reach: SidecarReach::PortForward,
            ..scope(ExecutorMode::Controller, false, false)
        };
        let listed = texts(&plan_checks(
            &controller,
            "ns",
            "a",
            &[TaskKind::ConfigPatch],
        ));
        assert!(listed.contains(&r#"get seinodetasks.sei.io "a" in namespace "ns""#.to_owned()));
        assert!(
            !listed.iter().any(|t| t.starts_with("create seinodetasks")),
            "{listed:?}"
        );
    }

    #[test]
    fn a_live_controller_executes_so_the_console_only_persists_and_reads() {
        let checks = plan_checks(
            &scope(ExecutorMode::Controller, false, true),
            "ns",
            "a",
            &UPDATE_PLAN,
        );
        assert_eq!(
            texts(&checks),
            [
                r#"get configmaps "sei-controller-config" in namespace "ctl""#,
                r#"get seinodes.sei.io "a" in namespace "ns""#,
                r#"patch seinodes.sei.io/status "a" in namespace "ns""#,
            ]
        );
    }

    #[test]
    fn auto_reads_the_controller_lease_and_may_fall_back_to_the_embedded_executor() {
        let auto = plan_checks(
            &scope(ExecutorMode::Auto, false, false),
            "ns",
            "a",
            &UPDATE_PLAN,
        );
        let embedded = plan_checks(
            &scope(ExecutorMode::Embedded, false, false),
            "ns",
            "a",
            &UPDATE_PLAN,
        );
        assert!(auto.contains(&PermissionCheck::new(
            "get",
            "coordination.k8s.io",
            "leases",
            "ctl",
            CONTROLLER_LEASE_NAME
        )));
        for check in &embedded {
            assert!(auto.contains(check), "{check}");
        }
    }

    #[test]
    fn init_plan_tasks_need_pvcs_volumes_secrets_config_maps_and_bootstrap_jobs() {
        let checks = plan_checks(
            &scope(ExecutorMode::Embedded, false, false),
            "ns",
            "v",
            &[
                TaskKind::EnsureDataPvc,
                TaskKind::ValidateNodeKey,
                TaskKind::ApplyRbacProxyConfig,
                TaskKind::DeployBootstrapJob,
                TaskKind::TeardownBootstrap,
            ],
        );
        let texts = texts(&checks);
        for expected in [
            r#"create persistentvolumeclaims in namespace "ns""#,
            "get persistentvolumes",
            r#"get secrets in namespace "ns""#,
            r#"patch configmaps in namespace "ns""#,
            r#"create jobs.batch in namespace "ns""#,
            r#"delete jobs.batch in namespace "ns""#,
            r#"delete services in namespace "ns""#,
        ] {
            assert!(
                texts.contains(&expected.to_owned()),
                "{expected}: {texts:?}"
            );
        }
    }

    #[test]
    fn every_controller_task_and_every_proxied_sidecar_task_has_its_calls_listed() {
        let scope = scope(ExecutorMode::Embedded, true, false);
        for kind in TaskKind::KNOWN {
            assert!(
                !task_checks(&scope, "ns", "a", kind).is_empty(),
                "{kind} lists no call"
            );
        }
    }

    #[test]
    fn rollout_by_selector_lists_first_and_checks_every_node_and_its_gate() {
        let nodes = [
            ("a".to_owned(), UPDATE_PLAN.to_vec()),
            ("b".to_owned(), UPDATE_PLAN.to_vec()),
        ];
        let scope = scope(ExecutorMode::Embedded, false, false);
        let checks = rollout_checks(&scope, "ns", &nodes, true, true);
        let listed = texts(checks.as_slice());
        assert_eq!(listed[0], r#"list seinodes.sei.io in namespace "ns""#);
        for node in ["a", "b"] {
            for expected in [
                format!(r#"patch seinodes.sei.io "{node}" in namespace "ns""#),
                format!(r#"patch seinodes.sei.io/status "{node}" in namespace "ns""#),
                format!(
                    r#"update leases.coordination.k8s.io "sei-console-exec-{node}" in namespace "ns""#
                ),
                format!(r#"delete pods "{node}-0" in namespace "ns""#),
                format!(r#"get pods "{node}-0" in namespace "ns""#),
            ] {
                assert!(listed.contains(&expected), "{expected}: {listed:?}");
            }
        }
        // Namespace-wide checks are asked once, not per node.
        let events = listed
            .iter()
            .filter(|t| t.starts_with("create events"))
            .count();
        assert_eq!(events, 1);
        let named = rollout_checks(&scope, "ns", &nodes, false, false);
        assert!(
            !texts(named.as_slice())
                .iter()
                .any(|t| t.starts_with("list seinodes") || t.starts_with("get pods")),
            "named nodes without waiting: no listing, no gate"
        );
    }

    #[test]
    fn a_rollout_needs_as_many_reviews_for_ten_nodes_as_for_one_with_a_namespace_wide_role() {
        // `check_permissions` asks each distinct verb/resource without a name first; names are
        // asked only where that is denied.
        let reviews = |count: usize| {
            let nodes: Vec<_> = (0..count)
                .map(|i| (format!("n{i}"), UPDATE_PLAN.to_vec()))
                .collect();
            let scope = scope(ExecutorMode::Auto, true, true);
            let checks = rollout_checks(&scope, "ns", &nodes, true, true);
            let mut broad: Vec<_> = checks
                .as_slice()
                .iter()
                .map(|c| {
                    (
                        c.verb,
                        c.group,
                        c.resource,
                        c.subresource,
                        c.namespace.clone(),
                    )
                })
                .collect();
            broad.sort();
            broad.dedup();
            broad.len()
        };
        // The widest case: auto executor, pod-proxy sidecar, ConfigMap read, selection.
        assert_eq!(reviews(1), 22);
        assert_eq!(reviews(10), 22);
    }

    #[test]
    fn address_and_seed_create_add_their_own_calls_to_the_plan() {
        let scope = scope(ExecutorMode::Controller, false, false);
        let address = address_checks(&scope, "ns", "a", &UPDATE_PLAN);
        assert_eq!(
            texts(address.as_slice()),
            [
                r#"get seinodes.sei.io "a" in namespace "ns""#,
                r#"patch seinodes.sei.io "a" in namespace "ns""#,
                r#"create events in namespace "ns""#,
                r#"patch seinodes.sei.io/status "a" in namespace "ns""#,
            ]
        );
        let generated = seed_create_checks(&scope, "ns", "s", SeedKey::Generated, &[]);
        assert_eq!(
            texts(generated.as_slice())[..3],
            [
                r#"create secrets in namespace "ns""#,
                r#"create seinodes.sei.io in namespace "ns""#,
                r#"create events in namespace "ns""#,
            ]
        );
        let existing = seed_create_checks(&scope, "ns", "s", SeedKey::Existing("k"), &[]);
        assert_eq!(
            texts(existing.as_slice())[0],
            r#"get secrets "k" in namespace "ns""#
        );
    }

    #[test]
    fn checks_keep_their_order_and_drop_repeats() {
        let mut checks = Checks::default();
        checks.extend(spec_change_checks("ns", "a"));
        checks.extend(wave_gate_checks("ns", "a"));
        checks.extend(select_nodes_checks("ns"));
        assert_eq!(
            texts(checks.as_slice()),
            [
                r#"get seinodes.sei.io "a" in namespace "ns""#,
                r#"patch seinodes.sei.io "a" in namespace "ns""#,
                r#"create events in namespace "ns""#,
                r#"get pods "a-0" in namespace "ns""#,
                r#"list seinodes.sei.io in namespace "ns""#,
            ]
        );
    }
}
