//! Operator actions (issue 6): the pure parts — input validation, key material and previews.
//! Nothing here talks to a cluster; the commands that apply an action live in `cli/` and go
//! through the read-only guard and permission checks in `kube/`.
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
