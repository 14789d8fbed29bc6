//! The order of the top-level modules inside each crate, checked on the source: what the crate
//! graph cannot say. Between crates the compiler refuses an upward import (a crate cannot name
//! a crate it does not depend on, `tests/crate_graph.rs`); inside `sei-core` (say `fleet` and
//! `planner`) or `sei-ops` only this table keeps the modules in order.
//!
//! Every `crate::<module>` path in the crates' `src/**/*.rs` (comments and string literals left
//! out) is an arrow from the file's top-level module to that one; each crate names the lower
//! crates' modules by their own names at its root (`use sei_core::{api, …}`), so `crate::api`
//! means the same module in every crate. Each arrow must be in [`ALLOWED`], [`ALLOWED`] may only
//! point at modules listed before it, and the arrows form no cycle.
//!
//! Cross-module paths start at `crate::` (never `super::super::…` out of a module), so the
//! `crate::` paths are every arrow between top-level modules.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Per top-level module, lowest first, the top-level modules it may use. A module may only use
/// modules listed above it: that is what "dependencies point downward" means here.
const ALLOWED: &[(&str, &[&str])] = &[
    // Input bounds and message elision: used by every reader, uses nothing.
    ("limits", &[]),
    // The one duration grammar of every flag and config value.
    ("duration", &[]),
    // The line filter of `logs --grep` and the logs view.
    ("grep", &[]),
    // The one grammar of the config file's http(s) URLs (reference RPCs, webhooks).
    ("http_url", &[]),
    ("api", &[]),
    // Chain health of the nodes' RPC, pure: readings and verdicts.
    ("chain", &["duration", "http_url"]),
    ("ports", &["api", "chain"]),
    ("platform", &["limits"]),
    ("planner", &["api", "platform"]),
    ("render", &["api", "platform"]),
    ("tasks", &["api", "platform", "ports", "render"]),
    (
        "executor",
        &["api", "planner", "platform", "ports", "render", "tasks"],
    ),
    ("fleet", &["api", "chain", "platform", "render"]),
    ("keymap", &[]),
    ("config", &["chain", "http_url", "keymap", "limits"]),
    (
        "actions",
        &[
            "api", "config", "executor", "planner", "platform", "ports", "render", "tasks",
        ],
    ),
    ("journal", &["actions", "config", "duration"]),
    (
        "ops",
        &[
            "actions", "api", "chain", "config", "executor", "fleet", "journal", "planner",
            "platform", "ports", "render", "tasks",
        ],
    ),
    // An adapter like `kube`: the P2P handshake behind `ports::probe::SeedProber` (its TCP
    // dialer behind `ports::PeerDialer`); `ops` and the console never name it.
    ("p2p", &["actions", "api", "ports"]),
    // Adapters: they implement the ports and feed the fleet store; they never know the app.
    (
        "kube",
        &[
            "actions", "api", "config", "fleet", "limits", "platform", "ports", "render",
        ],
    ),
    ("sidecar", &["api", "kube", "limits", "ports"]),
    // The nodes' sei-tendermint RPC through a port-forward (`sidecar::portforward`'s pool).
    ("rpc", &["api", "chain", "kube", "ports", "sidecar"]),
    // The webhooks of `[notify]` (`ports::notify::WebhookPost`), with `rpc`'s http(s) client.
    ("webhook", &["ports", "rpc"]),
    // Image registries over HTTP (`rollout --resolve-digest`).
    ("registry", &["ports"]),
    // The one place adapters are put behind the ops layer's ports (the commands and the console's
    // action jobs open it).
    (
        "wiring",
        &[
            "config", "executor", "kube", "ops", "ports", "registry", "sidecar", "tasks",
        ],
    ),
    // The console: the clusters through its port (`app::port`), never an adapter.
    (
        "app",
        &[
            "actions", "api", "chain", "config", "executor", "fleet", "grep", "journal", "keymap",
            "limits", "ops", "planner", "platform", "ports", "tasks",
        ],
    ),
    // The views read the app's model; the loop is handed `ui::draw` by `cli`. `ports`: the
    // probe outcomes the screens' tests feed in.
    (
        "ui",
        &[
            "actions", "api", "app", "chain", "config", "fleet", "keymap", "limits", "ops",
            "planner", "platform", "ports",
        ],
    ),
    // The console's port filled with the adapters (the composition root's half of the console).
    (
        "backend",
        &[
            "api", "app", "chain", "config", "executor", "fleet", "journal", "kube", "ops", "p2p",
            "ports", "rpc", "sidecar", "webhook", "wiring",
        ],
    ),
    (
        "cli",
        &[
            "actions", "api", "app", "backend", "chain", "config", "duration", "executor", "fleet",
            "grep", "journal", "keymap", "kube", "limits", "ops", "p2p", "planner", "platform",
            "ports", "render", "rpc", "sidecar", "tasks", "ui", "webhook", "wiring",
        ],
    ),
    ("layering_tests", &[]),
];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn table(rows: &[(&str, &[&str])]) -> Graph {
    let mut graph = Graph::new();
    for (module, uses) in rows {
        graph
            .entry((*module).to_owned())
            .or_default()
            .extend(uses.iter().map(|m| (*m).to_owned()));
    }
    graph
}

/// The text of Rust source without comments and without the contents of string and character
/// literals (so `"crate::app"` in a message is no arrow). Lifetimes are kept as code.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match (c, next) {
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                let mut depth = 0usize;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            ('r', Some('"' | '#')) if !continues_ident(&chars, i) => {
                let mut hashes = 0;
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                j += 1;
                while j < chars.len() {
                    if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            }
            ('"', _) => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A character literal ('x', '\n', '\u{..}'), not a lifetime ('a).
            ('\'', Some(n)) if n == '\\' || chars.get(i + 2) == Some(&'\'') => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("' '");
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn continues_ident(chars: &[char], i: usize) -> bool {
    i > 0 && is_ident(chars[i - 1])
}

/// The first segments of the `crate::` paths in `code` (`crate::{a::X, b}` gives `a` and `b`).
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_items(group));
        } else {
            let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// The first segment of each item of a `{…}` use group (its text after the `{`).
fn group_items(group: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    let mut take = true;
    for c in group.chars() {
        match c {
            '{' => {
                depth += 1;
                take = false;
            }
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current));
                take = true;
            }
            c if take && depth == 0 && is_ident(c) => current.push(c),
            c if take && !current.is_empty() && !c.is_whitespace() => take = false,
            _ => {}
        }
    }
    items.push(current);
    items.retain(|item| !item.is_empty() && item != "self");
    items
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("source dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The top-level modules of the crates' `src` dirs, each with the file that holds it.
fn module_files(srcs: &[PathBuf]) -> Vec<(String, PathBuf)> {
    srcs.iter()
        .flat_map(|src| {
            rust_files(src)
                .into_iter()
                .filter_map(|file| Some((top_module(src, &file)?, file)))
        })
        .collect()
}

/// The arrows between top-level modules in the crates' `src` dirs, each with a file that makes it.
fn arrows(srcs: &[PathBuf]) -> BTreeMap<(String, String), PathBuf> {
    let files = module_files(srcs);
    let modules: BTreeSet<String> = files.iter().map(|(module, _)| module.clone()).collect();
    let mut arrows = BTreeMap::new();
    for (from, file) in files {
        let source = std::fs::read_to_string(&file).expect("source file");
        for to in crate_paths(&code_only(&source)) {
            if to != from && modules.contains(&to) {
                arrows
                    .entry((from.clone(), to))
                    .or_insert_with(|| file.clone());
            }
        }
    }
    arrows
}

/// `src/kube/watch.rs` is in `kube`, `src/journal.rs` is `journal`; the crate root is none.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main")).then(|| name.to_owned())
}

/// A cycle in `graph`, as the modules along it, if there is one.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

/// The `src` dirs of the workspace's crates: every crate names the modules of the crates below
/// it by their own names (`use sei_core::{api, …}` at its root), so `crate::api` is one path in
/// all of them.
fn src_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["sei-core", "sei-ops", "sei-adapters", "sei-tui"]
        .iter()
        .map(|name| root.join("crates").join(name).join("src"))
        .chain([root.join("src")])
        .collect()
}

/// The arrows of `src` that neither table allows, as readable lines.
fn violations(arrows: &BTreeMap<(String, String), PathBuf>, allowed: &Graph) -> Vec<String> {
    let permits =
        |graph: &Graph, from: &str, to: &str| graph.get(from).is_some_and(|s| s.contains(to));
    arrows
        .iter()
        .filter(|((from, to), _)| !permits(allowed, from, to))
        .map(|((from, to), file)| format!("{from} -> {to} ({})", file.display()))
        .collect()
}

#[test]
fn every_arrow_between_top_level_modules_is_allowed() {
    let srcs = src_dirs();
    let arrows = arrows(&srcs);
    let allowed = table(ALLOWED);
    let unplaced: Vec<String> = module_files(&srcs)
        .into_iter()
        .map(|(module, _)| module)
        .filter(|m| !allowed.contains_key(m))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(
        unplaced.is_empty(),
        "top-level modules missing from ALLOWED: {unplaced:?}"
    );
    let bad = violations(&arrows, &allowed);
    assert!(
        bad.is_empty(),
        "arrows ALLOWED does not permit (upward or new):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_allowed_table_points_only_at_modules_listed_above() {
    let mut above = BTreeSet::new();
    for (module, uses) in ALLOWED {
        let upward: Vec<&&str> = uses.iter().filter(|m| !above.contains(*m)).collect();
        assert!(
            upward.is_empty(),
            "{module} may use {upward:?}, listed below it"
        );
        above.insert(*module);
    }
}

#[test]
fn no_cycle_between_top_level_modules() {
    let arrows = arrows(&src_dirs());
    let mut graph = Graph::new();
    for (from, to) in arrows.keys() {
        graph.entry(from.clone()).or_default().insert(to.clone());
    }
    assert_eq!(find_cycle(&graph), None);
}

#[test]
fn paths_in_comments_and_strings_are_no_arrows_and_groups_are_read() {
    let source = r##"
        use crate::api::SeiNode; // crate::ui::view
        use crate::{fleet::Fleet, kube::{watch, watches::WatchKind}, self};
        /* crate::app::model */ let s = "crate::cli"; let r = r#"crate::ops"#;
        let c = '"'; fn f<'a>(x: &'a str) -> &'a str { x } let p = my_crate::journal::X;
        let q = crate::config::load;
    "##;
    let found = crate_paths(&code_only(source));
    assert_eq!(
        found,
        ["api", "config", "fleet", "kube"]
            .map(String::from)
            .into_iter()
            .collect()
    );
}

#[test]
fn a_cycle_is_found_and_named() {
    let graph = table(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]);
    let cycle = find_cycle(&graph).expect("cycle");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4, "{cycle:?}");
    assert_eq!(find_cycle(&table(&[("a", &["b"]), ("b", &[])])), None);
}

#[test]
fn an_upward_arrow_is_a_violation() {
    let arrows = BTreeMap::from([(
        ("fleet".to_owned(), "app".to_owned()),
        PathBuf::from("src/fleet/x.rs"),
    )]);
    let bad = violations(&arrows, &table(ALLOWED));
    assert_eq!(bad, ["fleet -> app (src/fleet/x.rs)"]);
}
