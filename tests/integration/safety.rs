//! Safety building blocks against the real API server: the read-only client sends no
//! mutating request, and SelfSubjectAccessReview checks name every missing permission.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ConfigMap, Event};
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::{ListParams, ObjectMeta, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

use sei_console::actions::event::{EventTarget, console_event};
use sei_console::kube::access::check_permissions;
use sei_console::kube::client::api_client;
use sei_console::kube::cluster::KubeCluster;
use sei_console::kube::identity;
use sei_console::ports::access::{AccessError, PermissionCheck};
use sei_console::ports::{ClusterApi, ClusterObject, EventType, NodeEvent, SystemClock};

use crate::common::{TestNamespace, control_plane};

async fn kube_config() -> kube::Config {
    let kubeconfig = Kubeconfig::read_from(&control_plane().kubeconfig).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("config");
    // As the console builds it: its requests name it.
    sei_console::kube::client::with_user_agent(config)
}

#[tokio::test]
async fn read_only_client_refuses_every_mutation_before_sending_it() {
    let ns = TestNamespace::new("readonly").await;
    let guarded = api_client(kube_config().await, true).expect("client");
    let cluster = KubeCluster::new(guarded.clone());

    let config_map = ClusterObject::ConfigMap(ConfigMap {
        metadata: ObjectMeta {
            name: Some("must-not-exist".into()),
            namespace: Some(ns.name.clone()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("k".into(), "v".into())])),
        ..ConfigMap::default()
    });
    let create = cluster
        .create(&config_map)
        .await
        .expect_err("create refused");
    assert!(
        create.message.contains("read-only mode: refused POST"),
        "{create}"
    );
    let apply = cluster.apply(&config_map).await.expect_err("apply refused");
    assert!(
        apply.message.contains("read-only mode: refused PATCH"),
        "{apply}"
    );
    let event = NodeEvent {
        namespace: ns.name.clone(),
        node: "rpc-0".into(),
        node_uid: String::new(),
        event_type: EventType::Normal,
        reason: "ConsoleImageRollout".into(),
        message: "must not be recorded".into(),
    };
    let recorded = cluster
        .create_event(&event)
        .await
        .expect_err("event refused");
    assert!(recorded.message.contains("read-only mode"), "{recorded}");
    let console = console_event(
        sei_console::ops::actions::rollout::KIND,
        &EventTarget {
            namespace: &ns.name,
            name: "rpc-0",
            uid: "",
        },
        "test",
        "must not be recorded",
        &SystemClock,
    );
    let typed: kube::Api<Event> = kube::Api::namespaced(guarded.clone(), &ns.name);
    typed
        .create(&PostParams::default(), &console)
        .await
        .expect_err("typed create refused");

    // Reads and access reviews still work through the guarded client.
    let read: kube::Api<ConfigMap> = kube::Api::namespaced(guarded.clone(), &ns.name);
    read.list(&ListParams::default()).await.expect("reads pass");
    check_permissions(
        &guarded,
        &[PermissionCheck::new("get", "", "configmaps", &ns.name, "")],
    )
    .await
    .expect("reviews pass");

    // Nothing reached the server: an unguarded client sees no object and no event.
    let plain: kube::Api<ConfigMap> = ns.api();
    assert!(
        plain
            .get_opt("must-not-exist")
            .await
            .expect("get")
            .is_none()
    );
    let events: kube::Api<Event> = ns.api();
    assert!(
        events
            .list(&ListParams::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn permission_checks_list_every_denied_call_and_pass_for_the_admin() {
    let ns = TestNamespace::new("access").await;
    let checks = vec![
        PermissionCheck::new("get", "sei.io", "seinodes", &ns.name, "rpc-0"),
        PermissionCheck::new("patch", "sei.io", "seinodes", &ns.name, "rpc-0"),
        PermissionCheck::new("patch", "sei.io", "seinodes", &ns.name, "rpc-0")
            .subresource("status"),
        PermissionCheck::new("create", "", "events", &ns.name, ""),
    ];
    check_permissions(&ns.client, &checks)
        .await
        .expect("the test admin may do everything");

    // A user who may read and patch SeiNodes but nothing else.
    let role: Role = Role {
        metadata: ObjectMeta {
            name: Some("seinode-editor".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec!["sei.io".into()]),
            resources: Some(vec!["seinodes".into()]),
            verbs: vec!["get".into(), "patch".into()],
            ..PolicyRule::default()
        }]),
    };
    ns.api::<Role>()
        .create(&PostParams::default(), &role)
        .await
        .expect("role");
    let binding = RoleBinding {
        metadata: ObjectMeta {
            name: Some("carol-edits-seinodes".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "Role".into(),
            name: "seinode-editor".into(),
        },
        subjects: Some(vec![Subject {
            kind: "User".into(),
            name: "carol".into(),
            api_group: Some("rbac.authorization.k8s.io".into()),
            ..Subject::default()
        }]),
    };
    ns.api::<RoleBinding>()
        .create(&PostParams::default(), &binding)
        .await
        .expect("binding");
    let mut config = kube_config().await;
    config.auth_info.impersonate = Some("carol".into());
    let carol = kube::Client::try_from(config).expect("client");
    let denials = crate::common::wait_for(
        "RBAC for carol to settle",
        std::time::Duration::from_secs(30),
        || async {
            Ok::<_, kube::Error>(match check_permissions(&carol, &checks).await {
                Err(AccessError::Denied(denials)) if denials.len() == 2 => Some(denials),
                _ => None,
            })
        },
    )
    .await;
    let denied: Vec<String> = denials.iter().map(|d| d.check.to_string()).collect();
    assert_eq!(
        denied,
        vec![
            format!(
                "patch seinodes.sei.io/status \"rpc-0\" in namespace \"{}\"",
                ns.name
            ),
            format!("create events in namespace \"{}\"", ns.name),
        ]
    );
}

#[test]
fn identity_of_the_test_kubeconfig_names_its_context() {
    let kubeconfig = Kubeconfig::read_from(&control_plane().kubeconfig).expect("kubeconfig");
    let operator = identity::from_kubeconfig(&kubeconfig, None).expect("identity");
    assert!(!operator.context.is_empty());
    assert!(!operator.name().is_empty());
}
