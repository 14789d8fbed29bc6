//! The `/` filter: whitespace-separated terms, all of which must match.
//!
//! Terms: `mode:seed`, `phase:Failed` (also `phase:none` for a node without phase),
//! `chain:arctic-1`, `ns:NAME`, `ctx:NAME` (the kubeconfig context), `drift` (against what the
//! pod runs when known, `fleet::running`), `running:IMAGE` (the image the pod runs, else the
//! observed `status.currentImage`, holds IMAGE), `stale-image` (runs, else was observed on,
//! another image than the spec's), `warning` (a Warning event or a
//! node not healthy), `failed` (something failed: phase, plan, a condition, the render, a
//! stalled chain), `sick` (not healthy by its verdict, `fleet::verdict`), `healthy`, the chain
//! health of the node's RPC (`stalled`, `lagging`, `catching-up`, `unreachable`, `in-sync`),
//! `re:PATTERN` (a regular expression, any case, over the same fields as free text, each field a
//! line of its own so `^` and `$` anchor to one: `re:^rpc-\d+$`), a leading `!` negates a term,
//! and
//! anything else is a case-insensitive substring of namespace, name, chain, image, phase, mode,
//! the current task or the last warning reason.
use std::fmt;

use super::rows::FleetRow;
use crate::api::{NodeMode, Phase};
use crate::chain::State;

/// One parsed term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Mode(NodeMode),
    Phase(Option<Phase>),
    Chain(String),
    Namespace(String),
    /// `ctx:NAME`: the row's kubeconfig context.
    Context(String),
    Drift,
    /// `running:TEXT`: the image the pod runs (else the observed `status.currentImage`) holds
    /// TEXT.
    Running(String),
    /// `stale-image`: the pod runs another image than the spec's; without a pod, an image was
    /// observed and it is not the spec's (an empty `currentImage`, never observed, is drift to
    /// the controller but not a node on an old image).
    StaleImage,
    /// A Warning event, or a node that is not healthy.
    Warning,
    /// The verdict has a critical problem.
    Failed,
    /// The verdict is not healthy.
    Sick,
    Healthy,
    /// The chain-health verdict of the node's RPC (`stalled`, `lagging`, …).
    Health(crate::chain::State),
    Text(String),
    /// `re:PATTERN`: the regular expression finds a match in one of the free-text fields.
    Regex(Pattern),
    Not(Box<Term>),
}

/// A compiled `re:` pattern, equal to another by its text.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Eq for Pattern {}

/// The most a `re:` pattern may compile to (a filter is typed, not a program).
const REGEX_SIZE_LIMIT: usize = 1 << 20;

fn compile(pattern: &str) -> Result<Pattern, FilterError> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .multi_line(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map(Pattern)
        .map_err(|error| {
            // The syntax error's text draws a caret under the pattern over several lines: its
            // last line says what is wrong.
            let text = error.to_string();
            let why = text
                .lines()
                .rev()
                .map(str::trim)
                .find(|line| !line.is_empty())
                .unwrap_or("does not compile");
            FilterError::Regex {
                pattern: pattern.to_owned(),
                why: why.trim_start_matches("error: ").to_owned(),
            }
        })
}

/// A term that does not parse; the message says what would.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    #[error("unknown mode {0:?}: use full, archive, replayer, validator or seed")]
    Mode(String),
    #[error("unknown phase {0:?}: use Pending, Initializing, Running, Failed, Terminating or none")]
    Phase(String),
    #[error("{0:?} needs a value, e.g. chain:arctic-1")]
    Empty(String),
    #[error("bad regex {pattern:?} after re: {why}")]
    Regex { pattern: String, why: String },
}

/// A parsed filter; the empty filter matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    pub text: String,
    pub terms: Vec<Term>,
}

const PHASES: [Phase; 5] = [
    Phase::Pending,
    Phase::Initializing,
    Phase::Running,
    Phase::Failed,
    Phase::Terminating,
];

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let terms = text
            .split_whitespace()
            .map(parse_term)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Filter {
            text: text.trim().to_owned(),
            terms,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    pub fn matches(&self, row: &FleetRow) -> bool {
        self.terms.iter().all(|term| term_matches(term, row))
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn parse_term(word: &str) -> Result<Term, FilterError> {
    if let Some(rest) = word.strip_prefix('!').filter(|r| !r.is_empty()) {
        return Ok(Term::Not(Box::new(parse_term(rest)?)));
    }
    if let Some(pattern) = word.strip_prefix("re:") {
        if pattern.is_empty() {
            return Err(FilterError::Empty(word.to_owned()));
        }
        return compile(pattern).map(Term::Regex);
    }
    let lower = word.to_lowercase();
    if let Some((key, value)) = lower.split_once(':') {
        let need = |v: &str| {
            if v.is_empty() {
                Err(FilterError::Empty(word.to_owned()))
            } else {
                Ok(v.to_owned())
            }
        };
        match key {
            "mode" => {
                let value = need(value)?;
                return NodeMode::ALL
                    .into_iter()
                    .find(|m| m.as_str() == value || m.spec_field().to_lowercase() == value)
                    .map(Term::Mode)
                    .ok_or(FilterError::Mode(value));
            }
            "phase" => {
                let value = need(value)?;
                if value == "none" || value == "-" {
                    return Ok(Term::Phase(None));
                }
                return PHASES
                    .into_iter()
                    .find(|p| p.as_str().to_lowercase() == value)
                    .map(|p| Term::Phase(Some(p)))
                    .ok_or(FilterError::Phase(value));
            }
            "chain" => return Ok(Term::Chain(need(value)?)),
            "running" => return Ok(Term::Running(need(value)?)),
            "ns" | "namespace" => return Ok(Term::Namespace(need(value)?)),
            "ctx" | "context" | "cluster" => return Ok(Term::Context(need(value)?)),
            _ => {}
        }
    }
    Ok(match lower.as_str() {
        "drift" => Term::Drift,
        "stale-image" | "stale" => Term::StaleImage,
        "warning" | "warn" => Term::Warning,
        "failed" | "fail" => Term::Failed,
        "sick" | "unhealthy" => Term::Sick,
        "healthy" | "ok" => Term::Healthy,
        "stalled" => Term::Health(State::Stalled),
        "lagging" => Term::Health(State::Lagging),
        "catching-up" | "catchingup" => Term::Health(State::CatchingUp),
        "unreachable" => Term::Health(State::Unreachable),
        "in-sync" | "insync" => Term::Health(State::InSync),
        _ => Term::Text(lower),
    })
}

fn term_matches(term: &Term, row: &FleetRow) -> bool {
    match term {
        Term::Mode(mode) => row.mode == Some(*mode),
        Term::Phase(phase) => row.phase == *phase,
        Term::Chain(chain) => row.chain_id.eq_ignore_ascii_case(chain),
        Term::Namespace(ns) => row.key.namespace.eq_ignore_ascii_case(ns),
        Term::Context(context) => row.key.context.eq_ignore_ascii_case(context),
        Term::Drift => row.drift.any(),
        Term::Running(needle) => row
            .running
            .as_ref()
            .map(|r| &r.image)
            .or(row.current_image.as_ref())
            .is_some_and(|image| image.to_lowercase().contains(needle.as_str())),
        Term::StaleImage => match &row.running {
            Some(running) => !running.is(&row.image),
            None => row
                .current_image
                .as_ref()
                .is_some_and(|image| *image != row.image),
        },
        Term::Warning => row.warning().is_some() || !row.verdict.is_healthy(),
        Term::Failed => row.verdict.has_failed(),
        Term::Sick => !row.verdict.is_healthy(),
        Term::Healthy => row.verdict.is_healthy(),
        Term::Health(state) => row.health.is_some_and(|h| h.state == *state),
        Term::Text(needle) => row.text_matches(needle),
        Term::Regex(pattern) => row.search_matches(&pattern.0),
        Term::Not(inner) => !term_matches(inner, row),
    }
}
