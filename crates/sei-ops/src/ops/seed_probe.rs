//! The seed probe's use-case side: what a seed SeiNode publishes as the probe's
//! [`ProbeTarget`] (`spec.externalAddress`, `spec.chainId` and the NodeID of its node-key Secret
//! or sidecar), and the one line an outcome is shown as. Pure; `seed create`, the console's
//! screens and `seed probe NODE` share it. The dialling is the [`crate::ports::probe::SeedProber`]'s.
use std::time::Duration;

use crate::actions::address::{AddressError, ExternalAddress};
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::api::{NodeMode, SeiNode};
use crate::fleet::detail::{NodeIdLookup, NodeIdSource};
use crate::fleet::probe::ProbeRecord;
use crate::ports::probe::{CheckName, Origin, ProbeOutcome, ProbeTarget, Verdict};
use crate::ports::{
    ClusterApi, ClusterError, ClusterErrorKind, ClusterObject, ObjectKind, SidecarApi,
    SidecarTarget,
};

/// Upper bound on one `/v0/node-id` call, so a dead pod never holds the lookup.
pub const SIDECAR_TIMEOUT: Duration = Duration::from_secs(3);

/// The NodeID of `node` when it is a seed (`None` for every other mode): from its node-key
/// Secret when the operator may read it, else from its sidecar's `/v0/node-id`; otherwise every
/// reason why not. The node screen, `describe`, `seed probe NODE` and the console's probe share
/// it, through the ports. `sidecar` is the client, or why there is none.
pub async fn seed_node_id<E: std::fmt::Display>(
    cluster: &dyn ClusterApi,
    sidecar: Result<&dyn SidecarApi, &E>,
    node: &SeiNode,
) -> Option<NodeIdLookup> {
    if node.spec.mode().ok() != Some(NodeMode::Seed) {
        return None;
    }
    let mut reasons = Vec::new();
    let secret = node.spec.node_key_secret_name();
    if secret.is_empty() {
        reasons.push("no node-key Secret in spec.seed.nodeKey".to_owned());
    } else {
        match from_secret(cluster, node.namespace(), secret).await {
            Ok(node_id) => {
                return Some(NodeIdLookup::Found {
                    node_id,
                    source: NodeIdSource::Secret(secret.to_owned()),
                });
            }
            Err(reason) => reasons.push(reason.to_string()),
        }
    }
    match sidecar {
        Ok(sidecar) => {
            let target = SidecarTarget::new(node.namespace(), node.name());
            match tokio::time::timeout(SIDECAR_TIMEOUT, sidecar.node_id(&target)).await {
                Ok(Ok(node_id)) => {
                    return Some(NodeIdLookup::Found {
                        node_id,
                        source: NodeIdSource::Sidecar,
                    });
                }
                Ok(Err(err)) => reasons.push(format!("sidecar: {err}")),
                Err(_) => reasons.push(format!(
                    "sidecar: no answer within {}s",
                    SIDECAR_TIMEOUT.as_secs()
                )),
            }
        }
        Err(why) => reasons.push(format!("sidecar: {why}")),
    }
    Some(NodeIdLookup::NotFound { reasons })
}

/// Why the node-key Secret gave no NodeID (each names the Secret).
#[derive(Debug, thiserror::Error)]
enum SecretLookupError {
    #[error("Secret {0} not found")]
    NotFound(String),
    #[error("Secret {0}: forbidden")]
    Forbidden(String),
    #[error("Secret {name}: {source}")]
    Cluster { name: String, source: ClusterError },
    #[error("Secret {0} has no {NODE_KEY_FILE}")]
    NoNodeKey(String),
    #[error("Secret {name}: {source}")]
    NodeKey {
        name: String,
        source: crate::actions::node_key::NodeKeyError,
    },
}

async fn from_secret(
    cluster: &dyn ClusterApi,
    namespace: &str,
    name: &str,
) -> Result<String, SecretLookupError> {
    let secret = match cluster.get(ObjectKind::Secret, namespace, name).await {
        Ok(Some(ClusterObject::Secret(secret))) => secret,
        Ok(_) => return Err(SecretLookupError::NotFound(name.to_owned())),
        Err(err) if err.kind == ClusterErrorKind::Forbidden => {
            return Err(SecretLookupError::Forbidden(name.to_owned()));
        }
        Err(source) => {
            return Err(SecretLookupError::Cluster {
                name: name.to_owned(),
                source,
            });
        }
    };
    let json = secret
        .data
        .as_ref()
        .and_then(|d| d.get(NODE_KEY_FILE))
        .map(|b| String::from_utf8_lossy(&b.0).into_owned())
        .ok_or_else(|| SecretLookupError::NoNodeKey(name.to_owned()))?;
    NodeKey::from_node_key_json(&json)
        .map(|key| key.node_id())
        .map_err(|source| SecretLookupError::NodeKey {
            name: name.to_owned(),
            source,
        })
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotProbeable {
    #[error("{0} is not a seed; give NODEID@HOST:PORT to probe any address")]
    NotASeed(String),
    #[error(
        "{0} has no spec.externalAddress: the seed is not published, so no peer outside the \
         cluster can dial it (set one with `sei-console address`)"
    )]
    NotPublished(String),
    #[error("{node}: spec.externalAddress: {error}")]
    BadAddress { node: String, error: AddressError },
}

/// The published identity of `node`; `lookup` is its NodeID lookup (`None`: not looked up).
/// `chain_id` overrides `spec.chainId`.
pub fn probe_target(
    node: &SeiNode,
    lookup: Option<&NodeIdLookup>,
    chain_id: Option<&str>,
) -> Result<ProbeTarget, NotProbeable> {
    let name = format!("SeiNode {}/{}", node.namespace(), node.name());
    if node.spec.mode().ok() != Some(NodeMode::Seed) {
        return Err(NotProbeable::NotASeed(name));
    }
    let published = node.spec.external_address();
    if published.is_empty() {
        return Err(NotProbeable::NotPublished(name));
    }
    let address = ExternalAddress::parse(published)
        .map_err(|error| NotProbeable::BadAddress { node: name, error })?;
    let (node_id, node_id_source) = match lookup {
        Some(NodeIdLookup::Found { node_id, source }) => {
            (Some(node_id.clone()), source.to_string())
        }
        Some(NodeIdLookup::NotFound { reasons }) => (None, reasons.join("; ")),
        None => (None, "not looked up".to_owned()),
    };
    Ok(ProbeTarget {
        node_id,
        node_id_source,
        address: address.to_string(),
        chain_id: chain_id.map_or_else(|| node.spec.chain_id.clone(), str::to_owned),
        no_pod: no_pod_reason(node, None),
    })
}

/// Why no pod can answer for `node`, when its status says so (issue 27): a node Pending, or
/// not touched yet, with no StatefulSet was never rendered, so a refused dial says that
/// rather than blame its sidecar. `render_failure`: the message of its
/// `StatefulSetRenderFailed` event, when the caller has it, linked as the reason.
pub fn no_pod_reason(node: &SeiNode, render_failure: Option<&str>) -> Option<String> {
    let status = node.status.as_ref();
    let phase = status.and_then(|s| s.phase);
    let rendered = status.is_some_and(|s| s.stateful_set.is_some());
    if rendered || !matches!(phase, None | Some(crate::api::Phase::Pending)) {
        return None;
    }
    let phase = phase.map_or("not touched by the controller yet", |p| p.as_str());
    let why = match render_failure {
        Some(message) => format!(
            "never rendered: StatefulSetRenderFailed: {}",
            first_clause(message)
        ),
        None => "never rendered".to_owned(),
    };
    Some(format!(
        "{NO_POD}: the SeiNode is {phase} with no StatefulSet and no pod ({why})"
    ))
}

/// How [`no_pod_reason`] starts: the one-line heads put it before the dial's own words.
const NO_POD: &str = "no pod to reach";

/// What the screens, `get` and `describe` keep of a probe that ended at `at` (`Err`: it could
/// not run, and why).
pub fn record(
    at: jiff::Timestamp,
    outcome: Result<ProbeOutcome, impl std::fmt::Display>,
) -> ProbeRecord {
    match outcome {
        Ok(outcome) => ProbeRecord {
            at,
            ok: outcome.ok,
            problem: (!outcome.ok).then(|| outcome_head(&outcome)),
            route: origin_text(&outcome.origin),
            reachable: outcome.reachable(),
            pex_peers: outcome.pex_peers,
            failed_check: outcome.first_problem().map(|c| c.check.label()),
            peer: outcome.target,
        },
        Err(why) => ProbeRecord {
            at,
            ok: false,
            peer: String::new(),
            problem: Some(format!("not probed: {why}")),
            route: "nothing dialled".to_owned(),
            reachable: false,
            pex_peers: None,
            failed_check: Some("not probed"),
        },
    }
}

/// The outcome in one line: `reachable as NODEID@HOST:PORT`, or the first check that failed,
/// then from where it was dialled and to which IP.
pub fn outcome_line(outcome: &ProbeOutcome) -> String {
    format!(
        "{}; {}",
        outcome_head(outcome),
        origin_text(&outcome.origin)
    )
}

/// `reachable as NODEID@HOST:PORT`, or the first check that failed and why (its first clause).
pub fn outcome_head(outcome: &ProbeOutcome) -> String {
    match outcome.first_problem() {
        None => format!("reachable as {}", outcome.target),
        // A seed with no pod: that is the news, not the refused dial (issue 27).
        Some(check) => {
            let head = check
                .detail
                .split("; ")
                .find(|clause| clause.starts_with(NO_POD))
                .unwrap_or_else(|| first_clause(&check.detail));
            format!("{}: {head}", check.check.label())
        }
    }
}

/// `dialled 127.0.0.1:26656 from 127.0.0.1:50312` (the resolved IP, the local end).
pub fn origin_text(origin: &Origin) -> String {
    let from = origin.local_address.as_deref().unwrap_or("this machine");
    let place = if origin.in_cluster {
        " (inside a pod: the cluster network's view)"
    } else {
        ""
    };
    match &origin.remote_address {
        Some(remote) => format!("dialled {remote} from {from}{place}"),
        None => format!("no address dialled, from {from}{place}"),
    }
}

/// A detail up to its first `; ` (the explanation after it is for the full report).
fn first_clause(detail: &str) -> &str {
    detail.split("; ").next().unwrap_or(detail)
}

/// The checks as lines (`✓ reachable  TCP connect in 0.4 ms`), after the origin line.
pub fn check_lines(outcome: &ProbeOutcome) -> Vec<String> {
    let mut lines = vec![format!(
        "  {} in {} ms",
        origin_text(&outcome.origin),
        outcome.total_ms
    )];
    lines.extend(outcome.checks.iter().map(|c| {
        let glyph = match c.verdict {
            Verdict::Pass => "✓",
            Verdict::Fail => "✗",
            Verdict::Unknown => "?",
        };
        format!("  {glyph} {:<15} {}", c.check.label(), c.detail)
    }));
    lines
}

/// Whether a seed just brought up passed: every check but the PEX addresses, which a seed
/// only has after its first minutes (the full report still shows that check).
pub fn passed_at_bring_up(outcome: &ProbeOutcome) -> bool {
    outcome
        .checks
        .iter()
        .all(|c| c.passed() || c.check == CheckName::PexAddresses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::detail::NodeIdSource;
    use crate::fleet::sample;

    fn seed(address: Option<&str>) -> SeiNode {
        let mut node = sample::node("sei", "seed-0", NodeMode::Seed, 600);
        node.spec.external_address = address.map(str::to_owned);
        node
    }

    #[test]
    fn a_published_seed_with_its_secret() {
        let lookup = NodeIdLookup::Found {
            node_id: "6c8f8607dbe87077a62a2990ce07d94aaf749df7".into(),
            source: NodeIdSource::Secret("seed-0-node-key".into()),
        };
        let node = seed(Some("seed-0.example.com:26656"));
        let expected = probe_target(&node, Some(&lookup), None).expect("probeable");
        assert_eq!(
            expected.peer(),
            "6c8f8607dbe87077a62a2990ce07d94aaf749df7@seed-0.example.com:26656"
        );
        assert_eq!(expected.node_id_source, "node-key Secret seed-0-node-key");
        assert_eq!(expected.chain_id, node.spec.chain_id);
        let other = probe_target(&node, None, Some("atlantic-2")).expect("probeable");
        assert_eq!(other.chain_id, "atlantic-2");
        assert_eq!(other.node_id, None);
    }

    #[test]
    fn unpublished_or_not_a_seed() {
        assert!(matches!(
            probe_target(&seed(None), None, None),
            Err(NotProbeable::NotPublished(_))
        ));
        assert!(matches!(
            probe_target(&seed(Some("no-port")), None, None),
            Err(NotProbeable::BadAddress { .. })
        ));
        let full = sample::node("sei", "rpc-0", NodeMode::Full, 600);
        assert!(matches!(
            probe_target(&full, None, None),
            Err(NotProbeable::NotASeed(_))
        ));
    }

    /// Issue 27: the one-line head the node screen and the fleet show puts "no pod to reach"
    /// before the refused dial (it was cut at the first clause, so the console never said it).
    #[test]
    fn the_head_of_a_probe_of_a_seed_with_no_pod_says_no_pod_to_reach() {
        use crate::ports::probe::CheckName;
        use crate::ports::probe::fake::FakeProber;
        let target = probe_target(&seed(Some("127.0.0.1:26656")), None, None).expect("probeable");
        let refused = "connecting to 127.0.0.1:26656: Connection refused (os error 111)";
        let no_pod = "no pod to reach: the SeiNode is Pending with no StatefulSet and no pod \
                      (never rendered)";
        let outcome = FakeProber::failing(CheckName::Reachable, &format!("{refused}; {no_pod}"))
            .outcome(&target);
        assert_eq!(outcome_head(&outcome), format!("reachable: {no_pod}"));
        let outcome = FakeProber::failing(
            CheckName::Reachable,
            &format!("{refused}; a seed listening on 127.0.0.1 only looks like this"),
        )
        .outcome(&target);
        assert_eq!(outcome_head(&outcome), format!("reachable: {refused}"));
    }

    /// Issue 27: a seed Pending with no StatefulSet has no pod to reach; the hint says so
    /// (linked to its render failure) instead of blaming the sidecar.
    #[test]
    fn a_seed_never_rendered_has_no_pod_to_reach() {
        let mut node = seed(Some("seed-0.example.com:26656"));
        let target = probe_target(&node, None, None).expect("probeable");
        assert_eq!(
            target.no_pod.as_deref(),
            Some(
                "no pod to reach: the SeiNode is not touched by the controller yet with no \
                 StatefulSet and no pod (never rendered)"
            )
        );
        node = sample::patched(node, serde_json::json!({"status": {"phase": "Pending"}}));
        let message = "Cannot render the StatefulSet: syncing statefulset: generating \
                       statefulset: scheduling.nodepoolSeed is not configured; see the docs";
        assert_eq!(
            no_pod_reason(&node, Some(message)).as_deref(),
            Some(
                "no pod to reach: the SeiNode is Pending with no StatefulSet and no pod (never \
                 rendered: StatefulSetRenderFailed: Cannot render the StatefulSet: syncing \
                 statefulset: generating statefulset: scheduling.nodepoolSeed is not configured)"
            )
        );
        let running = sample::running(node);
        assert_eq!(no_pod_reason(&running, None), None, "rendered and running");
    }
}
