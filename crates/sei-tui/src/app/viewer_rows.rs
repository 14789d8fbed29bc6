//! The viewer's lines as rows on the screen: wrapped at word boundaries to the terminal's width
//! (continuations under the line's last column, so a long event message or journal detail
//! reads as one block), or one row per line for the view to scroll sideways.
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// One row on screen and the line it is part of (for search and for keeping the top line when
/// the wrap is toggled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub line: usize,
    pub text: String,
}

/// `lines` as rows: wrapped to `width` when `wrap`, else one row each.
pub fn rows(lines: &[String], width: usize, wrap: bool) -> Vec<Row> {
    let mut out = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        if wrap {
            out.extend(
                wrap_line(line, width)
                    .into_iter()
                    .map(|text| Row { line: index, text }),
            );
        } else {
            out.push(Row {
                line: index,
                text: line.clone(),
            });
        }
    }
    out
}

/// Where a wrapped line's continuations start: after the last run of two or more spaces that
/// the first row holds (a table's last column, a `Key:   value` value), when that lies within
/// two thirds of the width; else two past the line's own indent.
fn hang(line: &str, width: usize) -> usize {
    let indent = line.len() - line.trim_start().len();
    let mut column = 0;
    let mut spaces = 0;
    let mut last_run_end = None;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if column + w > width {
            break;
        }
        if c == ' ' {
            spaces += 1;
        } else {
            if spaces >= 2 && column > indent + spaces {
                last_run_end = Some(column);
            }
            spaces = 0;
        }
        column += w;
    }
    let most = width * 2 / 3;
    match last_run_end {
        Some(at) if at <= most => at,
        _ => (indent + 2).min(most),
    }
}

/// One line wrapped to `width`: breaks at the last space that fits (a longer word is cut),
/// continuations indented by [`hang`] and without the spaces the break left.
pub fn wrap_line(line: &str, width: usize) -> Vec<String> {
    if width < 8 || line.width() <= width {
        return vec![line.to_owned()];
    }
    let indent = hang(line, width);
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let first = out.is_empty();
        let room = if first { width } else { width - indent };
        // The first row breaks only inside its value, never in the padding before it.
        let keep = if first { indent } else { 0 };
        let (end, next) = break_at(&chars[start..], room, keep);
        let text: String = chars[start..start + end].iter().collect();
        out.push(if first {
            text.trim_end().to_owned()
        } else {
            format!("{}{}", " ".repeat(indent), text.trim_end())
        });
        start += next;
        while start < chars.len() && chars[start] == ' ' {
            start += 1;
        }
    }
    out
}

/// How many of `chars` fit in `room` columns, and where the next row starts; a space in the
/// first `keep` columns is no place to break.
fn break_at(chars: &[char], room: usize, keep: usize) -> (usize, usize) {
    let mut used = 0;
    let mut last_space = None;
    for (i, c) in chars.iter().enumerate() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            if *c == ' ' {
                return (i, i + 1);
            }
            return match last_space {
                Some(space) if space > 0 => (space, space + 1),
                _ => (i.max(1), i.max(1)),
            };
        }
        if *c == ' ' && i > 0 && chars[i - 1] != ' ' && used >= keep {
            last_space = Some(i);
        }
        used += w;
    }
    (chars.len(), chars.len())
}

/// `text` from display column `from` on (the view scrolled sideways).
pub fn from_column(text: &str, from: usize) -> String {
    let mut column = 0;
    let mut out = String::new();
    for c in text.chars() {
        if column >= from {
            out.push(c);
        }
        column += c.width().unwrap_or(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_describe_line_ends_at_a_word_and_continues_under_its_value() {
        let line = "Paused:           no; spec.paused is set by the operator to freeze reconcile";
        assert_eq!(
            wrap_line(line, 40),
            vec![
                "Paused:           no; spec.paused is set",
                "                  by the operator to",
                "                  freeze reconcile",
            ]
        );
    }

    #[test]
    fn an_event_message_continues_under_the_message_column_when_it_is_narrow_enough() {
        let line = format!(
            "{:<6} {:<7} {:<10}  {}",
            "40s", "Warning", "Render", "a b c d e f g h i j"
        );
        let rows = wrap_line(&line, 44);
        assert_eq!(rows[0], "40s    Warning Render      a b c d e f g h i");
        assert_eq!(rows[1], format!("{}j", " ".repeat(27)));
    }

    #[test]
    fn a_column_past_two_thirds_hangs_under_the_line_instead() {
        let line = format!("{:<30}  {}", "x", "one two three four five six");
        let rows = wrap_line(&line, 40);
        assert!(
            rows[1].starts_with("  ") && !rows[1].starts_with("   "),
            "{rows:?}"
        );
        assert!(rows.iter().all(|r| r.width() <= 40), "{rows:?}");
    }

    #[test]
    fn a_word_longer_than_the_row_is_cut_and_nothing_is_lost() {
        let line = "k: ".to_owned() + &"x".repeat(50);
        let rows = wrap_line(&line, 20);
        assert!(rows.iter().all(|r| r.width() <= 20), "{rows:?}");
        let kept: usize = rows.iter().map(|r| r.trim().chars().count()).sum();
        assert_eq!(kept, line.replace(' ', "").chars().count());
    }

    #[test]
    fn a_value_too_long_for_its_row_starts_on_the_first_row_not_under_it() {
        let line = format!("Sidecar image:    {}", "x".repeat(30));
        let rows = wrap_line(&line, 40);
        assert!(rows[0].starts_with("Sidecar image:    xxxx"), "{rows:?}");
    }

    #[test]
    fn rows_keep_their_line_and_sideways_scroll_counts_columns() {
        let lines = vec![
            "short".to_owned(),
            "a much longer line than fits".to_owned(),
        ];
        let wrapped = rows(&lines, 10, true);
        assert_eq!(wrapped[0].line, 0);
        assert!(wrapped[1..].iter().all(|r| r.line == 1) && wrapped.len() > 2);
        assert_eq!(rows(&lines, 10, false).len(), 2);
        assert_eq!(from_column("≠img abc", 1), "img abc");
    }
}
