//! Operator actions (issue 6): the pure parts — input validation, key material and previews.
//! Nothing here talks to a cluster; the use cases that apply an action are `ops` (the read-only
//! refusal and the permission checks are its preamble, `ops::action`).
//!
//! The modules: `image_ref` (the OCI reference grammar; a warning when not pinned by digest),
//! `address` (HOST:PORT external addresses), `node_key` (ed25519 CometBFT `node_key.json`, NodeID,
//! peer string; the private key redacted in `Debug`), `event` (`ActionKind`: an action's journal
//! name and Event reason as data, declared by each action's ops module; `ActionName`, the journal
//! line's name; the `Console*` Event builder naming the operator), `waves` (canary and batches of a
//! rollout, the per-node wave gate, already-rolled nodes), `permissions` (every Kubernetes call of
//! an action as permission checks: its own calls, persisting the plan, per executor mode the
//! embedded executor's Lease, status, Event and per-task calls, and per `ports::SidecarReach` the
//! sidecar's own: `pods/proxy` through the pod proxy, `create pods/portforward` and the proxy's
//! `seinodetasks` review through a port-forward), `render_fix` (re-exports `render::fix`: the fix
//! naming a missing platform-config key and where to set it), `statefulset_diff` (the StatefulSet
//! the node would get, server-side dry-run applied over the live one through `ClusterApi`, and the
//! changed fields; text and JSON), `preview` (image pin and address previews from the planner:
//! plan, config.toml patch, the address-propagation note; text and JSON).
pub mod address;
pub mod event;
pub mod image_ref;
pub mod node_key;

pub mod permissions;
pub mod preview;
pub mod render_fix;
pub mod statefulset_diff;
pub mod tag_family;
pub mod waves;
