//! Screens when the API server stops answering or sends objects the console cannot decode
//! (TestBackend, fixed sample clock, 80x24 and wide).
use jiff::SignedDuration;

use super::tests::render;
use super::theme::Theme;
use crate::app::model::{Cmd, Model, Msg};
use crate::app::tests::demo_model;
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::fleet::watches::ServerReport;

fn at(seconds: i64) -> jiff::Timestamp {
    sample::now()
        .checked_add(SignedDuration::from_secs(seconds))
        .expect("time")
}

fn server(model: &mut Model, report: ServerReport) -> Vec<Cmd> {
    let epoch = model.scope_epoch;
    update(model, Msg::Server { epoch, report })
}

/// The server answered at the sample clock, then stopped answering; 9 s later.
fn frozen_model() -> Model {
    let mut model = demo_model();
    server(&mut model, ServerReport::Answered { at: sample::now() });
    update(&mut model, Msg::Tick(at(5)));
    server(
        &mut model,
        ServerReport::Silent {
            error: "the API server did not answer within 3 s".into(),
        },
    );
    update(&mut model, Msg::Tick(at(9)));
    model
}

#[test]
fn a_silent_server_is_stale_with_the_age_of_the_last_confirmed_data() {
    let model = frozen_model();
    assert_eq!(
        model.clusters["kind-sei"]
            .server
            .silent
            .as_ref()
            .map(|(since, _)| *since),
        Some(at(5))
    );
    assert_eq!(
        super::chrome::banner_line(&model).as_deref(),
        Some(
            " STALE — data last confirmed 9s ago (04:00:00 UTC): the API server does not answer \
             (the API server did not answer within 3 s) — retrying "
        )
    );
}

#[test]
fn the_first_answer_clears_stale_and_resyncs_the_watches() {
    let mut model = frozen_model();
    let before = model.scope_epoch;
    let cmds = server(&mut model, ServerReport::Answered { at: at(10) });
    assert!(model.clusters["kind-sei"].server.silent.is_none());
    assert_eq!(model.scope_epoch, before + 1);
    assert!(
        matches!(&cmds[..], [Cmd::WatchCluster { epoch, .. }] if *epoch == before + 1),
        "{cmds:?}"
    );
    assert_eq!(super::chrome::banner_line(&model), None);
    // Answers while live change nothing else.
    assert!(server(&mut model, ServerReport::Answered { at: at(12) }).is_empty());
}

#[test]
fn probes_of_a_replaced_scope_are_ignored() {
    let mut model = demo_model();
    let epoch = model.scope_epoch - 1;
    update(
        &mut model,
        Msg::Server {
            epoch,
            report: ServerReport::Silent { error: "x".into() },
        },
    );
    assert!(model.clusters["kind-sei"].server.silent.is_none());
}

#[test]
fn stale_server_screen() {
    let mut model = frozen_model();
    insta::assert_snapshot!(
        "stale_server_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "stale_server_wide",
        render(&mut model, 200, 12, &Theme::dark())
    );
}

#[test]
fn an_undecodable_node_is_kept_out_counted_and_named() {
    let mut model = demo_model();
    let rows = model.fleet.len();
    let epoch = model.scope_epoch;
    let deep = crate::app::tests::demo_key("deep-0");
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::skipped(
                deep.clone(),
                "nested deeper than 128 levels (the JSON decoder's limit)",
            )),
        },
    );
    model.refresh_views();
    assert_eq!(model.fleet.len(), rows, "the others stay");
    assert!(model.fleet.row(&deep).is_none());
    insta::assert_snapshot!(
        "skipped_node_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "skipped_node_wide",
        render(&mut model, 200, 12, &Theme::dark())
    );
}

#[test]
fn a_preview_in_flight_shows_how_long_it_has_waited() {
    use crate::app::tests::{key, press};
    use crate::keymap::KeyCode;
    let mut model = demo_model();
    press(&mut model, "jj");
    press(&mut model, "i");
    for _ in 0..200 {
        key(&mut model, KeyCode::Backspace);
    }
    press(&mut model, "ghcr.io/sei-protocol/seid:v9.9.9");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(matches!(&cmds[..], [Cmd::PrepareAction { .. }]), "{cmds:?}");
    update(&mut model, Msg::Tick(at(12)));
    let screen = render(&mut model, 80, 24, &Theme::dark());
    assert!(screen.contains("permission checks… 12 s"), "{screen}");
    insta::assert_snapshot!("preview_waiting_80x24", screen);
}
