//! Who runs a scope's Active plans, judged from the Leases as read (`kube::runners`): the
//! embedded executors' node Leases, each holder of this machine judged gone when its process is
//! gone or a zombie (`ports::HolderProbe`), and the controller's Lease. The orphan judgement
//! itself is `fleet::runners`.
use std::collections::BTreeSet;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;

use crate::executor::lease::{lease_is_live, node_lease_name};
use crate::fleet::runners::{ControllerSeen, ExecutorLease, Runners};
use crate::ports::{HolderProbe, LeaseReadError, LocalProcesses};

/// This machine's consoles (`sei-console-<host>-<pid>`), judged gone when their process is gone
/// or a zombie.
pub fn local_holders() -> LocalProcesses {
    LocalProcesses {
        prefix: crate::executor::driver::local_holder_prefix(),
    }
}

/// The embedded executors' node Leases among `leases`, with whether their holder is a console
/// of this machine that is gone.
pub fn executor_leases(leases: &[Lease], holders: &dyn HolderProbe) -> Vec<ExecutorLease> {
    leases
        .iter()
        .filter_map(|lease| {
            let name = lease.metadata.name.as_deref()?;
            let node = name.strip_prefix("sei-console-exec-")?;
            debug_assert_eq!(node_lease_name(node), name);
            let spec = lease.spec.as_ref();
            let holder = spec
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default();
            Some(ExecutorLease {
                namespace: lease.metadata.namespace.clone().unwrap_or_default(),
                node: node.to_owned(),
                holder_gone: !holder.is_empty() && holders.is_gone(&holder),
                holder,
                renewed: spec
                    .and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref()))
                    .map(|t| t.0),
                duration_seconds: spec
                    .and_then(|s| s.lease_duration_seconds)
                    .map_or(15, i64::from),
            })
        })
        .collect()
}

/// What the controller's Lease (`Ok(None)`: absent) in `namespace` says at `now`.
pub fn controller_seen(
    lease: Result<Option<&Lease>, &LeaseReadError>,
    namespace: &str,
    now: Timestamp,
) -> ControllerSeen {
    use crate::executor::lease::CONTROLLER_LEASE_NAME;
    match lease {
        Err(reason) => ControllerSeen::Unknown {
            reason: reason.to_string(),
        },
        Ok(None) => ControllerSeen::NotLive {
            reason: format!("no Lease {CONTROLLER_LEASE_NAME} in namespace {namespace}"),
        },
        Ok(Some(lease)) => match lease_is_live(lease, now) {
            Some(holder) => ControllerSeen::Live { holder },
            None => ControllerSeen::NotLive {
                reason: format!(
                    "Lease {namespace}/{CONTROLLER_LEASE_NAME} is not held or has expired"
                ),
            },
        },
    }
}

/// The read judged: `scope` the scope's Leases (`Err`: not listed), `controller` the
/// controller's, `checked` the Active plans known before the read was asked for.
pub fn judge(
    scope: Result<&[Lease], &LeaseReadError>,
    controller: Result<Option<&Lease>, &LeaseReadError>,
    controller_namespace: &str,
    checked: BTreeSet<(String, String, String)>,
    holders: &dyn HolderProbe,
    now: Timestamp,
) -> Runners {
    Runners {
        read_at: now,
        controller_namespace: controller_namespace.to_owned(),
        controller: controller_seen(controller, controller_namespace, now),
        leases: scope.ok().map(|leases| executor_leases(leases, holders)),
        checked,
    }
}
