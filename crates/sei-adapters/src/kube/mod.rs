//! The Kubernetes API adapter: client, cluster port, watches, access reviews, read-only mode.
//! The nodes' sidecars are reached through `crate::sidecar`.
//!
//! The modules: `client` (a client from the kubeconfig and context), `watch` (kube-runtime watchers
//! turned into `WatchEvent`s on the caller's bounded channel: store deltas, health reports, the
//! ConfigMap's sidecar image; a streamed initial list, paged where the server lacks streaming
//! lists; a relist after every failure), `watches` (every watch of the console in one table: kind,
//! resource, fleet or node scope, selector; `get`/`describe` resolve their selectors from it too),
//! `lenient` (items decoded one by one: one that does not decode is a `Delta::Skipped` with its
//! name and reason), `liveness` (`/version` every 2 s with a 3 s deadline: STALE with the data's
//! age), `timeout` (every client waits at most `REQUEST_TIMEOUT`, 20 s, for an answer's headers),
//! `errors` (the one error line of a kube-rs error: `reason: message`, elided, no Debug), `cluster`
//! (`KubeCluster`: `ClusterApi` over kube-rs; server-side apply as `seinode-controller` with force,
//! status merge patches with a resourceVersion precondition, Events, Leases), `read_only`
//! (`MutationGuard`, and `ReadOnlyLayer`, a tower layer refusing every mutating request; reads,
//! access reviews and `dryRun=All` pass), `access` (`KubeAccess`: SelfSubjectAccessReview),
//! `identity` (`OperatorIdentity` from the kubeconfig), `platform_config` (the controller's
//! ConfigMap `sei-controller-config`, key `config.yaml`), `logs` and `log_lines` (`pods/log`
//! streamed, lines capped at `limits::LOG_LINE_BYTES`).

pub mod access;
pub mod client;
pub mod cluster;
pub mod crd_watch;
pub mod errors;
pub mod identity;
pub mod lenient;
pub mod liveness;
mod log_lines;
pub mod logs;
pub mod platform_config;
pub mod read_only;
pub mod runners;
pub mod timeout;
pub mod watch;
