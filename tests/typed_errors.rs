//! Errors are typed: no `Result<_, String>` (nor `Result<_, &str>` or `Result<_, Box<dyn
//! Error>>`) in any crate's non-test code (`crates/*/src`, `src/`): each layer hands the next a
//! `thiserror` enum, and the words are made where they are shown. A source scan, like
//! `tests/unused_pub.rs`: every `Result<…>` written in a non-test file (test files, a
//! `#[cfg(test)] mod x;` line and the test module at a file's end left out) whose last type
//! argument is `String`, a `&str` or a `Box<dyn …Error…>` fails.
use std::path::Path;

use source_files::rust_files;

mod source_files;

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

/// An error type that is words, not a type: `String`, `&str`, `Box<dyn Error>`.
fn untyped(error: &str) -> bool {
    error == "String"
        || (error.starts_with('&') && error.ends_with("str"))
        || (error.starts_with("Box<dyn") && error.contains("Error"))
}

fn string_results(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((at, line)) = lines.next() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            // A test module declared by one line is skipped; one written out ends the code.
            match lines.next() {
                Some((_, next)) if next.trim_end().ends_with(';') => continue,
                _ => break,
            }
        }
        if code.starts_with("//") {
            continue;
        }
        for args in results(line) {
            if args.len() == 2 && untyped(&args[1]) {
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
    assert_eq!(
        string_results("#[cfg(test)]\nmod tests;\nfn a() -> Result<(), &'static str> {}\n").len(),
        1
    );
    assert_eq!(
        string_results("fn a() -> Result<(), Box<dyn std::error::Error>> {}\n").len(),
        1
    );
}

#[test]
fn no_crate_has_string_errors_outside_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let crates = std::fs::read_dir(root.join("crates")).expect("crates/");
    for krate in crates.flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    assert!(files.len() > 200, "the crates' files: {}", files.len());
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let test_file = name == "tests.rs"
            || name.ends_with("_tests.rs")
            || name == "testing.rs"
            || file.components().any(|c| c.as_os_str() == "tests");
        if test_file {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("read a source file");
        for (line, code) in string_results(&text) {
            found.push(format!("{}:{line}: {code}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "Result<_, String> between layers; give it a thiserror enum:\n{}",
        found.join("\n")
    );
}
