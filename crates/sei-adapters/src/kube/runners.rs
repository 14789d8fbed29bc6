//! Reads the Leases that say who runs a scope's Active plans (`fleet::runners`, judged by
//! `ops::runners`): every Lease of the scope (the embedded executors' `sei-console-exec-<node>`
//! among them) and the controller's leader-election Lease. Shared by `get`/`describe`, `doctor`
//! and the console (every few seconds, off the render path); each read bounded in time.
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, ListParams};

use crate::ports::{ClusterApi, LeaseReadError};

/// Bound on each read (an API server that hangs must not hang a command or the console's
/// next read).
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The Leases as read: the scope's (`Err`: why they could not be listed) and the controller's
/// (`Ok(None)`: there is none).
#[derive(Debug, Clone)]
pub struct LeasesRead {
    pub scope: Result<Vec<Lease>, LeaseReadError>,
    pub controller: Result<Option<Lease>, LeaseReadError>,
}

/// Lists the Leases of `namespace` (every namespace when `None`) and gets the controller's
/// `name` in `controller_namespace`, side by side.
pub async fn read_leases(
    client: &kube::Client,
    namespace: Option<&str>,
    controller_namespace: &str,
    controller_lease: &str,
) -> LeasesRead {
    let api: Api<Lease> = match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    };
    let cluster = super::cluster::KubeCluster::new(client.clone());
    let timed_out = || LeaseReadError(format!("no answer in {}s", READ_TIMEOUT.as_secs()));
    let params = ListParams::default();
    let (scope, controller) = tokio::join!(
        tokio::time::timeout(READ_TIMEOUT, api.list(&params)),
        tokio::time::timeout(
            READ_TIMEOUT,
            cluster.get_lease(controller_namespace, controller_lease)
        ),
    );
    LeasesRead {
        scope: match scope {
            Ok(Ok(list)) => Ok(list.items),
            Ok(Err(error)) => Err(LeaseReadError(super::errors::describe_at(&error, None))),
            Err(_) => Err(timed_out()),
        },
        controller: match controller {
            Ok(read) => read.map_err(|e| LeaseReadError(e.to_string())),
            Err(_) => Err(timed_out()),
        },
    }
}
