//! `sei-console get`: the fleet rows as a table, or as JSON/YAML for scripts.
//!
//! The columns: mode, chain, phase, the health verdict (HEALTH `✓ ok` or the worst problem; JSON
//! `verdict`: `healthy`, `severity`, `problems`; the table reads no RPC, so its verdict leaves
//! chain health out, `-o wide|json` include it), image drift, plan progress, conditions, the last
//! Warning event (the node's or its pod's, whichever is newer; JSON `lastWarning` and
//! `podWarning`). `-o wide` adds HEIGHT/LAG and `-o json|yaml` `chainHealth` with `lagAgainst`:
//! every node's RPC read once, each chain's `reference_rpc` once, each published seed probed once
//! (`seedProbe`). With several `--context` it is one list over every cluster (a CONTEXT column;
//! every JSON row carries `context`); a cluster that cannot be read is named on stderr, the others
//! print, and the exit code is 1.
use std::io::Write;

use clap::Args;
use jiff::Timestamp;
use serde::Serialize;

use super::{CliError, GlobalArgs, fetch};
use crate::fleet::filter::Filter;
use crate::fleet::health::HealthJson;

/// The highest height of each chain ID (`fleet::chain_tops`).
type Tops = std::collections::BTreeMap<String, crate::chain::ChainTop>;
use crate::fleet::rows::FleetRow;
use crate::fleet::sort::{Sort, listing_of};
use crate::fleet::text;

pub use super::get_output::GetOutput;

/// Arguments of `get`.
#[derive(Debug, Clone, Args)]
pub struct GetArgs {
    /// Only these SeiNodes (a name that does not exist is an error naming the near ones, exit 2).
    #[arg(value_name = "NODE")]
    pub nodes: Vec<String>,
    /// Only SeiNodes matching this label selector (e.g. sei.io/chain=pacific-1,tier!=canary).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE (e.g.
    /// '{.items[*].name}') or custom-columns=HEADER:PATH,… (e.g. NAME:.name,PHASE:.phase); paths
    /// address the items of -o json.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FORMAT",
        value_parser = GetOutput::parse,
        default_value = "table"
    )]
    pub output: GetOutput,
    /// Leave the header line out of table, wide and custom-columns output.
    #[arg(long)]
    pub no_headers: bool,
    /// After the list, print a line per change of a SeiNode until interrupted (`-o json`: a
    /// JSON line per event, {"type": "ADDED|MODIFIED|DELETED", "object": ITEM}); one cluster.
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// Only nodes matching this filter (same syntax as `/` in the console, e.g. "mode:seed drift").
    #[arg(long, value_name = "FILTER")]
    pub filter: Option<String>,
}

/// `plan` of the JSON output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanJson {
    pub phase: String,
    pub done: usize,
    pub total: usize,
    /// Type of the first task that is not Complete.
    pub current: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConditionJson {
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WarningJson {
    pub reason: String,
    pub message: String,
    pub count: i32,
}

/// `podWarning` of the JSON output: the live Warning of the node's pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PodWarningJson {
    pub pod: String,
    pub reason: String,
    pub message: String,
    pub count: i32,
}

/// `orphaned` of the JSON output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrphanJson {
    pub why: String,
    pub resume: String,
}

/// One SeiNode of `get -o json|yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GetItem {
    /// The kubeconfig context the node was read from.
    pub context: String,
    pub namespace: String,
    pub name: String,
    pub mode: Option<String>,
    pub chain_id: String,
    pub phase: Option<String>,
    pub image: String,
    pub current_image: Option<String>,
    /// The image the node's pod runs (its main container's status; `null`: no pod reports one).
    pub running_image: Option<String>,
    /// Image or sidecar drift; the image's judged against what runs when known.
    pub drift: bool,
    pub plan: Option<PlanJson>,
    /// The Active plan has no live executor (`fleet::runners`): why, and what resumes it.
    pub orphaned: Option<OrphanJson>,
    pub conditions: Vec<ConditionJson>,
    pub last_warning: Option<WarningJson>,
    /// The latest Warning event of the node's pod `<node>-0` its present state has not
    /// outlived (FailedScheduling of a pod still unscheduled, …).
    pub pod_warning: Option<PodWarningJson>,
    /// The node's RPC as read now (`null` for seeds: they serve none).
    pub chain_health: Option<HealthJson>,
    /// A seed's probe as made now: ready, reachable, the peers it knows (`null` for others).
    pub seed_probe: Option<crate::fleet::probe::SeedProbeJson>,
    /// The health verdict every screen shows (`fleet::verdict`).
    pub verdict: VerdictJson,
    /// Paths of the node's fields outside the schema sei-console embeds (a newer CRD's):
    /// actions on it are refused. Left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_fields: Vec<String>,
}

/// `verdict` of the JSON output: healthy, or the problems worst first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerdictJson {
    pub healthy: bool,
    /// The worst problem's severity (`critical`, `warning`), `null` when healthy.
    pub severity: Option<crate::fleet::verdict::Severity>,
    pub problems: Vec<crate::fleet::verdict::Problem>,
}

impl VerdictJson {
    fn of(verdict: &crate::fleet::verdict::NodeVerdict) -> VerdictJson {
        VerdictJson {
            healthy: verdict.is_healthy(),
            severity: verdict.worst(),
            problems: verdict.problems.clone(),
        }
    }
}

impl GetItem {
    pub fn of(row: &FleetRow) -> GetItem {
        GetItem {
            context: row.key.context.to_string(),
            namespace: row.key.namespace.to_string(),
            name: row.key.name.to_string(),
            mode: row.mode.map(|m| m.as_str().to_owned()),
            chain_id: row.chain_id.clone(),
            phase: row.phase.map(|p| p.as_str().to_owned()),
            image: row.image.clone(),
            current_image: row.current_image.clone(),
            running_image: row.running.as_ref().map(|r| r.image.clone()),
            drift: row.drift.any(),
            plan: row.plan.as_ref().map(|p| PlanJson {
                phase: p.phase.as_str().to_owned(),
                done: p.done,
                total: p.total,
                // `current` is the first task not Complete, also for a Failed plan.
                current: p.first_incomplete.clone(),
            }),
            orphaned: row.orphan.as_ref().map(|o| OrphanJson {
                why: o.why.clone(),
                resume: o.resume.clone(),
            }),
            conditions: row
                .conditions
                .iter()
                .map(|c| ConditionJson {
                    kind: c.kind.clone(),
                    status: c.status.clone(),
                    reason: c.reason.clone(),
                })
                .collect(),
            last_warning: row.last_warning.as_ref().map(|w| WarningJson {
                reason: w.reason.clone(),
                message: w.message.clone(),
                count: w.count,
            }),
            pod_warning: row.pod_warning.as_ref().map(|w| PodWarningJson {
                pod: w.pod.clone().unwrap_or_default(),
                reason: w.reason.clone(),
                message: w.message.clone(),
                count: w.count,
            }),
            chain_health: None,
            seed_probe: None,
            verdict: VerdictJson::of(&row.verdict),
            unknown_fields: row.unknown_fields.clone(),
        }
    }

    /// [`GetItem::of`] with the chain health `fleets` hold for the row.
    fn with_health(
        row: &FleetRow,
        fleets: &[crate::fleet::Fleet],
        (tops, references): (&Tops, &crate::chain::References),
        now: Timestamp,
    ) -> GetItem {
        let mut item = GetItem::of(row);
        let against = crate::fleet::health::Against {
            top: tops.get(&row.chain_id).copied().unwrap_or_default(),
            reference: references.get(&row.chain_id),
        };
        item.chain_health = fleets.iter().find_map(|fleet| {
            let verdict = fleet.health_verdict(&row.key, now, tops)?;
            Some(HealthJson::of(fleet.health(&row.key), &verdict, None, now).against(against))
        });
        item.seed_probe = fleets.iter().find_map(|fleet| {
            let record = fleet.seed_probe(&row.key)?.last.as_ref()?;
            Some(crate::fleet::probe::SeedProbeJson::of(record))
        });
        item
    }
}

/// Which identifying columns the table starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableScope {
    /// Several contexts were read: a CONTEXT column first.
    pub context: bool,
    /// All namespaces were read: a NAMESPACE column.
    pub namespace: bool,
}

/// The width the default table fits in (a chat, a ticket, a 120-column terminal).
pub const TABLE_WIDTH: usize = 120;
/// Spaces between two columns.
const GAP: usize = 3;

/// Renders rows as a kubectl-like table.
pub fn table(rows: &[&FleetRow], wide: bool, with_namespace: bool, now: Timestamp) -> String {
    let scope = TableScope {
        context: false,
        namespace: with_namespace,
    };
    table_in(rows, wide, scope, now)
}

/// A column: its header, and whether the default table may shorten its cells (with `…`) down
/// to `min` to fit [`TABLE_WIDTH`].
struct Col {
    header: &'static str,
    shrink_to: Option<usize>,
}

const fn col(header: &'static str) -> Col {
    Col {
        header,
        shrink_to: None,
    }
}

const fn shrinkable(header: &'static str, min: usize) -> Col {
    Col {
        header,
        shrink_to: Some(min),
    }
}

/// [`table`] with a CONTEXT column when `scope.context`.
///
/// The default table fits [`TABLE_WIDTH`] columns on a realistic fleet: NAME, MODE, PHASE,
/// HEALTH (the verdict, `fleet::verdict`), IMAGE (short, with its drift mark), PLAN (progress and
/// the current task) and AGE; HEALTH, IMAGE and PLAN are shortened with `…` (widest first) when
/// the line would be longer. `-o wide` is complete: every column, nothing shortened (CHAIN,
/// the full IMAGE and PLAN, CONDITIONS, LAST-WARNING, HEIGHT/LAG, CURRENT-IMAGE,
/// WARNING-MESSAGE).
pub fn table_in(rows: &[&FleetRow], wide: bool, scope: TableScope, now: Timestamp) -> String {
    let mut cols: Vec<Col> = Vec::new();
    if scope.context {
        cols.push(col("CONTEXT"));
    }
    if scope.namespace {
        cols.push(col("NAMESPACE"));
    }
    if wide {
        cols.extend([
            col("NAME"),
            col("MODE"),
            col("CHAIN"),
            col("PHASE"),
            col("HEALTH"),
            col("IMAGE"),
            col("PLAN"),
            col("CONDITIONS"),
            col("LAST-WARNING"),
            col("AGE"),
            col("HEIGHT/LAG"),
            col("CURRENT-IMAGE"),
            col("RUNNING"),
            col("WARNING-MESSAGE"),
        ]);
    } else {
        cols.extend([
            col("NAME"),
            col("MODE"),
            col("PHASE"),
            shrinkable("HEALTH", 12),
            shrinkable("IMAGE", 14),
            shrinkable("PLAN", 10),
            col("AGE"),
        ]);
    }
    let mut lines: Vec<Vec<String>> = vec![cols.iter().map(|c| c.header.to_owned()).collect()];
    for row in rows {
        let mut cells = Vec::new();
        if scope.context {
            cells.push(row.key.context.to_string());
        }
        if scope.namespace {
            cells.push(row.key.namespace.to_string());
        }
        cells.push(row.key.name.to_string());
        cells.push(text::mode_text(row).to_owned());
        if wide {
            cells.push(row.chain_id.clone());
        }
        cells.push(row.phase.map_or("-".to_owned(), |p| p.as_str().to_owned()));
        cells.push(row.verdict.cell());
        if wide {
            let mark = text::drift_text(row.drift);
            cells.push(if mark.is_empty() {
                row.image.clone()
            } else {
                format!("{} {mark}", row.image)
            });
            cells.push(text::row_plan_cell(row, now));
            cells.push(text::conditions_cell(row));
            cells.push(text::warning_cell(row, now));
        } else {
            cells.push(text::image_cell(row));
            cells.push(text::row_plan_short(row));
        }
        cells.push(text::age(row.created, now));
        if wide {
            // The same HEIGHT/LAG cell as the console: a seed's from its probe.
            cells.push(crate::fleet::columns::cell(
                crate::fleet::sort::Column::Health,
                crate::fleet::columns::Form::Full,
                row,
                now,
            ));
            cells.push(row.current_image.clone().unwrap_or_else(|| "-".to_owned()));
            cells.push(
                row.running
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), |r| r.image.clone()),
            );
            cells.push(row.warning().map_or("-".to_owned(), |w| {
                format!("{}{}", w.object_prefix(), w.message)
            }));
        }
        lines.push(cells);
    }
    let width = |text: &str| unicode_width::UnicodeWidthStr::width(text);
    let mut widths: Vec<usize> = (0..cols.len())
        .map(|i| lines.iter().map(|l| width(&l[i])).max().unwrap_or(0))
        .collect();
    fit(&mut widths, &cols);
    let mut out = String::new();
    for line in &lines {
        let mut text_line = String::new();
        for (i, cell) in line.iter().enumerate() {
            let cell = text::fit_width(cell, widths[i]);
            text_line.push_str(&cell);
            if i + 1 < cols.len() {
                let pad = widths[i].saturating_sub(width(&cell)) + GAP;
                text_line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(text_line.trim_end());
        out.push('\n');
    }
    out
}

/// Narrows the shrinkable columns, the widest first, until the line fits [`TABLE_WIDTH`] or
/// each is at its minimum (the header's width at least).
fn fit(widths: &mut [usize], cols: &[Col]) {
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + GAP * (widths.len() - 1);
    while total(widths) > TABLE_WIDTH {
        let widest = cols
            .iter()
            .zip(widths.iter())
            .enumerate()
            .filter_map(|(i, (col, width))| {
                let min = col.shrink_to?.max(col.header.len());
                (*width > min).then_some((*width, i))
            })
            .max();
        match widest {
            Some((_, i)) => widths[i] -= 1,
            None => return,
        }
    }
}

pub async fn run(global: &GlobalArgs, args: &GetArgs) -> Result<(), CliError> {
    let filter = Filter::parse(args.filter.as_deref().unwrap_or(""))
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let json = args.output.is_document();
    let contexts = fetch::contexts(global);
    let multi = contexts.len() > 1;
    if args.watch && multi {
        return Err(CliError::BadInput(format!(
            "get --watch follows one cluster: give one --context (given: {})",
            global.context.join(", ")
        )));
    }
    // Every cluster is read at once; one that fails is named on stderr and the others print
    // (the exit code says one failed).
    let reads = contexts
        .iter()
        .map(|context| fetch::read_cluster(global, context.as_deref(), args.selector.as_deref()));
    let mut fleets = Vec::new();
    let mut failed = Vec::new();
    let mut namespaces = Vec::new();
    let mut connections = Vec::new();
    for (context, read) in contexts.iter().zip(futures::future::join_all(reads).await) {
        match read {
            Ok((mut fleet, namespace, conn)) => {
                // Every output judges chain health as the console does (the HEALTH verdict
                // and `--filter stalled|sick|…` read it): each node's RPC read
                // (`chain_health::read_targets`); seeds serve no RPC: their health is the P2P
                // probe, made once.
                super::chain_health::read_into(&conn, &mut fleet, None).await;
                super::chain_health::probe_seeds_into(&conn, &mut fleet, None).await;
                // Objects that cannot be decoded are named on stderr; the others print as usual.
                fetch::report_skipped(&fleet, json);
                namespaces.push(namespace);
                fleets.push(fleet);
                connections.push(conn);
            }
            Err(err) if multi => {
                let name = context.as_deref().unwrap_or("current context");
                eprintln!("error: context {name}: {err}");
                failed.push(name.to_owned());
            }
            Err(err) => return Err(err),
        }
    }
    let now = Timestamp::now();
    // The config's reference RPC of each chain shown, read once.
    let chains = fleets
        .iter()
        .flat_map(|f| f.rows())
        .map(|r| r.chain_id.as_str());
    let references = super::chain_health::references(global.config.as_deref(), chains).await;
    let tops: Tops = crate::fleet::chain_tops(fleets.iter(), &references);
    for fleet in &mut fleets {
        fleet.judge_health(now, &tops);
    }
    let all_namespaces = namespaces.iter().any(Option::is_none);
    let every_row: Vec<&FleetRow> = fleets.iter().flat_map(|fleet| fleet.rows()).collect();
    let keys = listing_of(every_row.iter().copied(), &filter, Sort::default()).keys;
    let named =
        |row: &&FleetRow| args.nodes.is_empty() || args.nodes.iter().any(|n| *n == *row.key.name);
    let rows: Vec<&FleetRow> = keys
        .iter()
        .filter_map(|k| fleets.iter().find_map(|fleet| fleet.row(k)))
        .filter(named)
        .collect();
    // kubectl: the found ones are printed, each missing one is an error and the exit is 1.
    let missing: Vec<&str> = args
        .nodes
        .iter()
        .filter(|n| !rows.iter().any(|r| *r.key.name == ***n))
        .map(String::as_str)
        .collect();
    let namespace_words = match namespaces.as_slice() {
        [Some(ns)] => format!("namespace {ns}"),
        _ => "any namespace".to_owned(),
    };
    let scope = TableScope {
        context: multi,
        namespace: all_namespaces,
    };
    let items = || -> Result<Vec<serde_json::Value>, CliError> {
        rows.iter()
            .map(|r| {
                serde_json::to_value(GetItem::with_health(r, &fleets, (&tops, &references), now))
                    .map_err(|e| CliError::Failed(e.to_string()))
            })
            .collect()
    };
    let out = match &args.output {
        GetOutput::Table | GetOutput::Wide if rows.is_empty() && !missing.is_empty() => {
            String::new()
        }
        GetOutput::Table | GetOutput::Wide => {
            if rows.is_empty() && !args.watch {
                let namespace = match namespaces.as_slice() {
                    [Some(ns)] => ns.as_str(),
                    _ => "any namespace",
                };
                eprintln!("No SeiNodes found in {namespace}.");
                return unreachable_clusters(&failed);
            }
            let table = table_in(&rows, args.output == GetOutput::Wide, scope, now);
            if args.no_headers {
                table.lines().skip(1).map(|l| format!("{l}\n")).collect()
            } else {
                table
            }
        }
        GetOutput::Name => rows
            .iter()
            .map(|r| super::get_output::name_line(&r.key.name))
            .collect(),
        GetOutput::JsonPath(template) => template.render(&items()?),
        GetOutput::CustomColumns(columns) => {
            super::get_output::custom_columns(columns, &items()?, args.no_headers)
        }
        // Watching, every line is one event: the list's are ADDED.
        GetOutput::Json if args.watch => items()?
            .into_iter()
            .map(|item| format!("{}\n", serde_json::json!({"type": "ADDED", "object": item})))
            .collect(),
        GetOutput::Json => {
            let items: Vec<GetItem> = rows
                .iter()
                .map(|r| GetItem::with_health(r, &fleets, (&tops, &references), now))
                .collect();
            let mut text = serde_json::to_string_pretty(&items)
                .map_err(|e| CliError::Failed(e.to_string()))?;
            text.push('\n');
            text
        }
        GetOutput::Yaml => {
            let items: Vec<GetItem> = rows
                .iter()
                .map(|r| GetItem::with_health(r, &fleets, (&tops, &references), now))
                .collect();
            serde_yaml_ng::to_string(&items).map_err(|e| CliError::Failed(e.to_string()))?
        }
    };
    std::io::stdout()
        .write_all(out.as_bytes())
        .and_then(|()| std::io::stdout().flush())
        .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))?;
    if args.watch && missing.is_empty() {
        let (Some(conn), Some(fleet), Some(namespace)) =
            (connections.first(), fleets.pop(), namespaces.first())
        else {
            return unreachable_clusters(&failed);
        };
        let watch = super::get_watch::Watch {
            output: &args.output,
            scope,
            selector: args.selector.as_deref(),
            namespace: namespace.as_deref(),
        };
        return super::get_watch::follow(conn, fleet, watch).await;
    }
    if missing.is_empty() {
        return unreachable_clusters(&failed);
    }
    let selector = args
        .selector
        .as_deref()
        .map_or(String::new(), |s| format!(" matching {s}"));
    Err(CliError::Failed(format!(
        "SeiNode {} not found in {namespace_words}{selector}",
        missing.join(", ")
    )))
}

/// The exit of a read where some clusters could not be read (each was named on stderr).
fn unreachable_clusters(failed: &[String]) -> Result<(), CliError> {
    if failed.is_empty() {
        return Ok(());
    }
    Err(CliError::Failed(format!(
        "{} of the contexts could not be read: {}",
        failed.len(),
        failed.join(", ")
    )))
}
