//! What a seed SeiNode publishes, as the probe's [`Expected`]: `spec.externalAddress`,
//! `spec.chainId` and the NodeID found for it (node-key Secret or sidecar). Pure; the console's
//! screens and `seed probe NODE` share it.
use super::probe::Expected;
use crate::actions::address::{AddressError, ExternalAddress};
use crate::api::{NodeMode, SeiNode};
use crate::fleet::detail::NodeIdLookup;

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
pub fn expected_for_seed(
    node: &SeiNode,
    lookup: Option<&NodeIdLookup>,
    chain_id: Option<&str>,
) -> Result<Expected, NotProbeable> {
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
    Ok(Expected {
        node_id,
        node_id_source,
        address,
        chain_id: chain_id.map_or_else(|| node.spec.chain_id.clone(), str::to_owned),
    })
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
        let expected = expected_for_seed(&node, Some(&lookup), None).expect("probeable");
        assert_eq!(
            expected.target(),
            "6c8f8607dbe87077a62a2990ce07d94aaf749df7@seed-0.example.com:26656"
        );
        assert_eq!(expected.node_id_source, "node-key Secret seed-0-node-key");
        assert_eq!(expected.chain_id, node.spec.chain_id);
        let other = expected_for_seed(&node, None, Some("atlantic-2")).expect("probeable");
        assert_eq!(other.chain_id, "atlantic-2");
        assert_eq!(other.node_id, None);
    }

    #[test]
    fn unpublished_or_not_a_seed() {
        assert!(matches!(
            expected_for_seed(&seed(None), None, None),
            Err(NotProbeable::NotPublished(_))
        ));
        assert!(matches!(
            expected_for_seed(&seed(Some("no-port")), None, None),
            Err(NotProbeable::BadAddress { .. })
        ));
        let full = sample::node("sei", "rpc-0", NodeMode::Full, 600);
        assert!(matches!(
            expected_for_seed(&full, None, None),
            Err(NotProbeable::NotASeed(_))
        ));
    }
}
