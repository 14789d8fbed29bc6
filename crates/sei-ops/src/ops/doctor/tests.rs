//! One test per finding class of the doctor, on the pure function, plus ranking.
use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::json;

use super::*;
use crate::actions::render_fix::PlatformSource;
use crate::api::NodeMode;
use crate::config::DoctorThresholds;
use crate::fleet::sample::{
    self, FULL_INIT_TASKS, IMAGE, OLD_IMAGE, SIDECAR_IMAGE, UPDATE_TASKS, condition, event,
    event_about, node, patched, plan, running,
};
use crate::ports::access::PermissionCheck;
use crate::ports::probe::fake::FakeProber;
use crate::ports::probe::{CheckName, ProbeTarget};

const NS: &str = "sei";
const DEMO_PLATFORM: &str = include_str!("../../../../../assets/demo/platform-config.yaml");

/// Everything one test's cluster holds.
struct World {
    platform: PlatformConfig,
    source: PlatformSource,
    nodes: Vec<SeiNode>,
    events: Vec<Event>,
    pods: Vec<Pod>,
    pvcs: Vec<PersistentVolumeClaim>,
    probes: Vec<(String, SeedProbeResult)>,
    controller: Option<ControllerLiveness>,
    leases: Vec<ExecutorLease>,
    denials: Vec<FixDenials>,
    service_accounts: Option<BTreeSet<(String, String)>>,
    thresholds: DoctorThresholds,
    /// The platform config was read (the command line); the console does not read it.
    platform_read: bool,
}

impl World {
    fn new(nodes: Vec<SeiNode>) -> World {
        let mut platform = PlatformConfig::from_yaml(DEMO_PLATFORM).expect("demo platform");
        platform.images.sidecar = SIDECAR_IMAGE.into();
        World {
            platform,
            source: PlatformSource::File("/etc/platform.yaml".into()),
            nodes,
            events: Vec::new(),
            pods: Vec::new(),
            pvcs: Vec::new(),
            probes: Vec::new(),
            controller: Some(ControllerLiveness::Live {
                holder: "controller-0".into(),
            }),
            leases: Vec::new(),
            denials: Vec::new(),
            service_accounts: None,
            thresholds: DoctorThresholds::default(),
            platform_read: true,
        }
    }

    fn diagnose(&self) -> Vec<Finding> {
        let belongs = |node: &str, object: &str| {
            object == node || object == format!("{node}-0") || object == format!("data-{node}")
        };
        let nodes = self
            .nodes
            .iter()
            .map(|n| NodeSnapshot {
                node: n,
                events: self
                    .events
                    .iter()
                    .filter(|e| belongs(n.name(), e.involved_object.name.as_deref().unwrap_or("")))
                    .collect(),
                pods: self
                    .pods
                    .iter()
                    .filter(|p| belongs(n.name(), p.metadata.name.as_deref().unwrap_or("")))
                    .collect(),
                pvcs: self
                    .pvcs
                    .iter()
                    .filter(|p| belongs(n.name(), p.metadata.name.as_deref().unwrap_or("")))
                    .collect(),
                probe: self
                    .probes
                    .iter()
                    .find(|(name, _)| name == n.name())
                    .map(|(_, p)| p),
                workload_known: true,
            })
            .collect();
        diagnose(DoctorInput {
            now: sample::now(),
            thresholds: &self.thresholds,
            clusters: vec![ClusterSnapshot {
                context: "kind-a".into(),
                controller_namespace: "sei-k8s-controller-system".into(),
                controller: self.controller.clone(),
                platform: self.platform_read.then_some(PlatformView {
                    config: &self.platform,
                    source: &self.source,
                }),
                platform_source: Some(&self.source),
                sidecar_image: Some(self.platform.images.sidecar.as_str()),
                service_accounts: self.service_accounts.as_ref(),
                nodes,
                executor_leases: self.leases.clone(),
                denials: self.denials.clone(),
                crd: None,
            }],
            more: Vec::new(),
        })
    }
}

fn of_class(findings: &[Finding], class: FindingClass) -> Vec<&Finding> {
    findings.iter().filter(|f| f.class == class).collect()
}

fn only(findings: &[Finding], class: FindingClass) -> &Finding {
    let found = of_class(findings, class);
    assert_eq!(found.len(), 1, "one {class:?} in {findings:#?}");
    found[0]
}

fn evidence_text(finding: &Finding) -> String {
    finding
        .evidence
        .iter()
        .map(|e| format!("{}: {}", e.source, e.detail))
        .collect::<Vec<_>>()
        .join("\n")
}

fn healthy(name: &str) -> SeiNode {
    running(node(NS, name, NodeMode::Full, 86_400))
}

fn pod_json(name: &str, seid_image: &str, status: serde_json::Value) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"namespace": NS, "name": format!("{name}-0"), "labels": {"sei.io/node": name}},
        "spec": {"containers": [{"name": "seid", "image": seid_image}, {"name": "sei-sidecar", "image": SIDECAR_IMAGE}]},
        "status": status,
    }))
    .expect("pod")
}

fn waiting(name: &str, image: &str, reason: &str, message: &str) -> Pod {
    pod_json(
        name,
        image,
        json!({"phase": "Running", "containerStatuses": [
            {"name": "seid", "image": image, "imageID": "", "ready": false, "restartCount": 7,
             "state": {"waiting": {"reason": reason, "message": message}}},
        ]}),
    )
}

#[test]
fn a_healthy_fleet_has_no_findings() {
    let mut world = World::new(vec![healthy("rpc-0"), healthy("rpc-1")]);
    world.pods.push(sample::pod(NS, "rpc-0", true, 0, "r1"));
    world.service_accounts = Some(BTreeSet::from([(NS.to_owned(), "seid-node".to_owned())]));
    assert_eq!(world.diagnose(), Vec::<Finding>::new());
}

#[test]
fn a_failed_plan_names_the_task_its_error_retries_and_what_rerunning_does() {
    let failed = patched(
        node(NS, "validator-0", NodeMode::Validator, 7200),
        json!({"status": {"phase": "Failed", "plan": plan(&FULL_INIT_TASKS, 5, Some("seid config is invalid: p2p.laddr is empty"))}}),
    );
    let findings = World::new(vec![failed]).diagnose();
    let finding = only(&findings, FindingClass::PlanFailed);
    assert_eq!(finding.severity, Severity::Critical);
    assert_eq!(
        finding.summary,
        "plan failed at task config-validate: seid config is invalid: p2p.laddr is empty"
    );
    let evidence = evidence_text(finding);
    assert!(
        evidence.contains("Failed at task 6/7 config-validate after 3/3 retries"),
        "{evidence}"
    );
    assert!(evidence.contains("status.phase: Failed"), "{evidence}");
    // Phase Failed is terminal: re-running plans nothing, and the doctor says so.
    assert!(
        finding
            .fix
            .summary
            .starts_with("re-running plans nothing (the node is Failed, which is terminal"),
        "{}",
        finding.fix.summary
    );
    assert_eq!(
        finding.fix.command.as_deref(),
        Some("kubectl --context kind-a -n sei get seinode validator-0 -o yaml > validator-0.yaml")
    );

    // A failed update plan of a Running node is cleared and planned again.
    let update = patched(
        healthy("rpc-1"),
        json!({"spec": {"image": "ghcr.io/sei-protocol/sei:v6.4.0"},
               "status": {"plan": plan(&UPDATE_TASKS, 4, Some("pod not ready"))}}),
    );
    let findings = World::new(vec![update]).diagnose();
    let finding = only(&findings, FindingClass::PlanFailed);
    assert!(
        finding.fix.summary.contains(
            "the next reconcile clears the Failed plan and plans again from the first task"
        ),
        "{}",
        finding.fix.summary
    );
    assert_eq!(
        finding.fix.command.as_deref(),
        Some("sei-console exec rpc-1 --context kind-a -n sei")
    );
}

fn submitted(node: &mut SeiNode, index: usize, minutes_ago: i64) {
    let at = sample::now() - jiff::SignedDuration::from_mins(minutes_ago);
    if let Some(plan) = node.status_mut().plan.as_mut() {
        plan.tasks[index].submitted_at = Some(Time(at));
    }
}

#[test]
fn a_task_running_longer_than_its_kind_should_is_reported_by_the_configured_threshold() {
    let mut slow = patched(
        node(NS, "replayer-0", NodeMode::Replayer, 7200),
        json!({"status": {"phase": "Initializing", "plan": plan(&FULL_INIT_TASKS, 4, None)}}),
    );
    submitted(&mut slow, 4, 45);
    // snapshot-restore may run for hours: 45 minutes is fine for it.
    let mut restoring = patched(
        node(NS, "archive-0", NodeMode::Archive, 7200),
        json!({"status": {"phase": "Initializing", "plan": plan(&["snapshot-restore", "mark-ready"], 0, None)}}),
    );
    submitted(&mut restoring, 0, 45);
    let mut world = World::new(vec![slow, restoring]);
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::TaskOverdue);
    assert_eq!(finding.object.name, "replayer-0");
    assert_eq!(finding.severity, Severity::Warning);
    assert_eq!(
        finding.summary,
        "task config-apply has run 45m (longer than its 20m)"
    );
    assert!(evidence_text(finding).contains("the config allows 20m"));
    // The threshold is the config's.
    world
        .thresholds
        .task_minutes
        .insert("config-apply".into(), 60);
    assert!(of_class(&world.diagnose(), FindingClass::TaskOverdue).is_empty());
}

fn seed(name: &str) -> SeiNode {
    patched(
        node(NS, name, NodeMode::Seed, 600),
        json!({"spec": {"externalAddress": "seed.example:26656"}}),
    )
}

fn render_failed_event(node: &SeiNode) -> Event {
    event(
        node,
        true,
        "StatefulSetRenderFailed",
        "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
        14,
        20,
    )
}

#[test]
fn a_render_blocker_of_the_present_config_is_critical_with_the_key_to_set_and_the_preview() {
    let node = seed("seed-0");
    let mut world = World::new(vec![node.clone()]);
    world.platform.scheduling.nodepool_seed.clear();
    world.events.push(render_failed_event(&node));
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::RenderBlocked);
    assert_eq!(finding.severity, Severity::Critical);
    assert_eq!(
        finding.fix.summary,
        "set scheduling.nodepoolSeed in the platform config file /etc/platform.yaml"
    );
    assert_eq!(
        finding.fix.command.as_deref(),
        Some(
            format!("sei-console rollout seed-0 --context kind-a -n sei --image {IMAGE} --dry-run")
                .as_str()
        )
    );
    assert_eq!(
        finding.fix.action,
        Some(FixAction::Rollout {
            image: IMAGE.into()
        })
    );
    assert!(evidence_text(finding).contains("Event StatefulSetRenderFailed: Cannot render"));
    assert!(of_class(&findings, FindingClass::RenderFailedBefore).is_empty());
}

#[test]
fn a_render_failure_event_the_present_config_no_longer_shows_is_from_before() {
    let node = seed("seed-0");
    let mut world = World::new(vec![node.clone()]);
    world.events.push(render_failed_event(&node));
    let findings = world.diagnose();
    assert!(of_class(&findings, FindingClass::RenderBlocked).is_empty());
    let finding = only(&findings, FindingClass::RenderFailedBefore);
    assert_eq!(finding.severity, Severity::Info);
    assert_eq!(
        finding.summary,
        "the StatefulSetRenderFailed event is from before (last seen 20s ago, 03:59:40Z): the \
         platform config file /etc/platform.yaml renders the node now"
    );
}

#[test]
fn a_recent_render_failure_not_checked_against_the_present_says_so_with_the_preview() {
    let node = seed("seed-0");
    let mut world = World::new(vec![node.clone()]);
    world.platform_read = false;
    world.events.push(render_failed_event(&node));
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::RenderBlocked);
    assert_eq!(finding.severity, Severity::Warning);
    assert!(finding.summary.contains("not checked against the present"));
    assert_eq!(
        finding.fix.summary,
        "set scheduling.nodepoolSeed in the platform config file /etc/platform.yaml; the rollout \
         preview says whether it still fails"
    );
    assert!(finding.fix.action.is_some());
    // An hour later the event is history.
    let mut old = render_failed_event(&node);
    old.last_timestamp = Some(Time(sample::now() - jiff::SignedDuration::from_mins(90)));
    world.events = vec![old];
    assert!(of_class(&world.diagnose(), FindingClass::RenderBlocked).is_empty());
}

#[test]
fn a_service_account_the_namespace_lacks_is_critical_with_the_kubectl_command() {
    let mut world = World::new(vec![healthy("rpc-0")]);
    world.service_accounts = Some(BTreeSet::from([(
        "other".to_owned(),
        "seid-node".to_owned(),
    )]));
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::ServiceAccountMissing);
    assert_eq!(finding.severity, Severity::Critical);
    assert_eq!(
        finding.fix.command.as_deref(),
        Some("kubectl --context kind-a -n sei create serviceaccount seid-node")
    );
}

fn probed(check: CheckName, detail: &str) -> SeedProbeResult {
    let target = ProbeTarget {
        node_id: Some("6c8f8607dbe87077a62a2990ce07d94aaf749df7".into()),
        node_id_source: "node-key Secret seed-0-node-key".into(),
        address: "seed.example:26656".into(),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    SeedProbeResult {
        at: sample::now() - jiff::SignedDuration::from_secs(60),
        outcome: FakeProber::failing(check, detail).outcome(&target),
    }
}

#[test]
fn seed_probe_failures_are_classed_unreachable_other_node_id_and_no_peers() {
    let cases = [
        (
            CheckName::Reachable,
            "connection refused",
            FindingClass::SeedUnreachable,
            Severity::Critical,
        ),
        (
            CheckName::NodeId,
            "authenticated as 1111",
            FindingClass::SeedOtherNodeId,
            Severity::Critical,
        ),
        (
            CheckName::PexAddresses,
            "no addresses",
            FindingClass::SeedNoPeers,
            Severity::Warning,
        ),
        (
            CheckName::Network,
            "arctic-1",
            FindingClass::SeedMisadvertised,
            Severity::Warning,
        ),
    ];
    for (check, detail, class, severity) in cases {
        let mut world = World::new(vec![seed("seed-0")]);
        world.probes.push(("seed-0".into(), probed(check, detail)));
        let findings = world.diagnose();
        let finding = only(&findings, class);
        assert_eq!(finding.severity, severity, "{class:?}");
        assert_eq!(finding.evidence[0].detail, detail);
        assert_eq!(
            finding.evidence[0].at,
            Some(sample::now() - jiff::SignedDuration::from_secs(60))
        );
        assert_eq!(finding.fix.action, Some(FixAction::Probe));
        assert_eq!(
            finding.fix.command.as_deref(),
            Some("sei-console seed probe seed-0 --context kind-a -n sei")
        );
    }
    // A passing probe is no finding.
    let mut world = World::new(vec![seed("seed-0")]);
    let mut ok = probed(CheckName::Reachable, "x");
    ok.outcome
        .checks
        .iter_mut()
        .for_each(|c| c.verdict = crate::ports::probe::Verdict::Pass);
    world.probes.push(("seed-0".into(), ok));
    let findings = world.diagnose();
    assert!(
        findings
            .iter()
            .all(|f| !f.class.as_str().starts_with("seed-")),
        "{findings:#?}"
    );
}

#[test]
fn image_drift_without_a_plan_is_a_warning_with_the_rollout_preview_and_none_while_a_plan_runs() {
    let drifted = patched(
        healthy("rpc-0"),
        json!({"status": {"currentImage": OLD_IMAGE}}),
    );
    let findings = World::new(vec![drifted.clone()]).diagnose();
    let finding = only(&findings, FindingClass::ImageDrift);
    assert_eq!(finding.severity, Severity::Warning);
    assert_eq!(
        finding.fix.command.as_deref(),
        Some(
            format!("sei-console rollout rpc-0 --context kind-a -n sei --image {IMAGE} --dry-run")
                .as_str()
        )
    );
    assert!(evidence_text(finding).contains(&format!("status.currentImage: {OLD_IMAGE}")));
    let updating = patched(
        drifted,
        json!({"status": {"plan": plan(&UPDATE_TASKS, 2, None)}}),
    );
    assert!(
        of_class(
            &World::new(vec![updating]).diagnose(),
            FindingClass::ImageDrift
        )
        .is_empty()
    );
}

#[test]
fn a_pod_on_an_old_image_with_no_plan_is_named() {
    let mut world = World::new(vec![healthy("rpc-0")]);
    world.pods.push(pod_json(
        "rpc-0",
        OLD_IMAGE,
        json!({"phase": "Running", "containerStatuses": [{"name": "seid", "image": OLD_IMAGE, "imageID": "", "ready": true, "restartCount": 0}]}),
    ));
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::PodOldImage);
    assert_eq!(finding.object.kind, "Pod");
    assert_eq!(finding.object.name, "rpc-0-0");
    assert_eq!(finding.object.node.as_deref(), Some("rpc-0"));
}

#[test]
fn a_sidecar_behind_the_platforms_image_is_a_warning() {
    let mut world = World::new(vec![healthy("rpc-0")]);
    world.platform.images.sidecar = "ghcr.io/sei-protocol/seictl:v0.10.0".into();
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::SidecarBehind);
    assert_eq!(
        finding.summary,
        format!(
            "sidecar runs {SIDECAR_IMAGE}, not ghcr.io/sei-protocol/seictl:v0.10.0, and no plan is changing it"
        )
    );
    assert!(evidence_text(finding).contains("images.sidecar of the platform config file"));
}
mod workload;
