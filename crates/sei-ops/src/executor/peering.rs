//! `spec.peers` resolved into `status.resolvedPeers` exactly as the controller's reconcile does
//! it before planning (upstream `internal/peering/resolver.go`, `internal/controller/node/
//! peers.go`): static addresses verbatim, label sources from the listed SeiNodes and each
//! peer's sidecar `/v0/node-id`, EC2 sources kept from the prior set (the console has no EC2
//! resolver, which upstream treats as a transient failure); then sorted and de-duplicated. A
//! transient failure never shrinks the set.
use std::collections::BTreeMap;

use crate::api::SeiNode;
use crate::ports::{ClusterApi, ClusterError, SidecarApi, SidecarTarget};

/// seid's P2P port (sei-config `PortP2P`).
pub const P2P_PORT: u16 = 26656;

/// The resolved set and what could not be resolved fresh.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedPeers {
    /// `<node_id>@<host>:<port>`, sorted and de-duplicated.
    pub peers: Vec<String>,
    /// An EC2 source is declared: the prior set was kept (unioned) as the controller does
    /// when its EC2 lookup fails; the console cannot query EC2.
    pub ec2_prior_kept: bool,
    /// Label peers whose node ID could not be read now: their prior entry was kept, or they
    /// were skipped (`name: reason`).
    pub unresolved: Vec<String>,
}

/// Resolves `node.spec.peers` against `prior` (the node's `status.resolvedPeers`). Errors only
/// when a label source's SeiNodes cannot be listed (the controller's reconcile fails then too).
pub async fn resolve_peers(
    cluster: &dyn ClusterApi,
    sidecar: &dyn SidecarApi,
    node: &SeiNode,
    prior: &[String],
) -> Result<ResolvedPeers, ClusterError> {
    let prior_by_host = index_by_host(prior);
    let mut resolved = ResolvedPeers::default();
    for source in node.spec.peers.iter().flatten() {
        if let Some(label) = &source.label {
            let namespace = label.namespace.as_deref().unwrap_or(node.namespace());
            let selector = selector_text(&label.selector);
            let listed = cluster.list_seinodes(namespace, Some(&selector)).await?;
            for peer in listed {
                if peer.name() == node.name() && peer.namespace() == node.namespace() {
                    continue;
                }
                let address = peer_address(&peer);
                let target = SidecarTarget::new(peer.namespace(), peer.name());
                match sidecar.node_id(&target).await {
                    Ok(node_id) => resolved.peers.push(format!("{node_id}@{address}")),
                    Err(err) => {
                        if let Some(existing) = prior_by_host.get(address.as_str()) {
                            resolved.peers.push((*existing).to_owned());
                        }
                        resolved.unresolved.push(format!("{}: {err}", peer.name()));
                    }
                }
            }
        } else if let Some(fixed) = &source.static_ {
            resolved.peers.extend(fixed.addresses.iter().cloned());
        } else if source.ec2_tags.is_some() {
            resolved.ec2_prior_kept = true;
        }
    }
    if resolved.ec2_prior_kept {
        resolved.peers.extend(prior.iter().cloned());
    }
    resolved.peers.sort();
    resolved.peers.dedup();
    Ok(resolved)
}

/// A peer source the offline resolution (`resolve_peers_offline`) cannot resolve: the controller
/// lists SeiNodes and asks their sidecars (label) or asks EC2 (ec2Tags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfflineUnresolved {
    /// `spec.peers[].label`: its selector and namespace.
    Label { selector: String, namespace: String },
    /// `spec.peers[].ec2Tags`: its region.
    Ec2Tags { region: String },
}

impl std::fmt::Display for OfflineUnresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Label {
                selector,
                namespace,
            } => write!(
                f,
                "the label source {selector} (namespace {namespace}) needs the cluster's SeiNodes \
                 and their sidecars"
            ),
            Self::Ec2Tags { region } => {
                write!(f, "the ec2Tags source (region {region}) needs EC2")
            }
        }
    }
}

/// `spec.peers` resolved without a cluster (`plan -f`): static sources exactly as the controller
/// resolves them (sorted, de-duplicated, and an empty or absent `spec.peers` empties the set);
/// when a label or EC2 source is declared, the node's prior `status.resolvedPeers` is kept beside
/// the static addresses (what the controller does for a source whose lookup fails) and the source
/// is named in `unresolved`.
pub fn resolve_peers_offline(
    node: &SeiNode,
    prior: &[String],
) -> (ResolvedPeers, Vec<OfflineUnresolved>) {
    let mut resolved = ResolvedPeers::default();
    let mut unresolved = Vec::new();
    for source in node.spec.peers.iter().flatten() {
        if let Some(label) = &source.label {
            unresolved.push(OfflineUnresolved::Label {
                selector: selector_text(&label.selector),
                namespace: label
                    .namespace
                    .as_deref()
                    .unwrap_or(node.namespace())
                    .to_owned(),
            });
        } else if let Some(fixed) = &source.static_ {
            resolved.peers.extend(fixed.addresses.iter().cloned());
        } else if let Some(ec2) = &source.ec2_tags {
            resolved.ec2_prior_kept = true;
            unresolved.push(OfflineUnresolved::Ec2Tags {
                region: ec2.region.clone(),
            });
        }
    }
    if !unresolved.is_empty() {
        resolved.peers.extend(prior.iter().cloned());
    }
    resolved.peers.sort();
    resolved.peers.dedup();
    (resolved, unresolved)
}

/// Writes `peers` into `node.status.resolvedPeers` as the controller's reconcile does: only when
/// they differ (an absent list and an empty one are the same, so no status is created for it).
pub fn store_resolved(node: &mut SeiNode, peers: &[String]) {
    let current = node.status.as_ref().and_then(|s| s.resolved_peers.as_ref());
    let unchanged = match current {
        Some(current) => current == peers,
        None => peers.is_empty(),
    };
    if !unchanged {
        node.status_mut().resolved_peers = Some(peers.to_vec());
    }
}

/// `host:port` → the prior `<node_id>@host:port` entry.
fn index_by_host(peers: &[String]) -> BTreeMap<&str, &str> {
    peers
        .iter()
        .filter_map(|p| {
            let at = p.find('@')?;
            (at > 0 && at < p.len() - 1).then(|| (&p[at + 1..], p.as_str()))
        })
        .collect()
}

/// `spec.externalAddress` when set, else the headless Service DNS at the P2P port.
fn peer_address(peer: &SeiNode) -> String {
    match peer.spec.external_address() {
        "" => format!(
            "{name}-0.{name}.{namespace}.svc.cluster.local:{P2P_PORT}",
            name = peer.name(),
            namespace = peer.namespace()
        ),
        address => address.to_owned(),
    }
}

/// A label selector as the API takes it (`k=v,k2=v2`; `MatchingLabels` semantics).
fn selector_text(selector: &BTreeMap<String, String>) -> String {
    selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Ec2TagsPeerSource, LabelPeerSource, PeerSource, StaticPeerSource};
    use crate::ports::testing::{FakeCluster, FakeSidecar, SidecarBehaviour};
    use crate::tasks::testing::full_node;

    fn with_peers(mut node: SeiNode, peers: Vec<PeerSource>) -> SeiNode {
        node.spec.peers = Some(peers);
        node
    }

    fn fixed(addresses: &[&str]) -> PeerSource {
        PeerSource {
            static_: Some(StaticPeerSource {
                addresses: addresses.iter().map(|a| (*a).to_owned()).collect(),
                ..StaticPeerSource::default()
            }),
            ..PeerSource::default()
        }
    }

    fn labelled(tier: &str) -> PeerSource {
        PeerSource {
            label: Some(LabelPeerSource {
                selector: BTreeMap::from([("tier".to_owned(), tier.to_owned())]),
                ..LabelPeerSource::default()
            }),
            ..PeerSource::default()
        }
    }

    async fn resolve(cluster: &FakeCluster, node: &SeiNode, prior: &[&str]) -> ResolvedPeers {
        let sidecar = FakeSidecar::new(SidecarBehaviour::CompleteAtOnce);
        let prior: Vec<String> = prior.iter().map(|p| (*p).to_owned()).collect();
        resolve_peers(cluster, &sidecar, node, &prior)
            .await
            .expect("resolve")
    }

    #[tokio::test]
    async fn static_addresses_are_sorted_and_deduplicated() {
        let node = with_peers(
            full_node("ns", "a"),
            vec![fixed(&["b@h2:1", "a@h1:1"]), fixed(&["a@h1:1"])],
        );
        let resolved = resolve(&FakeCluster::new(), &node, &["stale@old:1"]).await;
        assert_eq!(
            resolved.peers,
            ["a@h1:1", "b@h2:1"],
            "the prior set is not kept"
        );
    }

    #[tokio::test]
    async fn an_empty_spec_peers_empties_the_set() {
        let node = with_peers(full_node("ns", "a"), Vec::new());
        assert!(
            resolve(&FakeCluster::new(), &node, &["x@h:1"])
                .await
                .peers
                .is_empty()
        );
        let mut none = full_node("ns", "a");
        none.spec.peers = None;
        assert!(
            resolve(&FakeCluster::new(), &none, &["x@h:1"])
                .await
                .peers
                .is_empty()
        );
    }

    #[tokio::test]
    async fn label_sources_list_seinodes_and_compose_node_id_at_the_peer_address() {
        let cluster = FakeCluster::new();
        let labelled_node = |name: &str, tier: &str, address: Option<&str>| {
            let mut peer = full_node("ns", name);
            peer.metadata.labels = Some(BTreeMap::from([("tier".to_owned(), tier.to_owned())]));
            peer.spec.external_address = address.map(str::to_owned);
            cluster.put_node(peer)
        };
        let me = labelled_node("a", "rpc", None);
        labelled_node("b", "rpc", Some("203.0.113.9:26656"));
        labelled_node("c", "rpc", None);
        labelled_node("d", "archive", None);
        let node = with_peers(me, vec![labelled("rpc")]);
        let resolved = resolve(&cluster, &node, &[]).await;
        let id = "0".repeat(40);
        assert_eq!(
            resolved.peers,
            [
                format!("{id}@203.0.113.9:26656"),
                format!("{id}@c-0.c.ns.svc.cluster.local:26656"),
            ],
            "itself and other tiers left out"
        );
    }

    fn prior(peers: &[&str]) -> Vec<String> {
        peers.iter().map(|p| (*p).to_owned()).collect()
    }

    #[test]
    fn offline_static_sources_are_sorted_and_deduplicated_as_the_controller_does() {
        let node = with_peers(
            full_node("ns", "a"),
            vec![fixed(&["b@h2:1", "a@h1:1"]), fixed(&["a@h1:1"])],
        );
        let (resolved, unresolved) = resolve_peers_offline(&node, &prior(&["stale@old:1"]));
        assert_eq!(
            resolved.peers,
            ["a@h1:1", "b@h2:1"],
            "a stale status is replaced"
        );
        assert!(unresolved.is_empty());
    }

    #[test]
    fn offline_an_empty_spec_peers_clears_a_stale_status_as_the_controller_does() {
        let mut node = with_peers(full_node("ns", "a"), Vec::new());
        node.status_mut().resolved_peers = Some(prior(&["stale@old:1"]));
        let (resolved, unresolved) = resolve_peers_offline(&node, &prior(&["stale@old:1"]));
        assert!(resolved.peers.is_empty() && unresolved.is_empty());
        store_resolved(&mut node, &resolved.peers);
        assert_eq!(
            node.status.as_ref().and_then(|s| s.resolved_peers.clone()),
            Some(Vec::new())
        );
        // No status and nothing resolved: no status is made up.
        let mut bare = full_node("ns", "b");
        bare.status = None;
        store_resolved(&mut bare, &[]);
        assert!(bare.status.is_none());
    }

    #[test]
    fn offline_label_and_ec2_sources_are_named_and_the_status_is_kept_beside_static_ones() {
        let ec2 = PeerSource {
            ec2_tags: Some(Ec2TagsPeerSource {
                region: "eu-west-1".into(),
                ..Ec2TagsPeerSource::default()
            }),
            ..PeerSource::default()
        };
        let node = with_peers(
            full_node("ns", "a"),
            vec![labelled("rpc"), ec2, fixed(&["s@h:1"])],
        );
        let (resolved, unresolved) = resolve_peers_offline(&node, &prior(&["e@10.0.0.1:26656"]));
        assert_eq!(resolved.peers, ["e@10.0.0.1:26656", "s@h:1"]);
        assert_eq!(
            unresolved,
            [
                OfflineUnresolved::Label {
                    selector: "tier=rpc".into(),
                    namespace: "ns".into()
                },
                OfflineUnresolved::Ec2Tags {
                    region: "eu-west-1".into()
                }
            ]
        );
        assert_eq!(
            unresolved[0].to_string(),
            "the label source tier=rpc (namespace ns) needs the cluster's SeiNodes and their sidecars"
        );
    }

    #[tokio::test]
    async fn an_ec2_source_keeps_the_prior_set_beside_fresh_entries() {
        let ec2 = PeerSource {
            ec2_tags: Some(Ec2TagsPeerSource {
                region: "eu-west-1".into(),
                ..Ec2TagsPeerSource::default()
            }),
            ..PeerSource::default()
        };
        let node = with_peers(full_node("ns", "a"), vec![ec2, fixed(&["s@h:1"])]);
        let resolved = resolve(&FakeCluster::new(), &node, &["e@10.0.0.1:26656"]).await;
        assert!(resolved.ec2_prior_kept);
        assert_eq!(resolved.peers, ["e@10.0.0.1:26656", "s@h:1"]);
    }
}
