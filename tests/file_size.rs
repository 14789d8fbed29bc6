//! Files stay small enough to read: no Rust source file of the workspace (`src/`, `crates/`,
//! `tests/`, `benches/`; `target` folders left out) is over 600 lines. A file that
//! grows past it is split into cohesive modules (`foo.rs` + `foo/`, plain `mod` lines). There is
//! no allow-list: every file over the limit has been split so far.
use std::path::{Path, PathBuf};

/// The most lines a source file may have.
const MAX_LINES: usize = 600;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "the scan found the sources");
    let mut over = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a readable source file");
        let lines = text.lines().count();
        let name = path
            .strip_prefix(root)
            .expect("under the workspace")
            .to_string_lossy()
            .replace('\\', "/");
        if lines > MAX_LINES {
            over.push(format!("{name}: {lines} lines"));
        }
    }
    over.sort();
    assert!(
        over.is_empty(),
        "over {MAX_LINES} lines (split into modules: `foo.rs` + `foo/`):\n{}",
        over.join("\n")
    );
}
