//! `config-patch` (spec/sidecar.md 7.2): a JSON merge-patch onto TOML files under
//! `<home>/config`, re-encoded whole the way go-toml/v2 does it: comments and layout dropped,
//! keys sorted, plain values before sub-tables, strings as single-quoted literals, every JSON
//! number written as a float.
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::parse;
use crate::engine::Outcome;

/// A decoded TOML value, as go-toml/v2 decodes into `map[string]any`.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A TOML date-time, kept as written.
    Datetime(String),
    Array(Vec<Node>),
    Table(Table),
}

pub type Table = BTreeMap<String, Node>;

#[derive(serde::Deserialize)]
struct PatchParams {
    #[serde(default)]
    files: Map<String, Value>,
}

pub fn run(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    let params: PatchParams = parse(params)?;
    if params.files.is_empty() {
        return Err(Outcome::failed(
            "config-patch: at least one file is required",
        ));
    }
    for (file, patch) in &params.files {
        if !patch.is_object() {
            return Err(Outcome::failed(format!(
                "parsing params: patch for {file} is not a JSON object"
            )));
        }
    }
    // Files are patched one by one; an error leaves earlier files rewritten (not transactional).
    for (file, patch) in &params.files {
        patch_file(home, file, patch)
            .map_err(|err| Outcome::failed(format!("config-patch {file}: {err}")))?;
    }
    Ok(Outcome::ok())
}

/// Merge `patch` (a JSON object) into `<home>/config/<file>` and rewrite it atomically.
pub fn patch_file(home: &Path, file: &str, patch: &Value) -> Result<(), String> {
    let path = config_path(home, file);
    let mut document = match std::fs::read_to_string(&path) {
        Ok(text) => read_toml(&text)?,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Table::new(),
        Err(err) => return Err(format!("reading {}: {err}", path.display())),
    };
    let Some(patch) = patch.as_object() else {
        return Err("patch is not a JSON object".to_owned());
    };
    merge(&mut document, patch)?;
    write_atomically(&path, &render(&document))
}

/// `filepath.Join(home, "config", name)`, cleaned lexically: a leading `/` stays relative and
/// `..` may climb out of `config/`, as upstream.
fn config_path(home: &Path, name: &str) -> PathBuf {
    let mut path = home.join("config");
    for component in Path::new(name.trim_start_matches('/')).components() {
        match component {
            Component::ParentDir => {
                path.pop();
            }
            Component::Normal(part) => path.push(part),
            _ => {}
        }
    }
    path
}

pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let temporary = dir.join(format!(".tmp-{}", uuid::Uuid::new_v4().simple()));
    let result = std::fs::write(&temporary, text).and_then(|()| std::fs::rename(&temporary, path));
    result.map_err(|err| {
        let _ = std::fs::remove_file(&temporary);
        format!("writing {}: {err}", path.display())
    })
}

/// Parse TOML text into the generic tree.
pub fn read_toml(text: &str) -> Result<Table, String> {
    let document: toml_edit::DocumentMut =
        text.parse().map_err(|err| format!("parsing TOML: {err}"))?;
    Ok(from_table_like(document.as_table()))
}

fn from_table_like(table: &dyn toml_edit::TableLike) -> Table {
    table
        .iter()
        .filter_map(|(key, item)| from_item(item).map(|node| (key.to_owned(), node)))
        .collect()
}

fn from_item(item: &toml_edit::Item) -> Option<Node> {
    match item {
        toml_edit::Item::None => None,
        toml_edit::Item::Value(value) => Some(from_value(value)),
        toml_edit::Item::Table(table) => Some(Node::Table(from_table_like(table))),
        toml_edit::Item::ArrayOfTables(tables) => Some(Node::Array(
            tables
                .iter()
                .map(|table| Node::Table(from_table_like(table)))
                .collect(),
        )),
    }
}

fn from_value(value: &toml_edit::Value) -> Node {
    match value {
        toml_edit::Value::String(s) => Node::Str(s.value().clone()),
        toml_edit::Value::Integer(i) => Node::Int(*i.value()),
        toml_edit::Value::Float(f) => Node::Float(*f.value()),
        toml_edit::Value::Boolean(b) => Node::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Node::Datetime(d.value().to_string()),
        toml_edit::Value::Array(array) => Node::Array(array.iter().map(from_value).collect()),
        toml_edit::Value::InlineTable(table) => Node::Table(from_table_like(table)),
    }
}

/// RFC 7386-style merge: `null` deletes, an object merges into a table (replacing a non-table),
/// anything else (arrays included) replaces wholesale.
pub fn merge(document: &mut Table, patch: &Map<String, Value>) -> Result<(), String> {
    for (key, value) in patch {
        match value {
            Value::Null => {
                document.remove(key);
            }
            Value::Object(object) => {
                let entry = document
                    .entry(key.clone())
                    .or_insert_with(|| Node::Table(Table::new()));
                if !matches!(entry, Node::Table(_)) {
                    *entry = Node::Table(Table::new());
                }
                if let Node::Table(table) = entry {
                    merge(table, object)?;
                }
            }
            other => {
                document.insert(key.clone(), from_json(other)?);
            }
        }
    }
    Ok(())
}

/// JSON as Go decodes it into `any`: every number is a float64.
fn from_json(value: &Value) -> Result<Node, String> {
    Ok(match value {
        Value::Null => return Err("cannot encode a null inside an array".to_owned()),
        Value::Bool(b) => Node::Bool(*b),
        Value::Number(n) => Node::Float(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => Node::Str(s.clone()),
        Value::Array(items) => Node::Array(items.iter().map(from_json).collect::<Result<_, _>>()?),
        Value::Object(object) => Node::Table(
            object
                .iter()
                .map(|(k, v)| Ok((k.clone(), from_json(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// Encode the whole document as go-toml/v2 does.
pub fn render(document: &Table) -> String {
    let mut out = String::new();
    render_table(&mut out, &[], document);
    out
}

fn is_table_array(node: &Node) -> bool {
    matches!(node, Node::Array(items) if !items.is_empty() && items.iter().all(|i| matches!(i, Node::Table(_))))
}

fn is_sub_table(node: &Node) -> bool {
    matches!(node, Node::Table(_)) || is_table_array(node)
}

fn render_table(out: &mut String, path: &[&str], table: &Table) {
    for (key, node) in table.iter().filter(|(_, node)| !is_sub_table(node)) {
        out.push_str(&format!("{} = {}\n", render_key(key), render_value(node)));
    }
    for (key, node) in table.iter().filter(|(_, node)| is_sub_table(node)) {
        let mut child_path = path.to_vec();
        child_path.push(key);
        let header: Vec<String> = child_path.iter().map(|k| render_key(k)).collect();
        match node {
            Node::Table(child) => {
                blank_line(out);
                out.push_str(&format!("[{}]\n", header.join(".")));
                render_table(out, &child_path, child);
            }
            Node::Array(items) => {
                for item in items {
                    if let Node::Table(child) = item {
                        blank_line(out);
                        out.push_str(&format!("[[{}]]\n", header.join(".")));
                        render_table(out, &child_path, child);
                    }
                }
            }
            _ => {}
        }
    }
}

fn blank_line(out: &mut String) {
    if !out.is_empty() {
        out.push('\n');
    }
}

fn render_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if bare { key.to_owned() } else { quoted(key) }
}

fn render_value(node: &Node) -> String {
    match node {
        Node::Str(s) => render_string(s),
        Node::Int(i) => i.to_string(),
        Node::Float(f) => render_float(*f),
        Node::Bool(b) => b.to_string(),
        Node::Datetime(d) => d.clone(),
        Node::Array(items) => {
            let items: Vec<String> = items.iter().map(render_value).collect();
            format!("[{}]", items.join(", "))
        }
        Node::Table(table) => {
            let entries: Vec<String> = table
                .iter()
                .map(|(k, v)| format!("{} = {}", render_key(k), render_value(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

/// A literal `'…'` string unless the value holds `'` or a control character.
fn render_string(s: &str) -> String {
    if s.chars().any(|c| c == '\'' || c.is_control()) {
        quoted(s)
    } else {
        format!("'{s}'")
    }
}

fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn render_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    let text = f.to_string();
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn worked_example_of_the_spec() {
        let before = "# before\nproxy-app = \"tcp://127.0.0.1:26658\"\n[p2p]\n\
            # Address to listen for incoming connections\nladdr = \"tcp://0.0.0.0:26656\"\n\
            upnp = false\npersistent-peers = \"\"\nmax-connections = 100\n";
        let mut document = read_toml(before).expect("parse");
        let patch = json!({"p2p": {"persistent-peers": "abc@h:26656", "max-connections": 200, "upnp": null}});
        merge(&mut document, patch.as_object().expect("object")).expect("merge");
        assert_eq!(
            render(&document),
            "proxy-app = 'tcp://127.0.0.1:26658'\n\n[p2p]\nladdr = 'tcp://0.0.0.0:26656'\n\
             max-connections = 200.0\npersistent-peers = 'abc@h:26656'\n"
        );
    }

    #[test]
    fn objects_replace_scalars_and_arrays_replace_wholesale() {
        let mut document = read_toml("a = 1\nlist = [1, 2, 3]\n").expect("parse");
        let patch = json!({"a": {"b": "x", "gone": null}, "list": [4]});
        merge(&mut document, patch.as_object().expect("object")).expect("merge");
        assert_eq!(render(&document), "list = [4.0]\n\n[a]\nb = 'x'\n");
    }

    #[test]
    fn strings_with_quotes_or_newlines_are_escaped_and_output_reparses() {
        let mut document = Table::new();
        let patch = json!({"s": "it's", "t": "a\nb", "odd key": true, "n": 1.5});
        merge(&mut document, patch.as_object().expect("object")).expect("merge");
        let text = render(&document);
        assert_eq!(
            text,
            "n = 1.5\n\"odd key\" = true\ns = \"it's\"\nt = \"a\\nb\"\n"
        );
        assert_eq!(read_toml(&text).expect("reparse"), document);
    }

    #[test]
    fn arrays_of_tables_and_nested_tables_render_with_headers() {
        let document =
            read_toml("[[peers]]\nid = 'a'\n[[peers]]\nid = 'b'\n[x.y]\nz = 1\n").expect("parse");
        let text = render(&document);
        assert_eq!(
            text,
            "[[peers]]\nid = 'a'\n\n[[peers]]\nid = 'b'\n\n[x]\n\n[x.y]\nz = 1\n"
        );
        assert_eq!(read_toml(&text).expect("reparse"), document);
    }

    #[test]
    fn leading_slash_is_relative_and_dotdot_climbs() {
        let home = Path::new("/h");
        assert_eq!(
            config_path(home, "/app.toml"),
            Path::new("/h/config/app.toml")
        );
        assert_eq!(config_path(home, "../x.toml"), Path::new("/h/x.toml"));
    }
}
