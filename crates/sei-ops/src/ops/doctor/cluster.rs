//! The doctor's checks of one cluster as a whole: who executes the Active plans (the
//! controller's Lease, embedded executors' node Leases) and the permissions the fixes need.
use jiff::Timestamp;

use super::{
    ClusterSnapshot, Evidence, ExecutorLease, Finding, FindingClass, Fix, ObjectRef, Severity,
    scope_args,
};
use crate::api::{SeiNode, TaskPlan};
use crate::executor::lease::{CONTROLLER_LEASE_NAME, ControllerLiveness, node_lease_name};

pub(super) fn check(cluster: &ClusterSnapshot<'_>, now: Timestamp, out: &mut Vec<Finding>) {
    controller(cluster, now, out);
    for lease in &cluster.executor_leases {
        orphaned_lease(cluster, lease, now, out);
    }
    permissions(cluster, out);
}

fn active_plan(node: &SeiNode) -> Option<&TaskPlan> {
    node.status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .filter(|p| p.is_active())
}

/// Whether the Lease is held now: a holder, renewed within its duration, not known gone.
fn is_live(lease: &ExecutorLease, now: Timestamp) -> bool {
    lease.is_live(now)
}

fn lease_of<'c>(cluster: &'c ClusterSnapshot<'_>, node: &SeiNode) -> Option<&'c ExecutorLease> {
    cluster
        .executor_leases
        .iter()
        .find(|l| l.namespace == node.namespace() && l.node == node.name())
}

/// Plans are Active, no controller holds its Lease and no live console drives them.
fn controller(cluster: &ClusterSnapshot<'_>, now: Timestamp, out: &mut Vec<Finding>) {
    let Some(ControllerLiveness::NotLive { reason }) = &cluster.controller else {
        return;
    };
    let stranded: Vec<(&SeiNode, &TaskPlan)> = cluster
        .nodes
        .iter()
        .filter_map(|s| active_plan(s.node).map(|p| (s.node, p)))
        .filter(|(node, _)| !lease_of(cluster, node).is_some_and(|l| is_live(l, now)))
        .collect();
    let Some((first, _)) = stranded.first() else {
        return;
    };
    let mut evidence = vec![
        Evidence::new(
            format!(
                "Lease {}/{CONTROLLER_LEASE_NAME}",
                cluster.controller_namespace
            ),
            reason.clone(),
        )
        .at(Some(now)),
    ];
    for (node, plan) in &stranded {
        evidence.push(Evidence::new(
            format!("SeiNode {}/{} status.plan", node.namespace(), node.name()),
            format!(
                "plan {} Active, {}/{} tasks done, no executor's Lease held",
                plan.id,
                plan.completed_count(),
                plan.tasks.len()
            ),
        ));
    }
    let names: Vec<&str> = stranded.iter().map(|(n, _)| n.name()).collect();
    out.push(Finding {
        severity: Severity::Critical,
        class: FindingClass::ControllerAbsent,
        object: ObjectRef {
            context: cluster.context.clone(),
            namespace: cluster.controller_namespace.clone(),
            kind: "Lease",
            name: CONTROLLER_LEASE_NAME.to_owned(),
            node: None,
        },
        summary: format!(
            "no live controller, and {} Active plan(s) orphaned (nobody runs them): {}",
            stranded.len(),
            names.join(", ")
        ),
        evidence,
        fix: Fix::says(format!(
            "start sei-k8s-controller in {} (it takes its Lease and resumes the plans), or drive \
             each plan from here with the embedded executor",
            cluster.controller_namespace
        ))
        .command(format!(
            "sei-console exec {}{} --executor embedded",
            first.name(),
            scope_args(&cluster.context, first.namespace())
        )),
    });
}

/// A node Lease whose holder is gone or stopped renewing: a console that died.
fn orphaned_lease(
    cluster: &ClusterSnapshot<'_>,
    lease: &ExecutorLease,
    now: Timestamp,
    out: &mut Vec<Finding>,
) {
    if lease.holder.is_empty() || is_live(lease, now) {
        return;
    }
    let node = cluster
        .nodes
        .iter()
        .map(|s| s.node)
        .find(|n| n.namespace() == lease.namespace && n.name() == lease.node);
    let plan = node.and_then(active_plan);
    let controller_live = matches!(cluster.controller, Some(ControllerLiveness::Live { .. }));
    let lease_name = node_lease_name(&lease.node);
    let scope = scope_args(&cluster.context, &lease.namespace);
    let why = if lease.holder_gone {
        "its process on this machine is gone".to_owned()
    } else {
        format!(
            "not renewed for {}s (it lasts {}s)",
            lease.renewed.map_or(0, |r| now.duration_since(r).as_secs()),
            lease.duration_seconds
        )
    };
    let mut evidence = vec![
        Evidence::new(
            format!("Lease {}/{lease_name}", lease.namespace),
            format!("held by {}, {why}", lease.holder),
        )
        .at(lease.renewed),
    ];
    let (severity, summary, fix) = match plan {
        Some(plan) => {
            evidence.push(Evidence::new(
                "status.plan",
                format!(
                    "plan {} Active, {}/{} tasks done",
                    plan.id,
                    plan.completed_count(),
                    plan.tasks.len()
                ),
            ));
            let (severity, who) = if controller_live {
                (Severity::Info, "the live controller runs the plan")
            } else {
                (
                    Severity::Warning,
                    "its Active plan is orphaned: nobody runs it",
                )
            };
            (
                severity,
                format!(
                    "executor Lease left by a console that died ({}); {who}",
                    lease.holder
                ),
                Fix::says(
                    "re-run: exec takes the expired Lease and resumes the Active plan where it \
                     stopped",
                )
                .command(format!("sei-console exec {}{scope}", lease.node)),
            )
        }
        None => (
            Severity::Info,
            format!(
                "executor Lease left by a console that died ({}); no plan is Active",
                lease.holder
            ),
            Fix::says("nothing runs under it; delete it to tidy up")
                .command(format!("kubectl{scope} delete lease {lease_name}")),
        ),
    };
    out.push(Finding {
        severity,
        class: FindingClass::ExecutorLeaseOrphaned,
        object: ObjectRef {
            context: cluster.context.clone(),
            namespace: lease.namespace.clone(),
            kind: "Lease",
            name: lease_name.clone(),
            node: Some(lease.node.clone()),
        },
        summary,
        evidence,
        fix,
    });
}

/// Permissions the operator lacks for the fixes of a namespace.
fn permissions(cluster: &ClusterSnapshot<'_>, out: &mut Vec<Finding>) {
    for gap in cluster.denials.iter().filter(|g| !g.denials.is_empty()) {
        let scope = scope_args(&cluster.context, "");
        let first = &gap.denials[0].check;
        let resource = match first.subresource {
            Some(sub) => format!("{}/{sub}", qualified(first.resource, first.group)),
            None => qualified(first.resource, first.group),
        };
        let namespace = if first.namespace.is_empty() {
            String::new()
        } else {
            format!(" -n {}", first.namespace)
        };
        out.push(Finding {
            severity: Severity::Warning,
            class: FindingClass::PermissionMissing,
            object: ObjectRef {
                context: cluster.context.clone(),
                namespace: gap.namespace.clone(),
                kind: "Namespace",
                name: gap.namespace.clone(),
                node: None,
            },
            summary: format!(
                "you cannot run {} here: {} permission(s) missing",
                gap.action,
                gap.denials.len()
            ),
            evidence: gap
                .denials
                .iter()
                .map(|d| Evidence::new("access review", d.to_string()))
                .collect(),
            fix: Fix::says(format!(
                "ask for a Role in {} granting what is listed (the same checks {}'s preview \
                 makes)",
                gap.namespace, gap.action
            ))
            .command(format!(
                "kubectl{scope} auth can-i {} {resource}{namespace}",
                first.verb
            )),
        });
    }
}

fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    }
}
