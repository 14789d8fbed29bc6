//! Which nodes a rollout takes: the named ones (each must exist) or those matching a label
//! selector and/or mode, in name order.
use super::Selection;
use crate::api::SeiNode;
use crate::ops::{Ops, OpsError};

impl Ops<'_> {
    /// The nodes named (each must exist) or matching, in order.
    pub(super) async fn select(&self, selection: &Selection) -> Result<Vec<SeiNode>, OpsError> {
        match selection {
            Selection::Named(names) => {
                let mut nodes = Vec::new();
                for name in names {
                    nodes.push(self.read_node(name).await?);
                }
                Ok(nodes)
            }
            Selection::Matching { selector, mode } => {
                let namespace = self.namespace();
                let mut nodes: Vec<SeiNode> = self
                    .ports
                    .cluster
                    .list_seinodes(namespace, selector.as_deref())
                    .await
                    .map_err(OpsError::cluster("listing SeiNodes"))?
                    .into_iter()
                    .filter(|n| mode.is_none_or(|mode| n.spec.first_mode() == Some(mode)))
                    .collect();
                nodes.sort_by(|a, b| a.name().cmp(b.name()));
                if nodes.is_empty() {
                    return Err(OpsError::BadInput(format!(
                        "no SeiNode in namespace {namespace} matches {}",
                        selection.words().join(" ")
                    )));
                }
                Ok(nodes)
            }
        }
    }
}
