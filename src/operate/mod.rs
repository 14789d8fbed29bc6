//! Operator actions against the cluster, shared by the commands (`cli::rollout`,
//! `cli::address`, `cli::seed`) and the console's action jobs (`app::jobs`): the permission
//! checks each action needs, the changes themselves, the `Console*` Event, journal lines and
//! following the plan to its end (embedded or hand-off, DESIGN.md section 5).
use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, PostParams};

use crate::actions::event::{ActionKind, EventTarget, console_event};
use crate::journal::{Journal, JournalEntry, Outcome};
use crate::ports::Clock;

pub mod follow;
pub mod run;
pub mod steps;

/// Who is acting and where their actions are recorded.
#[derive(Clone)]
pub struct Recorder {
    pub client: kube::Client,
    pub namespace: String,
    /// The operator as the journal and Events name them (`user (context ctx)`).
    pub operator: String,
    pub kind: ActionKind,
    pub journal: Option<Journal>,
}

impl Recorder {
    /// Posts the `Console*` Event on the node. An error is for the caller to report; the change
    /// itself already happened.
    pub async fn event(
        &self,
        node: &str,
        uid: &str,
        what: &str,
        clock: &dyn Clock,
    ) -> Result<(), String> {
        let event = console_event(
            self.kind,
            &EventTarget {
                namespace: &self.namespace,
                name: node,
                uid,
            },
            &self.operator,
            what,
            clock,
        );
        let api: Api<Event> = Api::namespaced(self.client.clone(), &self.namespace);
        api.create(&PostParams::default(), &event)
            .await
            .map(|_| ())
            .map_err(|err| format!("could not record the Event on {node}: {err}"))
    }

    /// Appends one journal line for `nodes` (names in this namespace).
    pub fn journal(
        &self,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
        clock: &dyn Clock,
    ) -> Result<(), String> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        let entry = journal_entry(
            &self.operator,
            self.kind,
            &self.namespace,
            nodes,
            detail,
            outcome,
            reason,
            clock,
        );
        journal.append(&entry).map_err(|e| e.to_string())
    }
}

/// A journal line; `nodes` become `namespace/name`.
#[allow(clippy::too_many_arguments)]
pub fn journal_entry(
    operator: &str,
    kind: ActionKind,
    namespace: &str,
    nodes: &[String],
    detail: &str,
    outcome: Outcome,
    reason: Option<String>,
    clock: &dyn Clock,
) -> JournalEntry {
    JournalEntry {
        time: clock.now(),
        operator: operator.to_owned(),
        action: kind,
        nodes: nodes.iter().map(|n| format!("{namespace}/{n}")).collect(),
        detail: detail.to_owned(),
        outcome,
        reason,
    }
}
