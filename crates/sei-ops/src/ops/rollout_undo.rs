//! `rollout undo`: which nodes go back, and to which image. The image each node had before is
//! read from the rollout's record (`ops::rollout_record`: the `from` of each node the rollout
//! changed), else from the node's `sei.io/console-actions` record (its last `rollout` entry
//! whose `image X -> Y` ends on the image the node runs now). The undo itself is a rollout to
//! that image (`actions::rollout`, with `undo_of`): the same preview, permission checks, waves,
//! health gate and typed names, journaled, with its own record saying what it undoes. Nodes
//! already back are left alone (`already_rolled`).
//!
//! **An update plan to the image being undone still Active**: upstream never cancels an Active
//! plan (a plan ends Complete or Failed; the controller runs the one it finds Active on, and a
//! new spec waits for it), so neither does the console. The undo follows that plan to its end
//! first — the pod runs the image being undone meanwhile — and only then persists its own plan
//! back; the preview says so for each such node, before `y`.
use std::collections::BTreeMap;

use crate::actions::image_ref::ImageRef;
use crate::api::SeiNode;
use crate::fleet::console_actions::{self, Recorded};
use crate::ops::rollout_record::{NodeState, StoredRecord};
use crate::ops::{Ops, OpsError};

/// What to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UndoTarget {
    /// The nodes a rollout changed (its ID).
    Rollout(String),
    /// These nodes.
    Nodes(Vec<String>),
    /// The nodes matching a label selector.
    Selector(String),
}

/// The undo as planned: one image back, its nodes, where each image was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPlan {
    /// The rollout undone, when the images came from one record.
    pub of: Option<String>,
    pub image: ImageRef,
    pub nodes: Vec<String>,
    /// Where each node's previous image was read.
    pub sources: Vec<String>,
}

/// The image before a rollout of `node` to the image it is pinned to now, from the node's
/// console-action record (its last `rollout` entry `image X -> Y` with `Y` its `spec.image`).
pub fn previous_from_console_actions(node: &SeiNode) -> Option<String> {
    let Recorded::Actions { actions, .. } =
        console_actions::read(node.metadata.annotations.as_ref())?
    else {
        return None;
    };
    actions.iter().rev().find_map(|action| {
        if action.action != "rollout" {
            return None;
        }
        let (from, to) = action.detail.strip_prefix("image ")?.split_once(" -> ")?;
        let to = to.split_whitespace().next()?;
        (to == node.spec.image && from != to).then(|| from.to_owned())
    })
}

/// The newest record in which `node` was changed to the image it is pinned to now.
fn previous_from_records<'r>(
    records: &'r [StoredRecord],
    node: &SeiNode,
) -> Option<(&'r StoredRecord, String)> {
    records.iter().find_map(|stored| {
        stored
            .record
            .nodes
            .iter()
            .find(|n| {
                n.name == node.name() && n.state != NodeState::Pending && n.to == node.spec.image
            })
            .map(|n| (stored, n.from.clone()))
    })
}

impl Ops<'_> {
    /// Plans the undo of `target`: refused (`BadInput`) when a node has no known previous image
    /// or the nodes would go back to different images (each group is then named).
    pub async fn plan_undo(&self, target: &UndoTarget) -> Result<UndoPlan, OpsError> {
        let records = self.rollout_records().await?;
        let mut backs: Vec<(String, String, String)> = Vec::new(); // node, image, source
        let mut of = None;
        match target {
            UndoTarget::Rollout(id) => {
                let stored = self.find_rollout(Some(id)).await?;
                for node in stored
                    .record
                    .nodes
                    .iter()
                    .filter(|n| n.state != NodeState::Pending)
                {
                    backs.push((
                        node.name.clone(),
                        node.from.clone(),
                        format!("rollout {}", stored.record.id),
                    ));
                }
                if backs.is_empty() {
                    return Err(OpsError::BadInput(format!(
                        "rollout {} changed no node; nothing to undo, nothing was changed",
                        stored.record.id
                    )));
                }
                of = Some(stored.record.id.clone());
            }
            UndoTarget::Nodes(_) | UndoTarget::Selector(_) => {
                let nodes = match target {
                    UndoTarget::Nodes(names) => {
                        let mut nodes = Vec::new();
                        for name in names {
                            nodes.push(self.read_node(name).await?);
                        }
                        nodes
                    }
                    UndoTarget::Selector(selector) => self.select_for_undo(selector).await?,
                    UndoTarget::Rollout(_) => Vec::new(),
                };
                let mut ids = Vec::new();
                for node in &nodes {
                    if let Some((stored, from)) = previous_from_records(&records, node) {
                        ids.push(stored.record.id.clone());
                        backs.push((
                            node.name().to_owned(),
                            from,
                            format!("rollout {}", stored.record.id),
                        ));
                    } else if let Some(from) = previous_from_console_actions(node) {
                        ids.push(String::new());
                        backs.push((
                            node.name().to_owned(),
                            from,
                            format!("its {} record", console_actions::ANNOTATION),
                        ));
                    } else {
                        return Err(OpsError::BadInput(format!(
                            "{}: no previous image known (no rollout record changed it to {} and \
                             its {} record names no rollout to it); nothing was changed",
                            node.name(),
                            node.spec.image,
                            console_actions::ANNOTATION
                        )));
                    }
                }
                ids.dedup();
                if let [one] = ids.as_slice()
                    && !one.is_empty()
                {
                    of = Some(one.clone());
                }
            }
        }
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (node, image, _) in &backs {
            groups.entry(image).or_default().push(node);
        }
        if groups.len() > 1 {
            let words: Vec<String> = groups
                .iter()
                .map(|(image, nodes)| format!("{} back to {image}", nodes.join(" ")))
                .collect();
            return Err(OpsError::BadInput(format!(
                "the nodes had different images before ({}): undo each group with \
                 `sei-console rollout undo NODE...`; nothing was changed",
                words.join("; ")
            )));
        }
        let image_text = backs.first().map(|b| b.1.clone()).unwrap_or_default();
        let image = ImageRef::parse(&image_text).map_err(|e| {
            OpsError::BadInput(format!(
                "the previous image {image_text} does not parse ({e}); nothing was changed"
            ))
        })?;
        Ok(UndoPlan {
            of,
            image,
            nodes: backs.iter().map(|b| b.0.clone()).collect(),
            sources: backs
                .iter()
                .map(|(node, image, source)| format!("{node}: back to {image} (from {source})"))
                .collect(),
        })
    }

    async fn select_for_undo(&self, selector: &str) -> Result<Vec<SeiNode>, OpsError> {
        let namespace = self.namespace();
        let mut nodes = self
            .ports
            .cluster
            .list_seinodes(namespace, Some(selector))
            .await
            .map_err(OpsError::cluster("listing SeiNodes"))?;
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
        if nodes.is_empty() {
            return Err(OpsError::BadInput(format!(
                "no SeiNode in namespace {namespace} matches -l {selector}"
            )));
        }
        Ok(nodes)
    }
}
