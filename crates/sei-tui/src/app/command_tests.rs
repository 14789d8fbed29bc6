//! The `:` palette, the viewer keys and ctrl-z, on the demo model.
use super::model::{Cmd, Model, Msg, Screen};
use super::tests::{demo_model, key, press};
use super::update::update;
use super::viewer::{ViewerKind, lines};
use crate::keymap::{Key, KeyCode};

fn command(model: &mut Model, text: &str) -> Vec<Cmd> {
    press(model, ":");
    press(model, text);
    key(model, KeyCode::Enter)
}

fn flash(model: &Model) -> String {
    model
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default()
}

fn with_contexts_and_namespaces(model: &mut Model) {
    model.contexts = vec!["kind-sei".into(), "prod-east".into(), "prod-west".into()];
    update(
        model,
        Msg::Namespaces(Ok(vec!["default".into(), "sei".into(), "sei-demo".into()])),
    );
}

#[test]
fn unknown_contexts_and_namespaces_are_refused_with_the_list() {
    let mut model = demo_model();
    with_contexts_and_namespaces(&mut model);
    let epoch = model.scope_epoch;
    assert!(command(&mut model, "ctx nope").is_empty());
    assert_eq!(model.scope.context(), "kind-sei", "nothing switched");
    assert_eq!(model.scope_epoch, epoch);
    assert!(
        flash(&model).contains("no context \"nope\""),
        "{}",
        flash(&model)
    );
    assert!(
        flash(&model).contains("prod-east, prod-west"),
        "{}",
        flash(&model)
    );

    assert!(command(&mut model, "ns nope").is_empty());
    assert_eq!(model.scope.namespace.as_deref(), Some("sei"));
    assert!(
        flash(&model).contains("default, sei, sei-demo"),
        "{}",
        flash(&model)
    );

    // `:ns` alone lists instead of switching to all namespaces.
    assert!(command(&mut model, "ns").is_empty());
    assert_eq!(model.scope.namespace.as_deref(), Some("sei"));
    assert!(flash(&model).contains(":ns all"), "{}", flash(&model));

    let cmds = command(&mut model, "ns sei-demo");
    assert!(cmds.iter().any(|c| matches!(c, Cmd::WatchCluster { .. })));
    assert_eq!(model.scope.namespace.as_deref(), Some("sei-demo"));
    let cmds = command(&mut model, "ctx prod-west");
    assert!(cmds.iter().any(|c| matches!(c, Cmd::WatchCluster { .. })));
    assert_eq!(model.scope.context(), "prod-west");
}

#[test]
fn tab_completes_commands_contexts_and_namespaces() {
    let mut model = demo_model();
    with_contexts_and_namespaces(&mut model);
    press(&mut model, ":c");
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.input.as_ref().map(|i| i.text.as_str()), Some("ctx "));
    press(&mut model, "p");
    key(&mut model, KeyCode::Tab);
    assert_eq!(
        model.input.as_ref().map(|i| i.text.as_str()),
        Some("ctx prod-")
    );
    assert!(
        flash(&model).contains("prod-east, prod-west"),
        "several: listed"
    );
    press(&mut model, "w");
    key(&mut model, KeyCode::Tab);
    assert_eq!(
        model.input.as_ref().map(|i| i.text.as_str()),
        Some("ctx prod-west ")
    );
    key(&mut model, KeyCode::Esc);
    press(&mut model, ":ns sei-");
    key(&mut model, KeyCode::Tab);
    assert_eq!(
        model.input.as_ref().map(|i| i.text.as_str()),
        Some("ns sei-demo ")
    );
}

#[test]
fn describe_yaml_and_events_open_the_viewer_with_search() {
    let mut model = demo_model();
    press(&mut model, "jj");
    let cmds = press(&mut model, "d");
    assert!(
        cmds.iter().any(|c| matches!(c, Cmd::WatchDetail { .. })),
        "describe watches the node"
    );
    assert!(matches!(model.screen, Screen::Node(_)));
    let kind = model
        .viewer
        .as_ref()
        .map(|v| v.kind.clone())
        .expect("viewer");
    assert!(matches!(&kind, ViewerKind::Describe(k) if &*k.name == "rpc-0"));
    let text = lines(&model, &kind).join("\n");
    assert!(text.contains("Name:             rpc-0"), "{text}");
    assert!(
        text.contains("StatefulSet: unknown, not listed yet"),
        "unknown, not absent:\n{text}"
    );
    press(&mut model, "/events");
    key(&mut model, KeyCode::Enter);
    let scroll = model.viewer.as_ref().map(|v| v.scroll).unwrap_or(0);
    let page = usize::from(model.size.1 - 6);
    let shown = &lines(&model, &kind)[scroll..];
    assert!(
        shown.iter().take(page).any(|l| l.starts_with("Events:")),
        "search scrolls the match into view"
    );
    press(&mut model, "q");
    assert!(
        model.viewer.is_none() && !model.quit,
        "q closes the viewer, not the console"
    );

    press(&mut model, "y");
    let kind = model
        .viewer
        .as_ref()
        .map(|v| v.kind.clone())
        .expect("viewer");
    let yaml = lines(&model, &kind).join("\n");
    assert!(
        yaml.contains("kind: SeiNode") && yaml.contains("name: rpc-0"),
        "{yaml}"
    );
    key(&mut model, KeyCode::Esc);

    command(&mut model, "events");
    let kind = model
        .viewer
        .as_ref()
        .map(|v| v.kind.clone())
        .expect("viewer");
    let events = lines(&model, &kind);
    assert!(events[0].starts_with("AGE"), "{events:?}");
    assert!(
        events.iter().any(|l| l.contains("StatefulSetRenderFailed")),
        "{events:?}"
    );
}

#[test]
fn ctrl_z_asks_the_loop_to_suspend_and_esc_clears_marks_after_the_filter() {
    let mut model = demo_model();
    update(&mut model, Msg::Key(Key::ctrl('z')));
    assert!(model.suspend);
    press(&mut model, " ");
    assert_eq!(model.marked.len(), 1);
    press(&mut model, "/rpc");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Esc);
    assert!(model.filter.is_empty());
    assert_eq!(model.marked.len(), 1, "the first esc clears the filter");
    key(&mut model, KeyCode::Esc);
    assert!(model.marked.is_empty(), "the second clears the marks");
    press(&mut model, " ");
    update(
        &mut model,
        Msg::Key(Key {
            code: KeyCode::Char(' '),
            ctrl: true,
        }),
    );
    assert!(model.marked.is_empty(), "ctrl-space clears the marks");
}
