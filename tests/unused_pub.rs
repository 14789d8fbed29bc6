//! No pub function no one calls: every `pub fn NAME` of the workspace's crates (`crates/*/src`,
//! `src`) must have its name somewhere else in the Rust sources (crates, tests, benches).
//!
//! By name, not by resolution: a function whose name another item shares passes (a false
//! negative), so this finds the plainly dead ones (`pub` hides them from `dead_code`) cheaply,
//! with no tool beyond the test itself. A call from a string (serde's `with = "…"`) counts, as
//! the whole text of the file is read.
use std::collections::HashMap;
use std::path::Path;

use source_files::rust_files;

mod source_files;

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// How often each identifier occurs in `text`.
fn count_idents(text: &str, counts: &mut HashMap<String, usize>) {
    for word in text.split(|c: char| !is_ident(c)) {
        if word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            *counts.entry(word.to_owned()).or_default() += 1;
        }
    }
}

/// The names of the `pub fn`s (`pub async fn`, `pub const fn`) defined in `text`, with lines.
fn pub_fns(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (at, line) in text.lines().enumerate() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("pub ") else {
            continue;
        };
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        let rest = rest.strip_prefix("const ").unwrap_or(rest);
        if let Some(rest) = rest.strip_prefix("fn ") {
            let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() {
                found.push((at + 1, name));
            }
        }
    }
    found
}

#[test]
fn every_pub_fn_is_named_somewhere_else() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut defining = Vec::new();
    rust_files(&root.join("crates"), &mut defining);
    rust_files(&root.join("src"), &mut defining);
    let mut all = defining.clone();
    rust_files(&root.join("tests"), &mut all);
    rust_files(&root.join("benches"), &mut all);
    let mut counts = HashMap::new();
    for file in &all {
        count_idents(&std::fs::read_to_string(file).expect("source"), &mut counts);
    }
    let mut unused = Vec::new();
    for file in &defining {
        let text = std::fs::read_to_string(file).expect("source");
        for (line, name) in pub_fns(&text) {
            if counts.get(&name).copied().unwrap_or_default() <= 1 {
                let shown = file.strip_prefix(root).unwrap_or(file).display();
                unused.push(format!("{shown}:{line}: pub fn {name}"));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "pub functions no one calls (remove them, or make them private):\n{}",
        unused.join("\n")
    );
}

#[test]
fn a_pub_fn_named_once_is_found() {
    let text = "pub fn used() {}\n  pub async fn lonely() { used() }\npub(crate) fn inner() {}";
    let mut counts = HashMap::new();
    count_idents(text, &mut counts);
    let fns = pub_fns(text);
    assert_eq!(fns, [(1, "used".to_owned()), (2, "lonely".to_owned())]);
    assert_eq!(counts["used"], 2);
    assert_eq!(counts["lonely"], 1);
}
