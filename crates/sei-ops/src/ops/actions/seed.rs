//! Seed bring-up: a node key generated (or read from an existing Secret), its Secret and the
//! seed SeiNode created, the init plan followed, and the sidecar's NodeID checked against the
//! key. The private key only ever goes into the Secret's data.
//!
//! The order: the key generated or read, a taken name blocked, the Secret and the SeiNode, the init
//! plan, the pod Ready (`pod_ready`: why not, bounded), the sidecar's NodeID checked, then the
//! outside probe through `Ports::prober` against that NodeID. `seed/contract.rs` holds its
//! `Operation`/`Previewed`, the name check `seed_name_problem`, and exit code 3 for a seed that
//! runs but is unreachable from outside.
//!
//! Run again after a crash, the same command resumes (`seed/resume.rs`).
use std::collections::BTreeMap;

use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::actions::permissions::{SeedKey, seed_create_checks};
use crate::api::{SeiNode, TaskPlan};
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ops::follow::FollowEnd;
use crate::ops::seed_probe;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd};
use crate::planner::preview;
use crate::ports::probe::{ProbeOutcome, ProbeTarget};
use crate::ports::{ClusterObject, ObjectKind, SidecarApi, SidecarError, SidecarTarget};
pub use contract::{EXIT_UNREACHABLE, seed_name_problem};

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("seed-create", "ConsoleSeedCreate");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND];

/// How long a Running seed's sidecar may keep answering "node key not there yet".
const NODE_ID_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);
const NODE_ID_POLL: std::time::Duration = std::time::Duration::from_millis(250);
mod contract;
mod objects;
mod resume;
pub use objects::{node_key_secret, seed_node, seed_preview_text};

/// How long a seed's pod may take to become Ready once its init plan completed.
const POD_READY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
/// The outside probe's bound (upstream's default `p2p.handshake-timeout`).
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A seed bring-up as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedInput {
    pub name: String,
    pub chain_id: String,
    pub image: ImageRef,
    pub external_address: Option<ExternalAddress>,
    /// Use this existing Secret's `node_key.json`; without it a key is generated.
    pub node_key_secret: Option<String>,
    pub wait: bool,
    pub dry_run: bool,
}

impl SeedInput {
    pub fn detail(&self) -> String {
        format!("seed for chain {} with image {}", self.chain_id, self.image)
    }
}

/// What a seed is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRequest {
    pub namespace: String,
    pub name: String,
    pub chain_id: String,
    pub image: ImageRef,
    pub external_address: Option<ExternalAddress>,
    /// The Secret holding (or to hold) `node_key.json`.
    pub secret_name: String,
}

/// Everything known before the first change; holds the key (its `Debug` is redacted).
#[derive(Debug)]
pub struct SeedPrepared {
    pub input: SeedInput,
    pub request: SeedRequest,
    pub key: NodeKey,
    pub generated: bool,
    /// The ID the previewed init plan carries; the persisted plan gets the same one.
    pub plan_id: uuid::Uuid,
    /// The init plan the seed will get.
    pub plan: Option<TaskPlan>,
    /// Why the seed cannot be created (the name is taken, its pod's ServiceAccount is
    /// missing): nothing is changed.
    pub blocked: Option<String>,
    /// The seed exists already, created by a console with this request, which stopped before
    /// its end: why it is resumed rather than created.
    pub resume: Option<String>,
    pub permissions: PermissionVerdict,
    pub question: String,
}

impl SeedPrepared {
    pub fn node_id(&self) -> String {
        self.key.node_id()
    }

    /// `NodeID@HOST:PORT`, when the seed has an external address.
    pub fn peer(&self) -> Option<String> {
        self.request
            .external_address
            .as_ref()
            .map(|a| self.key.peer_string(a))
    }

    /// The seed's name is typed to confirm.
    pub fn confirm_names(&self) -> Vec<String> {
        vec![self.request.name.clone()]
    }

    pub fn text(&self) -> String {
        let mut text = seed_preview_text(
            &self.request,
            self.generated,
            &self.node_id(),
            self.plan.as_ref(),
        );
        if let Some(resume) = &self.resume {
            text.push_str(&format!("Resuming: {resume}\n"));
        }
        if let Some(reason) = &self.blocked {
            text.push_str(&format!("✗ cannot run: {reason}\n"));
        }
        text
    }

    /// The `-o json` preview object.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "namespace": self.request.namespace, "node": self.request.name,
            "chainId": self.request.chain_id, "image": self.request.image.to_string(),
            "nodeKeySecret": self.request.secret_name, "generatedKey": self.generated,
            "nodeId": self.node_id(), "peer": self.peer(), "plan": self.plan,
            "blocked": self.blocked, "resume": self.resume,
        })
    }

    pub fn refusal(&self) -> Option<OpsError> {
        if let Some(reason) = &self.blocked {
            return Some(OpsError::Step(format!("{reason}; nothing was changed")));
        }
        self.permissions.refusal()
    }
}

/// How a bring-up ended; `verified` says the sidecar reported the key's NodeID, `running` that
/// the seed's pod is Ready, `probe` what the outside probe of its external address found.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedEnd {
    pub end: RunEnd,
    pub verified: bool,
    pub running: bool,
    pub probe: Option<ProbeOutcome>,
}

impl SeedEnd {
    /// The seed runs with the key's NodeID, but the outside probe of its address failed.
    pub fn unreachable(&self) -> bool {
        self.running && self.verified && !self.end.ok && self.probe.is_some()
    }
}

/// Reads (or generates) the key, refuses a taken name, previews the init plan and checks every
/// call (unless a dry run). Unguarded: [`crate::ops::action::prepare`] refuses in read-only mode first.
pub async fn prepare(ops: &Ops<'_>, input: SeedInput) -> Result<SeedPrepared, OpsError> {
    let name = input.name.clone();
    let namespace = ops.namespace().to_owned();
    let secret_name = input
        .node_key_secret
        .clone()
        .unwrap_or_else(|| format!("{name}-node-key"));
    let request = SeedRequest {
        namespace: namespace.clone(),
        name: name.clone(),
        chain_id: input.chain_id.clone(),
        image: input.image.clone(),
        external_address: input.external_address.clone(),
        secret_name: secret_name.clone(),
    };
    let existing = ops
        .ports
        .cluster
        .get_seinode(&namespace, &name)
        .await
        .map_err(OpsError::cluster(format!(
            "reading SeiNode {namespace}/{name}"
        )))?;
    let resume = existing
        .as_ref()
        .and_then(|node| resume::resume_of(node, &request));
    let blocked = existing
        .filter(|_| resume.is_none())
        .map(|_| format!("SeiNode {namespace}/{name} already exists"));
    // A generated key's Secret a stopped run left (with or without its seed) holds the key.
    let left_secret = match (&input.node_key_secret, &blocked) {
        (None, None) => resume::console_secret_key(ops, &secret_name).await?,
        _ => None,
    };
    let (key, generated) = match (&input.node_key_secret, left_secret) {
        (Some(_), _) => (read_node_key(ops, &secret_name).await?, false),
        (None, Some(key)) => (key, false),
        (None, None) => (
            NodeKey::generate().map_err(|e| OpsError::Step(e.to_string()))?,
            true,
        ),
    };
    // A taken name first; else anything the seed's pod needs that the namespace lacks.
    let blocked = match blocked {
        Some(taken) => Some(taken),
        None if resume.is_some() => None,
        None => crate::ops::pod_needs::missing_for_pod(ops, &seed_node(&request)).await,
    };
    let plan_id = uuid::Uuid::new_v4();
    let init = preview(
        &seed_node(&request),
        None,
        &ops.plan_context().with_plan_id(plan_id),
    )
    .map_err(|e| OpsError::BadInput(e.to_string()))?;
    let plan = init.outcome.ok();
    // The init plan runs once the seed exists (embedded executor, or the controller).
    let tasks: Vec<_> = plan
        .iter()
        .flat_map(|p| p.tasks.iter().map(|t| t.kind.clone()))
        .collect();
    let key_source = if generated {
        SeedKey::Generated
    } else {
        SeedKey::Existing(&request.secret_name)
    };
    let checks = seed_create_checks(&ops.scope(), &namespace, &name, key_source, &tasks);
    let mut permissions = ops.check(checks.into_vec(), !input.dry_run).await;
    // Waiting, the console reads the seed's NodeID from its sidecar whoever executes the plan.
    permissions.sidecar_credential = ops
        .sidecar_credential_refusal(
            crate::ops::actions::seed::KIND,
            &[(name.clone(), tasks.clone())],
            input.wait,
            true,
        )
        .await?;
    Ok(SeedPrepared {
        question: format!("create seed {name}?"),
        input,
        request,
        key,
        generated,
        plan_id,
        plan,
        blocked,
        resume,
        permissions,
    })
}

/// The key in an existing Secret's `node_key.json`; a missing or bad one is the operator's.
async fn read_node_key(ops: &Ops<'_>, secret_name: &str) -> Result<NodeKey, OpsError> {
    let namespace = ops.namespace();
    let bad = OpsError::BadInput;
    let secret = match ops
        .ports
        .cluster
        .get(ObjectKind::Secret, namespace, secret_name)
        .await
        .map_err(OpsError::cluster(format!("reading Secret {secret_name}")))?
    {
        Some(ClusterObject::Secret(secret)) => secret,
        _ => return Err(bad(format!("Secret {namespace}/{secret_name} not found"))),
    };
    let json = secret
        .data
        .as_ref()
        .and_then(|d| d.get(NODE_KEY_FILE))
        .map(|b| String::from_utf8_lossy(&b.0).into_owned())
        .ok_or_else(|| bad(format!("Secret {secret_name} has no {NODE_KEY_FILE}")))?;
    NodeKey::from_node_key_json(&json).map_err(|e| bad(format!("Secret {secret_name}: {e}")))
}

/// Creates the seed (and the Secret of a generated key), follows its init plan, then checks
/// that the sidecar reports the key's NodeID; under the node's Lease (`action::execute`).
async fn bring_up(
    ops: &Ops<'_>,
    prepared: &SeedPrepared,
    report: &dyn Report,
) -> Result<SeedEnd, OpsError> {
    let request = &prepared.request;
    let name = request.name.as_str();
    let nodes = vec![name.to_owned()];
    let kind = crate::ops::actions::seed::KIND;
    let detail = prepared.input.detail();
    let node_id = prepared.node_id();
    let what = format!(
        "seed created with NodeID {node_id} (Secret {})",
        request.secret_name
    );
    // Without waiting, the controller persists the init plan under its own ID.
    let plan = prepared.input.wait.then(|| prepared.plan_id.to_string());
    if prepared.resume.is_none() {
        let record = ops.action_record(kind, None, &what, plan, report);
        let key = prepared.generated.then_some(&prepared.key);
        let created = create_seed(ops, request, key, &record).await?;
        let uid = created.metadata.uid.clone().unwrap_or_default();
        ops.event(kind, name, &uid, &what, report).await;
    }
    let detail_with_id = format!("{detail}, NodeID {node_id}");
    ops.journal(
        kind,
        &nodes,
        &detail_with_id,
        Outcome::Started,
        None,
        report,
    );
    let unverified = |end: RunEnd| SeedEnd {
        end,
        verified: false,
        running: false,
        probe: None,
    };
    if !prepared.input.wait {
        return Ok(unverified(RunEnd::done(
            "seed created; not waiting (--no-wait)",
        )));
    }
    let plan_id = resume::plan_to_follow(ops, prepared, name).await?;
    let failed = |reason: String| {
        ops.journal(
            kind,
            &nodes,
            &detail,
            Outcome::Failed,
            Some(reason.clone()),
            report,
        );
        unverified(RunEnd::failed(name, reason))
    };
    let followed = match &plan_id {
        Some(plan_id) => ops.follow(name, plan_id, report).await,
        None => Ok(FollowEnd::Completed),
    };
    match followed {
        Ok(FollowEnd::Completed) => {}
        Ok(end) => return Ok(failed(format!("{}/{name}: {end}", ops.namespace()))),
        // A render failure (with its fix) or a driver error, already naming the node.
        Err(err) => return Ok(failed(err.to_string())),
    }
    // "Running" only once the pod is Ready: the init plan can complete while the StatefulSet
    // creates no pod (a missing ServiceAccount).
    let pod_deadline = POD_READY_DEADLINE.min(ops.settings.driver.deadline);
    if let Err(not_ready) =
        crate::ops::pod_ready::wait_pod_ready(ops, name, pod_deadline, NODE_ID_POLL).await
    {
        return Ok(failed(not_ready.to_string()));
    }
    let target = SidecarTarget::new(ops.namespace(), name);
    let reported = read_node_id(ops.ports.sidecar, &target)
        .await
        .map_err(|e| {
            OpsError::Step(format!(
                "the seed runs but its sidecar's node ID could not be read: {e}"
            ))
        })?;
    if reported != node_id {
        return Ok(failed(format!(
            "the sidecar reports NodeID {reported}, the key says {node_id}"
        )));
    }
    // The NodeID the sidecar reported equals the key's: that is what the probe checks the seed
    // authenticates as.
    let Some(address) = &request.external_address else {
        ops.journal(
            kind,
            &nodes,
            &detail_with_id,
            Outcome::Succeeded,
            None,
            report,
        );
        return Ok(SeedEnd {
            end: RunEnd::done(format!(
                "seed running; NodeID {node_id} (no external address for a peer string; not \
                 probed)"
            )),
            verified: true,
            running: true,
            probe: None,
        });
    };
    let target = ProbeTarget {
        node_id: Some(node_id.clone()),
        node_id_source: format!(
            "node-key Secret {}, = sidecar /v0/node-id",
            request.secret_name
        ),
        address: address.to_string(),
        chain_id: request.chain_id.clone(),
        no_pod: None,
    };
    report.note(&Note::Info(format!(
        "probing {} from outside, as a peer would dial it",
        target.peer()
    )));
    let outcome = ops.ports.prober.probe(&target, PROBE_TIMEOUT).await;
    for line in seed_probe::check_lines(&outcome) {
        report.note(&Note::Info(line));
    }
    let peer = target.peer();
    if !seed_probe::passed_at_bring_up(&outcome) {
        let reason = format!(
            "seed running, but the outside probe failed: {}",
            seed_probe::outcome_line(&outcome)
        );
        ops.journal(
            kind,
            &nodes,
            &detail_with_id,
            Outcome::Failed,
            Some(reason.clone()),
            report,
        );
        return Ok(SeedEnd {
            end: RunEnd::failed(name, format!("{reason}; peer {peer}")),
            verified: true,
            running: true,
            probe: Some(outcome),
        });
    }
    ops.journal(
        kind,
        &nodes,
        &detail_with_id,
        Outcome::Succeeded,
        None,
        report,
    );
    Ok(SeedEnd {
        end: RunEnd::done(format!(
            "seed running; peer {peer}; reachable from outside ({})",
            seed_probe::origin_text(&outcome.origin)
        )),
        verified: true,
        running: true,
        probe: Some(outcome),
    })
}

/// `/v0/node-id`, retried while the answer is transient (the key file can appear a moment after
/// the pod starts), bounded by [`NODE_ID_DEADLINE`].
async fn read_node_id(
    sidecar: &dyn SidecarApi,
    target: &SidecarTarget,
) -> Result<String, SidecarError> {
    let deadline = tokio::time::Instant::now() + NODE_ID_DEADLINE;
    loop {
        match sidecar.node_id(target).await {
            Err(err) if err.is_transient() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(NODE_ID_POLL).await;
            }
            answer => return answer,
        }
    }
}

/// Creates the key's Secret (when generated) and the seed SeiNode carrying the console-action
/// `record`; returns the created node.
async fn create_seed(
    ops: &Ops<'_>,
    request: &SeedRequest,
    generated_key: Option<&NodeKey>,
    record: &str,
) -> Result<SeiNode, OpsError> {
    if let Some(key) = generated_key {
        let secret = node_key_secret(&request.namespace, &request.secret_name, key);
        ops.ports
            .cluster
            .create(&ClusterObject::Secret(secret))
            .await
            .map_err(OpsError::cluster(format!(
                "creating Secret {}",
                request.secret_name
            )))?;
    }
    let mut node = seed_node(request);
    node.metadata.annotations = Some(BTreeMap::from([(
        console_actions::ANNOTATION.to_owned(),
        record.to_owned(),
    )]));
    ops.ports
        .cluster
        .create_seinode(&node)
        .await
        .map_err(OpsError::cluster(format!(
            "creating SeiNode {}",
            request.name
        )))
}
