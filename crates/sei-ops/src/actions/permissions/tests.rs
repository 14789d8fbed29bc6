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
            r#"list events in namespace "ns""#,
            r#"get leases.coordination.k8s.io "bc1f5b0a.sei.io" in namespace "ctl""#,
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
    let proxied: Vec<String> = texts(&checks)
        .into_iter()
        .filter(|t| t.contains("pods/proxy"))
        .collect();
    // Probing and polling are GETs, the submit a POST; no task deletes a sidecar task.
    assert_eq!(
        proxied,
        [
            r#"get pods/proxy "a-0" in namespace "ns""#,
            r#"create pods/proxy "a-0" in namespace "ns""#,
        ]
    );
    let direct = plan_checks(
        &scope(ExecutorMode::Embedded, false, false),
        "ns",
        "a",
        &[TaskKind::ConfigPatch],
    );
    assert!(
        !texts(&direct).iter().any(|t| t.contains("pods/proxy")),
        "a sidecar reached directly needs no Kubernetes permission"
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
            r#"list events in namespace "ns""#,
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
fn a_plan_of_every_known_task_type_asks_each_declared_call_once() {
    // Pins the whole derived list: one plan holding every known task type, the sidecar
    // reached through the pod proxy.
    let checks = plan_checks(
        &scope(ExecutorMode::Embedded, true, false),
        "ns",
        "a",
        TaskKind::KNOWN,
    );
    assert_eq!(
        texts(&checks),
        [
            r#"get seinodes.sei.io "a" in namespace "ns""#,
            r#"get pods/proxy "a-0" in namespace "ns""#,
            r#"patch seinodes.sei.io/status "a" in namespace "ns""#,
            r#"list events in namespace "ns""#,
            r#"get leases.coordination.k8s.io "bc1f5b0a.sei.io" in namespace "ctl""#,
            r#"get leases.coordination.k8s.io "sei-console-exec-a" in namespace "ns""#,
            r#"create leases.coordination.k8s.io in namespace "ns""#,
            r#"update leases.coordination.k8s.io "sei-console-exec-a" in namespace "ns""#,
            r#"create events in namespace "ns""#,
            r#"get persistentvolumeclaims in namespace "ns""#,
            r#"create persistentvolumeclaims in namespace "ns""#,
            "get persistentvolumes",
            r#"get secrets in namespace "ns""#,
            r#"patch configmaps in namespace "ns""#,
            r#"create configmaps in namespace "ns""#,
            r#"get statefulsets.apps "a" in namespace "ns""#,
            r#"delete statefulsets.apps "a" in namespace "ns""#,
            r#"patch statefulsets.apps "a" in namespace "ns""#,
            r#"create statefulsets.apps in namespace "ns""#,
            r#"patch services "a" in namespace "ns""#,
            r#"create services in namespace "ns""#,
            r#"list pods in namespace "ns""#,
            r#"delete pods "a-0" in namespace "ns""#,
            r#"get services in namespace "ns""#,
            r#"create jobs.batch in namespace "ns""#,
            r#"get jobs.batch in namespace "ns""#,
            r#"delete jobs.batch in namespace "ns""#,
            r#"delete services in namespace "ns""#,
            r#"list seinodes.sei.io in namespace "ns""#,
            r#"patch seinodes.sei.io in namespace "ns""#,
            r#"create pods/proxy "a-0" in namespace "ns""#,
        ]
    );
}

#[test]
fn an_unknown_task_type_adds_no_check() {
    let scope = scope(ExecutorMode::Embedded, true, false);
    let unknown = TaskKind::parse("frobnicate");
    assert!(task_checks(&scope, "ns", "a", &unknown).is_empty());
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
    assert_eq!(reviews(1), 23);
    assert_eq!(reviews(10), 23);
}

#[test]
fn address_and_seed_create_add_their_own_calls_to_the_plan() {
    let scope = scope(ExecutorMode::Controller, false, false);
    let address = address_checks(&scope, "ns", "a", &UPDATE_PLAN);
    assert_eq!(
        texts(address.as_slice()),
        [
            r#"get serviceaccounts in namespace "ns""#,
            r#"get seinodes.sei.io "a" in namespace "ns""#,
            r#"patch seinodes.sei.io "a" in namespace "ns""#,
            r#"create events in namespace "ns""#,
            r#"patch seinodes.sei.io/status "a" in namespace "ns""#,
            r#"list events in namespace "ns""#,
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
