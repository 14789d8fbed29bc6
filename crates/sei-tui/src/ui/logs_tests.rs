//! Snapshots of the logs view at 80x24 and 200x50: following, scrolled with a search, wrapped,
//! and a refusal as one line.
use super::tests::render;
use super::theme::Theme;
use crate::app::model::{Cmd, Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::keymap::KeyCode;

/// The demo fleet with `archive-0`'s seid log open and `count` lines in it, one of them long.
fn with_log(count: usize) -> (Model, u64) {
    let mut model = demo_model();
    let cmds = press(&mut model, "l");
    let epoch = cmds
        .iter()
        .find_map(|cmd| match cmd {
            Cmd::StreamLogs { epoch, .. } => Some(*epoch),
            _ => None,
        })
        .expect("a stream");
    let lines = (0..count)
        .map(|i| match i {
            5 => "2026-03-01T12:00:05Z ERR consensus: failed to verify the proposal's signature from peer 0f3a9c1b7e2d4f60a8b5c3d2e1f0a9b8c7d6e5f4@10.0.3.17:26656 at height 1200005 round 0: invalid signature".to_owned(),
            _ => format!("2026-03-01T12:00:{:02}Z INF committed block height={} txs={}", i % 60, 1_200_000 + i, i % 7),
        })
        .collect();
    update(&mut model, Msg::LogLines { epoch, lines });
    (model, epoch)
}

#[test]
fn logs_following_at_80x24_and_200x50() {
    let (mut model, _) = with_log(60);
    insta::assert_snapshot!(
        "logs_following_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "logs_following_200x50",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn logs_searched_and_wrapped_at_80x24_and_200x50() {
    let (mut model, _) = with_log(60);
    render(&mut model, 80, 24, &Theme::dark());
    press(&mut model, "/err");
    key(&mut model, KeyCode::Enter);
    press(&mut model, "w");
    insta::assert_snapshot!(
        "logs_searched_wrapped_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "logs_searched_wrapped_200x50",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn logs_refused_in_one_line_at_80x24_and_200x50() {
    let (mut model, epoch) = with_log(0);
    press(&mut model, "c");
    let epoch = epoch + 1;
    update(
        &mut model,
        Msg::LogEnded {
            epoch,
            error: Some("no logs of container sei-sidecar of pod archive-0-0: container \"sei-sidecar\" in pod \"archive-0-0\" is waiting to start: ContainerCreating".into()),
        },
    );
    insta::assert_snapshot!(
        "logs_refused_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "logs_refused_200x50",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn logs_filtered_at_80x24_and_200x50() {
    let (mut model, _) = with_log(60);
    render(&mut model, 80, 24, &Theme::dark());
    press(&mut model, "&ERR|height=120000[1-3]");
    insta::assert_snapshot!(
        "logs_filter_typed_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(
        "logs_filtered_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "logs_filtered_200x50",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn logs_with_timestamps_at_80x24_and_200x50() {
    let (mut model, epoch) = with_log(3);
    press(&mut model, "t");
    // The stream asked again: the API server puts its time before each line.
    let lines = (0..3)
        .map(|i| {
            format!(
                "2026-03-01T12:00:0{i}.123456789Z I[2026-03-01|12:00:0{i}] committed height={}",
                1_200_000 + i
            )
        })
        .collect();
    update(
        &mut model,
        Msg::LogLines {
            epoch: epoch + 1,
            lines,
        },
    );
    insta::assert_snapshot!(
        "logs_timestamps_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "logs_timestamps_200x50",
        render(&mut model, 200, 50, &Theme::dark())
    );
}
