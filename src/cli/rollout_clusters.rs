//! `rollout --across-clusters` over several `--context`: the rollout is prepared in every
//! cluster first (each with its own identity, permission checks, controller Lease, platform
//! config and sidecar transport; nothing changed), every preview is printed under its
//! cluster's heading with its waves, one confirmation names every cluster, then the clusters
//! roll one after the other; the first that fails halts the rest.
use std::process::ExitCode;

use super::action::{ActionOutput, confirm_with_names, exit_code};
use super::actions::rollout::{PreparedCluster, RolloutArgs, image, prepare_cluster};
use super::{CliError, GlobalArgs};
use crate::ops::across::{self, AcrossEnd, ClusterPart, InTurn};
use crate::ops::{Note, OpsError, Report, RunEnd};

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
        &across::question(&format!("Roll out {image}"), &counts),
        &across::typed_names(&confirm),
    )?;
    let parts: Vec<ClusterPart<'_>> = named
        .iter()
        .map(|(name, cluster)| ClusterPart {
            context: name,
            ops: cluster.context.ops(),
            prepared: &cluster.prepared,
            report: &cluster.context,
        })
        .collect();
    let told = Told {
        output,
        clusters: &named,
    };
    let ended = across::execute_in_turn(&parts, &told).await;
    // Each cluster's rollout end was queued for the webhooks: delivered (or given up) first.
    for cluster in &clusters {
        cluster.context.notified().await;
    }
    Ok(match ended {
        AcrossEnd::Done(_) => ExitCode::SUCCESS,
        AcrossEnd::Failed { .. } => exit_code(false),
        AcrossEnd::Stopped { context, error } => {
            return Err(in_cluster(&context, error.into(), ""));
        }
    })
}

/// Each cluster's heading before it rolls, its result line after (and what a failure leaves).
struct Told<'a> {
    output: ActionOutput,
    clusters: &'a [(&'a str, &'a PreparedCluster)],
}

impl InTurn for Told<'_> {
    fn starting(&self, context: &str) {
        heading(self.output, context, "rolling out");
    }

    fn ended(&self, context: &str, end: &Result<RunEnd, OpsError>, halt: Option<&str>) {
        let Some((_, cluster)) = self.clusters.iter().find(|(name, _)| *name == context) else {
            return;
        };
        if let Some(halt) = halt {
            cluster.context.note(&Note::Info(halt.to_owned()));
        }
        if let Ok(end) = end {
            cluster
                .context
                .finish(end.ok, &end.message, end.failed_node.as_deref());
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
