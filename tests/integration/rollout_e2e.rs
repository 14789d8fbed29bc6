//! `sei-console rollout` to the end with the embedded executor, against the real control plane
//! and the stand-in sidecars: two Running full nodes rolled in two waves (canary, then a batch),
//! each plan Complete and each node's currentImage the new image.

use std::collections::BTreeMap;

use crate::common::TestNamespace;
use crate::common::console::{console, running_full_nodes};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

#[tokio::test]
async fn two_nodes_roll_in_a_canary_and_a_batch_to_the_new_image() {
    let ns = TestNamespace::new("rollout-e2e").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned(), "full-1".to_owned()];
    running_full_nodes(&ns, &names, OLD, &BTreeMap::new(), state.path()).await;
    let run = console(
        &[
            "rollout",
            "full-0",
            "full-1",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--executor",
            "embedded",
            "--canary",
            "1",
            "--batch",
            "1",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    assert_eq!(run.result()["ok"], true);
    let notes = run.notes();
    assert!(notes.contains(&"wave 1 of 2: full-0"), "{notes:?}");
    assert!(notes.contains(&"wave 2 of 2: full-1"), "{notes:?}");
    for name in &names {
        let finished = run
            .lines
            .iter()
            .find(|l| l["event"] == "plan-finished" && l["node"] == name.as_str())
            .unwrap_or_else(|| panic!("no plan-finished for {name}: {run:?}"));
        assert_eq!(finished["phase"], "Complete");
        let node = ns.seinodes().get(name).await.expect("get");
        assert_eq!(node.data["status"]["currentImage"], NEW, "{name}");
        assert_eq!(node.data["status"]["phase"], "Running");
    }
}
