//! `rollout --across-clusters` over several `--context`: the rollout is prepared in every
//! cluster first (each with its own identity, permission checks, controller Lease, platform
//! config and sidecar transport; nothing changed), every preview is printed under its
//! cluster's heading with its waves, one confirmation names every cluster, then the clusters
//! roll one after the other; the first that fails halts the rest.
use std::process::ExitCode;

use super::action::{ActionOutput, confirm_with_names, exit_code};
use super::rollout::{PreparedCluster, RolloutArgs, image, prepare_cluster};
use super::{CliError, GlobalArgs};
use crate::actions::image_ref::ImageRef;
use crate::ops::{Note, Report};

/// Prepares, previews, confirms once, then rolls out cluster after cluster.
pub async fn run(
    global: &GlobalArgs,
    args: &RolloutArgs,
    contexts: &[String],
) -> Result<ExitCode, CliError> {
    let image = image(args)?;
    let output = args.action.output;
    let mut clusters: Vec<PreparedCluster> = Vec::new();
    for (index, name) in contexts.iter().enumerate() {
        heading(
            output,
            name,
            &format!("{} of {}", index + 1, contexts.len()),
        );
        let mut one = global.clone();
        one.context = vec![name.clone()];
        let cluster = prepare_cluster(&one, args, &image, Some(name))
            .await
            .map_err(|e| before_any_change(name, e))?;
        cluster.print_preview();
        if !args.action.dry_run {
            cluster.refuse().map_err(|e| before_any_change(name, e))?;
        }
        clusters.push(cluster);
    }
    let named: Vec<(&str, &PreparedCluster)> =
        contexts.iter().map(String::as_str).zip(&clusters).collect();
    if clusters.iter().all(PreparedCluster::nothing_to_do) {
        for cluster in &clusters {
            cluster.finish_nothing_to_do();
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.action.dry_run {
        for cluster in &clusters {
            cluster.journal_dry_run();
            if output == ActionOutput::Json {
                cluster
                    .context
                    .finish(true, "dry run: nothing was changed", None);
            }
        }
        if output == ActionOutput::Text {
            println!(
                "dry run in {} clusters ({}): nothing was changed",
                contexts.len(),
                contexts.join(", ")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let counts: Vec<(&str, usize)> = named
        .iter()
        .map(|(name, c)| (*name, c.prepared.nodes.len()))
        .collect();
    let confirm: Vec<(&str, &[String])> = named
        .iter()
        .map(|(name, c)| (*name, c.prepared.confirm_names.as_slice()))
        .collect();
    confirm_with_names(
        &args.action,
        &question(&image, &counts),
        &typed_names(&confirm),
    )?;
    for (index, (name, cluster)) in named.iter().enumerate() {
        heading(output, name, "rolling out");
        let end = cluster.run().await;
        let halt = halt_note(name, &contexts[index + 1..]);
        match end {
            Ok(end) if end.ok => cluster.context.finish(true, &end.message, None),
            Ok(end) => {
                if let Some(halt) = halt {
                    cluster.context.note(&Note::Info(halt));
                }
                cluster
                    .context
                    .finish(false, &end.message, end.failed_node.as_deref());
                return Ok(exit_code(false));
            }
            Err(err) => {
                if let Some(halt) = halt {
                    cluster.context.note(&Note::Info(halt));
                }
                return Err(in_cluster(name, err, ""));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The line above a cluster's part of the output: text on stdout, or a JSON `cluster` line.
fn heading(output: ActionOutput, name: &str, what: &str) {
    match output {
        ActionOutput::Text => println!("== cluster {name} ({what}) =="),
        ActionOutput::Json => println!(
            "{}",
            serde_json::json!({"event": "cluster", "context": name, "message": what})
        ),
    }
}

/// A cluster that could not be prepared (or refused): the rollout stops before any change.
fn before_any_change(name: &str, err: CliError) -> CliError {
    in_cluster(
        name,
        err,
        " (the rollout stopped before any change in any cluster)",
    )
}

/// `err` naming its cluster, its kind (bad input or failure) kept.
fn in_cluster(name: &str, err: CliError, suffix: &str) -> CliError {
    match err {
        CliError::BadInput(message) => {
            CliError::BadInput(format!("cluster {name}: {message}{suffix}"))
        }
        CliError::Failed(message) => CliError::Failed(format!("cluster {name}: {message}{suffix}")),
    }
}

/// `Roll out IMAGE to 5 nodes in 2 clusters (alpha: 2 nodes, beta: 3 nodes)?`
pub fn question(image: &ImageRef, counts: &[(&str, usize)]) -> String {
    let nodes = |n: usize| {
        if n == 1 {
            "1 node".to_owned()
        } else {
            format!("{n} nodes")
        }
    };
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let each: Vec<String> = counts
        .iter()
        .map(|(name, n)| format!("{name}: {}", nodes(*n)))
        .collect();
    format!(
        "Roll out {image} to {} in {} clusters ({})?",
        nodes(total),
        counts.len(),
        each.join(", ")
    )
}

/// The validators and seeds of every cluster (`(context, names)`), as `CONTEXT/NAME`: typed
/// to confirm.
pub fn typed_names(clusters: &[(&str, &[String])]) -> Vec<String> {
    clusters
        .iter()
        .flat_map(|(name, nodes)| nodes.iter().map(move |node| format!("{name}/{node}")))
        .collect()
}

/// What a cluster's failure leaves: the clusters after it, untouched.
pub fn halt_note(name: &str, rest: &[String]) -> Option<String> {
    (!rest.is_empty()).then(|| {
        format!(
            "rollout halted at cluster {name}: {} left untouched",
            rest.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_every_cluster_and_its_node_count() {
        let image = ImageRef::parse("ghcr.io/sei/seid:v2").expect("image");
        assert_eq!(
            question(&image, &[("alpha", 2), ("beta", 3)]),
            "Roll out ghcr.io/sei/seid:v2 to 5 nodes in 2 clusters (alpha: 2 nodes, beta: 3 nodes)?"
        );
        assert_eq!(
            question(&image, &[("alpha", 1), ("beta", 0)]),
            "Roll out ghcr.io/sei/seid:v2 to 1 node in 2 clusters (alpha: 1 node, beta: 0 nodes)?"
        );
    }

    #[test]
    fn validators_and_seeds_of_every_cluster_are_typed_with_their_cluster() {
        let alpha = ["val-0".to_owned()];
        let beta = ["seed-0".to_owned(), "val-0".to_owned()];
        assert_eq!(
            typed_names(&[("alpha", &alpha), ("gamma", &[]), ("beta", &beta)]),
            ["alpha/val-0", "beta/seed-0", "beta/val-0"]
        );
    }

    #[test]
    fn a_halt_names_the_clusters_left_untouched() {
        let rest = ["beta".to_owned(), "gamma".to_owned()];
        assert_eq!(
            halt_note("alpha", &rest).as_deref(),
            Some("rollout halted at cluster alpha: beta, gamma left untouched")
        );
        assert_eq!(halt_note("gamma", &[]), None);
    }

    #[test]
    fn errors_name_their_cluster_and_keep_their_kind() {
        let bad = before_any_change("beta", CliError::BadInput("SeiNode ns/x not found".into()));
        assert!(matches!(bad, CliError::BadInput(_)));
        assert_eq!(
            bad.to_string(),
            "cluster beta: SeiNode ns/x not found (the rollout stopped before any change in any cluster)"
        );
        let failed = in_cluster("alpha", CliError::Failed("denied".into()), "");
        assert!(matches!(failed, CliError::Failed(_)));
        assert_eq!(failed.to_string(), "cluster alpha: denied");
    }
}
