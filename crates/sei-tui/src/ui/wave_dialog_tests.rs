//! The rollout of several marked nodes in the console: the canary and batch fields of the
//! prompt, and the preview with the wave plan and the skipped nodes at its top, at 80x24 and
//! 120x40. The preview's head is the use case's own text (`RolloutPrepared::head_text`).
use super::tests::render;
use super::theme::Theme;
use crate::actions::image_ref::ImageRef;
use crate::actions::preview::image_pin_preview;
use crate::actions::waves::plan_waves;
use crate::app::action::{ActionPreview, ActionRequest, PermissionSummary, Stage};
use crate::app::model::{Cmd, Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::config::WaveDefaults;
use crate::fleet::sample;
use crate::keymap::{Key, KeyCode};
use crate::ops::PermissionVerdict;
use crate::ops::action::SomeOperation;
use crate::ops::actions::rollout::{Blocked, NodeToRoll, RolloutInput, RolloutPrepared, Selection};
use crate::planner::PlanContext;

const NEW: &str = "ghcr.io/sei-protocol/sei:v6.5.0";

fn screens(model: &mut Model) -> String {
    let small = render(model, 80, 24, &Theme::plain());
    let wide = render(model, 120, 40, &Theme::plain());
    format!("{small}--- 120x40 ---\n{wide}")
}

/// archive-0, rpc-0, rpc-1 and validator-0 marked, `i`, the image typed, rpc-0 chosen as
/// canary with → →, batch 2.
fn at_filled_prompt() -> Model {
    let mut model = demo_model();
    press(&mut model, " j  j ");
    assert_eq!(model.marked.len(), 4);
    press(&mut model, "i");
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, NEW);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Right);
    key(&mut model, KeyCode::Right);
    key(&mut model, KeyCode::Tab);
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "2");
    model
}

#[test]
fn the_prompt_chooses_the_canary_among_the_marked_nodes_and_the_batch_size() {
    let mut model = at_filled_prompt();
    insta::assert_snapshot!("wave_prompt", screens(&mut model));
    let cmds = key(&mut model, KeyCode::Enter);
    let [Cmd::PrepareAction { request, .. }] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(
        request,
        &ActionRequest::one(
            "kind-sei",
            "sei",
            SomeOperation::new(RolloutInput {
                selection: Selection::Named(
                    ["archive-0", "rpc-0", "rpc-1", "validator-0"]
                        .map(String::from)
                        .into()
                ),
                image: ImageRef::parse(NEW).expect("image"),
                waves: WaveDefaults {
                    canary: 1,
                    batch: 2
                },
                canary_nodes: vec!["rpc-0".into()],
                wait: true,
                dry_run: false,
                health_gate: Some(crate::chain::gate::GateSettings::default()),
                allow_unusual_tag: true,
                undo_of: None,
                hold_after: None,
                resolve_digest: false,
            }),
        )
    );
}

#[test]
fn a_bad_batch_or_a_canary_not_marked_is_refused_in_the_form() {
    let mut model = at_filled_prompt();
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "0");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let Some(Stage::Prompt(form)) = model.action.as_ref().map(|f| &f.stage) else {
        panic!("still the prompt");
    };
    assert_eq!(form.focus, 2, "the batch field is focused");
    assert!(
        form.error
            .as_deref()
            .is_some_and(|e| e.starts_with("batch: ")),
        "{form:?}"
    );
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "2");
    key(&mut model, KeyCode::BackTab);
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "seed-0");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    let Some(Stage::Prompt(form)) = model.action.as_ref().map(|f| &f.stage) else {
        panic!("still the prompt");
    };
    assert_eq!(
        form.error.as_deref(),
        Some(
            "canary: seed-0 is not one of the marked nodes (archive-0, rpc-0, rpc-1, validator-0)"
        )
    );
    // none: no canary wave.
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "none");
    key(&mut model, KeyCode::Enter);
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(
        matches!(cmds.as_slice(), [Cmd::PrepareAction { request, .. }]
            if request.parts[0].operation.downcast::<RolloutInput>().is_some_and(|r| r.waves.canary == 0 && r.canary_nodes.is_empty())),
        "{cmds:?}"
    );
}

/// The prepared rollout the use case would return for the filled prompt: rpc-0 first as the
/// canary, validator-0 (Failed) skipped.
fn prepared(model: &Model) -> RolloutPrepared {
    let image = ImageRef::parse(NEW).expect("image");
    let ctx = PlanContext::new("ghcr.io/sei-protocol/sei-sidecar:v1.2.0", sample::now())
        .with_plan_id(uuid::Uuid::from_u128(0x5e1_c0de));
    let stored = |name: &str| {
        model
            .fleet
            .node(&crate::app::tests::demo_key(name))
            .cloned()
            .expect("demo node")
    };
    let mut nodes = Vec::new();
    let mut blocked = Vec::new();
    for name in ["rpc-0", "archive-0", "rpc-1", "validator-0"] {
        let node = stored(name);
        let preview = image_pin_preview(&node, &image, &ctx).expect("preview");
        // As `rollout::prepare`: a node whose plan is Active runs it first, it is not blocked.
        let active = node
            .status
            .as_ref()
            .and_then(|s| s.plan.as_ref())
            .is_some_and(|p| p.phase == crate::api::PlanPhase::Active);
        match preview.plan.no_plan.as_ref().filter(|_| !active) {
            Some(reason) => blocked.push(Blocked {
                node: name.into(),
                reason: format!("no plan can take it to {image}: {reason}"),
            }),
            None => nodes.push(NodeToRoll {
                node,
                plan_id: uuid::Uuid::from_u128(0x5e1_c0de),
                preview,
                tasks: Vec::new(),
            }),
        }
    }
    let sizes = WaveDefaults {
        canary: 1,
        batch: 2,
    };
    let names: Vec<String> = nodes.iter().map(|n| n.node.name().to_owned()).collect();
    RolloutPrepared {
        input: RolloutInput {
            selection: Selection::Named(names.clone()),
            image,
            waves: sizes,
            canary_nodes: vec!["rpc-0".into()],
            wait: true,
            dry_run: false,
            health_gate: Some(crate::chain::gate::GateSettings::default()),
            allow_unusual_tag: true,
            undo_of: None,
            hold_after: None,
            resolve_digest: false,
        },
        already_rolled: Vec::new(),
        resumed: Vec::new(),
        waves: plan_waves(&names, sizes.canary, sizes.batch),
        sizes,
        nodes,
        blocked,
        peer_notes: Vec::new(),
        permissions: PermissionVerdict {
            checks: Vec::new(),
            outcome: Some(Ok(())),
            sidecar_credential: None,
        },
        confirm_names: Vec::new(),
        question: format!("roll {} node(s) to {NEW}?", names.len()),
        canary_notes: Vec::new(),
        executor: None,
        unusual_tag: None,
        rollout_id: "20260101-000000-0000".into(),
        resolved_digest: None,
    }
}

#[test]
fn the_preview_opens_with_the_wave_plan_and_the_skipped_nodes() {
    let mut model = at_filled_prompt();
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    let prepared = prepared(&model);
    assert_eq!(prepared.blocked.len(), 1, "validator-0 cannot be planned");
    let preview = ActionPreview {
        head: prepared.head_text(),
        text: prepared.body_text(),
        permissions: PermissionSummary {
            checked: 14,
            denied: Vec::new(),
            error: None,
        },
        executor:
            "executor: embedded (no Lease bc1f5b0a.sei.io in namespace sei-k8s-controller-system)"
                .into(),
        blocked: None,
        confirm_names: Vec::new(),
        question: prepared.question.clone(),
        nothing_to_do: None,
    };
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview),
        },
    );
    let screen = screens(&mut model);
    let small = screen.split("--- 120x40 ---").next().unwrap_or_default();
    for wanted in [
        "Waves (canary 1, batch 2",
        "1. canary rpc-0",
        "2. batch  archive-0, rpc-1",
        "validator-0: skipped",
    ] {
        assert!(small.contains(wanted), "{wanted} at 80x24:\n{small}");
    }
    insta::assert_snapshot!("wave_preview", screen);
}
