//! Waves of a multi-node rollout: `canary` nodes alone first, then batches of `batch` nodes.
//! Each wave starts only when the previous one completed; the first failure halts the rest.
use k8s_openapi::api::core::v1::Pod;

use crate::api::{PlanPhase, SeiNode};

/// Splits `nodes` (in the operator's order) into waves.
pub fn plan_waves<T: Clone>(nodes: &[T], canary: u32, batch: u32) -> Vec<Vec<T>> {
    let canary = (canary as usize).min(nodes.len());
    let batch = (batch as usize).max(1);
    let mut waves = Vec::new();
    if canary > 0 {
        waves.push(nodes[..canary].to_vec());
    }
    waves.extend(nodes[canary..].chunks(batch).map(<[T]>::to_vec));
    waves
}

/// Where a node stands against the image being rolled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeRollState {
    /// `spec.image` and `status.currentImage` are the image and no plan is Active: a resumed
    /// rollout leaves it alone.
    Done,
    /// Something is left to do.
    ToRoll,
}

/// Whether `node` still needs rolling to `image`.
pub fn roll_state(node: &SeiNode, image: &str) -> NodeRollState {
    let status = node.status.as_ref();
    let current = status.map_or("", |s| s.current_image());
    let active_plan = status
        .and_then(|s| s.plan.as_ref())
        .is_some_and(|p| p.phase == PlanPhase::Active);
    if node.spec.image == image && current == image && !active_plan {
        NodeRollState::Done
    } else {
        NodeRollState::ToRoll
    }
}

/// The operator's note for a node a resumed rollout leaves alone, or `None` when it still needs
/// rolling to `image`. One wording for the command and the console.
pub fn already_rolled(node: &SeiNode, image: &str) -> Option<String> {
    (roll_state(node, image) == NodeRollState::Done)
        .then(|| format!("{}: already on {image}; left alone", node.name()))
}

/// The gate a node passes before the next wave starts, once its plan is Complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    Passed,
    /// Not yet, and why (for the timeout message).
    Waiting(String),
}

/// `status.currentImage == image` and the node's pod `<node>-0` is Ready.
pub fn wave_gate(node: &SeiNode, pod: Option<&Pod>, image: &str) -> Gate {
    let current = node.status.as_ref().map_or("", |s| s.current_image());
    if current != image {
        return Gate::Waiting(format!("currentImage is {current:?}, not {image:?}"));
    }
    let Some(pod) = pod else {
        return Gate::Waiting(format!("pod {}-0 does not exist", node.name()));
    };
    if pod_is_ready(pod) {
        Gate::Passed
    } else {
        Gate::Waiting(format!("pod {}-0 is not Ready", node.name()))
    }
}

/// The pod's `Ready` condition is True.
pub fn pod_is_ready(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|conditions| {
            conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskPlan;

    fn node(image: &str, current: &str) -> SeiNode {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
            "metadata": {"name": "full-0", "namespace": "ns"},
            "spec": {"chainId": "pacific-1", "image": image, "fullNode": {}},
            "status": {"phase": "Running", "currentImage": current}
        }))
        .expect("node")
    }

    fn pod(ready: &str) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "full-0-0"},
            "status": {"conditions": [{"type": "Ready", "status": ready}]}
        }))
        .expect("pod")
    }

    #[test]
    fn a_node_on_the_image_without_an_active_plan_is_done() {
        assert_eq!(roll_state(&node("b", "b"), "b"), NodeRollState::Done);
        assert_eq!(roll_state(&node("b", "a"), "b"), NodeRollState::ToRoll);
        assert_eq!(roll_state(&node("a", "a"), "b"), NodeRollState::ToRoll);
        let mut active = node("b", "b");
        let plan: TaskPlan = serde_json::from_value(serde_json::json!({
            "id": "p", "phase": "Active", "tasks": []
        }))
        .expect("plan");
        active.status.as_mut().expect("status").plan = Some(plan);
        assert_eq!(roll_state(&active, "b"), NodeRollState::ToRoll);
        assert_eq!(already_rolled(&active, "b"), None);
        let done = node("b", "b");
        assert_eq!(
            already_rolled(&done, "b").as_deref(),
            Some(format!("{}: already on b; left alone", done.name()).as_str())
        );
    }

    #[test]
    fn the_gate_needs_the_current_image_and_a_ready_pod() {
        assert_eq!(
            wave_gate(&node("b", "b"), Some(&pod("True")), "b"),
            Gate::Passed
        );
        assert_eq!(
            wave_gate(&node("b", "a"), Some(&pod("True")), "b"),
            Gate::Waiting("currentImage is \"a\", not \"b\"".into())
        );
        assert_eq!(
            wave_gate(&node("b", "b"), Some(&pod("False")), "b"),
            Gate::Waiting("pod full-0-0 is not Ready".into())
        );
        assert_eq!(
            wave_gate(&node("b", "b"), None, "b"),
            Gate::Waiting("pod full-0-0 does not exist".into())
        );
    }

    #[test]
    fn ten_nodes_with_one_canary_and_batches_of_three() {
        let nodes: Vec<u32> = (0..10).collect();
        assert_eq!(
            plan_waves(&nodes, 1, 3),
            vec![vec![0], vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9]]
        );
    }

    #[test]
    fn no_canary_zero_batch_and_short_lists() {
        let nodes = ["a", "b", "c"];
        assert_eq!(plan_waves(&nodes, 0, 2), vec![vec!["a", "b"], vec!["c"]]);
        assert_eq!(
            plan_waves(&nodes, 0, 0),
            vec![vec!["a"], vec!["b"], vec!["c"]]
        );
        assert_eq!(plan_waves(&nodes, 5, 3), vec![vec!["a", "b", "c"]]);
        assert_eq!(plan_waves::<u8>(&[], 1, 3), Vec::<Vec<u8>>::new());
    }
}
