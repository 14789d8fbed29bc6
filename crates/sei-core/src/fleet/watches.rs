//! The console's watches in one table: what each follows, how it is selected, and whether it
//! covers the fleet or follows one node; and what a watch sends besides its store deltas (its
//! health, the API server's, the controller's platform config). The console's adapter starts
//! them (`kube::watch`, for `app::effects`); `get` and `describe` list the same selections once
//! (`cli::fetch`), so the two cannot drift apart. Plain data: the kube-rs forms of a
//! [`Selection`] are the adapter's (`kube::watch::KubeSelection`).
//!
//! Per scope: the SeiNodes; Events with `involvedObject.kind=SeiNode`; Events with
//! `involvedObject.kind=Pod,type=Warning` (the store keeps those of a SeiNode's pod `<node>-0`);
//! the pods labelled `sei.io/node`, slimmed to what judges their Warnings outlived
//! (`fleet::pod_warnings`); and, without a platform config file, the controller's ConfigMap
//! `sei-controller-config`, whose `images.sidecar` re-judges every row's sidecar drift. Per open
//! node: its StatefulSet, its pods by `sei.io/node`, the Events of the pod `<node>-0` and those of
//! the StatefulSet `<node>` (two event watches, because a field selector matches one kind; each
//! watch's relist replaces only its own store).
use jiff::Timestamp;

use super::FleetDelta;

/// Which watch a status message is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WatchKind {
    Nodes,
    NodeEvents,
    PodWarnings,
    NodePods,
    StatefulSet,
    Pods,
    DetailEvents,
    StatefulSetEvents,
}

/// What a watch covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchScope {
    /// The console's namespace (or all of them): started with the scope.
    Fleet,
    /// One node's objects in its namespace: started when its node screen opens.
    Node,
}

/// How a watch narrows its resource; `{node}` in a template stands for the node's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    Everything,
    Fields(&'static str),
    /// Objects whose label of this key is the node's name.
    NodeLabel(&'static str),
    /// Objects matching this label selector.
    Labels(&'static str),
}

/// One row of [`WATCHES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchSpec {
    pub kind: WatchKind,
    /// How the screen, the logs and `describe` name the watched list.
    pub resource: &'static str,
    pub scope: WatchScope,
    pub selector: Selector,
    /// For a fleet watch: the field selector that narrows it to one node (`describe`).
    pub one_node: Option<&'static str>,
}

/// Every watch of the console, in [`WatchKind`] order. Events need one watch per involved kind
/// because a field selector matches one kind, and each watch's relist replaces only its own store.
pub const WATCHES: [WatchSpec; 8] = [
    WatchSpec {
        kind: WatchKind::Nodes,
        resource: "seinodes",
        scope: WatchScope::Fleet,
        selector: Selector::Everything,
        one_node: Some("metadata.name={node}"),
    },
    WatchSpec {
        kind: WatchKind::NodeEvents,
        resource: "events (SeiNode)",
        scope: WatchScope::Fleet,
        selector: Selector::Fields("involvedObject.kind=SeiNode"),
        one_node: Some("involvedObject.name={node}"),
    },
    WatchSpec {
        kind: WatchKind::PodWarnings,
        resource: "events (Pod Warning)",
        scope: WatchScope::Fleet,
        // The fleet's WARNING column and verdict read the pods' Warnings (FailedScheduling, …);
        // the store keeps those of a SeiNode's pod `<node>-0` only.
        selector: Selector::Fields("involvedObject.kind=Pod,type=Warning"),
        one_node: Some("involvedObject.name={node}-0"),
    },
    WatchSpec {
        kind: WatchKind::NodePods,
        resource: "pods (SeiNodes')",
        scope: WatchScope::Fleet,
        // Every pod the controller labels with its node; slimmed in the store to what judges a
        // pod Warning outlived (scheduled since, Ready since, another pod of the name).
        selector: Selector::Labels(crate::render::NODE_LABEL),
        one_node: Some("metadata.name={node}-0"),
    },
    WatchSpec {
        kind: WatchKind::StatefulSet,
        resource: "statefulsets",
        scope: WatchScope::Node,
        selector: Selector::Fields("metadata.name={node}"),
        one_node: None,
    },
    WatchSpec {
        kind: WatchKind::Pods,
        resource: "pods",
        scope: WatchScope::Node,
        // The label the controller puts on every pod of a node (`SelectorLabels`).
        selector: Selector::NodeLabel(crate::render::NODE_LABEL),
        one_node: None,
    },
    WatchSpec {
        kind: WatchKind::DetailEvents,
        resource: "events (Pod)",
        scope: WatchScope::Node,
        // A node is a StatefulSet of one: its single pod is `<node>-0`.
        selector: Selector::Fields("involvedObject.kind=Pod,involvedObject.name={node}-0"),
        one_node: None,
    },
    WatchSpec {
        kind: WatchKind::StatefulSetEvents,
        resource: "events (StatefulSet)",
        scope: WatchScope::Node,
        // The StatefulSet is named like the node.
        selector: Selector::Fields("involvedObject.kind=StatefulSet,involvedObject.name={node}"),
        one_node: None,
    },
];

impl WatchKind {
    /// This watch's row of [`WATCHES`].
    pub fn spec(self) -> &'static WatchSpec {
        &WATCHES[self as usize]
    }

    pub fn resource(self) -> &'static str {
        self.spec().resource
    }

    /// Watches that follow the selected node rather than the whole scope.
    pub const DETAIL: [WatchKind; 4] = [
        WatchKind::StatefulSet,
        WatchKind::Pods,
        WatchKind::DetailEvents,
        WatchKind::StatefulSetEvents,
    ];

    pub fn is_detail(self) -> bool {
        self.spec().scope == WatchScope::Node
    }
}

/// A resolved selector: what goes into a watch or a list request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub fields: Option<String>,
    pub labels: Option<String>,
}

impl WatchSpec {
    /// The selection of a fleet watch over its whole scope.
    pub fn fleet_selection(&self) -> Selection {
        self.resolve(None)
    }

    /// The selection of `node`'s objects: a node watch, or a fleet watch narrowed by `one_node`.
    pub fn node_selection(&self, node: &str) -> Selection {
        self.resolve(Some(node))
    }

    fn resolve(&self, node: Option<&str>) -> Selection {
        let fill = |template: &str| template.replace("{node}", node.unwrap_or_default());
        let mut selection = match self.selector {
            Selector::Everything => Selection::default(),
            Selector::Fields(template) => Selection {
                fields: Some(fill(template)),
                labels: None,
            },
            Selector::NodeLabel(key) => Selection {
                fields: None,
                labels: Some(format!("{key}={}", node.unwrap_or_default())),
            },
            Selector::Labels(selector) => Selection {
                fields: None,
                labels: Some(selector.to_owned()),
            },
        };
        if let (Some(_), Some(narrow)) = (node, self.one_node) {
            let narrow = fill(narrow);
            selection.fields = Some(match selection.fields {
                Some(fields) => format!("{fields},{narrow}"),
                None => narrow,
            });
        }
        selection
    }
}

/// What a watcher reports besides deltas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchReport {
    Live,
    Failed { error: String, forbidden: bool },
}

/// What one probe of the API server found (`kube::liveness`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerReport {
    /// The server answered at `at`: everything the watches delivered until then is current.
    Answered { at: Timestamp },
    /// The server did not answer (in time, or at all): why, in one line.
    Silent { error: String },
}

/// What a watcher sends, tagged with the epoch of the watch set it belongs to (the receiver
/// drops events of a replaced set).
#[derive(Debug, Clone)]
pub enum WatchEvent {
    /// A store delta.
    Delta { epoch: u64, delta: FleetDelta },
    /// The watch's health: live after each completed (re)list, failed before each retry.
    Health {
        epoch: u64,
        kind: WatchKind,
        report: WatchReport,
    },
    /// The platform's default sidecar image as the controller's ConfigMap names it (`None`:
    /// it names none); see `kube::platform_config::watch_default_sidecar_image`.
    DefaultSidecarImage { epoch: u64, image: Option<String> },
    /// The controller's platform config as its ConfigMap holds it, each time it is listed or
    /// changed: render failures are judged against it.
    PlatformConfig {
        epoch: u64,
        config: Box<crate::platform::PlatformConfig>,
    },
    /// The cluster's SeiNode CRD compared with the embedded one (the adapter's `crd_watch`).
    Crd {
        epoch: u64,
        view: crate::api::crd_compare::CrdView,
    },
    /// Whether the API server answers at all (`kube::liveness::probe_server`).
    Server { epoch: u64, report: ServerReport },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_kind_order_and_detail_means_node_scope() {
        for (index, spec) in WATCHES.iter().enumerate() {
            assert_eq!(spec.kind as usize, index, "{spec:?}");
            assert_eq!(
                spec.kind.is_detail(),
                WatchKind::DETAIL.contains(&spec.kind)
            );
            // Only a fleet watch can be narrowed, and only a node watch names the node.
            assert_eq!(spec.one_node.is_some(), spec.scope == WatchScope::Fleet);
            if spec.scope == WatchScope::Fleet {
                assert!(!format!("{:?}", spec.selector).contains("{node}"));
            }
        }
    }

    #[test]
    fn selections_are_the_console_s_selectors() {
        // (kind, node, field selector, label selector) as the console sent them before the table.
        let expected = [
            (WatchKind::Nodes, None, None, None),
            (WatchKind::Nodes, Some("a"), Some("metadata.name=a"), None),
            (
                WatchKind::NodeEvents,
                None,
                Some("involvedObject.kind=SeiNode"),
                None,
            ),
            (
                WatchKind::NodeEvents,
                Some("a"),
                Some("involvedObject.kind=SeiNode,involvedObject.name=a"),
                None,
            ),
            (
                WatchKind::PodWarnings,
                None,
                Some("involvedObject.kind=Pod,type=Warning"),
                None,
            ),
            (
                WatchKind::PodWarnings,
                Some("a"),
                Some("involvedObject.kind=Pod,type=Warning,involvedObject.name=a-0"),
                None,
            ),
            (WatchKind::NodePods, None, None, Some("sei.io/node")),
            (
                WatchKind::NodePods,
                Some("a"),
                Some("metadata.name=a-0"),
                Some("sei.io/node"),
            ),
            (
                WatchKind::StatefulSet,
                Some("a"),
                Some("metadata.name=a"),
                None,
            ),
            (WatchKind::Pods, Some("a"), None, Some("sei.io/node=a")),
            (
                WatchKind::DetailEvents,
                Some("a"),
                Some("involvedObject.kind=Pod,involvedObject.name=a-0"),
                None,
            ),
            (
                WatchKind::StatefulSetEvents,
                Some("a"),
                Some("involvedObject.kind=StatefulSet,involvedObject.name=a"),
                None,
            ),
        ];
        for (kind, node, fields, labels) in expected {
            let spec = kind.spec();
            let selection = match node {
                Some(node) => spec.node_selection(node),
                None => spec.fleet_selection(),
            };
            assert_eq!(
                selection,
                Selection {
                    fields: fields.map(String::from),
                    labels: labels.map(String::from),
                },
                "{kind:?} {node:?}"
            );
        }
    }
}
