//! `config-apply`, `config-validate` and `config-reload` (spec/sidecar.md 7.1, 7.3, 7.4) over a
//! reduced sei-config model: the keys the controller and the spec name (controller overrides,
//! snapshot-generation and replayer overrides, the seed defaults of 8.4, state sync, the
//! hot-reloadable keys). Unified dotted keys and TOML names are sei-config's (`config.go`,
//! `legacy.go`). Files are regenerated whole without comments, as upstream; keys outside this
//! model are dropped, as upstream drops keys outside its (larger) model.
use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Value, json};

use super::config_patch::{Node, read_toml, write_atomically};
use super::config_registry::FIELDS;
use super::parse;
use crate::engine::Outcome;

const CURRENT_VERSION: i64 = 2;
const MODES: [&str; 4] = ["validator", "full", "seed", "archive"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum File {
    Config,
    App,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Str,
    Bool,
    Int,
    Duration,
    List,
    /// `[]string` in the model, one comma-joined string in the file.
    CsvList,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Val {
    Str(String),
    Bool(bool),
    Int(i64),
    List(Vec<String>),
}

pub(super) struct Field {
    pub(super) key: &'static str,
    pub(super) file: File,
    pub(super) table: &'static str,
    pub(super) name: &'static str,
    pub(super) kind: Kind,
    pub(super) default: fn() -> Val,
    pub(super) hot_reload: bool,
}

fn s(text: &str) -> Val {
    Val::Str(text.to_owned())
}

fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// The resolved configuration: mode, version and one value per modelled key.
struct Model {
    mode: String,
    version: i64,
    values: BTreeMap<&'static str, Val>,
}

impl Model {
    fn defaults_for(mode: &str, version: i64) -> Self {
        let mut values: BTreeMap<&'static str, Val> =
            FIELDS.iter().map(|f| (f.key, (f.default)())).collect();
        if mode == "seed" {
            // sei-config v0.0.25 seed defaults (spec 8.4).
            for (key, value) in [
                ("network.p2p.listen_address", s("tcp://0.0.0.0:26656")),
                ("network.p2p.max_connections", Val::Int(1000)),
                ("network.p2p.max_incoming_connection_attempts", Val::Int(32)),
                ("network.p2p.allow_duplicate_ip", Val::Bool(true)),
                ("network.p2p.max_packet_msg_payload_size", Val::Int(102_400)),
                ("tx_index.indexer", Val::List(vec!["null".into()])),
                ("api.rest.enable", Val::Bool(false)),
                ("api.grpc.enable", Val::Bool(false)),
                ("api.grpc_web.enable", Val::Bool(false)),
                ("evm.http_enabled", Val::Bool(false)),
                ("evm.ws_enabled", Val::Bool(false)),
                ("storage.state_store.enable", Val::Bool(false)),
                ("storage.pruning", s("everything")),
            ] {
                values.insert(key, value);
            }
        }
        Self {
            mode: mode.to_owned(),
            version,
            values,
        }
    }

    fn get(&self, key: &str) -> &Val {
        &self.values[key]
    }

    fn apply_override(&mut self, key: &str, text: &str) -> Result<(), String> {
        let field = field(key).ok_or_else(|| format!("unknown override key {key:?}"))?;
        let value = parse_value(field.kind, text)
            .map_err(|why| format!("override {key:?}: invalid value {text:?}: {why}"))?;
        self.values.insert(field.key, value);
        Ok(())
    }

    /// Error-severity diagnostics of sei-config's `Validate`, for the modelled keys.
    fn diagnostics(&self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut error = |field: &str, message: String| {
            out.push(json!({"severity": "ERROR", "field": field, "message": message}));
        };
        if !MODES.contains(&self.mode.as_str()) {
            error("mode", format!("invalid mode {:?}", self.mode));
        }
        if !(1..=CURRENT_VERSION).contains(&self.version) {
            error(
                "version",
                format!(
                    "version {} out of range [1, {CURRENT_VERSION}]",
                    self.version
                ),
            );
        }
        let text = |key: &str| match self.get(key) {
            Val::Str(s) => s.clone(),
            _ => String::new(),
        };
        let int = |key: &str| match self.get(key) {
            Val::Int(i) => *i,
            _ => 0,
        };
        let flag = |key: &str| matches!(self.get(key), Val::Bool(true));
        if text("chain.min_gas_prices").is_empty() {
            error(
                "chain.min_gas_prices",
                "min_gas_prices must not be empty".into(),
            );
        }
        for key in [
            "mempool.size",
            "network.rpc.max_open_connections",
            "network.p2p.max_connections",
        ] {
            if int(key) < 0 {
                error(key, "must not be negative".into());
            }
        }
        let pruning = text("storage.pruning");
        if !["default", "nothing", "everything", "custom"].contains(&pruning.as_str()) {
            error(
                "storage.pruning",
                format!("invalid pruning strategy {pruning:?}"),
            );
        }
        if pruning == "everything" && int("storage.snapshot_interval") > 0 {
            error(
                "storage.snapshot_interval",
                "snapshot_interval > 0 is incompatible with pruning \"everything\"".into(),
            );
        }
        let format = text("logging.format");
        if !["plain", "text", "json"].contains(&format.as_str()) {
            error("logging.format", format!("invalid log format {format:?}"));
        }
        if flag("evm.http_enabled") && int("evm.http_port") <= 0 {
            error(
                "evm.http_port",
                "must be positive when EVM HTTP is enabled".into(),
            );
        }
        if self.mode == "seed" && !flag("network.p2p.pex") {
            error(
                "network.p2p.pex",
                "seed mode requires pex to be enabled".into(),
            );
        }
        if flag("state_sync.enable") {
            let servers = match self.get("state_sync.rpc_servers") {
                Val::List(list) => list.len(),
                _ => 0,
            };
            if !flag("state_sync.use_p2p") && servers < 2 {
                error(
                    "state_sync.rpc_servers",
                    "at least 2 rpc servers are required".into(),
                );
            }
            if int("state_sync.trust_height") <= 0 {
                error("state_sync.trust_height", "must be > 0".into());
            }
            let hash = text("state_sync.trust_hash");
            if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                error("state_sync.trust_hash", "must be a hex hash".into());
            }
            let period = text("state_sync.trust_period");
            if !period.chars().any(|c| c.is_ascii_digit() && c != '0') {
                error("state_sync.trust_period", "must be > 0".into());
            }
            if int("state_sync.fetchers") <= 0 {
                error("state_sync.fetchers", "must be > 0".into());
            }
        }
        out
    }

    /// Write `config.toml` and `app.toml`, regenerated whole.
    fn write(&self, home: &Path) -> Result<(), String> {
        let config_mode = if self.mode == "archive" {
            "full"
        } else {
            self.mode.as_str()
        };
        let config_text = render(
            File::Config,
            &[("mode", Val::Str(config_mode.into()))],
            &[],
            self,
        );
        let sei = [
            ("mode", Val::Str(self.mode.clone())),
            ("version", Val::Int(self.version)),
        ];
        let app_text = render(File::App, &[], &sei, self);
        let dir = home.join("config");
        write_atomically(&dir.join("config.toml"), &config_text)?;
        write_atomically(&dir.join("app.toml"), &app_text)
    }
}

fn parse_value(kind: Kind, text: &str) -> Result<Val, String> {
    match kind {
        Kind::Str => Ok(Val::Str(text.to_owned())),
        Kind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Ok(Val::Bool(true)),
            "false" | "0" | "no" => Ok(Val::Bool(false)),
            _ => Err("not a bool".into()),
        },
        Kind::Int => text
            .trim()
            .parse()
            .map(Val::Int)
            .map_err(|_| "not an integer".into()),
        Kind::Duration => {
            let valid = !text.is_empty()
                && text
                    .trim_start_matches([
                        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', 'h', 'm', 's', 'u',
                        'n', 'µ',
                    ])
                    .is_empty()
                && text.ends_with(['h', 'm', 's']);
            if valid || text == "0" {
                Ok(Val::Str(text.to_owned()))
            } else {
                Err("not a duration".into())
            }
        }
        Kind::List | Kind::CsvList => {
            if text.is_empty() {
                return Ok(Val::List(vec![]));
            }
            let items: Vec<String> = text.split(',').map(|item| item.trim().to_owned()).collect();
            if items.iter().any(String::is_empty) {
                return Err("empty list entry".into());
            }
            Ok(Val::List(items))
        }
    }
}

/// BurntSushi-style encoding: top-level keys first, then one `[table]` per section, double-quoted
/// strings, in registry order.
fn render(file: File, head: &[(&str, Val)], tail: &[(&str, Val)], model: &Model) -> String {
    let mut out = String::new();
    for (name, value) in head {
        out.push_str(&format!("{name} = {}\n", encode(value)));
    }
    let mut tables: Vec<&str> = Vec::new();
    for f in FIELDS.iter().filter(|f| f.file == file) {
        if !tables.contains(&f.table) {
            tables.push(f.table);
        }
    }
    for table in tables {
        if !table.is_empty() {
            out.push_str(&format!("\n[{table}]\n"));
        }
        for f in FIELDS.iter().filter(|f| f.file == file && f.table == table) {
            let value = match (f.kind, model.get(f.key)) {
                (Kind::CsvList, Val::List(items)) => Val::Str(items.join(",")),
                (_, value) => value.clone(),
            };
            out.push_str(&format!("{} = {}\n", f.name, encode(&value)));
        }
    }
    if !tail.is_empty() {
        out.push_str("\n[sei]\n");
        for (name, value) in tail {
            out.push_str(&format!("{name} = {}\n", encode(value)));
        }
    }
    out
}

fn encode(value: &Val) -> String {
    match value {
        Val::Str(text) => serde_json::to_string(text).unwrap_or_default(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => i.to_string(),
        Val::List(items) => {
            let items: Vec<String> = items.iter().map(|i| encode(&Val::Str(i.clone()))).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Read both files into the model; mode from `[sei] mode`, else `mode`, else `full`.
fn read_model(home: &Path) -> Result<Model, String> {
    let dir = home.join("config");
    let load = |name: &str| -> Result<BTreeMap<String, Node>, String> {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|err| format!("reading {}: {err}", path.display()))?;
        read_toml(&text).map_err(|err| format!("reading {}: {err}", path.display()))
    };
    let config = load("config.toml")?;
    let app = load("app.toml")?;
    let lookup = |doc: &BTreeMap<String, Node>, table: &str, name: &str| -> Option<Node> {
        let section = if table.is_empty() {
            doc
        } else {
            match doc.get(table)? {
                Node::Table(inner) => inner,
                _ => return None,
            }
        };
        section.get(name).cloned()
    };
    let sei_text = |name: &str| match lookup(&app, "sei", name) {
        Some(Node::Str(text)) => Some(text),
        Some(Node::Int(i)) => Some(i.to_string()),
        _ => None,
    };
    let mode = sei_text("mode")
        .or_else(|| match lookup(&config, "", "mode") {
            Some(Node::Str(text)) => Some(text),
            _ => None,
        })
        .unwrap_or_else(|| "full".to_owned());
    let version = sei_text("version")
        .and_then(|v| v.parse().ok())
        .unwrap_or(CURRENT_VERSION);
    let mut model = Model::defaults_for("", version);
    model.mode = mode;
    for f in FIELDS {
        let doc = if f.file == File::Config {
            &config
        } else {
            &app
        };
        let Some(node) = lookup(doc, f.table, f.name) else {
            continue;
        };
        let value = match (f.kind, node) {
            (Kind::List, Node::Array(items)) => Val::List(
                items
                    .into_iter()
                    .map(|item| match item {
                        Node::Str(text) => text,
                        other => format!("{other:?}"),
                    })
                    .collect(),
            ),
            (Kind::Bool, Node::Bool(b)) => Val::Bool(b),
            (Kind::Int, Node::Int(i)) => Val::Int(i),
            (Kind::Int, Node::Float(x)) => Val::Int(x as i64),
            // Quoted numbers and bools are tolerated; an empty numeric string is not.
            (kind, Node::Str(text)) => {
                parse_value(kind, &text).map_err(|why| format!("{}: {why}", f.key))?
            }
            (_, other) => return Err(format!("{}: unexpected value {other:?}", f.key)),
        };
        model.values.insert(f.key, value);
    }
    Ok(model)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Intent {
    #[serde(default)]
    mode: String,
    #[serde(default)]
    overrides: BTreeMap<String, String>,
    #[serde(default)]
    target_version: i64,
    #[serde(default)]
    incremental: bool,
}

fn validation_failure(diagnostics: Vec<Value>) -> Outcome {
    Outcome::failed(format!(
        "config validation failed: {}",
        Value::Array(diagnostics)
    ))
}

pub fn apply(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    let intent: Intent = parse(params)?;
    let version = if intent.target_version == 0 {
        CURRENT_VERSION
    } else {
        intent.target_version
    };
    let mut model = if intent.incremental {
        let mut model = read_model(home).map_err(|err| {
            Outcome::failed(format!(
                "config-apply incremental: reading current config: {err}"
            ))
        })?;
        if !intent.mode.is_empty() {
            model.mode = intent.mode.clone();
        }
        model
    } else {
        if intent.mode.is_empty() {
            return Err(Outcome::failed(
                "config-apply: mode is required for non-incremental config resolution",
            ));
        }
        if !MODES.contains(&intent.mode.as_str()) {
            return Err(Outcome::failed(format!(
                "config-apply: invalid mode {:?}",
                intent.mode
            )));
        }
        Model::defaults_for(&intent.mode, version)
    };
    for (key, value) in &intent.overrides {
        model
            .apply_override(key, value)
            .map_err(|err| Outcome::failed(format!("config-apply: applying overrides: {err}")))?;
    }
    let diagnostics = model.diagnostics();
    if !diagnostics.is_empty() {
        return Err(validation_failure(diagnostics));
    }
    model
        .write(home)
        .map_err(|err| Outcome::failed(format!("config-apply: {err}")))?;
    Ok(Outcome::ok())
}

pub fn validate(home: &Path) -> Result<Outcome, Outcome> {
    let model = read_model(home)
        .map_err(|err| Outcome::failed(format!("config-validate: reading config: {err}")))?;
    let diagnostics = model.diagnostics();
    if diagnostics.is_empty() {
        return Ok(Outcome::ok());
    }
    let report = json!({"valid": false, "version": model.version, "mode": model.mode, "diagnostics": diagnostics});
    Err(Outcome::failed(format!(
        "config validation failed: {report}"
    )))
}

#[derive(Deserialize)]
struct ReloadParams {
    #[serde(default)]
    fields: BTreeMap<String, String>,
}

pub fn reload(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    let params: ReloadParams = parse(params)?;
    if params.fields.is_empty() {
        return Err(Outcome::failed(
            "config-reload: at least one field is required",
        ));
    }
    let mut cold = Vec::new();
    for key in params.fields.keys() {
        match field(key) {
            None => {
                return Err(Outcome::failed(format!(
                    "config-reload: unknown field {key:?}"
                )));
            }
            Some(f) if !f.hot_reload => cold.push(key.clone()),
            Some(_) => {}
        }
    }
    if !cold.is_empty() {
        return Err(Outcome::failed(format!(
            "config-reload: fields [{}] are not hot-reloadable and require a restart",
            cold.join(" ")
        )));
    }
    let mut model = read_model(home)
        .map_err(|err| Outcome::failed(format!("config-reload: reading config: {err}")))?;
    for (key, value) in &params.fields {
        model
            .apply_override(key, value)
            .map_err(|err| Outcome::failed(format!("config-reload: {err}")))?;
    }
    let diagnostics = model.diagnostics();
    if !diagnostics.is_empty() {
        return Err(validation_failure(diagnostics));
    }
    model
        .write(home)
        .map_err(|err| Outcome::failed(format!("config-reload: {err}")))?;
    Ok(Outcome::ok())
}
