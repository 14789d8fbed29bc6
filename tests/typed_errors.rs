//! Errors between the console's layers are typed: no `Result<_, String>` in `sei-tui`'s app layer
//! outside its tests (the effects hand the model typed errors, the forms and the palette refuse
//! with typed errors; the words are made where the screen shows them). A source scan, like
//! `tests/unused_pub.rs`: every `Result<…>` written in a non-test file (test modules at a
//! file's end, after `#[cfg(test)]`, left out) whose last type argument is `String` fails.
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The type arguments of each `Result<…>` on `line`, as written, top level split at commas.
fn results(line: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("Result<") {
        let after = &rest[at + "Result<".len()..];
        let mut depth = 1;
        let mut args = vec![String::new()];
        let mut end = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '<' | '(' | '[' => depth += 1,
                '>' | ')' | ']' => depth -= 1,
                ',' if depth == 1 => {
                    args.push(String::new());
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                end = i;
                break;
            }
            if let Some(arg) = args.last_mut() {
                arg.push(c);
            }
        }
        if end < after.len() {
            found.push(args.iter().map(|a| a.trim().to_owned()).collect());
        }
        rest = &after[end.min(after.len())..];
    }
    found
}

fn string_results(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (at, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        for args in results(line) {
            if args.len() == 2 && args[1] == "String" {
                found.push((at + 1, line.trim().to_owned()));
            }
        }
    }
    found
}

#[test]
fn the_scan_finds_a_string_error_and_passes_a_typed_one() {
    assert_eq!(
        string_results("fn a() -> Result<(Vec<u8>, Vec<String>), String> {\n").len(),
        1
    );
    assert_eq!(
        string_results("    Journal(Option<Result<Contents, String>>),\n").len(),
        1
    );
    assert!(string_results("fn a() -> Result<Vec<String>, FormError> {\n").is_empty());
    assert!(string_results("#[cfg(test)]\nfn a() -> Result<(), String> {}\n").is_empty());
}

#[test]
fn the_app_layer_has_no_string_errors_outside_its_tests() {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/sei-tui/src/app");
    let mut files = Vec::new();
    rust_files(&app, &mut files);
    assert!(files.len() > 20, "the app layer's files: {}", files.len());
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read a source file");
        for (line, code) in string_results(&text) {
            found.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "Result<_, String> between layers; give it a thiserror enum (crates/sei-tui/src/app/errors.rs):\n{}",
        found.join("\n")
    );
}
