//! Tests of the logs view's state: opening, the stream's epochs, containers, previous, the
//! bounded buffer, following, search and refusals.
use super::logs::{LOG_BUFFER_LINES, LogStatus};
use super::model::{Cmd, Msg, Screen};
use super::tests::{demo_model, key, press};
use super::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::keymap::{Key, KeyCode};
use crate::ports::logs::LogRequest;

fn stream(cmds: &[Cmd]) -> Option<(u64, LogRequest)> {
    cmds.iter().find_map(|cmd| match cmd {
        Cmd::StreamLogs { epoch, request, .. } => Some((*epoch, request.clone())),
        _ => None,
    })
}

fn lines(model: &mut super::model::Model, epoch: u64, from: usize, count: usize) {
    let lines = (from..from + count).map(|i| format!("line {i}")).collect();
    update(model, Msg::LogLines { epoch, lines });
}

#[test]
fn l_on_the_fleet_opens_the_node_and_streams_its_seid_log_following() {
    let mut model = demo_model();
    let cmds = press(&mut model, "l");
    let node = model.selected_key().cloned().expect("selected");
    assert_eq!(
        model.screen,
        Screen::Node(node.clone()),
        "the node screen under it"
    );
    assert!(cmds.iter().any(|c| matches!(c, Cmd::WatchDetail { .. })));
    let (epoch, request) = stream(&cmds).expect("a stream");
    assert_eq!(request.pod, format!("{}-0", node.name));
    assert_eq!(request.namespace, "sei");
    assert_eq!(request.container, "seid");
    assert!(request.follow && !request.previous);
    assert_eq!(request.tail_lines, Some(5_000));
    lines(&mut model, epoch, 0, 3);
    lines(&mut model, epoch + 7, 0, 3);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.lines.len(), 3, "a stale stream's lines are dropped");
    assert_eq!(view.status, LogStatus::Following);
    // esc closes the view and stops the stream; the node screen stays.
    let cmds = key(&mut model, KeyCode::Esc);
    assert_eq!(cmds, vec![Cmd::StopLogs]);
    assert!(model.logs.is_none());
    assert!(matches!(model.screen, Screen::Node(_)));
}

#[test]
fn c_cycles_the_pods_containers_and_p_shows_the_previous_one() {
    let mut model = demo_model();
    key(&mut model, KeyCode::Enter);
    let node = model.selected_key().cloned().expect("selected");
    let mut pod = sample::pod("sei", &node.name, true, 1, "r1");
    let spec = pod.spec.as_mut().expect("spec");
    spec.containers.push(k8s_openapi::api::core::v1::Container {
        name: "kube-rbac-proxy".into(),
        ..Default::default()
    });
    spec.init_containers = Some(vec![k8s_openapi::api::core::v1::Container {
        name: "seid-init".into(),
        ..Default::default()
    }]);
    let epoch = model.detail_epoch;
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Pod(Delta::applied(pod)),
        },
    );
    let (first, _) = stream(&press(&mut model, "l")).expect("stream");
    lines(&mut model, first, 0, 2);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let (_, request) = stream(&press(&mut model, "c")).expect("stream");
        seen.push(request.container);
    }
    assert_eq!(
        seen,
        ["sei-sidecar", "kube-rbac-proxy", "seid-init", "seid"]
    );
    assert!(model.logs.as_ref().is_some_and(|v| v.lines.is_empty()));
    let (_, request) = stream(&press(&mut model, "p")).expect("stream");
    assert!(
        request.previous && !request.follow,
        "a terminated container writes no more"
    );
    assert!(
        model
            .logs
            .as_ref()
            .is_some_and(|v| v.title().contains("previous seid"))
    );
    let (_, request) = stream(&press(&mut model, "p")).expect("stream");
    assert!(!request.previous && request.follow);
}

#[test]
fn the_buffer_keeps_the_newest_lines_and_a_reader_scrolled_up_keeps_his_place() {
    let mut model = demo_model();
    model.size = (80, 24);
    let (epoch, _) = stream(&press(&mut model, "l")).expect("stream");
    lines(&mut model, epoch, 0, LOG_BUFFER_LINES + 100);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.lines.len(), LOG_BUFFER_LINES);
    assert_eq!(view.dropped, 100);
    assert_eq!(view.lines.front().map(String::as_str), Some("line 100"));
    assert!(view.at_end);
    // k leaves the end: new lines no longer move the view.
    press(&mut model, "k");
    let view = model.logs.as_ref().expect("open");
    assert!(!view.at_end);
    let top = view.lines[view.scroll].clone();
    lines(&mut model, epoch, 6_000, 50);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.lines[view.scroll], top, "the same line stays on top");
    press(&mut model, "g");
    assert_eq!(model.logs.as_ref().map(|v| v.scroll), Some(0));
    press(&mut model, "G");
    assert!(model.logs.as_ref().is_some_and(|v| v.at_end));
    press(&mut model, "w");
    assert!(model.logs.as_ref().is_some_and(|v| v.wrap));
}

#[test]
fn search_jumps_between_matches_and_says_when_there_is_none() {
    let mut model = demo_model();
    model.size = (80, 24);
    let (epoch, _) = stream(&press(&mut model, "l")).expect("stream");
    lines(&mut model, epoch, 0, 100);
    update(
        &mut model,
        Msg::LogLines {
            epoch,
            lines: vec!["ERR height 7".into()],
        },
    );
    lines(&mut model, epoch, 200, 100);
    press(&mut model, "/err");
    key(&mut model, KeyCode::Enter);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.lines[view.scroll], "ERR height 7");
    assert!(!view.at_end, "the match stays in view while lines arrive");
    press(&mut model, "/line 250");
    key(&mut model, KeyCode::Enter);
    press(&mut model, "n");
    let view = model.logs.as_ref().expect("open");
    assert_eq!(
        view.lines[view.scroll], "line 250",
        "the only match, wrapped around"
    );
    press(&mut model, "/nothing");
    key(&mut model, KeyCode::Enter);
    assert!(
        model
            .flash
            .as_ref()
            .is_some_and(|f| f.error && f.text.contains("not found"))
    );
}

#[test]
fn a_refused_stream_is_one_line_and_the_view_stays_open() {
    let mut model = demo_model();
    let (epoch, _) = stream(&press(&mut model, "l")).expect("stream");
    let error = "no logs: pod x-0 not found in namespace sei (not created yet, or deleted)";
    update(
        &mut model,
        Msg::LogEnded {
            epoch,
            error: Some(error.into()),
        },
    );
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.status, LogStatus::Failed(error.into()));
    assert!(view.title().ends_with("failed"));
    // The stream asked again and the pod came: its lines replace the refusal.
    lines(&mut model, epoch, 0, 2);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.status, LogStatus::Following);
    assert_eq!(view.lines.len(), 2);
}

#[test]
fn t_asks_the_stream_again_with_timestamps_and_back_without() {
    let mut model = demo_model();
    let (first, request) = stream(&press(&mut model, "l")).expect("a stream");
    assert!(!request.timestamps);
    lines(&mut model, first, 0, 3);
    let (second, request) = stream(&press(&mut model, "t")).expect("asked again");
    assert!(second > first && request.timestamps && request.follow);
    let view = model.logs.as_ref().expect("open");
    assert!(
        view.lines.is_empty() && view.timestamps,
        "the buffer starts afresh"
    );
    assert!(view.title().ends_with(" · timestamps"), "{}", view.title());
    // The old stream's lines are dropped; the container and previous keep the timestamps.
    lines(&mut model, first, 0, 3);
    assert!(model.logs.as_ref().expect("open").lines.is_empty());
    let (_, request) = stream(&press(&mut model, "c")).expect("next container");
    assert!(request.timestamps);
    let (_, request) = stream(&press(&mut model, "t")).expect("off");
    assert!(!request.timestamps);
}

#[test]
fn ampersand_keeps_only_the_matching_lines_and_the_bound_holds_with_a_filter() {
    let mut model = demo_model();
    let (epoch, _) = stream(&press(&mut model, "l")).expect("a stream");
    lines(&mut model, epoch, 0, 30);
    press(&mut model, "&line 1\\d*$");
    key(&mut model, KeyCode::Enter);
    let view = model.logs.as_ref().expect("open");
    let shown: Vec<&str> = view.shown().into_iter().map(String::as_str).collect();
    let expected: Vec<String> = [1]
        .into_iter()
        .chain(10..20)
        .map(|i| format!("line {i}"))
        .collect();
    assert_eq!(shown, expected);
    assert_eq!(
        view.filter.as_ref().map(|f| f.pattern()),
        Some("line 1\\d*$")
    );
    // New lines are filtered as they come.
    lines(&mut model, epoch, 100, 20);
    assert_eq!(model.logs.as_ref().expect("open").shown_len(), 11 + 20);
    // The bound drops the oldest lines and their matches with them.
    lines(&mut model, epoch, 1_000, LOG_BUFFER_LINES);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.lines.len(), LOG_BUFFER_LINES);
    let shown = view.shown();
    assert_eq!(shown.len(), 1_000, "line 1000 to line 1999");
    assert_eq!(shown.first().map(|l| l.as_str()), Some("line 1000"));
    assert_eq!(shown.last().map(|l| l.as_str()), Some("line 1999"));
    // Search moves within the filtered lines.
    press(&mut model, "/line 1500");
    key(&mut model, KeyCode::Enter);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.shown()[view.scroll], "line 1500");
    // A pattern that does not compile is one line and leaves the filter as it was.
    press(&mut model, "&(");
    key(&mut model, KeyCode::Enter);
    let flash = model.flash.clone().expect("refused");
    assert!(
        flash.error && flash.text.starts_with("bad filter \"line 1\\\\d*$(\""),
        "{flash:?}"
    );
    key(&mut model, KeyCode::Esc);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(
        view.filter.as_ref().map(|f| f.pattern()),
        Some("line 1\\d*$")
    );
    // An empty filter shows every line again.
    press(&mut model, "&");
    for _ in 0..20 {
        key(&mut model, KeyCode::Backspace);
    }
    key(&mut model, KeyCode::Enter);
    let view = model.logs.as_ref().expect("open");
    assert!(view.filter.is_none() && view.shown_len() == LOG_BUFFER_LINES);
}

#[test]
fn ctrl_s_asks_to_save_the_lines_shown_under_a_name_of_the_pod_and_time() {
    let mut model = demo_model();
    let (epoch, _) = stream(&press(&mut model, "l")).expect("a stream");
    let none = update(&mut model, Msg::Key(crate::keymap::Key::ctrl('s')));
    assert!(none.is_empty(), "nothing shown, nothing written: {none:?}");
    assert!(model.flash.as_ref().is_some_and(|f| f.error));
    lines(&mut model, epoch, 0, 12);
    press(&mut model, "&line 1");
    key(&mut model, KeyCode::Enter);
    let cmds = update(&mut model, Msg::Key(crate::keymap::Key::ctrl('s')));
    let view = model.logs.as_ref().expect("open");
    let stamp = model.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let expected = format!("sei_{}_seid_{stamp}.log", view.pod());
    match cmds.as_slice() {
        [Cmd::SaveLogs { file_name, lines }] => {
            assert_eq!(file_name, &expected);
            assert_eq!(lines, &["line 1", "line 10", "line 11"]);
        }
        other => panic!("{other:?}"),
    }
    let path = std::path::PathBuf::from("/state/sei-console/logs").join(&expected);
    update(
        &mut model,
        Msg::LogsSaved {
            count: 3,
            result: Ok(path.clone()),
        },
    );
    let flash = model.flash.clone().expect("said");
    assert_eq!(flash.text, format!("saved 3 lines to {}", path.display()));
}

#[test]
fn ctrl_u_clears_the_filter_line_that_opens_with_the_last_pattern() {
    let mut model = demo_model();
    let (epoch, _) = stream(&press(&mut model, "l")).expect("a stream");
    lines(&mut model, epoch, 0, 3);
    press(&mut model, "&line 1");
    key(&mut model, KeyCode::Enter);
    press(&mut model, "&");
    update(&mut model, Msg::Key(Key::ctrl('u')));
    press(&mut model, "line 2");
    key(&mut model, KeyCode::Enter);
    let view = model.logs.as_ref().expect("open");
    assert_eq!(view.filter.as_ref().map(|f| f.pattern()), Some("line 2"));
}
