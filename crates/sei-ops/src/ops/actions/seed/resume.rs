//! Resuming a seed bring-up a stopped console left. The same command run again resumes
//! (`resume_of`): the seed a console created with this very request (the node's
//! `sei.io/console-actions` record names a `seed-create`, and its chain, image, address and
//! node-key Secret are the request's) is not created again: its key is read back from its
//! Secret, its Active init plan followed to its end (none persisted once it ended), and the
//! checks run. A generated key's Secret left without its seed (stopped between the two
//! creations) is used rather than created again (`console_secret_key`).
use super::{SeedPrepared, SeedRequest, read_node_key};
use crate::actions::node_key::NodeKey;
use crate::api::SeiNode;
use crate::executor::driver::Persisted;
use crate::fleet::console_actions;
use crate::ops::{Ops, OpsError};
use crate::ports::{ClusterObject, ObjectKind};

/// Why `node` is the seed `request` asks for, created by a console that stopped before its
/// end: its record names a `seed-create`, and its chain, image, external address and node-key
/// Secret are the request's. `None`: another node, which the name is taken by.
pub(super) fn resume_of(node: &SeiNode, request: &SeedRequest) -> Option<String> {
    let console_actions::Recorded::Actions { actions, .. } =
        console_actions::read(node.metadata.annotations.as_ref())?
    else {
        return None;
    };
    let created = actions
        .iter()
        .find(|a| a.action == crate::ops::actions::seed::KIND.name())?;
    let spec = &node.spec;
    let secret = spec
        .seed
        .as_ref()
        .and_then(|s| s.node_key.secret.as_ref())
        .map(|s| s.secret_name.as_str());
    let same = spec.chain_id == request.chain_id
        && spec.image == request.image.to_string()
        && spec.external_address.as_deref()
            == request
                .external_address
                .as_ref()
                .map(ToString::to_string)
                .as_deref()
        && secret == Some(request.secret_name.as_str());
    same.then(|| {
        format!(
            "seed {}/{} was created by {} at {} with this request; its init plan and checks run \
             to their end",
            request.namespace, request.name, created.by, created.at
        )
    })
}

/// The key in `secret_name` when a console made it (`app.kubernetes.io/managed-by:
/// sei-console`): a generated key a stopped run left. `None` when there is no such Secret; a
/// Secret of that name someone else made is refused (not overwritten, not used).
pub(super) async fn console_secret_key(
    ops: &Ops<'_>,
    secret_name: &str,
) -> Result<Option<NodeKey>, OpsError> {
    let namespace = ops.namespace();
    let secret = match ops
        .ports
        .cluster
        .get(ObjectKind::Secret, namespace, secret_name)
        .await
        .map_err(OpsError::cluster(format!("reading Secret {secret_name}")))?
    {
        Some(ClusterObject::Secret(secret)) => secret,
        _ => return Ok(None),
    };
    let ours = secret
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("app.kubernetes.io/managed-by"))
        .is_some_and(|v| v == "sei-console");
    if !ours {
        return Err(OpsError::BadInput(format!(
            "Secret {namespace}/{secret_name} exists and was not made by sei-console; name it \
             with --node-key-secret to use its key"
        )));
    }
    read_node_key(ops, secret_name).await.map(Some)
}

/// The seed's init plan ended: Complete in its status (not cleared yet), or cleared with the
/// seed Running.
async fn init_plan_ended(ops: &Ops<'_>, name: &str) -> Result<bool, OpsError> {
    let node = ops.read_node(name).await?;
    let Some(status) = node.status.as_ref() else {
        return Ok(false);
    };
    Ok(match &status.plan {
        Some(plan) => plan.phase == crate::api::PlanPhase::Complete,
        None => status.phase == Some(crate::api::Phase::Running),
    })
}

/// The init plan to follow: persisted (or found Active) under the previewed ID; none when a
/// resumed seed's init plan already ended (the checks are what is left; the backfill update
/// plan is the controller's).
pub(super) async fn plan_to_follow(
    ops: &Ops<'_>,
    prepared: &SeedPrepared,
    name: &str,
) -> Result<Option<String>, OpsError> {
    if prepared.resume.is_some() && init_plan_ended(ops, name).await? {
        return Ok(None);
    }
    let persisted = ops
        .driver()
        .persist_as(
            ops.namespace(),
            name,
            &ops.settings.platform.images.sidecar,
            Some(prepared.plan_id),
        )
        .await
        .map_err(|e| OpsError::Step(format!("{}/{name}: {e}", ops.namespace())))?;
    match persisted {
        Persisted::Built(plan) | Persisted::Resumed(plan) => Ok(Some(plan.id)),
        Persisted::None(reason) => Err(OpsError::Step(format!("{name}: no init plan: {reason}"))),
    }
}
