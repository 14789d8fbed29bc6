//! Waves of a multi-node rollout: `canary` nodes alone first, then batches of `batch` nodes.
//! Each wave starts only when the previous one completed; the first failure halts the rest.

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

#[cfg(test)]
mod tests {
    use super::*;

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
