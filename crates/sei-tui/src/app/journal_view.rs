//! `:journal`: the journal of console actions in the viewer, newest first, with the filters of
//! the `journal` command as words (`NODE`, `action:A`, `operator:T`, `since:D`, `ctx:NAME`
//! (repeatable, as `--context`), `all`); dry runs hidden unless `all` (or `a` in the viewer).
use super::errors::JournalFilterError;
use super::model::Model;
use crate::fleet::text::age;
use crate::journal::{JournalFilter, parse_since};

/// The palette's words after `journal` into a filter, or one line saying what is wrong.
pub fn parse(words: &[&str], now: jiff::Timestamp) -> Result<JournalFilter, JournalFilterError> {
    let mut filter = JournalFilter::default();
    for word in words {
        match word.split_once(':') {
            Some(("action", name)) => filter.action = Some(crate::ops::action_kind(name)?),
            Some(("operator" | "op", text)) => filter.operator = Some(text.to_owned()),
            Some(("since", text)) => {
                filter.since = Some(parse_since(text, now).map_err(JournalFilterError::Since)?)
            }
            Some(("node", name)) => filter.node = Some(name.to_owned()),
            Some(("ctx" | "context", name)) => filter.contexts.push(name.to_owned()),
            Some((key, _)) => {
                return Err(JournalFilterError::UnknownFilter(key.to_owned()));
            }
            None if *word == "all" => filter.dry_runs = true,
            None => filter.node = Some((*word).to_owned()),
        }
    }
    Ok(filter)
}

/// The viewer's lines: a header, then the matching entries newest first, in columns as wide
/// as their widest cell (who, what and when first: an 80-column terminal cuts the detail); the
/// operator's `(context …)` only when it is not the console's context.
pub fn lines(model: &Model, filter: &JournalFilter) -> Vec<String> {
    let header = ["AGE", "OPERATOR", "ACTION", "OUTCOME", "NODES", "DETAIL"].map(String::from);
    let contents = match &model.journal {
        None => return vec![header.join("  "), "… reading the journal".to_owned()],
        Some(Err(error)) => {
            return vec![header.join("  "), format!("✖ journal unknown: {error}")];
        }
        Some(Ok(contents)) => contents,
    };
    let rows: Vec<[String; 6]> = filter
        .select(&contents.entries)
        .into_iter()
        .rev()
        .map(|entry| {
            let detail = match &entry.reason {
                Some(reason) => format!("{} ({reason})", entry.detail),
                None => entry.detail.clone(),
            };
            [
                age(Some(entry.time), model.now),
                // The current context goes without saying; another one is shown.
                entry
                    .operator
                    .strip_suffix(&format!(" (context {})", model.scope.context()))
                    .unwrap_or(&entry.operator)
                    .to_owned(),
                entry.action.name().to_owned(),
                entry.outcome.name().to_owned(),
                entry.nodes.join(","),
                detail,
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |row: &[String; 6]| {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        cells.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(&header)];
    if rows.is_empty() {
        out.push(if contents.entries.is_empty() {
            "no actions recorded yet".to_owned()
        } else {
            format!("no action matches ({}; a shows dry runs)", filter.words())
        });
    }
    out.extend(rows.iter().map(line));
    out.extend(contents.problems.iter().map(|p| format!("⚠ {p}")));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::app::model::{Cmd, Msg};
    use crate::app::tests::{demo_model, key, press};
    use crate::app::update::update;
    use crate::app::viewer::{self, ViewerKind};
    use crate::journal::{JournalContents, JournalEntry, Outcome};
    use crate::keymap::KeyCode;

    pub fn entry(minutes_ago: i64, operator: &str, node: &str, outcome: Outcome) -> JournalEntry {
        JournalEntry {
            time: crate::fleet::sample::now() - jiff::SignedDuration::from_mins(minutes_ago),
            operator: operator.into(),
            context: None,
            action: crate::ops::actions::rollout::KIND.into(),
            nodes: vec![format!("sei/{node}")],
            detail: "image ghcr.io/sei-protocol/sei:v6.5.0".into(),
            outcome,
            reason: None,
            holder: None,
        }
    }

    /// Three entries: alice's rollout 90 min ago, carol's dry run 30 min ago, bob's failure 10
    /// min ago.
    pub fn sample_contents() -> JournalContents {
        JournalContents {
            entries: vec![
                entry(90, "alice (context prod)", "rpc-0", Outcome::Succeeded),
                entry(30, "carol (context prod)", "rpc-1", Outcome::DryRun),
                entry(10, "bob (context prod)", "seed-0", Outcome::Failed),
            ],
            problems: Vec::new(),
        }
    }

    #[test]
    fn the_palette_words_are_the_commands_filters() {
        let now = crate::fleet::sample::now();
        let filter = parse(
            &["rpc-0", "action:address", "operator:bob", "since:1h", "all"],
            now,
        )
        .expect("filter");
        assert_eq!(filter.node.as_deref(), Some("rpc-0"));
        assert_eq!(filter.action, Some(crate::ops::actions::address::KIND));
        assert_eq!(filter.operator.as_deref(), Some("bob"));
        assert_eq!(
            filter.since,
            Some(now - jiff::SignedDuration::from_hours(1))
        );
        assert!(filter.dry_runs);
        assert!(filter.contexts.is_empty(), "every context unless asked");
        let two = parse(&["ctx:arctic-1", "context:pacific-1"], now).expect("contexts");
        assert_eq!(two.contexts, ["arctic-1", "pacific-1"]);
        assert!(parse(&["colour:red"], now).is_err_and(|e| e.to_string().contains("ctx:NAME")));
        assert!(
            parse(&["action:deploy"], now)
                .is_err_and(|e| e.to_string().contains("actions: rollout"))
        );
    }

    #[test]
    fn journal_opens_newest_first_hides_dry_runs_and_a_shows_them() {
        let mut model = demo_model();
        press(&mut model, ":");
        press(&mut model, "journal");
        let cmds = key(&mut model, KeyCode::Enter);
        assert_eq!(cmds, vec![Cmd::ReadJournal], "read off the render path");
        let kind = model
            .viewer
            .as_ref()
            .map(|v| v.kind.clone())
            .expect("viewer");
        assert_eq!(viewer::lines(&model, &kind)[1], "… reading the journal");
        update(&mut model, Msg::Journal(Ok(sample_contents())));
        let shown = |model: &crate::app::model::Model| {
            let kind = model
                .viewer
                .as_ref()
                .map(|v| v.kind.clone())
                .expect("viewer");
            viewer::lines(model, &kind)
        };
        let lines = shown(&model);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert!(
            lines[1].starts_with("10m") && lines[1].contains("bob"),
            "{lines:#?}"
        );
        assert!(lines[2].contains("alice"), "{lines:#?}");
        press(&mut model, "a");
        let lines = shown(&model);
        assert_eq!(lines.len(), 4, "a shows the dry runs: {lines:#?}");
        assert!(lines[2].contains("carol") && lines[2].contains("dry-run"));
    }

    #[test]
    fn a_filter_that_matches_nothing_says_which() {
        let mut model = demo_model();
        model.journal = Some(Ok(JournalContents {
            entries: vec![entry(5, "alice (context prod)", "rpc-0", Outcome::Started)],
            problems: Vec::new(),
        }));
        let filter = parse(&["seed-0"], model.now).expect("filter");
        let lines = lines(&model, &filter);
        assert_eq!(
            lines[1],
            "no action matches (node seed-0, dry runs hidden; a shows dry runs)"
        );
        assert!(matches!(
            ViewerKind::Journal(filter),
            ViewerKind::Journal(_)
        ));
    }
}
