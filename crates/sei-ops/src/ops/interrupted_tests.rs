//! Closing the journal runs of consoles that died (`ops::interrupted`).
use jiff::Timestamp;
use serde_json::json;

use super::interrupted::{CloseWith, close, unended};
use crate::journal::{JournalEntry, Outcome};
use crate::ports::testing::FakeCluster;
use crate::ports::{ClusterApi, HolderProbe};

fn t(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).expect("ts")
}

fn line(holder: &str, node: &str, outcome: Outcome, at: i64) -> JournalEntry {
    JournalEntry {
        time: t(at),
        operator: "alice (context kind)".into(),
        context: Some("kind".into()),
        action: crate::ops::actions::rollout::KIND.into(),
        nodes: vec![format!("sei/{node}")],
        detail: "image v2".into(),
        outcome,
        reason: None,
        holder: Some(holder.into()),
    }
}

/// Holders named `dead-*` are gone.
struct Dead;

impl HolderProbe for Dead {
    fn is_gone(&self, holder: &str) -> bool {
        holder.starts_with("dead-")
    }
}

#[test]
fn a_started_line_is_unended_until_a_later_line_of_its_run_ends_it() {
    let entries = vec![
        line("dead-1", "a", Outcome::Started, 0),
        line("dead-1", "b", Outcome::Started, 1),
        line("dead-1", "b", Outcome::Succeeded, 2),
        // Another console's end does not end this run.
        line("live-2", "a", Outcome::Failed, 3),
        line("live-2", "c", Outcome::Started, 4),
    ];
    let open: Vec<&str> = unended(&entries)
        .iter()
        .map(|e| e.nodes[0].as_str())
        .collect();
    assert_eq!(open, ["sei/a", "sei/c"]);
    // Lines without a holder (written before it existed) are never judged.
    let mut old = line("x", "d", Outcome::Started, 5);
    old.holder = None;
    assert!(unended(&[old]).is_empty());
}

#[tokio::test]
async fn only_the_runs_of_dead_consoles_are_closed_with_what_the_cluster_shows() {
    let cluster = FakeCluster::new();
    let node: crate::api::SeiNode = serde_json::from_value(json!({
        "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
        "metadata": {"namespace": "sei", "name": "a"},
        "spec": {"chainId": "pacific-1", "image": "v2", "fullNode": {}},
        "status": {"plan": {"id": "1a2b3c4d-0000-4000-8000-000000000000", "phase": "Active",
            "tasks": [
                {"type": "apply-statefulset", "id": "t0", "status": "Complete"},
                {"type": "replace-pod", "id": "t1", "status": "Pending"},
            ]}},
    }))
    .expect("node");
    cluster.put_node(node);
    let entries = vec![
        line("dead-1", "a", Outcome::Started, 0),
        line("live-2", "a", Outcome::Started, 1),
        line("me", "a", Outcome::Started, 2),
    ];
    let clusters: [(&str, &dyn ClusterApi); 1] = [("kind", &cluster)];
    let with = CloseWith {
        holders: &Dead,
        own_holder: "me",
        clusters: &clusters,
        now: t(60),
    };
    let closed = close(&entries, |_| true, &with).await;
    assert_eq!(closed.len(), 1, "{closed:?}");
    let closing = &closed[0];
    assert_eq!(closing.outcome, Outcome::Interrupted);
    assert_eq!(closing.holder.as_deref(), Some("dead-1"));
    assert_eq!(closing.nodes, ["sei/a"]);
    assert_eq!(closing.time, t(60));
    assert_eq!(
        closing.reason.as_deref(),
        Some(
            "its console (dead-1) is no longer running on this machine; the cluster shows: \
             sei/a plan 1a2b3c4d Active 1/2 at replace-pod"
        )
    );
    // Once closed, the run is ended.
    let mut after = entries.clone();
    after.extend(closed);
    assert_eq!(
        unended(&after).len(),
        2,
        "the live and the own runs stay open"
    );
}
