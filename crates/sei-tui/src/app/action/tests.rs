//! The action state machine: prompt → preview → confirmation → running, esc at every step,
//! read-only refusal, multi-select, typed names for validators and seeds.
use super::*;
use crate::app::model::{Cmd, Model, Msg, Screen};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::config::read_only::MutationGuard;
use crate::config::{ExecutorMode, WaveDefaults};
use crate::keymap::{Key, KeyCode};

pub fn preview(confirm_names: &[&str], blocked: Option<&str>) -> ActionPreview {
    ActionPreview {
        head: String::new(),
        text: "Image pin rollout of sei/rpc-0\n  spec.image: a -> b\n".into(),
        permissions: PermissionSummary {
            checked: 4,
            denied: Vec::new(),
            error: None,
        },
        executor: "executor: embedded (no Lease)".into(),
        blocked: blocked.map(str::to_owned),
        confirm_names: confirm_names.iter().map(|n| (*n).to_owned()).collect(),
        question: "roll 1 node(s) to b?".into(),
        nothing_to_do: None,
    }
}

fn stage(model: &Model) -> &Stage {
    &model.action.as_ref().expect("an action").stage
}

/// The open action's prompt form; panics when the action is at another stage.
fn prompt(model: &Model) -> &Form {
    match stage(model) {
        Stage::Prompt(form) => form,
        other => panic!("not the prompt: {other:?}"),
    }
}

fn clear_and_type(model: &mut Model, text: &str) {
    update(model, Msg::Key(Key::ctrl('u')));
    press(model, text);
}

fn flow_id(model: &Model) -> u64 {
    model.action.as_ref().expect("an action").id
}

const NEW: &str = "ghcr.io/sei-protocol/sei:v6.5.0";

/// rpc-0 selected, `i` pressed, a new image typed and entered: the preview is being computed.
fn rollout_preparing() -> (Model, Vec<Cmd>) {
    let mut model = demo_model();
    press(&mut model, "jj");
    assert!(
        press(&mut model, "i").is_empty(),
        "a prompt asks nothing of the cluster"
    );
    clear_and_type(&mut model, NEW);
    let cmds = key(&mut model, KeyCode::Enter);
    (model, cmds)
}

#[test]
fn rollout_goes_from_prompt_to_preview_to_confirmation_to_running() {
    let (mut model, cmds) = rollout_preparing();
    let request = ActionRequest::one(
        "kind-sei",
        "sei",
        crate::ops::action::SomeOperation::new(crate::ops::actions::rollout::RolloutInput {
            selection: crate::ops::actions::rollout::Selection::Named(vec!["rpc-0".into()]),
            image: crate::actions::image_ref::ImageRef::parse(NEW).expect("image"),
            waves: WaveDefaults::default(),
            canary_nodes: Vec::new(),
            wait: true,
            dry_run: false,
            health_gate: Some(crate::chain::gate::GateSettings::default()),
            allow_unusual_tag: true,
            undo_of: None,
            hold_after: None,
            resolve_digest: false,
        }),
    );
    let id = flow_id(&model);
    assert_eq!(
        cmds,
        vec![Cmd::PrepareAction {
            id,
            request: request.clone(),
            executor: ExecutorMode::Auto,
        }]
    );
    assert_eq!(stage(&model), &Stage::Preparing(request.clone()));
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview(&[], None)),
        },
    );
    assert!(matches!(stage(&model), Stage::Preview { .. }));
    assert!(press(&mut model, "j").is_empty(), "j scrolls the preview");
    key(&mut model, KeyCode::Enter);
    assert!(matches!(stage(&model), Stage::Confirm { .. }));
    let cmds = press(&mut model, "y");
    assert_eq!(
        cmds,
        vec![Cmd::RunAction {
            id,
            request,
            executor: ExecutorMode::Auto,
        }]
    );
    assert!(model.action.as_ref().is_some_and(ActionFlow::is_running));
}

#[test]
fn the_prompt_validates_the_image_and_warns_without_a_digest() {
    let mut model = demo_model();
    press(&mut model, "jji");
    let form = prompt(&model);
    assert_eq!(
        form.value(0),
        "ghcr.io/sei-protocol/sei:v6.3.0",
        "starts from the current image"
    );
    assert!(
        form.warnings(crate::ops::actions::rollout::KIND)
            .iter()
            .any(|w| w.contains("digest")),
        "{:?}",
        form.warnings(crate::ops::actions::rollout::KIND)
    );
    clear_and_type(&mut model, "Not An Image!");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let form = prompt(&model);
    assert!(
        form.error
            .as_deref()
            .is_some_and(|e| e.starts_with("image: ")),
        "{form:?}"
    );
    // q is text here, not quit.
    press(&mut model, "q");
    assert!(!model.quit);
}

#[test]
fn esc_cancels_at_every_step_before_execution() {
    let mut model = demo_model();
    press(&mut model, "i");
    assert!(key(&mut model, KeyCode::Esc).is_empty());
    assert!(model.action.is_none());

    let (mut model, _) = rollout_preparing();
    let id = flow_id(&model);
    assert_eq!(
        key(&mut model, KeyCode::Esc),
        vec![Cmd::CancelAction { id }]
    );
    assert!(model.action.is_none());
    // The late preview of the cancelled action is ignored.
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview(&[], None)),
        },
    );
    assert!(model.action.is_none());

    for steps in [1, 2] {
        let (mut model, _) = rollout_preparing();
        let id = flow_id(&model);
        update(
            &mut model,
            Msg::ActionPrepared {
                id,
                result: Ok(preview(&[], None)),
            },
        );
        if steps == 2 {
            key(&mut model, KeyCode::Enter);
            assert!(matches!(stage(&model), Stage::Confirm { .. }));
        }
        assert_eq!(
            key(&mut model, KeyCode::Esc),
            vec![Cmd::CancelAction { id }]
        );
        assert!(model.action.is_none());
        assert!(
            model
                .flash
                .as_ref()
                .is_some_and(|f| f.text.contains("nothing was changed"))
        );
    }
}

#[test]
fn validators_need_their_name_typed_exactly() {
    let mut model = demo_model();
    press(&mut model, "G");
    assert_eq!(
        model.selected_key().map(|k| k.name.as_ref()),
        Some("validator-0")
    );
    press(&mut model, "i");
    clear_and_type(&mut model, NEW);
    key(&mut model, KeyCode::Enter);
    let id = flow_id(&model);
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview(&["validator-0"], None)),
        },
    );
    key(&mut model, KeyCode::Enter);
    assert!(model.action.as_ref().is_some_and(ActionFlow::takes_text));
    // y is text now; enter with a wrong name says what to type.
    assert!(press(&mut model, "y").is_empty());
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let Stage::Confirm { error, .. } = stage(&model) else {
        panic!("still confirming")
    };
    assert_eq!(
        error.as_deref(),
        Some("type validator-0 exactly to confirm")
    );
    clear_and_type(&mut model, "validator-0");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        matches!(cmds.as_slice(), [Cmd::RunAction { .. }]),
        "{cmds:?}"
    );
}

#[test]
fn a_blocked_preview_cannot_be_confirmed() {
    let (mut model, _) = rollout_preparing();
    let id = flow_id(&model);
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview(&[], Some("the permission checks did not pass"))),
        },
    );
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    assert!(press(&mut model, "y").is_empty());
    assert!(matches!(stage(&model), Stage::Preview { .. }));
}

#[test]
fn a_failed_preview_says_why_and_closes() {
    let (mut model, _) = rollout_preparing();
    let id = flow_id(&model);
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Err(crate::app::action_error::ActionError::Ops(
                crate::ops::OpsError::BadInput("SeiNode sei/rpc-0 not found".into()),
            )),
        },
    );
    assert_eq!(
        stage(&model),
        &Stage::Failed {
            message: "SeiNode sei/rpc-0 not found".into()
        }
    );
    assert!(key(&mut model, KeyCode::Esc).is_empty());
    assert!(
        model.action.as_ref().is_some_and(|f| f.hidden),
        "closed, kept for p"
    );
}

#[test]
fn read_only_refuses_before_any_request_and_journals() {
    let mut model = demo_model();
    model.settings.guard = MutationGuard::new(true, false);
    press(&mut model, "jj");
    let cmds = press(&mut model, "i");
    assert!(model.action.is_none());
    let flash = model.flash.clone().expect("flash");
    assert!(
        flash.error
            && flash
                .text
                .starts_with("read-only mode: refusing to run rollout on rpc-0"),
        "{flash:?}"
    );
    assert!(
        matches!(cmds.as_slice(), [Cmd::RecordRefusal { nodes, .. }] if nodes == &["rpc-0".to_owned()]),
        "{cmds:?}"
    );
    for keys in ["a", "n"] {
        let cmds = press(&mut model, keys);
        assert!(model.action.is_none());
        assert!(
            matches!(cmds.as_slice(), [Cmd::RecordRefusal { .. }]),
            "{cmds:?}"
        );
    }
}

#[test]
fn space_marks_nodes_for_one_rollout() {
    let mut model = demo_model();
    press(&mut model, "jj");
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char(' '));
    assert_eq!(model.marked.len(), 2);
    assert_eq!(model.selected, 4, "space moves down");
    press(&mut model, "i");
    let form = prompt(&model);
    assert_eq!(form.nodes, ["rpc-0", "rpc-1"]);
    key(&mut model, KeyCode::Esc);
    // An address belongs to one node: the selected one; the leftover marks are said, not
    // blocking.
    press(&mut model, "a");
    let form = prompt(&model);
    assert_eq!(form.nodes, ["seed-0"]);
    assert_eq!(form.ignored_marks, 2);
    key(&mut model, KeyCode::Esc);
    // Unmarking one leaves the other.
    press(&mut model, "kk");
    key(&mut model, KeyCode::Char(' '));
    assert_eq!(model.marked.len(), 1);
}

#[test]
fn the_node_screen_acts_on_its_node() {
    let mut model = demo_model();
    press(&mut model, "jjj");
    key(&mut model, KeyCode::Enter);
    assert!(matches!(model.screen, Screen::Node(_)));
    press(&mut model, "a");
    let form = prompt(&model);
    assert_eq!(form.nodes, ["rpc-1"]);
    clear_and_type(&mut model, "nohost");
    key(&mut model, KeyCode::Enter);
    let form = prompt(&model);
    assert!(
        form.error
            .as_deref()
            .is_some_and(|e| e.starts_with("external address: ")),
        "{form:?}"
    );
    clear_and_type(&mut model, "203.0.113.7:26656");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        matches!(cmds.as_slice(), [Cmd::PrepareAction { request, .. }]
            if request.parts[0].operation.downcast::<crate::ops::actions::address::AddressInput>().is_some_and(|a| a.node == "rpc-1")),
        "{cmds:?}"
    );
    // Esc cancels the dialog, not the node screen.
    key(&mut model, KeyCode::Esc);
    assert!(matches!(model.screen, Screen::Node(_)));
}

#[test]
fn the_seed_form_moves_field_by_field_and_names_the_bad_one() {
    let mut model = demo_model();
    press(&mut model, "n");
    let form = prompt(&model);
    assert_eq!(form.fields.len(), 4);
    assert_eq!(form.value(1), "pacific-1");
    press(&mut model, "Seed_1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let form = prompt(&model);
    assert!(
        form.error
            .as_deref()
            .is_some_and(|e| e.starts_with("name: ")),
        "{form:?}"
    );
    assert_eq!(
        match stage(&model) {
            Stage::Prompt(form) => form.focus,
            _ => 99,
        },
        0,
        "the field the error names is focused"
    );
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::BackTab);
    clear_and_type(&mut model, "seed-1");
    key(&mut model, KeyCode::BackTab);
    press(&mut model, "198.51.100.4:26656");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        matches!(cmds.as_slice(), [Cmd::PrepareAction { request, .. }]
            if request.parts[0].operation.downcast::<crate::ops::actions::seed::SeedInput>().is_some_and(|s| s.name == "seed-1" && s.external_address.is_some())),
        "{cmds:?}"
    );
}

/// A rollout prepared, previewed and confirmed: running, its dialog open. Returns its id.
pub(crate) fn running_rollout() -> (Model, u64) {
    let (mut model, _) = rollout_preparing();
    let id = flow_id(&model);
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview(&[], None)),
        },
    );
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    (model, id)
}

#[test]
fn progress_streams_in_and_esc_hides_while_running() {
    let (mut model, id) = running_rollout();
    let line = ProgressLine {
        node: Some("rpc-0".into()),
        text: "[1/7] apply-statefulset: submitted".into(),
        tone: LineTone::Info,
        at: None,
        live: false,
    };
    update(
        &mut model,
        Msg::ActionProgress {
            id,
            line: line.clone(),
        },
    );
    update(
        &mut model,
        Msg::ActionProgress {
            id: id + 7,
            line: line.clone(),
        },
    );
    let Stage::Running { lines, .. } = stage(&model) else {
        panic!("running")
    };
    // Stamped with the console's clock on arrival.
    let stamped = ProgressLine {
        at: Some(model.now),
        ..line
    };
    assert_eq!(lines, &vec![stamped]);
    // A second action cannot start while this one runs.
    key(&mut model, KeyCode::Esc);
    assert!(model.action.as_ref().is_some_and(|f| f.hidden));
    press(&mut model, "i");
    assert!(
        model
            .flash
            .as_ref()
            .is_some_and(|f| f.error && f.text.contains("running"))
    );
    // Quitting while it runs asks for a second q; any other key in between disarms it.
    press(&mut model, "q");
    assert!(!model.quit);
    assert!(
        model
            .flash
            .as_ref()
            .is_some_and(|f| f.error && f.text.contains("again to quit"))
    );
    press(&mut model, "j");
    press(&mut model, "q");
    assert!(!model.quit, "j disarmed the first q");
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
    assert_eq!(
        model.flash.as_ref().map(|f| f.text.as_str()),
        Some("rollout complete")
    );
    press(&mut model, "p");
    assert!(model.action.as_ref().is_some_and(|f| !f.hidden));
    key(&mut model, KeyCode::Esc);
    assert!(
        model.action.as_ref().is_some_and(|f| f.hidden),
        "esc closes a finished action's dialog"
    );
    press(&mut model, "q");
    assert!(model.quit, "nothing runs: one q quits");
}

/// Issue 27: `p` ("show the running or last action") right after a rollout's dialog was
/// closed shows that rollout's end, not `no action yet`.
#[test]
fn p_shows_the_last_action_after_its_dialog_closed() {
    let (mut model, id) = running_rollout();
    update(
        &mut model,
        Msg::ActionFinished {
            id,
            finished: Finished {
                ok: false,
                message: "rollout halted: rpc-0 failed".into(),
            },
        },
    );
    key(&mut model, KeyCode::Esc);
    assert!(!crate::app::update::dialog_open(&model), "closed");
    press(&mut model, "p");
    assert_ne!(
        model.flash.as_ref().map(|f| f.text.as_str()),
        Some("no action yet")
    );
    let Some(flow) = model.action.as_ref().filter(|f| !f.hidden) else {
        panic!("p shows the last action")
    };
    let Stage::Running {
        finished: Some(end),
        ..
    } = &flow.stage
    else {
        panic!("its end")
    };
    assert_eq!(end.message, "rollout halted: rpc-0 failed");
    // A new action replaces it.
    key(&mut model, KeyCode::Esc);
    press(&mut model, "i");
    assert!(matches!(stage(&model), Stage::Prompt(_)));
}

#[test]
fn a_second_q_quits_while_an_action_runs() {
    // On the fleet with the dialog hidden, and on the progress dialog itself (issue 33: `q`
    // there did nothing and said nothing).
    for hide_dialog in [true, false] {
        let (mut model, _) = running_rollout();
        if hide_dialog {
            key(&mut model, KeyCode::Esc);
        }
        assert!(model.action.as_ref().is_some_and(|f| f.is_running()));
        press(&mut model, "q");
        assert!(!model.quit);
        assert!(
            model
                .flash
                .as_ref()
                .is_some_and(|f| f.error && f.text.starts_with("press q or ctrl-c again to quit")),
            "the question leads with its instruction: {:?}",
            model.flash
        );
        press(&mut model, "q");
        assert!(model.quit, "dialog hidden: {hide_dialog}");
    }
}

#[test]
fn ctrl_c_is_quit_and_warns_first_while_an_action_runs() {
    for hide_dialog in [false, true] {
        let (mut model, _) = running_rollout();
        if hide_dialog {
            key(&mut model, KeyCode::Esc);
        }
        update(&mut model, Msg::Key(Key::ctrl('c')));
        assert!(
            !model.quit,
            "the first ctrl-c only warns (dialog hidden: {hide_dialog})"
        );
        assert!(
            model
                .flash
                .as_ref()
                .is_some_and(|f| f.text.contains("resumes it")),
            "{:?}",
            model.flash
        );
        update(&mut model, Msg::Key(Key::ctrl('c')));
        assert!(model.quit, "the second ctrl-c quits");
    }
}
