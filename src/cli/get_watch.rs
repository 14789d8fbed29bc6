//! `get --watch`: after the list, a line per change, as `kubectl get -w` — the node's table row
//! (no header), or in `-o json` one JSON line per event, `{"type": "ADDED|MODIFIED|DELETED",
//! "object": ITEM}` (the item of `get -o json`, without the chain health the list read once).
//!
//! The SeiNodes are watched on one cluster (the API server's watch, `-l` included) and applied
//! to the fleet the list built, so every row is judged as `get` judges it; a row is printed
//! only when its printed form changed. It runs until interrupted (or the watch cannot go on).
use std::collections::HashMap;
use std::io::Write;

use futures::StreamExt;
use jiff::Timestamp;
use kube::runtime::watcher;

use super::CliError;
use super::get::{GetItem, TableScope, table_in};
use super::get_output::{GetOutput, custom_columns, name_line};
use crate::api::SeiNode;
use crate::fleet::rows::FleetRow;
use crate::fleet::store::Delta;
use crate::fleet::{Fleet, FleetDelta};
use crate::kube::client::Connection;

/// What the watch prints with.
pub struct Watch<'a> {
    pub output: &'a GetOutput,
    pub scope: TableScope,
    pub selector: Option<&'a str>,
    pub namespace: Option<&'a str>,
}

/// The event's word in `-o json`.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Added,
    Modified,
    Deleted,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Added => "ADDED",
            Kind::Modified => "MODIFIED",
            Kind::Deleted => "DELETED",
        }
    }
}

/// `row` as one watch line (or document, for YAML) in `output`.
fn line(
    row: &FleetRow,
    kind: Kind,
    output: &GetOutput,
    scope: TableScope,
    now: Timestamp,
) -> Result<String, CliError> {
    let failed = |e: String| CliError::Failed(format!("cannot print the row: {e}"));
    let item = || serde_json::to_value(GetItem::of(row)).map_err(|e| failed(e.to_string()));
    Ok(match output {
        GetOutput::Table | GetOutput::Wide => {
            let table = table_in(&[row], *output == GetOutput::Wide, scope, now);
            let mut line = table.lines().nth(1).unwrap_or_default().to_owned();
            line.push('\n');
            line
        }
        GetOutput::Json => {
            let event = serde_json::json!({"type": kind.as_str(), "object": item()?});
            format!("{event}\n")
        }
        GetOutput::Yaml => {
            let event = serde_json::json!({"type": kind.as_str(), "object": item()?});
            let text = serde_yaml_ng::to_string(&event).map_err(|e| failed(e.to_string()))?;
            format!("---\n{text}")
        }
        GetOutput::Name => name_line(&row.key.name),
        GetOutput::JsonPath(template) => template.render(&[item()?]),
        GetOutput::CustomColumns(columns) => custom_columns(columns, &[item()?], true),
    })
}

/// The row of the SeiNode `node` in `fleet`.
fn row_of<'f>(fleet: &'f Fleet, node: &SeiNode) -> Option<&'f FleetRow> {
    let name = node.metadata.name.as_deref()?;
    let namespace = node.metadata.namespace.as_deref().unwrap_or_default();
    fleet
        .rows()
        .find(|row| &*row.key.name == name && &*row.key.namespace == namespace)
}

/// Follows the SeiNodes of `conn` after the list printed `fleet`'s rows.
pub async fn follow(conn: &Connection, mut fleet: Fleet, watch: Watch<'_>) -> Result<(), CliError> {
    let now = Timestamp::now();
    // What each row looks like now: a change is a row that prints otherwise.
    let mut printed: HashMap<String, String> = HashMap::new();
    for row in fleet.rows() {
        printed.insert(
            row.key.to_string(),
            line(row, Kind::Modified, watch.output, watch.scope, now)?,
        );
    }
    let api: kube::Api<SeiNode> = match watch.namespace {
        Some(ns) => kube::Api::namespaced(conn.client.clone(), ns),
        None => kube::Api::all(conn.client.clone()),
    };
    let mut config = watcher::Config::default();
    if let Some(selector) = watch.selector {
        config = config.labels(selector);
    }
    let mut events = std::pin::pin!(watcher::watcher(api, config));
    let mut stdout = std::io::stdout();
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(err) => {
                // The watcher lists again after an error; a forbidden or lost watch ends here.
                return Err(CliError::Failed(format!("the watch stopped: {err}")));
            }
        };
        let now = Timestamp::now();
        let (node, deleted) = match event {
            watcher::Event::Apply(node) | watcher::Event::InitApply(node) => (node, false),
            watcher::Event::Delete(node) => (node, true),
            watcher::Event::Init | watcher::Event::InitDone => continue,
        };
        let out = if deleted {
            let Some(row) = row_of(&fleet, &node) else {
                continue;
            };
            let key = row.key.to_string();
            let text = line(row, Kind::Deleted, watch.output, watch.scope, now)?;
            fleet.apply(FleetDelta::Node(Delta::Deleted(Box::new(node))));
            printed.remove(&key);
            text
        } else {
            fleet.apply(FleetDelta::Node(Delta::Applied(Box::new(node.clone()))));
            let Some(row) = row_of(&fleet, &node) else {
                continue;
            };
            let key = row.key.to_string();
            let kind = if printed.contains_key(&key) {
                Kind::Modified
            } else {
                Kind::Added
            };
            let text = line(row, kind, watch.output, watch.scope, now)?;
            let unchanged = line(row, Kind::Modified, watch.output, watch.scope, now)?;
            if printed.get(&key) == Some(&unchanged) {
                continue;
            }
            printed.insert(key, unchanged);
            text
        };
        stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))?;
    }
    Ok(())
}
