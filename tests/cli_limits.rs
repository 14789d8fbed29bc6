//! Nesting bombs and huge inputs for every file the commands read (`plan -f`, `render -f`,
//! `-f -`, `--platform-config`): refused before parsing, in bounded time, with one line naming
//! the limit; a long value in an error line is elided with its length.
use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/samples/");

fn flow_bomb(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

fn json_bomb(levels: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels))
}

fn block_bomb(levels: usize) -> String {
    format!("{}x\n", "- ".repeat(levels))
}

/// Runs the binary; returns the exit code and stderr (the temp dir spelled `DIR`), failing if
/// it took longer than a few seconds (a bomb used to cost a minute of CPU).
fn run(args: &[&str], stdin: Option<String>, dir: &Path) -> (Option<i32>, String) {
    let mut cmd = Command::cargo_bin("sei-console").expect("binary");
    cmd.args(args)
        .env_remove("SEI_CONSOLE_PLATFORM_CONFIG")
        .timeout(Duration::from_secs(60));
    if let Some(input) = stdin {
        cmd.write_stdin(input);
    }
    let started = Instant::now();
    let output = cmd.output().expect("run");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{args:?} took {:?}",
        started.elapsed()
    );
    let stderr = String::from_utf8_lossy(&output.stderr).replace(&*dir.to_string_lossy(), "DIR");
    (output.status.code(), stderr)
}

fn sample_manifest() -> String {
    format!("{SAMPLE}pacific-1-full-node.yaml")
}

#[test]
fn nesting_bombs_and_huge_files_are_refused_before_parsing_naming_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str, text: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("write");
        file.to_string_lossy().into_owned()
    };
    let flow = path("flow.yaml", &flow_bomb(100_000));
    let json = path("bomb.json", &json_bomb(100_000));
    let huge = path(
        "huge.yaml",
        &format!("a: \"{}\"\n", "x".repeat(3 * 1024 * 1024)),
    );
    let platform = path("platform.yaml", &format!("images: {}", flow_bomb(100_000)));
    let manifest = sample_manifest();
    let mut lines = Vec::new();
    for (args, stdin) in [
        (vec!["plan", "-f", flow.as_str()], None),
        (vec!["plan", "-f", json.as_str()], None),
        (vec!["plan", "-f", "-"], Some(block_bomb(100_000))),
        (vec!["plan", "-f", huge.as_str()], None),
        (vec!["render", "-f", flow.as_str()], None),
        (vec!["render", "-f", "-"], Some(json_bomb(100_000))),
        (
            vec![
                "render",
                "-f",
                manifest.as_str(),
                "--platform-config",
                platform.as_str(),
            ],
            None,
        ),
        (
            vec![
                "plan",
                "-f",
                manifest.as_str(),
                "--platform-config",
                platform.as_str(),
            ],
            None,
        ),
    ] {
        let (code, stderr) = run(&args, stdin, dir.path());
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        lines.push(format!("{}: {}", args[..2].join(" "), stderr.trim_end()));
    }
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn a_long_value_in_an_error_line_is_elided_with_its_length() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("long.yaml");
    let manifest = format!(
        "apiVersion: sei.io/v1alpha1\nkind: SeiNode\nmetadata: {{name: a}}\nspec:\n  chainId: c\n  image: i\n  fullNode: \"{}\"\n",
        "x".repeat(1_000_000)
    );
    std::fs::write(&file, manifest).expect("write");
    let (code, stderr) = run(&["plan", "-f", &file.to_string_lossy()], None, dir.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.len() < 1_000, "{} bytes", stderr.len());
    assert!(stderr.contains("characters)"), "{stderr}");
}

#[test]
fn the_journal_command_reads_the_rotated_file_then_the_current_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("journal.jsonl");
    let line = |time: &str, node: &str| {
        format!(
            r#"{{"time":"{time}","operator":"alice (context prod)","action":"rollout","nodes":["sei/{node}"],"detail":"image seid:v2","outcome":"succeeded"}}"#
        ) + "\n"
    };
    std::fs::write(
        dir.path().join("journal.jsonl.1"),
        line("2026-11-30T04:00:00Z", "rpc-old"),
    )
    .expect("write .1");
    std::fs::write(&file, line("2026-11-30T05:00:00Z", "rpc-new")).expect("write");
    let output = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["journal", "--file"])
        .arg(&file)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let old = stdout
        .find("sei/rpc-old")
        .expect("the rotated file's entry");
    let new = stdout
        .find("sei/rpc-new")
        .expect("the current file's entry");
    assert!(old < new, "oldest first: {stdout}");
}
