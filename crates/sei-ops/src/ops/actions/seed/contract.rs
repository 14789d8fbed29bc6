//! `seed create` under the one action contract ([`crate::ops::action`]).
use super::{SeedEnd, SeedInput, SeedPrepared, bring_up};
use crate::actions::event::ActionKind;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::skew::SkewScope;
use crate::ops::{Ops, OpsError, PermissionVerdict, Report, RunEnd};

/// Exit code of a seed that runs with the key's NodeID while the outside probe of its external
/// address failed (1 is a bring-up that failed, 2 the operator's input).
pub const EXIT_UNREACHABLE: u8 = 3;

/// Why `name` cannot name a seed: a Kubernetes object name usable for a StatefulSet and its pod
/// (RFC 1123 label, at most 54 so the Secret `<name>-node-key` fits too).
pub fn seed_name_problem(name: &str) -> Option<String> {
    let valid = !name.is_empty()
        && name.len() <= 54
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    (!valid).then(|| {
        format!("{name:?} is not a valid name (lowercase letters, digits and '-', at most 54)")
    })
}

impl Operation for SeedInput {
    type Prepared = SeedPrepared;

    fn kind(&self) -> ActionKind {
        crate::ops::actions::seed::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.name.clone()]
    }

    fn detail(&self) -> String {
        SeedInput::detail(self)
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        format!(
            "{namespace}/{} (chain {}, {})",
            self.name, self.chain_id, self.image
        )
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, SeedPrepared> {
        Box::pin(super::prepare(ops, self.clone()))
    }

    /// Creates the seed with these spec fields; a live controller runs its init plan.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &[
                "spec.chainId",
                "spec.image",
                "spec.externalAddress",
                "spec.seed",
                "status.plan",
            ],
            hands_off: true,
        }
    }
}

impl Previewed for SeedPrepared {
    fn kind(&self) -> ActionKind {
        crate::ops::actions::seed::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.request.name.clone()]
    }

    fn detail(&self) -> String {
        self.input.detail()
    }

    fn text(&self) -> String {
        SeedPrepared::text(self)
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        vec![PreviewLine::Preview {
            text: SeedPrepared::text(self),
            json: serde_json::json!({"event": "preview", "preview": self.json()}),
        }]
    }

    fn refusal(&self) -> Option<OpsError> {
        SeedPrepared::refusal(self)
    }

    fn permissions(&self) -> &PermissionVerdict {
        &self.permissions
    }

    fn confirm_names(&self) -> Vec<String> {
        SeedPrepared::confirm_names(self)
    }

    fn question(&self) -> String {
        self.question.clone()
    }

    fn dry_run_end(&self) -> RunEnd {
        crate::ops::action::one_node_dry_run_end(
            &self.request.name,
            self.blocked.as_deref(),
            "dry run: nothing was changed (the generated key was discarded)",
        )
    }

    fn lease(&self) -> Option<String> {
        Some(self.request.name.clone())
    }

    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(async move {
            let seed_end = bring_up(ops, self, report).await?;
            Ok(run_end(self, seed_end))
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The bring-up's end with the seed's JSON result fields (`nodeId`, `peer`, `verified`,
/// `reachable`, `probe`) and exit code 3 for a seed that runs but is unreachable.
fn run_end(prepared: &SeedPrepared, seed_end: SeedEnd) -> RunEnd {
    let unreachable = seed_end.unreachable();
    let SeedEnd {
        mut end,
        verified,
        probe,
        ..
    } = seed_end;
    let fields = serde_json::json!({
        "nodeId": prepared.node_id(), "peer": prepared.peer(), "verified": verified,
        "reachable": probe.as_ref().map(|_| end.ok), "probe": probe,
    });
    if let serde_json::Value::Object(fields) = fields {
        end.result = fields;
    }
    if unreachable {
        end.exit_code = Some(EXIT_UNREACHABLE);
    }
    end
}
