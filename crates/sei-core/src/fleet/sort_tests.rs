//! Tests of the fleet filter, the sorted listing and its header counts.
use super::filter::{Filter, FilterError, Term};
use super::rows::FleetRow;
use super::sample;
use super::sort::{Column, Sort, listing};
use super::store::{Delta, ObjectKey};
use super::tests::demo;
use super::{Fleet, FleetDelta};
use crate::api::{NodeMode, Phase};

#[test]
fn filter_parses_terms_and_reports_bad_ones() {
    let filter =
        Filter::parse("mode:seed phase:Failed chain:arctic-1 drift !warning rpc").expect("parses");
    assert_eq!(
        filter.terms,
        vec![
            Term::Mode(NodeMode::Seed),
            Term::Phase(Some(Phase::Failed)),
            Term::Chain("arctic-1".into()),
            Term::Drift,
            Term::Not(Box::new(Term::Warning)),
            Term::Text("rpc".into()),
        ]
    );
    assert_eq!(
        Filter::parse("mode:fullNode")
            .expect("spec field name")
            .terms,
        vec![Term::Mode(NodeMode::Full)]
    );
    assert_eq!(
        Filter::parse("mode:sed"),
        Err(FilterError::Mode("sed".into()))
    );
    assert_eq!(
        Filter::parse("phase:Broken"),
        Err(FilterError::Phase("broken".into()))
    );
    assert_eq!(
        Filter::parse("chain:"),
        Err(FilterError::Empty("chain:".into()))
    );
    assert!(Filter::parse("   ").expect("empty").is_empty());
}

fn names(fleet: &Fleet, filter: &str, sort: Sort) -> Vec<String> {
    let filter = Filter::parse(filter).expect("filter parses");
    listing(fleet, &filter, sort)
        .keys
        .into_iter()
        .map(|k| k.name.to_string())
        .collect()
}

#[test]
fn filter_matches_rows() {
    let fleet = demo();
    let sort = Sort::default();
    assert_eq!(names(&fleet, "mode:seed", sort), ["seed-0"]);
    assert_eq!(names(&fleet, "phase:Failed", sort), ["validator-0"]);
    assert_eq!(names(&fleet, "phase:none", sort), ["seed-0"]);
    assert_eq!(
        names(&fleet, "drift", sort),
        ["replayer-0", "rpc-1", "seed-0", "validator-0"]
    );
    assert_eq!(
        names(&fleet, "drift !mode:seed phase:Running", sort),
        ["rpc-1"]
    );
    assert_eq!(names(&fleet, "chain:pacific-1 ARCH", sort), ["archive-0"]);
    assert_eq!(
        names(&fleet, "replace-pod", sort),
        ["rpc-1"],
        "substring of the current task"
    );
    assert_eq!(
        names(&fleet, "renderfailed", sort),
        ["seed-0"],
        "substring of the warning"
    );
    assert_eq!(names(&fleet, "chain:arctic-1", sort), Vec::<String>::new());
    // Something failed: validator-0's phase, replayer-0's conditions, seed-0's render (issue 27).
    assert_eq!(
        names(&fleet, "failed", sort),
        ["replayer-0", "seed-0", "validator-0"]
    );
    assert_eq!(
        names(&fleet, "sick", sort),
        ["replayer-0", "seed-0", "validator-0"]
    );
    assert_eq!(
        names(&fleet, "healthy", sort),
        ["archive-0", "rpc-0", "rpc-1"]
    );
    // rpc-1's spec moved to v6.4.0 while it still runs v6.3.0; nodes never observed (no
    // currentImage) are drift but not on an old image.
    assert_eq!(names(&fleet, "stale-image", sort), ["rpc-1"]);
    assert_eq!(
        names(&fleet, "running:v6.3.0", sort),
        ["archive-0", "rpc-0", "rpc-1"]
    );
    assert_eq!(names(&fleet, "running:v6.4.0", sort), Vec::<String>::new());
}

#[test]
fn sorting_by_columns_and_header_counts() {
    let fleet = demo();
    let by = |column, descending| names(&fleet, "", Sort { column, descending });
    assert_eq!(
        by(Column::Name, false),
        [
            "archive-0",
            "replayer-0",
            "rpc-0",
            "rpc-1",
            "seed-0",
            "validator-0"
        ]
    );
    assert_eq!(by(Column::Phase, false)[0], "validator-0", "trouble first");
    assert_eq!(by(Column::Age, false)[0], "archive-0", "oldest first");
    assert_eq!(by(Column::Age, true)[0], "seed-0");
    assert_eq!(
        by(Column::Warning, false)[0],
        "validator-0",
        "most recent warning first"
    );
    let counts = listing(&fleet, &Filter::default(), Sort::default()).counts;
    assert_eq!(
        (counts.total, counts.shown, counts.drifted, counts.warnings),
        (6, 6, 4, 2)
    );
    let phases: Vec<(Option<Phase>, usize)> =
        counts.by_phase.iter().map(|(k, n)| (k.1.0, *n)).collect();
    // The sick Initializing replayer and the seed that cannot render are counted apart from
    // their phases; the Failed validator stays Failed.
    assert_eq!(
        phases,
        [(Some(Phase::Running), 3), (Some(Phase::Failed), 1)]
    );
    assert_eq!(counts.sick, 2);
    assert_eq!(counts.by_mode.get(&Some(NodeMode::Full)), Some(&2));
    for column in Column::ALL {
        assert_eq!(column.next().previous(), column);
    }
}

/// The listing's order, stated plainly: the column's order (reversed when descending), ties by
/// namespace then name. The listing gets there with a stable sort over key-ordered rows.
fn spec_order(fleet: &Fleet, sort: Sort) -> Vec<ObjectKey> {
    use std::cmp::Ordering;
    fn rank(phase: Option<Phase>) -> u8 {
        match phase {
            Some(Phase::Failed) => 0,
            Some(Phase::Terminating) => 1,
            Some(Phase::Initializing) => 2,
            Some(Phase::Pending) => 3,
            None => 4,
            Some(Phase::Running) => 5,
        }
    }
    let compare = |a: &FleetRow, b: &FleetRow| -> Ordering {
        match sort.column {
            Column::Namespace => Ordering::Equal,
            Column::Cluster => a.key.context.cmp(&b.key.context),
            Column::Name => a.key.name.cmp(&b.key.name),
            Column::Mode => a.mode.cmp(&b.mode),
            Column::Chain => a.chain_id.cmp(&b.chain_id),
            // Within a phase, the sick first.
            Column::Phase => rank(a.phase)
                .cmp(&rank(b.phase))
                .then(b.is_sick().cmp(&a.is_sick())),
            // Nodes never read last, then trouble first.
            Column::Health => {
                let state = |r: &FleetRow| (r.health.is_none(), r.health.map(|h| h.state));
                state(a).cmp(&state(b))
            }
            Column::Image => (b.drift.any().cmp(&a.drift.any())).then(a.image.cmp(&b.image)),
            Column::Plan => {
                let progress =
                    |r: &FleetRow| r.plan.as_ref().map(|p| (p.phase as u8, p.done, p.total));
                progress(b).cmp(&progress(a))
            }
            Column::Conditions => b.bad_conditions().count().cmp(&a.bad_conditions().count()),
            Column::Warning => {
                let seen = |r: &FleetRow| r.last_warning.as_ref().map(|w| w.last_seen);
                seen(b).cmp(&seen(a))
            }
            Column::Age => a.created.cmp(&b.created),
        }
    };
    let mut rows: Vec<&FleetRow> = fleet.rows().collect();
    rows.sort_by(|a, b| {
        let primary = compare(a, b);
        let primary = if sort.descending {
            primary.reverse()
        } else {
            primary
        };
        primary.then_with(|| a.key.cmp(&b.key))
    });
    rows.into_iter().map(|r| r.key.clone()).collect()
}

#[test]
fn listing_order_is_the_column_order_with_ties_by_namespace_and_name() {
    let mut fleet = demo();
    for node in sample::large_fleet(300) {
        fleet.apply(FleetDelta::Node(Delta::applied(node)));
    }
    for column in Column::ALL {
        for descending in [false, true] {
            let sort = Sort { column, descending };
            assert_eq!(
                listing(&fleet, &Filter::default(), sort).keys,
                spec_order(&fleet, sort),
                "{column:?} descending={descending}"
            );
        }
    }
}

#[test]
fn re_terms_match_fields_by_regular_expression_any_case() {
    let fleet = demo();
    let sort = Sort::default();
    assert_eq!(names(&fleet, r"re:^rpc-\d$", sort), ["rpc-0", "rpc-1"]);
    assert_eq!(
        names(&fleet, "re:^(seed|ARCHIVE)-0$", sort),
        ["archive-0", "seed-0"]
    );
    // `^` and `$` anchor to one field: no name is "rpc" alone.
    assert!(names(&fleet, "re:^rpc$", sort).is_empty());
    let all = names(&fleet, "", sort).len();
    assert_eq!(names(&fleet, r"!re:^rpc-\d$", sort).len(), all - 2);
    assert_eq!(
        Filter::parse("re:x").expect("parses"),
        Filter::parse("re:x").expect("parses"),
        "equal by the pattern's text"
    );
}

#[test]
fn a_bad_or_empty_regex_is_a_one_line_error() {
    let Err(error) = Filter::parse("re:(rpc") else {
        panic!("an unclosed group parses");
    };
    let text = error.to_string();
    assert_eq!(text, "bad regex \"(rpc\" after re: unclosed group");
    assert_eq!(text.lines().count(), 1);
    assert_eq!(Filter::parse("re:"), Err(FilterError::Empty("re:".into())));
}
