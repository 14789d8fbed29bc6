//! Names that do not exist are errors, on every command that reaches a cluster and at console
//! start: a context not in the kubeconfig, a namespace (`-n`, or the context's own) or a
//! SeiNode that is not in the cluster is a one-line error naming the near matches
//! (`fleet::names`), exit 2, before the command does anything.
//!
//! "Does not exist" is told from "cannot see" by asking for the object itself: a GET of the
//! namespace (or SeiNode) answering 404 means it is missing, and only then are the names listed
//! for the near matches (a list that is forbidden leaves the error without them). A GET that is
//! forbidden (403: an operator with namespaced RBAC only), or that fails otherwise, says
//! nothing here: the command goes on as before and reports what it meets itself.
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams};
use kube::core::PartialObjectMeta;

use super::{CliError, GlobalArgs, fetch};
use crate::api::SeiNode;
use crate::fleet::names::{did_you_mean, near};
use crate::kube::client::{ConnectError, Connection, connect};

/// The longest one check may take; past it the command goes on unchecked.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// What a GET of one object said.
enum Found {
    Yes,
    /// 404: it does not exist.
    Missing,
    /// Forbidden, or no answer: cannot tell.
    Unknown,
}

async fn found<K>(api: &Api<PartialObjectMeta<K>>, name: &str) -> Found
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    K::DynamicType: Default,
{
    match tokio::time::timeout(CHECK_TIMEOUT, api.get_metadata(name)).await {
        Ok(Ok(_)) => Found::Yes,
        Ok(Err(kube::Error::Api(status))) if status.code == 404 => Found::Missing,
        _ => Found::Unknown,
    }
}

/// The names `api` lists, if it may (empty when forbidden or unanswered).
async fn names<K>(api: &Api<PartialObjectMeta<K>>) -> Vec<String>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    K::DynamicType: Default,
{
    match tokio::time::timeout(CHECK_TIMEOUT, api.list_metadata(&ListParams::default())).await {
        Ok(Ok(list)) => list
            .items
            .into_iter()
            .filter_map(|item| item.metadata.name)
            .collect(),
        _ => Vec::new(),
    }
}

fn suggestion(typed: &str, known: &[String]) -> String {
    did_you_mean(&near(typed, known.iter().map(String::as_str)))
}

/// Checks the contexts, the namespace and the SeiNodes `nodes` a command is about to use.
/// Several contexts: a namespace or node is missing only when it is missing in every one
/// that could tell.
pub async fn check(global: &GlobalArgs, nodes: &[String]) -> Result<(), CliError> {
    let mut connections = Vec::new();
    for context in fetch::contexts(global) {
        match connect(global.kubeconfig.as_deref(), context.as_deref()).await {
            Ok(conn) => connections.push(conn),
            Err(err @ ConnectError::Context { .. }) => {
                return Err(CliError::BadInput(err.to_string()));
            }
            // The command reports a kubeconfig it cannot read in its own words.
            Err(_) => return Ok(()),
        }
    }
    if global.all_namespaces {
        return Ok(());
    }
    let mut missing_namespace = Vec::new();
    // How many contexts lack each node, and the SeiNode names they have (for near matches).
    let mut lacking: BTreeMap<&str, usize> = BTreeMap::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    let mut namespaces: BTreeSet<String> = BTreeSet::new();
    let mut namespace_unknown = false;
    let mut unseen: BTreeSet<&str> = BTreeSet::new();
    for conn in &connections {
        let namespace = fetch::namespace(global, conn).unwrap_or_default();
        match check_namespace(conn, &namespace).await {
            Some(Found::Missing) => {
                missing_namespace.push(error_namespace(conn, &namespace).await);
                continue;
            }
            Some(Found::Unknown) | None => namespace_unknown = true,
            Some(Found::Yes) => {}
        }
        let api: Api<PartialObjectMeta<SeiNode>> = Api::namespaced(conn.client.clone(), &namespace);
        let mut any_missing = false;
        for node in nodes {
            match found(&api, node).await {
                Found::Missing => {
                    *lacking.entry(node.as_str()).or_default() += 1;
                    any_missing = true;
                }
                Found::Unknown => {
                    unseen.insert(node.as_str());
                }
                Found::Yes => {}
            }
        }
        if any_missing {
            known.extend(names(&api).await);
            namespaces.insert(namespace);
        }
    }
    if !namespace_unknown
        && !missing_namespace.is_empty()
        && missing_namespace.len() == connections.len()
    {
        return Err(CliError::BadInput(missing_namespace.join("; ")));
    }
    let read = connections.len() - missing_namespace.len();
    let known: Vec<String> = known.into_iter().collect();
    let everywhere: Vec<String> = lacking
        .iter()
        .filter(|(node, count)| **count == read && !unseen.contains(*node))
        .map(|(node, _)| format!("{node:?}{}", suggestion(node, &known)))
        .collect();
    if everywhere.is_empty() {
        return Ok(());
    }
    let namespaces: Vec<String> = namespaces.into_iter().collect();
    let contexts = if connections.len() > 1 {
        let names: Vec<&str> = connections.iter().map(|c| c.context.as_str()).collect();
        format!(" in any of the contexts {}", names.join(", "))
    } else {
        String::new()
    };
    Err(CliError::BadInput(format!(
        "no SeiNode {} in namespace {}{contexts}",
        everywhere.join(", "),
        namespaces.join(", ")
    )))
}

/// Whether `namespace` exists (`None`: nothing to check).
async fn check_namespace(conn: &Connection, namespace: &str) -> Option<Found> {
    if namespace.is_empty() {
        return None;
    }
    let api: Api<PartialObjectMeta<Namespace>> = Api::all(conn.client.clone());
    Some(found(&api, namespace).await)
}

/// `no namespace "sei-dmeo" in context kind (did you mean sei-demo?)`.
async fn error_namespace(conn: &Connection, namespace: &str) -> String {
    let api: Api<PartialObjectMeta<Namespace>> = Api::all(conn.client.clone());
    let known = names(&api).await;
    format!(
        "no namespace {namespace:?} in context {}{}",
        conn.context,
        suggestion(namespace, &known)
    )
}
