//! The doctor's checks of version skew (issue 36): the cluster's SeiNode CRD against the one
//! sei-console embeds, and each node's fields outside that schema. The same facts the action
//! guard (`ops::skew`) refuses on, so the operator sees the skew before trying.
use super::{ClusterSnapshot, Evidence, Finding, FindingClass, Fix, ObjectRef, Severity};
use crate::api::SeiNode;
use crate::api::crd_compare::{CrdView, Skew};
use crate::api::schema::node_unknown_field_paths;
use crate::api::upstream;

const CRD_NAME: &str = "seinodes.sei.io";

/// A node carrying fields the port does not know: actions on it are refused.
pub(super) fn node(cluster: &ClusterSnapshot<'_>, node: &SeiNode, out: &mut Vec<Finding>) {
    let Ok(paths) = node_unknown_field_paths(node) else {
        return;
    };
    if paths.is_empty() {
        return;
    }
    let source = format!("SeiNode {}/{}", node.namespace(), node.name());
    out.push(Finding {
        severity: Severity::Warning,
        class: FindingClass::UnknownFields,
        object: ObjectRef {
            context: cluster.context.clone(),
            namespace: node.namespace().to_owned(),
            kind: "SeiNode",
            name: node.name().to_owned(),
            node: Some(node.name().to_owned()),
        },
        summary: format!(
            "{} carries fields sei-console does not know ({}): its actions are refused with the \
             embedded executor",
            node.name(),
            paths.join(", ")
        ),
        evidence: paths
            .iter()
            .map(|path| {
                Evidence::new(
                    format!("{source} {path}"),
                    format!(
                        "not in the schema sei-console ports ({})",
                        upstream::ported_line()
                    ),
                )
            })
            .collect(),
        fix: Fix::says(
            "let the controller, which knows these fields, carry out actions on this node \
             (start it, or use --executor controller); or upgrade sei-console",
        ),
    });
}

/// The cluster's CRD differs from the embedded one, or could not be read.
pub(super) fn crd(cluster: &ClusterSnapshot<'_>, out: &mut Vec<Finding>) {
    let Some(view) = cluster.crd else {
        return;
    };
    let object = ObjectRef {
        context: cluster.context.clone(),
        namespace: String::new(),
        kind: "CustomResourceDefinition",
        name: CRD_NAME.to_owned(),
        node: None,
    };
    let (severity, summary, mut evidence, fix) = match view {
        CrdView::Compared(comparison) => {
            let skew = comparison.skew();
            if skew == Skew::Equal {
                return;
            }
            let blocks = !comparison.planning().is_empty()
                || comparison
                    .older()
                    .any(|d| matches!(d.change, crate::api::crd_compare::Change::Removed));
            let evidence = comparison
                .differences
                .iter()
                .map(|d| Evidence::new(format!("CRD {CRD_NAME} {}", d.path), d.to_string()))
                .collect();
            let fix = match skew {
                Skew::Older => Fix::says(format!(
                    "install the SeiNode CRD of sei-k8s-controller {} (the one sei-console \
                     ports) or newer",
                    upstream::CONTROLLER_COMMIT
                )),
                _ => Fix::says(
                    "upgrade sei-console to one that ports this CRD; until then let the \
                     controller carry out actions (--executor controller)",
                ),
            };
            (
                if blocks {
                    Severity::Warning
                } else {
                    Severity::Info
                },
                format!(
                    "the cluster's SeiNode CRD is {} than the one sei-console ports ({})",
                    match skew {
                        Skew::Older => "older",
                        Skew::Newer => "newer",
                        _ => "both newer and older",
                    },
                    comparison.summary()
                ),
                evidence,
                fix,
            )
        }
        CrdView::Forbidden(why) => (
            Severity::Info,
            "the cluster's SeiNode CRD cannot be read: it is not compared with the one \
             sei-console ports"
                .to_owned(),
            vec![Evidence::new(format!("CRD {CRD_NAME}"), why.clone())],
            Fix::says(format!(
                "grant get on customresourcedefinitions ({CRD_NAME}); meanwhile each node's \
                 fields are checked before an action"
            )),
        ),
        CrdView::Unread(why) => (
            Severity::Info,
            "the cluster's SeiNode CRD was not compared with the one sei-console ports".to_owned(),
            vec![Evidence::new(format!("CRD {CRD_NAME}"), why.clone())],
            Fix::says("check that the SeiNode CRD is installed"),
        ),
    };
    evidence.extend(
        view.consequences()
            .into_iter()
            .map(|line| Evidence::new("what it means for actions", line)),
    );
    out.push(Finding {
        severity,
        class: FindingClass::CrdSkew,
        object,
        summary,
        evidence,
        fix,
    });
}
