//! Snapshots of every action dialog (prompt, preview, confirmation with and without a typed
//! name, progress and result) at a normal size and at 40x10, from previews built by the same
//! library code as the commands, with the fixed sample clock and plan ID.
use super::tests::render;
use super::theme::Theme;
use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::NodeKey;
use crate::actions::preview::{address_preview, address_text, image_pin_preview, image_pin_text};
use crate::app::action::{ActionPreview, Finished, LineTone, PermissionSummary, ProgressLine};
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::sample;
use crate::keymap::{Key, KeyCode};
use crate::ops::actions::seed::{SeedRequest, seed_node, seed_preview_text};
use crate::planner::{PlanContext, preview};

const NEW: &str = "ghcr.io/sei-protocol/sei:v6.5.0";
const PINNED: &str = "ghcr.io/sei-protocol/sei:v6.5.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn ctx() -> PlanContext {
    PlanContext::new("ghcr.io/sei-protocol/sei-sidecar:v1.2.0", sample::now())
        .with_plan_id(uuid::Uuid::from_u128(0x5e1_c0de))
}

fn stored(model: &Model, name: &str) -> crate::api::SeiNode {
    model
        .fleet
        .node(&crate::app::tests::demo_key(name))
        .cloned()
        .expect("demo node")
}

fn allowed(checked: usize) -> PermissionSummary {
    PermissionSummary {
        checked,
        denied: Vec::new(),
        error: None,
    }
}

fn rollout_preview(model: &Model, name: &str, image: &str, typed: bool) -> ActionPreview {
    let image = ImageRef::parse(image).expect("image");
    let preview = image_pin_preview(&stored(model, name), &image, &ctx()).expect("preview");
    ActionPreview {
        head: String::new(),
        text: image_pin_text(&preview),
        permissions: allowed(4),
        executor:
            "executor: embedded (no Lease bc1f5b0a.sei.io in namespace sei-k8s-controller-system)"
                .into(),
        blocked: None,
        confirm_names: if typed {
            vec![name.to_owned()]
        } else {
            Vec::new()
        },
        question: format!("roll 1 node(s) to {image}?"),
        nothing_to_do: None,
    }
}

fn screen(model: &mut Model) -> String {
    let normal = render(model, 110, 34, &Theme::plain());
    let small = render(model, 40, 10, &Theme::plain());
    format!("{normal}--- 40x10 ---\n{small}")
}

fn type_text(model: &mut Model, text: &str) {
    update(model, Msg::Key(Key::ctrl('u')));
    press(model, text);
}

/// rpc-0 (or `name` found by moving down), `i`, image typed, preview delivered.
fn at_rollout_preview(rows_down: &str, name: &str, image: &str, typed: bool) -> Model {
    let mut model = demo_model();
    press(&mut model, rows_down);
    press(&mut model, "i");
    type_text(&mut model, image);
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    let preview = rollout_preview(&model, name, image, typed);
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview),
        },
    );
    model
}

#[test]
fn rollout_prompt_warns_without_a_digest() {
    let mut model = demo_model();
    press(&mut model, "jji");
    type_text(&mut model, NEW);
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn rollout_prompt_of_marked_nodes_with_a_bad_reference() {
    let mut model = demo_model();
    press(&mut model, "jj  i");
    type_text(&mut model, "ghcr.io/Sei:latest");
    // Enter moves through the canary and batch fields, then validates.
    for _ in 0..3 {
        key(&mut model, KeyCode::Enter);
    }
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn address_prompt() {
    let mut model = demo_model();
    press(&mut model, "jja");
    type_text(&mut model, "203.0.113.7:26656");
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn seed_prompt() {
    let mut model = demo_model();
    press(&mut model, "n");
    press(&mut model, "seed-1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    type_text(&mut model, PINNED);
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn preparing() {
    let mut model = demo_model();
    press(&mut model, "jji");
    type_text(&mut model, PINNED);
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn rollout_preview_with_plan_and_config_patch() {
    let mut model = at_rollout_preview("jj", "rpc-0", NEW, false);
    insta::assert_snapshot!(screen(&mut model));
    press(&mut model, "jjjj");
    insta::assert_snapshot!(
        "rollout_preview_scrolled",
        render(&mut model, 110, 20, &Theme::plain())
    );
}

#[test]
fn rollout_preview_at_80x24_and_120x40() {
    let mut model = at_rollout_preview("jj", "rpc-0", NEW, false);
    insta::assert_snapshot!(
        "rollout_preview_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "rollout_preview_120x40",
        render(&mut model, 120, 40, &Theme::dark())
    );
}

#[test]
fn address_preview_dialog() {
    let mut model = demo_model();
    press(&mut model, "jja");
    type_text(&mut model, "203.0.113.7:26656");
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    let address = ExternalAddress::parse("203.0.113.7:26656").expect("address");
    let preview = address_preview(&stored(&model, "rpc-0"), &address, &ctx()).expect("preview");
    let preview = ActionPreview {
        head: String::new(),
        text: address_text(&preview),
        permissions: allowed(4),
        executor: "executor: controller (sei-k8s-controller-7d9f)".into(),
        blocked: preview.plan.no_plan.clone(),
        confirm_names: Vec::new(),
        question: "set the external address of rpc-0 to 203.0.113.7:26656?".into(),
        nothing_to_do: None,
    };
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview),
        },
    );
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn seed_preview_dialog() {
    let mut model = demo_model();
    press(&mut model, "n");
    press(&mut model, "seed-1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    type_text(&mut model, PINNED);
    key(&mut model, KeyCode::Enter);
    press(&mut model, "198.51.100.4:26656");
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    let request = SeedRequest {
        namespace: "sei".into(),
        name: "seed-1".into(),
        chain_id: "pacific-1".into(),
        image: ImageRef::parse(PINNED).expect("image"),
        external_address: Some(ExternalAddress::parse("198.51.100.4:26656").expect("address")),
        secret_name: "seed-1-node-key".into(),
    };
    let key_pair = NodeKey::from_seed(&[7; 32]);
    let init = preview(&seed_node(&request), None, &ctx()).expect("plan");
    let preview = ActionPreview {
        head: String::new(),
        text: seed_preview_text(
            &request,
            true,
            &key_pair.node_id(),
            init.outcome.as_ref().ok(),
        ),
        permissions: allowed(5),
        executor: "executor: embedded".into(),
        blocked: None,
        confirm_names: vec!["seed-1".into()],
        question: "create seed seed-1?".into(),
        nothing_to_do: None,
    };
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview),
        },
    );
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn preview_with_denied_permissions_cannot_go_on() {
    let mut model = at_rollout_preview("jj", "rpc-0", PINNED, false);
    if let Some(flow) = model.action.as_mut()
        && let crate::app::action::Stage::Preview { preview, .. } = &mut flow.stage
    {
        preview.permissions.denied = vec![
            "patch seinodes.sei.io \"rpc-0\" in namespace \"sei\"".into(),
            "create events in namespace \"sei\" (RBAC: no rule)".into(),
        ];
        preview.blocked =
            Some("the permission checks did not pass; nothing would be changed".into());
    }
    insta::assert_snapshot!(render(&mut model, 110, 34, &Theme::plain()));
}

#[test]
fn confirmation() {
    let mut model = at_rollout_preview("jj", "rpc-0", PINNED, false);
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn confirmation_by_typed_name_for_a_validator() {
    let mut model = at_rollout_preview("G", "validator-0", PINNED, true);
    key(&mut model, KeyCode::Enter);
    press(&mut model, "validator");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(screen(&mut model));
}

fn running() -> Model {
    let mut model = at_rollout_preview("jj", "rpc-0", PINNED, false);
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    let lines = [
        (
            None,
            "executor: embedded (no Lease bc1f5b0a.sei.io in namespace sei-k8s-controller-system)",
            LineTone::Info,
        ),
        (None, "wave 1 of 1: rpc-0", LineTone::Info),
        (
            None,
            "rpc-0: plan 0005e1c0-de00-0000-0000-000000000000 persisted",
            LineTone::Info,
        ),
        (
            Some("rpc-0"),
            "[1/7] apply-statefulset: submitted",
            LineTone::Info,
        ),
        (
            Some("rpc-0"),
            "[1/7] apply-statefulset: Pending -> Complete",
            LineTone::Good,
        ),
        (
            Some("rpc-0"),
            "[2/7] apply-service: submitted",
            LineTone::Info,
        ),
    ];
    for (node, text, tone) in lines {
        let line = ProgressLine {
            node: node.map(str::to_owned),
            text: text.into(),
            tone,
            at: None,
            live: false,
        };
        update(&mut model, Msg::ActionProgress { id, line });
    }
    model
}

#[test]
fn progress_while_running() {
    let mut model = running();
    insta::assert_snapshot!(screen(&mut model));
}

/// `q` on the progress dialog asks (issue 33: it did nothing), and at 80x24 the question is
/// wrapped above the dialog's bottom edge with its instruction whole.
#[test]
fn q_on_the_progress_dialog_asks_with_its_instruction_visible_at_80x24() {
    let mut model = running();
    press(&mut model, "q");
    assert!(!model.quit);
    let text = render(&mut model, 80, 24, &Theme::plain());
    assert!(text.contains("press q or ctrl-c again to quit"), "{text}");
    assert!(text.contains("resumes it)"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn result_of_a_complete_and_a_failed_rollout() {
    let mut model = running();
    let id = model.action.as_ref().expect("flow").id;
    update(
        &mut model,
        Msg::ActionFinished {
            id,
            finished: Finished {
                ok: true,
                message: "rollout complete".into(),
            },
        },
    );
    insta::assert_snapshot!("result_complete", screen(&mut model));
    let mut model = running();
    let id = model.action.as_ref().expect("flow").id;
    let line = ProgressLine {
        node: Some("rpc-0".into()),
        text: "[5/7] config-validate: Running -> Failed: seid config validate: exit status 1"
            .into(),
        tone: LineTone::Bad,
        at: None,
        live: false,
    };
    update(&mut model, Msg::ActionProgress { id, line });
    update(
        &mut model,
        Msg::ActionFinished {
            id,
            finished: Finished {
                ok: false,
                message: "rollout halted at sei/rpc-0: task config-validate failed: seid config validate: exit status 1; 0 node(s) not started; run the same rollout again to resume".into(),
            },
        },
    );
    insta::assert_snapshot!("result_failed", screen(&mut model));
}

#[test]
fn preview_that_could_not_be_computed() {
    let mut model = demo_model();
    press(&mut model, "jji");
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Err(crate::app::action_error::ActionError::Ops(
                crate::ops::OpsError::BadInput("SeiNode sei/rpc-0 not found".into()),
            )),
        },
    );
    insta::assert_snapshot!(screen(&mut model));
}

#[test]
fn marked_rows_and_read_only_header() {
    let mut model = demo_model();
    model.settings.guard = crate::config::read_only::MutationGuard::new(true, false);
    press(&mut model, "jj  ");
    press(&mut model, "i");
    insta::assert_snapshot!(render(&mut model, 130, 10, &Theme::plain()));
}

#[test]
fn help_lists_the_action_keys_and_scrolls() {
    let mut model = demo_model();
    press(&mut model, "?");
    press(&mut model, &"j".repeat(37));
    let screen = render(&mut model, 100, 30, &Theme::plain());
    assert!(screen.contains("Action dialogs"), "{screen}");
    insta::assert_snapshot!(screen);
}

/// A wave being gated: one live line per node, each reading replacing the node's last, through
/// the same mapping the action jobs use (`jobs::note_line`).
#[test]
fn health_gate_lines_while_a_wave_is_gated() {
    use crate::chain::gate::{GateLine, Unhealthy};
    use crate::ops::Note;
    let mut model = running();
    let id = model.action.as_ref().expect("flow").id;
    let gate = |node: &str, height: u64, soaked: u64, problem: Option<Unhealthy>| {
        crate::app::jobs::note_line(&Note::Gate {
            node: node.into(),
            line: GateLine {
                height: Some(height),
                gained: height - 1200,
                caught_up: problem.is_none(),
                soaked_seconds: soaked,
                soak_seconds: 60,
                problem,
            },
        })
    };
    for line in [
        gate("rpc-0", 1201, 0, None),
        gate(
            "rpc-1",
            1200,
            0,
            Some(Unhealthy::OneBlockSyncPeer { height: 1200 }),
        ),
        gate("rpc-0", 1214, 26, None),
        gate(
            "rpc-1",
            1203,
            0,
            Some(Unhealthy::OneBlockSyncPeer { height: 1203 }),
        ),
    ] {
        update(&mut model, Msg::ActionProgress { id, line });
    }
    let narrow = render(&mut model, 80, 24, &Theme::plain());
    let wide = render(&mut model, 200, 50, &Theme::plain());
    assert_eq!(wide.matches("rpc-0: health gate:").count(), 1, "{wide}");
    assert!(
        wide.contains("rpc-0: health gate: height 1214 (+14), caught up, soak 26/60s"),
        "{wide}"
    );
    assert!(
        wide.contains(
            "rpc-1: health gate: height 1203 (+3), not caught up, soak 0/60s: one block-sync peer"
        ),
        "{wide}"
    );
    insta::assert_snapshot!(format!("{narrow}--- 200x50 ---\n{wide}"));
}

/// An end of several lines (an abort's "changed: … / not changed: …") reads as one line with
/// its parts apart, as the command line prints it.
#[test]
fn an_end_of_several_lines_keeps_its_parts_apart() {
    let (mut model, id) = crate::app::action::tests::running_rollout();
    update(
        &mut model,
        Msg::ActionFinished {
            id,
            finished: Finished {
                ok: true,
                message: "rollout R is aborted\nchanged: a\nnot changed: b".into(),
            },
        },
    );
    let screen = render(&mut model, 120, 30, &Theme::plain());
    assert!(
        screen.contains("rollout R is aborted; changed: a; not changed: b"),
        "{screen}"
    );
}
