//! The fleet doctor in the console: the view at 80x24 and 200x50 with the fixed sample clock,
//! the header's critical count, `:doctor`, `enter` to the node and `f` to the fix's preview.
use super::tests::render;
use super::theme::Theme;
use crate::app::action::Stage;
use crate::app::model::{Cmd, Model, Msg, Screen};
use crate::app::tests::{demo_key, demo_model, key, press};
use crate::app::update::update;
use crate::fleet::sample;
use crate::keymap::KeyCode;
use crate::ops::doctor::{FindingClass, Severity};
use crate::ports::probe::fake::FakeProber;
use crate::ports::probe::{CheckName, ProbeTarget};

/// The demo fleet with seed-0 published on a closed loopback port and probed a minute ago.
fn sick_fleet() -> Model {
    let mut model = demo_model();
    let target = ProbeTarget {
        node_id: Some("8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c".into()),
        node_id_source: "node-key Secret seed-0-node-key".into(),
        address: "127.0.0.1:9".into(),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    let outcome = FakeProber::failing(
        CheckName::Reachable,
        "connecting to 127.0.0.1:9: Connection refused (os error 111)",
    )
    .outcome(&target);
    let at = sample::now() - jiff::SignedDuration::from_secs(60);
    update(
        &mut model,
        Msg::SeedProbed {
            key: demo_key("seed-0"),
            at,
            outcome: Ok(outcome),
        },
    );
    model
}

#[test]
fn doctor_view_at_80x24() {
    let mut model = sick_fleet();
    press(&mut model, "D");
    insta::assert_snapshot!(render(&mut model, 80, 24, &Theme::dark()));
}

#[test]
fn doctor_view_at_200x50_with_the_second_finding_selected() {
    let mut model = sick_fleet();
    press(&mut model, "Dj");
    insta::assert_snapshot!(render(&mut model, 200, 50, &Theme::dark()));
}

#[test]
fn the_header_counts_critical_findings_once_a_second_and_doctor_opens_by_command() {
    let mut model = sick_fleet();
    update(&mut model, Msg::Tick(sample::now()));
    let critical = model.doctor.critical();
    assert_eq!(critical, 2, "{:#?}", model.doctor.findings);
    let screen = render(&mut model, 200, 30, &Theme::dark());
    assert!(screen.contains("✖ 2 critical (D)"), "{screen}");
    let narrow = render(&mut model, 80, 24, &Theme::dark());
    assert!(narrow.contains("│ ✖2"), "{narrow}");
    press(&mut model, ":doctor");
    key(&mut model, KeyCode::Enter);
    assert!(model.doctor.open);
    let worst = &model.doctor.findings[0];
    assert_eq!(worst.severity, Severity::Critical);
    press(&mut model, "q");
    assert!(!model.doctor.open, "q closes the doctor, not the console");
    assert!(!model.quit);
}

/// Seed-0's probe failing again, taken in at `at`.
fn probed_again(model: &mut Model, at: jiff::Timestamp) {
    let target = ProbeTarget {
        node_id: None,
        node_id_source: "test".into(),
        address: "127.0.0.1:9".into(),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    let outcome = FakeProber::failing(CheckName::Reachable, "refused").outcome(&target);
    update(
        model,
        Msg::SeedProbed {
            key: demo_key("seed-0"),
            at,
            outcome: Ok(outcome),
        },
    );
}

/// Judging 10,000 nodes costs about 20 ms of the loop's thread: closed, the doctor judges
/// again only when what it reads changed (at most every 5 s) or once a minute (what time alone
/// makes a finding); open, every second.
#[test]
fn the_closed_doctor_judges_again_only_after_a_change_or_a_minute_the_open_one_every_second() {
    let mut model = sick_fleet();
    let at = |s: i64| sample::now() + jiff::SignedDuration::from_secs(s);
    update(&mut model, Msg::Tick(at(0)));
    assert_eq!(model.doctor.refreshed_at, Some(at(0)));
    let judged = model.doctor.judgements;
    for second in 1..60 {
        update(&mut model, Msg::Tick(at(second)));
    }
    assert_eq!(
        model.doctor.judgements, judged,
        "closed, nothing changed: not judged again for a minute"
    );
    update(&mut model, Msg::Tick(at(60)));
    assert_eq!(model.doctor.judgements, judged + 1, "a minute on: judged");
    assert_eq!(model.doctor.refreshed_at, Some(at(60)));
    probed_again(&mut model, at(61));
    for second in 61..65 {
        update(&mut model, Msg::Tick(at(second)));
        assert_eq!(
            model.doctor.judgements,
            judged + 1,
            "changed, at +{second}s"
        );
    }
    update(&mut model, Msg::Tick(at(65)));
    assert_eq!(
        model.doctor.judgements,
        judged + 2,
        "changed: judged 5 s after the last judgement"
    );
    press(&mut model, "D");
    assert_eq!(
        model.doctor.judgements,
        judged + 3,
        "opening judges at once"
    );
    update(&mut model, Msg::Tick(at(66)));
    assert_eq!(
        model.doctor.refreshed_at,
        Some(at(66)),
        "open: every second"
    );
    assert_eq!(model.doctor.judgements, judged + 4);
}

#[test]
fn enter_goes_to_the_findings_node() {
    let mut model = sick_fleet();
    press(&mut model, "D");
    let index = model
        .doctor
        .findings
        .iter()
        .position(|f| f.class == FindingClass::PlanFailed)
        .expect("the failed plan");
    for _ in 0..index {
        press(&mut model, "j");
    }
    let cmds = key(&mut model, KeyCode::Enter);
    assert_eq!(model.screen, Screen::Node(demo_key("validator-0")));
    assert!(!model.doctor.open);
    assert!(
        cmds.iter().any(|c| matches!(c, Cmd::WatchDetail { .. })),
        "{cmds:?}"
    );
}

#[test]
fn the_fix_key_of_a_render_failure_opens_the_rollout_preview_of_that_node() {
    let mut model = sick_fleet();
    press(&mut model, "D");
    let index = model
        .doctor
        .findings
        .iter()
        .position(|f| f.class == FindingClass::RenderBlocked)
        .expect("the seed's render failure");
    let finding = model.doctor.findings[index].clone();
    assert!(
        finding.fix.summary.starts_with(
            "set scheduling.nodepoolSeed in ConfigMap sei-k8s-controller-system/sei-controller-config"
        ),
        "{finding:#?}"
    );
    for _ in 0..index {
        press(&mut model, "j");
    }
    let cmds = press(&mut model, "f");
    assert_eq!(model.screen, Screen::Node(demo_key("seed-0")));
    let prepared = cmds.iter().find_map(|c| match c {
        Cmd::PrepareAction { request, .. } => Some(request.clone()),
        _ => None,
    });
    let request = prepared.unwrap_or_else(|| panic!("a preview is asked for: {cmds:?}"));
    let namespaces: Vec<&str> = request.parts.iter().map(|p| p.namespace.as_str()).collect();
    assert_eq!(namespaces, ["sei"]);
    let flow = model.action.as_ref().expect("the rollout dialog");
    assert!(
        matches!(flow.stage, Stage::Preparing(_)),
        "{:?}",
        flow.stage
    );
}

#[test]
fn with_a_platform_config_file_an_old_render_failure_is_from_before() {
    let mut model = sick_fleet();
    let platform = crate::platform::PlatformConfig::from_yaml(include_str!(
        "../../../../assets/demo/platform-config.yaml"
    ))
    .expect("demo platform config");
    model.platform_source = Some(crate::actions::render_fix::PlatformSource::File(
        "platform.yaml".into(),
    ));
    model.doctor.platform = Some(platform);
    press(&mut model, "D");
    let classes: Vec<FindingClass> = model.doctor.findings.iter().map(|f| f.class).collect();
    assert!(
        classes.contains(&FindingClass::RenderFailedBefore),
        "{classes:?}"
    );
    assert!(
        !classes.contains(&FindingClass::RenderBlocked),
        "{classes:?}"
    );
}

#[test]
fn the_fix_key_of_an_unreachable_seed_probes_it_again() {
    let mut model = sick_fleet();
    press(&mut model, "D");
    let index = model
        .doctor
        .findings
        .iter()
        .position(|f| f.class == FindingClass::SeedUnreachable)
        .expect("the unreachable seed");
    for _ in 0..index {
        press(&mut model, "j");
    }
    let cmds = press(&mut model, "f");
    assert!(
        cmds.iter()
            .any(|c| matches!(c, Cmd::ProbeSeed { key, .. } if *key == demo_key("seed-0"))),
        "{cmds:?}"
    );
}
