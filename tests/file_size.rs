//! Files stay small enough to read: no Rust source file of the workspace (`src/`, `crates/`,
//! `tests/`, `benches/`; `target` folders left out) is over 600 lines. A file that
//! grows past it is split into cohesive modules (`foo.rs` + `foo/`, plain `mod` lines). There is
//! no allow-list: every file over the limit has been split so far.
use std::path::Path;

use source_files::rust_files;

mod source_files;

/// The most lines a source file may have.
const MAX_LINES: usize = 600;

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
