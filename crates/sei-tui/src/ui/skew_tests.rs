//! Issue 36 as the console shows it (fixed clock): the cluster's CRD newer than the one the
//! console ports is named in the header (`CRD newer: 2 fields`), a node carrying a field the
//! port does not know is marked `?` after its name at any width, and its screen names the
//! field.
use serde_json::json;

use super::tests::render;
use super::theme::Theme;
use crate::api::NodeMode;
use crate::api::crd_compare::{Change, CrdComparison, CrdView, Difference};
use crate::app::action::Stage;
use crate::app::action_error::ActionError;
use crate::app::model::{Cmd, Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample::{node, running};
use crate::fleet::store::Delta;
use crate::keymap::{Key, KeyCode};
use crate::ops::OpsError;

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

/// `z` on the held node, the guard's refusal come back from the effect.
fn refused_pause() -> Model {
    let mut model = skewed();
    press(&mut model, "j");
    press(&mut model, "z");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        cmds.iter().any(
            |c| matches!(c, Cmd::PrepareAction { request, .. } if !request.allow_unknown_fields)
        ),
        "{cmds:?}"
    );
    let id = model.action.as_ref().expect("an action").id;
    let refusal = "refusing to run pause on sei/full-1: full-1 carries fields sei-console does \
                   not know (spec.maintenance); nothing was changed. Fix: let the controller run \
                   it (start it, or use --executor controller), or upgrade sei-console";
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Err(ActionError::Ops(OpsError::NotUnderstood(refusal.into()))),
        },
    );
    model
}

#[test]
fn a_refusal_of_unknown_fields_asks_for_the_override_typed_and_asks_the_preview_again_with_it() {
    let mut model = refused_pause();
    assert!(matches!(
        model.action.as_ref().map(|f| &f.stage),
        Some(Stage::NotUnderstood { .. })
    ));
    // Letters are the typed word, not keys (`y` does not confirm, `q` does not quit).
    press(&mut model, "yq");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let Some(Stage::NotUnderstood { error, typed, .. }) = model.action.as_ref().map(|f| &f.stage)
    else {
        panic!("left the refusal: {:?}", model.action);
    };
    assert_eq!(typed, "yq");
    assert_eq!(
        error.as_deref(),
        Some("type allow-unknown-fields exactly to go on, or esc: nothing was changed")
    );
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "allow-unknown-fields");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        cmds.iter().any(
            |c| matches!(c, Cmd::PrepareAction { request, .. } if request.allow_unknown_fields)
        ),
        "{cmds:?}"
    );
    assert!(matches!(
        model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Preparing(request)) if request.allow_unknown_fields
    ));
}

#[test]
fn a_refusal_with_the_override_given_is_only_said() {
    let mut model = refused_pause();
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "allow-unknown-fields");
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("an action").id;
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Err(ActionError::Ops(OpsError::NotUnderstood("still".into()))),
        },
    );
    assert!(matches!(
        model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Failed { .. })
    ));
}

#[test]
fn the_override_dialog_at_80x24_shows_its_instruction() {
    let mut model = refused_pause();
    press(&mut model, "allow");
    let screen = render(&mut model, 80, 24, &Theme::dark());
    assert!(screen.contains("allow-unknown-fields"), "{screen}");
    assert!(screen.contains("esc close"), "{screen}");
    insta::assert_snapshot!("skew_override_80x24", screen);
}

#[test]
fn the_override_dialog_wide() {
    let mut model = refused_pause();
    let screen = render(&mut model, 200, 30, &Theme::dark());
    insta::assert_snapshot!("skew_override_200x30", screen);
}
