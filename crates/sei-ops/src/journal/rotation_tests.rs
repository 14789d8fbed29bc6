//! The journal's bounds: rotation at a size with the older file kept and read, a file over the
//! read limit read from its end with what was skipped said, appends racing a rotation.
use super::*;

fn entry(n: usize) -> JournalEntry {
    JournalEntry {
        time: "2026-11-30T04:00:00Z".parse().expect("time"),
        operator: "alice (context prod)".into(),
        context: Some("prod".into()),
        action: ActionName::from("rollout"),
        nodes: vec![format!("sei/rpc-{n}")],
        detail: format!("image ghcr.io/sei/seid:v{n}"),
        outcome: Outcome::Succeeded,
        reason: None,
        holder: None,
    }
}

fn line_len() -> u64 {
    serde_json::to_string(&entry(10)).expect("json").len() as u64 + 1
}

#[test]
fn a_full_journal_is_rotated_and_both_files_are_read_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Three lines fit; the fourth rotates.
    let journal = Journal::at(dir.path().join(JOURNAL_FILE_NAME)).rotating_at(3 * line_len());
    for n in 10..17 {
        journal.append(&entry(n)).expect("append");
    }
    let rotated = dir.path().join("journal.jsonl.1");
    assert_eq!(journal.rotated_path(), rotated);
    let lines = |path: &Path| std::fs::read_to_string(path).expect("read").lines().count();
    // 10..=12 went to .1 first, then 13..=15 replaced them there; 16 is the current file.
    assert_eq!(lines(&rotated), 3);
    assert_eq!(lines(journal.path()), 1);
    assert!(std::fs::metadata(journal.path()).expect("meta").len() <= 3 * line_len());
    let contents = journal.read().expect("read");
    let nodes: Vec<&str> = contents
        .entries
        .iter()
        .map(|e| e.nodes[0].as_str())
        .collect();
    assert_eq!(
        nodes,
        ["sei/rpc-13", "sei/rpc-14", "sei/rpc-15", "sei/rpc-16"]
    );
    assert!(contents.problems.is_empty(), "{:?}", contents.problems);
}

#[test]
fn only_the_rotated_file_left_is_read_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let journal = Journal::at(dir.path().join(JOURNAL_FILE_NAME));
    journal.append(&entry(1)).expect("append");
    std::fs::rename(journal.path(), journal.rotated_path()).expect("rotate by hand");
    assert_eq!(journal.read().expect("read").entries, [entry(1)]);
}

#[test]
fn appends_racing_a_rotation_lose_no_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Room for many lines per file, so no append rotates twice and drops a .1 it made.
    let journal = Journal::at(dir.path().join(JOURNAL_FILE_NAME)).rotating_at(40 * line_len());
    for n in 0..30 {
        journal.append(&entry(n)).expect("append");
    }
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let journal = journal.clone();
            std::thread::spawn(move || {
                for n in 0..5 {
                    journal.append(&entry(100 + t * 10 + n)).expect("append");
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("thread");
    }
    // 30 + 20 lines over a 40-line file: rotated once, by whichever append came first.
    let contents = journal.read().expect("read");
    assert_eq!(contents.entries.len(), 50, "{:?}", contents.problems);
    assert!(contents.problems.is_empty(), "{:?}", contents.problems);
}

#[test]
fn a_file_over_the_read_limit_is_read_from_its_end_and_says_what_was_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(JOURNAL_FILE_NAME);
    // A journal from before rotation, past the read limit: old lines, then the newest one.
    let old = serde_json::to_string(&entry(1)).expect("json") + "\n";
    let count = READ_LIMIT_BYTES as usize / old.len() + 100;
    let mut text = old.repeat(count);
    text.push_str(&(serde_json::to_string(&entry(2)).expect("json") + "\n"));
    std::fs::write(&path, &text).expect("write");
    let journal = Journal::at(&path);
    let contents = journal.read().expect("read, not refused");
    assert_eq!(
        contents.entries.last(),
        Some(&entry(2)),
        "the newest is read"
    );
    assert!(contents.entries.len() < count, "not all of it");
    assert_eq!(contents.problems.len(), 1, "{:?}", contents.problems);
    let problem = &contents.problems[0];
    assert!(
        problem.starts_with(&format!("journal {}: its first ", path.display()))
            && problem.ends_with(&format!(
                "bytes not read (the file is over the limit of {READ_LIMIT_BYTES} bytes; the \
                 next action rotates it)"
            )),
        "{problem}"
    );
    // The next append rotates it whole into .1 and starts a new file.
    journal.append(&entry(3)).expect("append");
    assert_eq!(
        std::fs::metadata(journal.rotated_path()).expect(".1").len() as usize,
        text.len()
    );
    assert_eq!(
        journal.read().expect("read").entries.last(),
        Some(&entry(3))
    );
}
