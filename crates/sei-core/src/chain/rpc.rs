//! What a node's sei-tendermint RPC answers, typed: `GET /status`, `GET /lag_status` and
//! `GET /net_info`, read from the HTTP status and body the transport brought back.
//!
//! Upstream facts (sei-chain c9b42951, `sei-tendermint/`), each pinned by a test named after it:
//! - `GET /status` answers the bare result object (no JSON-RPC envelope) with the int64 fields
//!   as JSON strings (`rpc/coretypes/responses.go`, `rpc/jsonrpc/server/http_server.go`
//!   `writeHTTPResponse`); a JSON-RPC POST wraps it in `{"result": …}`. sei-k8s-controller's
//!   SDK accepts both (`sdk/sei/provider/k8s/probe.go`), and so do we.
//! - `GET /lag_status` answers HTTP 200 with `{current_height, max_peer_height, lag}` when the
//!   lag is within the node's `lag-threshold` (default 300), and HTTP **417** (Expectation
//!   Failed) with the same body when over it (`CodeLagIsHighError`); the issue text and older
//!   builds say 299, which we accept as well.
//! - Any other error of a GET answers HTTP **200** with the bare error object
//!   `{code, message, data}`, so a 200 is not a result until its body says so.
//!
//! A failed read is an `RpcFailure`: forbidden, no pod, refused, timeout, too large, HTTP, RPC
//! error, bad answer or unreachable.
use serde::Serialize;
use serde_json::Value;

/// One HTTP answer of the RPC as the transport brought it back (bounded in size by it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcAnswer {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Why a node's RPC gave no usable answer. Each says what an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
pub enum RpcFailure {
    /// The API server refused the port-forward (RBAC: `create pods/portforward`).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The node has no pod to forward to (not created yet, or deleted).
    #[error("no pod: {0}")]
    NoPod(String),
    /// The pod is there but nothing answered on the RPC port (seid down, not listening yet).
    #[error("refused: {0}")]
    Refused(String),
    /// No answer within the read's deadline.
    #[error("timeout: no answer within {0} s")]
    Timeout(u64),
    /// The answer was larger than the cap (bytes).
    #[error("answer over {0} bytes, not read")]
    TooLarge(usize),
    /// An HTTP status that is none of the RPC's answers.
    #[error("HTTP {status}: {body}")]
    Http { status: u16, body: String },
    /// The RPC's own error object (`{code, message, data}`, bare or in a JSON-RPC envelope).
    #[error("RPC error {code}: {message}")]
    Rpc { code: i64, message: String },
    /// A body that is not what the endpoint answers.
    #[error("unreadable answer: {0}")]
    BadAnswer(String),
    /// Anything else on the way (the port-forward broke, the API server is down).
    #[error("unreachable: {0}")]
    Unreachable(String),
}

impl RpcFailure {
    /// One word for a narrow cell.
    pub fn word(&self) -> &'static str {
        match self {
            RpcFailure::Forbidden(_) => "forbidden",
            RpcFailure::NoPod(_) => "no pod",
            RpcFailure::Refused(_) => "refused",
            RpcFailure::Timeout(_) => "timeout",
            RpcFailure::TooLarge(_) => "too large",
            RpcFailure::Http { .. } => "HTTP error",
            RpcFailure::Rpc { .. } => "RPC error",
            RpcFailure::BadAnswer(_) => "bad answer",
            RpcFailure::Unreachable(_) => "unreachable",
        }
    }
}

/// `GET /status`, the parts the screens show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub latest_block_height: u64,
    /// RFC 3339 as the node wrote it (chain time, the proposer's clock).
    pub latest_block_time: Option<jiff::Timestamp>,
    pub catching_up: bool,
    /// The highest height its block-sync peers reported (0 when it has none).
    pub max_peer_block_height: Option<u64>,
    pub node_id: String,
    pub moniker: String,
    pub version: String,
    /// `node_info.network`: the chain ID.
    pub network: String,
}

/// `GET /lag_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LagStatus {
    pub current_height: u64,
    pub max_peer_height: u64,
    pub lag: u64,
    /// The node says its lag is over its `lag-threshold` (HTTP 417, or 299 on other builds).
    pub lagging: bool,
    /// The HTTP status it answered with.
    pub http_status: u16,
}

/// `GET /net_info`: how many peers (the list itself is not kept: a fleet's worth of peer IDs
/// would be most of the console's memory for health).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetInfo {
    pub n_peers: u32,
}

/// HTTP statuses `/lag_status` uses for "lagging over the threshold": 417 at the sei-chain
/// version we build, 299 in the issue and other builds.
pub const LAGGING_STATUSES: [u16; 2] = [417, 299];

fn json(answer: &RpcAnswer) -> Result<Value, RpcFailure> {
    serde_json::from_slice(&answer.body).map_err(|err| {
        RpcFailure::BadAnswer(format!(
            "not JSON (HTTP {}): {err}: {}",
            answer.status,
            excerpt(&answer.body)
        ))
    })
}

fn excerpt(body: &[u8]) -> String {
    const MAX: usize = 120;
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The RPC's error object, bare (`{code, message, data}`) or enveloped (`{"error": …}`).
fn rpc_error(value: &Value) -> Option<RpcFailure> {
    let error = value
        .get("error")
        .filter(|e| e.is_object())
        .unwrap_or(value);
    let code = error.get("code")?.as_i64()?;
    let message = error.get("message")?.as_str()?.to_owned();
    let message = match error.get("data").and_then(Value::as_str) {
        Some(data) if !data.is_empty() => format!("{message}: {data}"),
        _ => message,
    };
    Some(RpcFailure::Rpc { code, message })
}

/// The result object: the body itself (GET) or its `result` (a JSON-RPC envelope).
fn result(value: &Value) -> &Value {
    match value.get("result") {
        Some(inner) if inner.is_object() => inner,
        _ => value,
    }
}

/// An int64 the RPC writes as a JSON string (tmjson), or as a number.
fn number(value: &Value, field: &str) -> Option<u64> {
    match value.get(field)? {
        Value::String(text) => text.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

fn text(value: &Value, field: &str) -> String {
    value
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn expect_status(answer: &RpcAnswer, ok: &[u16]) -> Result<(), RpcFailure> {
    if ok.contains(&answer.status) {
        return Ok(());
    }
    Err(RpcFailure::Http {
        status: answer.status,
        body: excerpt(&answer.body),
    })
}

impl Status {
    /// Reads `GET /status` (bare or enveloped).
    pub fn parse(answer: &RpcAnswer) -> Result<Status, RpcFailure> {
        expect_status(answer, &[200])?;
        let value = json(answer)?;
        let status = result(&value);
        let Some(sync) = status.get("sync_info") else {
            return Err(rpc_error(&value).unwrap_or_else(|| {
                RpcFailure::BadAnswer(format!("no sync_info in {}", excerpt(&answer.body)))
            }));
        };
        let latest_block_height = number(sync, "latest_block_height").ok_or_else(|| {
            RpcFailure::BadAnswer(format!(
                "no latest_block_height in {}",
                excerpt(&answer.body)
            ))
        })?;
        let node_info = status.get("node_info").cloned().unwrap_or(Value::Null);
        Ok(Status {
            latest_block_height,
            latest_block_time: sync
                .get("latest_block_time")
                .and_then(Value::as_str)
                .and_then(|t| t.parse().ok()),
            catching_up: sync
                .get("catching_up")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            max_peer_block_height: number(sync, "max_peer_block_height"),
            node_id: text(&node_info, "id"),
            moniker: text(&node_info, "moniker"),
            version: text(&node_info, "version"),
            network: text(&node_info, "network"),
        })
    }

    /// sei-k8s-controller's definition (`sdk/sei/readiness.go`, `WaitCaughtUp`): a committed
    /// height above 1 and not catching up.
    pub fn caught_up(&self) -> bool {
        self.latest_block_height > 1 && !self.catching_up
    }
}

impl LagStatus {
    /// Reads `GET /lag_status`: 200 is within the threshold, 417 (or 299) over it, both with
    /// the result as the body; a 200 carrying the bare error object is the error.
    pub fn parse(answer: &RpcAnswer) -> Result<LagStatus, RpcFailure> {
        expect_status(answer, &[200, LAGGING_STATUSES[0], LAGGING_STATUSES[1]])?;
        let value = json(answer)?;
        let lag = result(&value);
        let (Some(current_height), Some(lag_blocks)) =
            (number(lag, "current_height"), number(lag, "lag"))
        else {
            return Err(rpc_error(&value).unwrap_or_else(|| {
                RpcFailure::BadAnswer(format!("no lag in {}", excerpt(&answer.body)))
            }));
        };
        Ok(LagStatus {
            current_height,
            max_peer_height: number(lag, "max_peer_height").unwrap_or(0),
            lag: lag_blocks,
            lagging: LAGGING_STATUSES.contains(&answer.status),
            http_status: answer.status,
        })
    }
}

impl NetInfo {
    /// Reads `GET /net_info`.
    pub fn parse(answer: &RpcAnswer) -> Result<NetInfo, RpcFailure> {
        expect_status(answer, &[200])?;
        let value = json(answer)?;
        let info = result(&value);
        let Some(n_peers) = number(info, "n_peers") else {
            return Err(rpc_error(&value).unwrap_or_else(|| {
                RpcFailure::BadAnswer(format!("no n_peers in {}", excerpt(&answer.body)))
            }));
        };
        Ok(NetInfo {
            n_peers: u32::try_from(n_peers).unwrap_or(u32::MAX),
        })
    }
}
