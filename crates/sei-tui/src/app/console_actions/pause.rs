//! `pause` (`z`) and `resume` (`Z`) of the selected or open node: no field to fill, the preview
//! (the StatefulSet to zero replicas and back) says what happens.
use super::ConsoleAction;
use crate::app::action::{Form, one_node_form};
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::pause::{PAUSE as PAUSE_KIND, PauseInput, RESUME as RESUME_KIND};

pub const PAUSE: ConsoleAction = ConsoleAction {
    kind: PAUSE_KIND,
    title: "Pause node",
    bindings: &[
        Binding {
            context: Context::Fleet,
            keys: &["z"],
            action: Action::Operator(PAUSE_KIND.name()),
            help: "pause the selected node (StatefulSet to 0: pod terminates)",
        },
        Binding {
            context: Context::Node,
            keys: &["z"],
            action: Action::Operator(PAUSE_KIND.name()),
            help: "pause this node (StatefulSet to 0: pod terminates)",
        },
    ],
    form: |node, _| one_node_form(node),
    validate: |form| Ok(operation(form, true)),
};

pub const RESUME: ConsoleAction = ConsoleAction {
    kind: RESUME_KIND,
    title: "Resume node",
    bindings: &[
        Binding {
            context: Context::Fleet,
            keys: &["Z"],
            action: Action::Operator(RESUME_KIND.name()),
            help: "resume the selected paused node (StatefulSet back: pod starts)",
        },
        Binding {
            context: Context::Node,
            keys: &["Z"],
            action: Action::Operator(RESUME_KIND.name()),
            help: "resume this paused node (StatefulSet back: pod starts)",
        },
    ],
    form: |node, _| one_node_form(node),
    validate: |form| Ok(operation(form, false)),
};

fn operation(form: &Form, paused: bool) -> SomeOperation {
    SomeOperation::new(PauseInput {
        node: form.nodes.first().cloned().unwrap_or_default(),
        paused,
        wait: true,
        dry_run: false,
    })
}
