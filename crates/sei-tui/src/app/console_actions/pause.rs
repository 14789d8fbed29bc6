//! `pause` (`z`) and `resume` (`Z`) of the selected or open node: no field to fill, the preview
//! (the StatefulSet to zero replicas and back) says what happens.
use super::{ConsoleAction, Targets};
use crate::app::action::{ActionRequest, Form, one_node_form};
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::pause::{PAUSE, PauseInput, RESUME};

pub const ACTIONS: &[ConsoleAction] = &[
    ConsoleAction {
        kind: PAUSE,
        name: "pause",
        title: "Pause node",
        bindings: &[
            Binding {
                context: Context::Fleet,
                keys: &["z"],
                action: Action::Operator("pause"),
                help: "pause the selected node (StatefulSet to 0: pod terminates)",
            },
            Binding {
                context: Context::Node,
                keys: &["z"],
                action: Action::Operator("pause"),
                help: "pause this node (StatefulSet to 0: pod terminates)",
            },
        ],
        help_before: None,
        targets: Targets::OneNode,
        form: one_node_form,
        validate: |form| Ok(request(form, true)),
        image_field: None,
    },
    ConsoleAction {
        kind: RESUME,
        name: "resume",
        title: "Resume node",
        bindings: &[
            Binding {
                context: Context::Fleet,
                keys: &["Z"],
                action: Action::Operator("resume"),
                help: "resume the selected paused node (StatefulSet back: pod starts)",
            },
            Binding {
                context: Context::Node,
                keys: &["Z"],
                action: Action::Operator("resume"),
                help: "resume this paused node (StatefulSet back: pod starts)",
            },
        ],
        help_before: None,
        targets: Targets::OneNode,
        form: one_node_form,
        validate: |form| Ok(request(form, false)),
        image_field: None,
    },
];

fn request(form: &Form, paused: bool) -> ActionRequest {
    let operation = SomeOperation::new(PauseInput {
        node: form.nodes.first().cloned().unwrap_or_default(),
        paused,
        wait: true,
        dry_run: false,
    });
    ActionRequest::of_form(form, operation)
}
