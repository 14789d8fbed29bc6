//! Wrapping with a hanging indent, so a long value continues under its own column instead of at
//! column 0 (ratatui's `Wrap` starts every continuation at the left edge, outside the grid).
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Where a line's continuations start: under its second span when it has several (a key column,
/// a task's columns, an event's header), that column lies within two thirds of the width and the
/// longest word after it fits there; else under its first non-blank character, plus two.
fn indent_of(line: &Line<'_>, width: usize) -> usize {
    let hang = |text: &str| text.len() - text.trim_start().len() + 2;
    let indent = match line.spans.as_slice() {
        [first, rest @ ..] if !rest.is_empty() => {
            let column = first.content.width();
            let longest_word = rest
                .iter()
                .flat_map(|span| span.content.split(' '))
                .map(UnicodeWidthStr::width)
                .max()
                .unwrap_or(0);
            // Past two thirds of the width the value column leaves too little room: the
            // line's own indent reads better than a column that aligns with nothing.
            if column + longest_word <= width && column <= width * 2 / 3 {
                column
            } else {
                hang(&first.content)
            }
        }
        [only] => hang(&only.content),
        _ => 0,
    };
    indent.min(width * 2 / 3)
}

/// `lines` wrapped to `width` columns: breaks at the last space that fits (a word longer than
/// the room is cut), continuations indented under the line's value column, styles kept.
pub fn hanging(lines: Vec<Line<'static>>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    if width < 8 {
        return lines;
    }
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        let indent = indent_of(&line, width);
        let line_style = line.style;
        let cells: Vec<(char, Style)> = line
            .spans
            .iter()
            .flat_map(|span| {
                let style = line_style.patch(span.style);
                span.content.chars().map(move |c| (c, style))
            })
            .collect();
        let mut start = 0;
        let mut first = true;
        while start < cells.len() {
            let room = if first { width } else { width - indent };
            // The first line breaks only inside its value, never in the padding before it.
            let keep = if first { indent } else { 0 };
            let (end, next) = break_at(&cells[start..], room, keep);
            let mut spans = Vec::new();
            if !first {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            spans.extend(styled_runs(&cells[start..start + end]));
            out.push(Line::from(spans).style(line_style));
            start += next;
            // Continuations do not start with the spaces the break left.
            while !first && start < cells.len() && cells[start].0 == ' ' {
                start += 1;
            }
            if first {
                first = false;
                while start < cells.len() && cells[start].0 == ' ' {
                    start += 1;
                }
            }
        }
    }
    out
}

/// How many cells of `cells` fit in `room` columns (`end`), and where the next line starts; a
/// space in the first `keep` columns is no place to break.
fn break_at(cells: &[(char, Style)], room: usize, keep: usize) -> (usize, usize) {
    let mut used = 0;
    let mut last_space = None;
    for (i, (c, _)) in cells.iter().enumerate() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            return match last_space {
                Some(space) if space > 0 => (space, space + 1),
                _ => (i.max(1), i.max(1)),
            };
        }
        if *c == ' ' && used >= keep {
            last_space = Some(i);
        }
        used += w;
    }
    (cells.len(), cells.len())
}

fn styled_runs(cells: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for (c, s) in cells {
        if style.is_some_and(|current| current != *s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(*s);
        text.push(*c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_long_value_continues_under_its_column_not_at_the_left_edge() {
        let line = Line::from(vec![
            Span::raw("  image            "),
            Span::styled(
                "ghcr.io/sei-protocol/sei:v6.4.0 and then some more words here too",
                Style::new().fg(Color::Green),
            ),
        ]);
        let wrapped = hanging(vec![line], 50);
        assert_eq!(
            texts(&wrapped),
            vec![
                "  image            ghcr.io/sei-protocol/sei:v6.4.0".to_owned(),
                "                   and then some more words here".to_owned(),
                "                   too".to_owned(),
            ]
        );
        assert!(wrapped[1].spans[1].style.fg == Some(Color::Green));
    }

    #[test]
    fn a_single_span_line_hangs_two_past_its_own_indent() {
        let line = Line::raw("    the message of an event that is much too long for the pane");
        assert_eq!(
            texts(&hanging(vec![line], 30)),
            vec![
                "    the message of an event".to_owned(),
                "      that is much too long".to_owned(),
                "      for the pane".to_owned(),
            ]
        );
    }

    #[test]
    fn a_word_too_long_for_the_value_column_hangs_under_the_line_instead() {
        let line = Line::from(vec![
            Span::raw("✓ Ready   True   Updated   6m  "),
            Span::raw("image drift: spec ghcr.io/sei-protocol/sei:v6.4.0, current"),
        ]);
        let wrapped = texts(&hanging(vec![line], 50));
        assert_eq!(wrapped[1], "  ghcr.io/sei-protocol/sei:v6.4.0, current");
    }

    #[test]
    fn lines_that_fit_and_tiny_widths_are_left_alone() {
        let line = Line::raw("short");
        assert_eq!(texts(&hanging(vec![line.clone()], 40)), vec!["short"]);
        assert_eq!(texts(&hanging(vec![line], 4)), vec!["short"]);
    }

    #[test]
    fn the_indent_never_takes_more_than_two_thirds_of_the_width() {
        let line = Line::from(vec![
            Span::raw(" ".repeat(30)),
            Span::raw("a b c d e f g h"),
        ]);
        let wrapped = hanging(vec![line], 40);
        assert!(wrapped.iter().skip(1).all(|l| l.width() <= 40));
        let second = &texts(&wrapped)[1];
        assert_eq!(second.len() - second.trim_start().len(), 26, "{second:?}");
    }
}
