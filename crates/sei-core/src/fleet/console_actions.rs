//! The last console actions on a SeiNode, kept on the node itself in the annotation
//! [`ANNOTATION`] so colleagues on other machines see who did what and when in the node screen
//! and `describe` (and `kubectl describe`), after the `Console*` Events expired and beyond the
//! local journal.
//!
//! The value is a compact JSON array, oldest first and newest last (the order Events read in),
//! at most [`MAX_ENTRIES`] entries, each field cut to its cap, and the whole value at most
//! [`MAX_VALUE_BYTES`] bytes (oldest entries dropped first until it fits; one entry always fits).
//! Pure: the actions write it in the same patch as their change (`ops`), the views read it.
use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The annotation holding the actions.
pub const ANNOTATION: &str = "sei.io/console-actions";
/// Entries kept: older ones fall off.
pub const MAX_ENTRIES: usize = 5;
/// Characters of an entry's detail kept; longer ones end in `…`. Room for `image A -> B` with
/// both references pinned by digest (about 220).
pub const MAX_DETAIL_CHARS: usize = 256;
/// Characters of the operator kept.
pub const MAX_BY_CHARS: usize = 100;
/// Characters of the action kind and of the plan ID kept.
pub const MAX_SHORT_CHARS: usize = 64;
/// Bytes of the whole annotation value at most: five digest-pinned rollouts by an operator
/// with a 100-character name take 2,156 bytes; one entry at every cap in 4-byte characters
/// about 2,000.
pub const MAX_VALUE_BYTES: usize = 4096;
/// Values larger than this are not even parsed (someone else's; no console writes them).
const MAX_READ_BYTES: usize = 64 * 1024;
/// Characters of an unreadable value quoted in its one line.
const SHOWN_UNREADABLE_CHARS: usize = 40;

/// One console action as recorded on the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleAction {
    /// When, to the second (RFC 3339).
    pub at: Timestamp,
    /// The operator as the Console Event names them (`alice (context prod)`).
    pub by: String,
    /// The action kind as the journal names it (`rollout`, `address`, `seed-create`).
    pub action: String,
    /// What changed, as the Console Event says it (`image a -> b`).
    pub detail: String,
    /// The plan the action persisted, when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
}

impl ConsoleAction {
    /// The entry with control characters turned into spaces and every field cut to its cap,
    /// the time to the second: what is written, so one entry's size is bounded.
    pub fn bounded(&self) -> ConsoleAction {
        ConsoleAction {
            at: Timestamp::from_second(self.at.as_second()).unwrap_or(self.at),
            by: capped(&self.by, MAX_BY_CHARS),
            action: capped(&self.action, MAX_SHORT_CHARS),
            detail: capped(&self.detail, MAX_DETAIL_CHARS),
            plan: self.plan.as_deref().map(|p| capped(p, MAX_SHORT_CHARS)),
        }
    }
}

/// What a node's annotation holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The actions, oldest first; `dropped` entries did not decode and are left out.
    Actions {
        actions: Vec<ConsoleAction>,
        dropped: usize,
    },
    /// Not a console action list: why, with the value elided (one line).
    Unreadable(String),
}

/// The node's recorded actions, or `None` when it has no such annotation.
pub fn read(annotations: Option<&BTreeMap<String, String>>) -> Option<Recorded> {
    annotations?.get(ANNOTATION).map(|value| parse(value))
}

/// Decodes a value leniently: entries that do not decode are counted, not fatal; a value that
/// is no JSON array at all is [`Recorded::Unreadable`].
pub fn parse(value: &str) -> Recorded {
    if value.len() > MAX_READ_BYTES {
        return Recorded::Unreadable(format!(
            "{} bytes, more than a console writes ({MAX_VALUE_BYTES})",
            value.len()
        ));
    }
    let items = match serde_json::from_str::<Vec<serde_json::Value>>(value) {
        Ok(items) => items,
        Err(_) => {
            let shown: String = value
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(SHOWN_UNREADABLE_CHARS)
                .collect();
            let more = if value.chars().count() > SHOWN_UNREADABLE_CHARS {
                format!("… ({} characters)", value.chars().count())
            } else {
                String::new()
            };
            return Recorded::Unreadable(format!("not a console action list: '{shown}'{more}"));
        }
    };
    let total = items.len();
    let actions: Vec<ConsoleAction> = items
        .into_iter()
        .filter_map(|item| serde_json::from_value(item).ok())
        .collect();
    Recorded::Actions {
        dropped: total - actions.len(),
        actions,
    }
}

/// The value to write after `action`, and what of the previous value was lost, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    pub value: String,
    /// Set when part of the previous value could not be kept (unreadable, or entries that did
    /// not decode): one line for the operator. Entries falling off the end are not "lost".
    pub lost: Option<String>,
}

/// Appends `action` to the `existing` value (absent, ours, or anyone's garbage: never an
/// error), keeps the last [`MAX_ENTRIES`], and drops the oldest until the value fits
/// [`MAX_VALUE_BYTES`].
pub fn append(existing: Option<&str>, action: &ConsoleAction) -> Appended {
    let (mut actions, lost) = match existing.map(parse) {
        None => (Vec::new(), None),
        Some(Recorded::Actions { actions, dropped }) => {
            let lost = (dropped > 0).then(|| {
                format!(
                    "{dropped} entr{} of annotation {ANNOTATION} did not decode and were dropped; nothing else was lost",
                    if dropped == 1 { "y" } else { "ies" }
                )
            });
            (actions, lost)
        }
        Some(Recorded::Unreadable(why)) => (
            Vec::new(),
            Some(format!(
                "annotation {ANNOTATION} was replaced: {why}; nothing but that value was lost"
            )),
        ),
    };
    actions.push(action.clone());
    let skip = actions.len().saturating_sub(MAX_ENTRIES);
    let mut kept: Vec<ConsoleAction> = actions
        .into_iter()
        .skip(skip)
        .map(|a| a.bounded())
        .collect();
    let mut value = encode(&kept);
    while value.len() > MAX_VALUE_BYTES && kept.len() > 1 {
        kept.remove(0);
        value = encode(&kept);
    }
    Appended { value, lost }
}

/// Adds the annotation set to `value` to the merge patch `patch` (a JSON object: the change
/// the action makes), so the record lands with the change or not at all.
pub fn add_to_patch(patch: &mut serde_json::Value, value: &str) {
    patch["metadata"]["annotations"][ANNOTATION] = serde_json::Value::String(value.to_owned());
}

/// One action as the screens show it: `12m ago alice (context prod) rollout image a -> b`.
pub fn line(action: &ConsoleAction, now: Timestamp) -> String {
    let bounded = action.bounded();
    format!(
        "{} ago {} {} {}",
        super::text::age(Some(bounded.at), now),
        bounded.by,
        bounded.action,
        bounded.detail
    )
}

fn encode(actions: &[ConsoleAction]) -> String {
    serde_json::to_string(actions).unwrap_or_else(|_| "[]".to_owned())
}

/// `text` with control characters as spaces, cut to `max` characters (the last one `…`).
fn capped(text: &str, max: usize) -> String {
    let clean = text.chars().map(|c| if c.is_control() { ' ' } else { c });
    if text.chars().count() <= max {
        return clean.collect();
    }
    let mut cut: String = clean.take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp::from_second(1_796_000_000 + seconds).expect("time")
    }

    fn action(n: i64) -> ConsoleAction {
        ConsoleAction {
            at: at(n),
            by: "alice (context prod)".into(),
            action: "rollout".into(),
            detail: format!("image ghcr.io/sei/seid:v{n} -> ghcr.io/sei/seid:v{}", n + 1),
            plan: Some(format!("6f1c2d3e-0000-4000-8000-00000000000{n}")),
        }
    }

    fn actions_of(value: &str) -> Vec<ConsoleAction> {
        match parse(value) {
            Recorded::Actions { actions, dropped } => {
                assert_eq!(dropped, 0, "{value}");
                actions
            }
            Recorded::Unreadable(why) => panic!("unreadable: {why}"),
        }
    }

    #[test]
    fn the_first_action_makes_a_one_entry_compact_list() {
        let appended = append(None, &action(1));
        assert_eq!(appended.lost, None);
        assert_eq!(
            appended.value,
            r#"[{"at":"2026-11-30T00:53:21Z","by":"alice (context prod)","action":"rollout","detail":"image ghcr.io/sei/seid:v1 -> ghcr.io/sei/seid:v2","plan":"6f1c2d3e-0000-4000-8000-000000000001"}]"#
        );
        assert_eq!(actions_of(&appended.value), vec![action(1)]);
    }

    #[test]
    fn appends_newest_last_and_keeps_the_last_five() {
        let mut value: Option<String> = None;
        for n in 1..=7 {
            let appended = append(value.as_deref(), &action(n));
            assert_eq!(appended.lost, None);
            value = Some(appended.value);
        }
        let kept = actions_of(value.as_deref().expect("value"));
        assert_eq!(kept, (3..=7).map(action).collect::<Vec<_>>());
    }

    #[test]
    fn a_garbage_value_is_replaced_and_said_so_in_one_line() {
        for garbage in ["not json", "{\"a\":1}", "", "[1, 2", "\"text\""] {
            let appended = append(Some(garbage), &action(1));
            assert_eq!(actions_of(&appended.value), vec![action(1)], "{garbage:?}");
            let lost = appended.lost.expect("said");
            assert!(lost.contains("was replaced"), "{lost}");
            assert!(lost.contains("nothing but that value was lost"), "{lost}");
            assert!(!lost.contains('\n'), "{lost}");
        }
    }

    #[test]
    fn entries_that_do_not_decode_are_dropped_the_rest_kept() {
        let old = append(None, &action(1)).value;
        let mixed = format!("[{}, {{\"by\": 3}}, \"x\"]", &old[1..old.len() - 1]);
        let appended = append(Some(&mixed), &action(2));
        assert_eq!(actions_of(&appended.value), vec![action(1), action(2)]);
        assert_eq!(
            appended.lost.as_deref(),
            Some(
                "2 entries of annotation sei.io/console-actions did not decode and were dropped; nothing else was lost"
            )
        );
    }

    #[test]
    fn unknown_fields_of_another_version_are_no_failure() {
        let value = r#"[{"at":"2026-11-30T00:53:21Z","by":"bob","action":"restart","detail":"x","extra":{"a":1}}]"#;
        let kept = actions_of(value);
        assert_eq!(kept[0].action, "restart");
        assert_eq!(kept[0].plan, None);
    }

    #[test]
    fn long_fields_are_cut_and_the_whole_value_stays_bounded() {
        // Worst case: every field at its cap in 4-byte characters and quotes (escaped).
        let huge = ConsoleAction {
            at: at(0),
            by: "😀\"".repeat(500),
            action: "😀".repeat(500),
            detail: "\u{1}😀\\".repeat(5000),
            plan: Some("😀".repeat(500)),
        };
        let one = append(None, &huge);
        assert!(one.value.len() <= MAX_VALUE_BYTES, "{}", one.value.len());
        let kept = actions_of(&one.value);
        assert_eq!(kept.len(), 1, "one entry always fits");
        assert_eq!(kept[0].detail.chars().count(), MAX_DETAIL_CHARS);
        assert!(kept[0].detail.ends_with('…'));
        assert!(!kept[0].detail.contains('\u{1}'));
        assert_eq!(kept[0].by.chars().count(), MAX_BY_CHARS);
        let mut value = one.value;
        for _ in 0..6 {
            value = append(Some(&value), &huge).value;
            assert!(value.len() <= MAX_VALUE_BYTES, "{}", value.len());
        }
        // Five ordinary entries fit with room to spare.
        let mut value = append(None, &action(1)).value;
        for n in 2..=5 {
            value = append(Some(&value), &action(n)).value;
        }
        assert_eq!(actions_of(&value).len(), 5);
        assert!(value.len() < MAX_VALUE_BYTES / 2, "{}", value.len());
    }

    #[test]
    fn five_digest_pinned_rollouts_by_a_long_named_operator_fit_uncut() {
        let digest = |tag: u32| {
            format!(
                "ghcr.io/sei-protocol/sei:v6.{tag}.0@sha256:{}",
                "0123456789abcdef".repeat(4)
            )
        };
        let mut value: Option<String> = None;
        let mut written = Vec::new();
        for n in 0..5 {
            let entry = ConsoleAction {
                at: at(n.into()),
                by: format!("{} (context production-eu-west-1)", "o".repeat(69)),
                action: "rollout".into(),
                detail: format!("image {} -> {}", digest(n), digest(n + 1)),
                plan: Some("a0580f37-ffa9-46d5-b3e3-42d4dfa832ec".into()),
            };
            assert_eq!(entry.by.chars().count(), MAX_BY_CHARS);
            value = Some(append(value.as_deref(), &entry).value);
            written.push(entry);
        }
        let value = value.expect("value");
        assert_eq!(actions_of(&value), written, "nothing cut, nothing dropped");
        assert!(value.len() <= MAX_VALUE_BYTES, "{}", value.len());
    }

    #[test]
    fn a_huge_value_is_unreadable_without_parsing_and_quoted_elided() {
        let huge = "x".repeat(MAX_READ_BYTES + 1);
        assert!(matches!(parse(&huge), Recorded::Unreadable(why) if why.contains("bytes")));
        let Recorded::Unreadable(why) = parse(&format!("oops\n{}", "y".repeat(500))) else {
            panic!("unreadable");
        };
        assert!(
            why.starts_with("not a console action list: 'oops "),
            "{why}"
        );
        assert!(why.ends_with("… (505 characters)"), "{why}");
        assert!(!why.contains('\n'), "{why}");
        assert!(why.len() < 200, "{why}");
    }

    #[test]
    fn read_finds_the_annotation_or_says_there_is_none() {
        assert_eq!(read(None), None);
        let mut annotations = BTreeMap::new();
        assert_eq!(read(Some(&annotations)), None);
        annotations.insert(ANNOTATION.to_owned(), append(None, &action(1)).value);
        assert_eq!(
            read(Some(&annotations)),
            Some(Recorded::Actions {
                actions: vec![action(1)],
                dropped: 0
            })
        );
    }

    #[test]
    fn the_line_says_when_who_and_what() {
        assert_eq!(
            line(&action(1), at(1 + 12 * 60)),
            "12m ago alice (context prod) rollout image ghcr.io/sei/seid:v1 -> ghcr.io/sei/seid:v2"
        );
    }

    #[test]
    fn the_record_joins_the_change_in_one_patch() {
        let mut patch = serde_json::json!({"spec": {"image": "x"}});
        add_to_patch(&mut patch, "[]");
        assert_eq!(
            patch,
            serde_json::json!({
                "spec": {"image": "x"},
                "metadata": {"annotations": {"sei.io/console-actions": "[]"}}
            })
        );
    }
}
