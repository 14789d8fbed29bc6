//! New critical findings only, after the baseline; failures flashed and on the banner.
use super::*;
use crate::app::tests::demo_model;
use crate::ops::doctor::{FindingClass, Fix, ObjectRef};
use crate::ops::doctor_reads::DoctorReads;
use crate::ports::notify::EventKind;

fn critical(name: &str) -> Finding {
    Finding {
        severity: Severity::Critical,
        class: FindingClass::ControllerAbsent,
        object: ObjectRef {
            context: "kind-sei".into(),
            namespace: "sei".into(),
            kind: "SeiNode",
            name: name.into(),
            node: Some(name.into()),
        },
        summary: format!("{name}: plans Active and nobody runs them"),
        evidence: Vec::new(),
        fix: Fix {
            summary: "start the controller".into(),
            command: None,
            action: None,
        },
    }
}

/// The demo model's findings as judged, plus `extra`, then `on_judged`.
fn judged(model: &mut Model, extra: &[&str]) -> Vec<Cmd> {
    super::super::doctor::refresh(model);
    let mut findings = model.doctor.findings.clone();
    findings.extend(extra.iter().map(|n| critical(n)));
    model.doctor.findings = findings;
    on_judged(model)
}

fn notified(cmds: &[Cmd]) -> Vec<(EventKind, String)> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Notify(n) => Some((n.event, n.finding.as_ref().map(|f| f.name.clone())?)),
            _ => None,
        })
        .collect()
}

#[test]
fn only_critical_findings_new_since_the_previous_judgement_are_notified_after_the_baseline() {
    let mut model = demo_model();
    // No webhooks: nothing is ever judged for them.
    assert!(judged(&mut model, &["new-1"]).is_empty());
    model.notify.enabled = true;
    // Not every cluster's reads arrived yet: no baseline, nothing sent.
    assert!(judged(&mut model, &["new-1"]).is_empty());
    assert!(model.notify.critical.is_none());
    let reads = DoctorReads {
        read_at: Some(model.now),
        ..DoctorReads::default()
    };
    super::super::doctor::on_read(&mut model, "kind-sei".into(), Ok(reads));
    // The baseline: what was there when the console started is not sent.
    assert!(judged(&mut model, &["new-1"]).is_empty());
    assert!(model.notify.critical.is_some());
    // A new one is sent once; the one that persists is not sent again.
    let cmds = judged(&mut model, &["new-1", "new-2"]);
    assert_eq!(
        notified(&cmds),
        [(EventKind::DoctorCritical, "new-2".to_owned())]
    );
    let Some(Cmd::Notify(n)) = cmds.first() else {
        panic!("{cmds:?}")
    };
    assert_eq!(n.message, "new-2: plans Active and nobody runs them");
    assert_eq!(
        (n.context.as_str(), n.namespace.as_str()),
        ("kind-sei", "sei")
    );
    let facts = n.finding.as_ref().expect("facts");
    assert_eq!(facts.class, "controller-absent");
    assert_eq!(facts.fix, "start the controller");
    assert!(judged(&mut model, &["new-1", "new-2"]).is_empty());
    // Gone, then back: new again.
    assert!(judged(&mut model, &["new-1"]).is_empty());
    assert_eq!(
        notified(&judged(&mut model, &["new-1", "new-2"])),
        [(EventKind::DoctorCritical, "new-2".to_owned())]
    );
}

#[test]
fn a_failure_is_flashed_and_on_the_banner_until_it_is_old() {
    let mut model = demo_model();
    model.notify.enabled = true;
    on_status(
        &mut model,
        NotifyStatus {
            delivered: 1,
            ..NotifyStatus::default()
        },
    );
    assert!(model.flash.is_none());
    assert_eq!(banner_line(&model), None);
    let line = "webhook http://127.0.0.1:9/…: doctor.critical not delivered after 3 attempt(s): \
                answered HTTP 500";
    on_status(
        &mut model,
        NotifyStatus {
            delivered: 1,
            failed: 1,
            failures: vec![line.to_owned()],
            ..NotifyStatus::default()
        },
    );
    let flash = model.flash.clone().expect("flash");
    assert!(flash.error);
    assert_eq!(flash.text, format!("notification failed: {line}"));
    assert_eq!(
        banner_line(&model).as_deref(),
        Some(format!(" webhooks: 1 not delivered (journaled); last: {line} ").as_str())
    );
    model.now = model.now + BANNER_FOR + jiff::SignedDuration::from_secs(1);
    assert_eq!(banner_line(&model), None);
}
