//! Issue 36 as the console shows it (fixed clock): the cluster's CRD newer than the one the
//! console ports is named in the header (`CRD newer: 2 fields`), a node carrying a field the
//! port does not know is marked `?` after its name at any width, and its screen names the
//! field.
use serde_json::json;

use super::tests::render;
use super::theme::Theme;
use crate::api::NodeMode;
use crate::api::crd_compare::{Change, CrdComparison, CrdView, Difference};
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample::{node, running};
use crate::fleet::store::Delta;
use crate::keymap::KeyCode;

/// The demo with the cluster's CRD newer (`spec.maintenance`, `status.maintenanceSince`) and
/// `full-1` held for maintenance.
fn skewed() -> Model {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let mut held = running(node("sei", "full-1", NodeMode::Full, 7200));
    held.spec
        .unknown
        .insert("maintenance".into(), json!({"hold": true}));
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::applied(held)),
        },
    );
    let added = |path: &str| Difference {
        path: path.to_owned(),
        change: Change::Added,
    };
    let view = CrdView::Compared(CrdComparison {
        differences: vec![added("spec.maintenance"), added("status.maintenanceSince")],
    });
    update(
        &mut model,
        Msg::Crd {
            epoch,
            view: Box::new(view),
        },
    );
    model
}

#[test]
fn the_header_names_the_crd_skew_and_the_row_marks_the_node_at_80x24() {
    let mut model = skewed();
    let screen = render(&mut model, 80, 24, &Theme::dark());
    assert!(screen.contains("CRD newer: 2 fields"), "{screen}");
    assert!(screen.contains("full-1 ?"), "{screen}");
    insta::assert_snapshot!("skew_80x24", screen);
}

#[test]
fn the_header_names_the_crd_skew_and_the_row_marks_the_node_wide() {
    let mut model = skewed();
    let screen = render(&mut model, 200, 30, &Theme::dark());
    assert!(screen.contains("CRD newer: 2 fields"), "{screen}");
    assert!(screen.contains("full-1 ?"), "{screen}");
    insta::assert_snapshot!("skew_200x30", screen);
}

#[test]
fn an_equal_crd_adds_nothing_to_the_header() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let before = render(&mut model, 120, 30, &Theme::dark());
    update(
        &mut model,
        Msg::Crd {
            epoch,
            view: Box::new(CrdView::Compared(CrdComparison::default())),
        },
    );
    assert_eq!(render(&mut model, 120, 30, &Theme::dark()), before);
}

#[test]
fn the_node_screen_names_the_fields_the_console_does_not_know() {
    let mut model = skewed();
    press(&mut model, "/full-1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, 120, 30, &Theme::dark());
    assert!(
        screen.contains(
            "unknown fields   spec.maintenance (sei-console does not know them: actions are refused)"
        ),
        "{screen}"
    );
}
