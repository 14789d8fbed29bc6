//! Tests of the listing kept up to date row by row (`Fleets::relist`): after any run of watch
//! deltas it must equal the listing built afresh, for every column, direction and filter, and
//! the fleet's own header counts must equal counts taken afresh.
use serde_json::json;

use super::filter::Filter;
use super::fleets::Fleets;
use super::sample::{self, FULL_INIT_TASKS, OLD_IMAGE, UPDATE_TASKS};
use super::sort::{Column, Listing, Sort, listing_of};
use super::store::Delta;
use super::{Fleet, FleetDelta};
use crate::api::{NodeMode, SeiNode};

const CONTEXTS: [&str; 2] = ["arctic", "pacific"];

/// A small deterministic generator (the same run every time, no crate for it).
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % sides
    }
}

fn name(i: usize) -> String {
    format!("node-{i:03}")
}

fn base(i: usize) -> SeiNode {
    let mode = NodeMode::ALL[i % NodeMode::ALL.len()];
    sample::node(
        &format!("ns-{}", i % 3),
        &name(i),
        mode,
        (i as i64 % 7) * 3600,
    )
}

/// One status change of node `i`, of the kinds a live fleet sees.
fn changed(i: usize, dice: &mut Dice) -> SeiNode {
    let node = base(i);
    match dice.roll(6) {
        0 => sample::running(node),
        1 => sample::patched(
            sample::running(node),
            json!({"status": {"plan": sample::plan(&UPDATE_TASKS, dice.roll(7), None)}}),
        ),
        2 => sample::patched(
            node,
            json!({"status": {"phase": "Failed", "plan": sample::plan(&FULL_INIT_TASKS, 3, Some("boom"))}}),
        ),
        3 => sample::patched(sample::running(node), json!({"spec": {"image": OLD_IMAGE}})),
        4 => sample::patched(
            node,
            json!({"status": {"phase": "Initializing", "plan": sample::plan(&FULL_INIT_TASKS, dice.roll(7), None)}}),
        ),
        _ => node,
    }
}

fn synced(count: usize) -> Fleets {
    let contexts: Vec<String> = CONTEXTS.iter().map(|c| (*c).to_owned()).collect();
    let mut fleets = Fleets::new(&contexts, None);
    for context in CONTEXTS {
        fleets.apply(context, FleetDelta::Node(Delta::RelistStarted));
        for i in 0..count {
            fleets.apply(context, FleetDelta::Node(Delta::relist_item(base(i))));
        }
        fleets.apply(context, FleetDelta::Node(Delta::RelistDone));
    }
    fleets
}

fn fresh(fleets: &Fleets, filter: &Filter, sort: Sort) -> Listing {
    listing_of(fleets.rows(), filter, sort)
}

#[test]
fn a_listing_kept_row_by_row_equals_one_built_afresh_for_every_order_and_filter() {
    let filters = ["", "!phase:Running", "drift", "mode:seed", "node-01"];
    let mut dice = Dice(17);
    for filter_text in filters {
        let filter = Filter::parse(filter_text).expect("filter parses");
        for column in Column::ALL {
            for descending in [false, true] {
                let sort = Sort { column, descending };
                let mut fleets = synced(40);
                let mut listing = Listing::default();
                fleets.relist(&mut listing, None, &filter, sort);
                let mut marks = fleets.row_marks();
                for round in 0..12 {
                    // Several changes per frame, the same node more than once now and then.
                    for _ in 0..1 + dice.roll(5) {
                        let context = CONTEXTS[dice.roll(2)];
                        let node = changed(dice.roll(40), &mut dice);
                        fleets.apply(context, FleetDelta::Node(Delta::applied(node)));
                    }
                    if dice.roll(4) == 0 {
                        // Removed, and now and then back before the next frame.
                        let context = CONTEXTS[dice.roll(2)];
                        let gone = base(dice.roll(40));
                        fleets.apply(context, FleetDelta::Node(Delta::deleted(gone.clone())));
                        if dice.roll(2) == 0 {
                            fleets.apply(context, FleetDelta::Node(Delta::applied(gone)));
                        }
                    }
                    let event_of = base(dice.roll(40));
                    let event = sample::event(&event_of, true, "NodeFailed", "gone", 1, 60);
                    fleets.apply(CONTEXTS[0], FleetDelta::NodeEvent(Delta::applied(event)));
                    fleets.relist(&mut listing, Some(&marks), &filter, sort);
                    marks = fleets.row_marks();
                    assert_eq!(
                        listing,
                        fresh(&fleets, &filter, sort),
                        "filter {filter_text:?}, {sort:?}, round {round}"
                    );
                }
            }
        }
    }
}

#[test]
fn rows_coming_and_going_list_every_row_again() {
    let sort = Sort {
        column: Column::Phase,
        descending: false,
    };
    let filter = Filter::default();
    let mut fleets = synced(10);
    let mut listing = Listing::default();
    fleets.relist(&mut listing, None, &filter, sort);
    let marks = fleets.row_marks();
    fleets.apply(CONTEXTS[1], FleetDelta::Node(Delta::applied(base(11))));
    fleets.apply(CONTEXTS[0], FleetDelta::Node(Delta::deleted(base(3))));
    fleets.relist(&mut listing, Some(&marks), &filter, sort);
    assert_eq!(listing, fresh(&fleets, &filter, sort));
    assert_eq!(listing.counts.total, 20);
    // A cluster no longer watched leaves the listing too.
    let marks = fleets.row_marks();
    fleets.set_contexts(&[CONTEXTS[1].to_owned()]);
    fleets.relist(&mut listing, Some(&marks), &filter, sort);
    assert_eq!(listing, fresh(&fleets, &filter, sort));
    assert_eq!(listing.counts.total, 11);
}

#[test]
fn changed_added_and_removed_rows_are_logged_and_a_relist_of_every_row_is_not() {
    let mut fleet = Fleet::in_context("arctic", None);
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    for i in 0..3 {
        fleet.apply(FleetDelta::Node(Delta::relist_item(base(i))));
    }
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    let synced_at = fleet.rows_revision();
    fleet.apply(FleetDelta::Node(Delta::applied(sample::running(base(1)))));
    fleet.apply(FleetDelta::Node(Delta::applied(base(7))));
    fleet.apply(FleetDelta::Node(Delta::deleted(base(0))));
    let changed: Vec<String> = fleet
        .rows_changed_since(synced_at)
        .expect("changes are logged")
        .map(|key| key.name.to_string())
        .collect();
    assert_eq!(changed, [name(1), name(7), name(0)]);
    let changed_at = fleet.rows_revision();
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    fleet.apply(FleetDelta::Node(Delta::relist_item(base(1))));
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    assert!(fleet.rows_changed_since(changed_at).is_none());
    assert!(fleet.rows_changed_since(synced_at).is_none());
}

#[test]
fn more_changes_than_the_log_holds_list_every_row_again() {
    let mut fleet = Fleet::in_context("arctic", None);
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    fleet.apply(FleetDelta::Node(Delta::relist_item(base(0))));
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    let synced_at = fleet.rows_revision();
    let mut dice = Dice(5);
    for _ in 0..300 {
        fleet.apply(FleetDelta::Node(Delta::applied(changed(0, &mut dice))));
    }
    assert!(fleet.rows_changed_since(synced_at).is_none());
    let counted = listing_of(fleet.rows(), &Filter::default(), Sort::default()).counts;
    let mut kept = fleet.counts().clone();
    kept.shown = counted.shown;
    assert_eq!(kept, counted);
}
