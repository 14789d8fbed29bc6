//! The help's legend explains every symbol a fleet cell shows, under the column that shows it,
//! and the help is wrapped to the terminal: nothing cut, at 80 or 200 columns.
use super::probe_tests::probed_fleet;
use super::tests::render;
use super::theme::Theme;
use crate::app::tests::press;
use crate::fleet::columns::{Form, cell, title};
use crate::fleet::sort::Column;

/// The legend's lines as text.
fn legend_lines() -> Vec<String> {
    let lines: Vec<String> = super::help::lines(&Theme::plain(), &[])
        .iter()
        .map(|line| line.to_string())
        .collect();
    let at = lines
        .iter()
        .position(|l| l == "Symbols")
        .expect("a Symbols section");
    lines[at + 1..].to_vec()
}

/// The symbols of one cell: its words holding a non-ASCII character, a count as `×N`; a
/// name's mark with the name written `name`, so the mark after it is told from a phase.
fn symbols_of(column: Column, text: &str, name: &str) -> Vec<String> {
    if column == Column::Name {
        let marked = text.replacen(name, "name", 1);
        return if marked.is_ascii() {
            Vec::new()
        } else {
            vec![marked]
        };
    }
    text.split_whitespace()
        .filter(|word| !word.is_ascii())
        .map(|word| {
            let digits = word.trim_start_matches(|c: char| !c.is_ascii_digit());
            if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                word.replace(digits, "N")
            } else {
                word.to_owned()
            }
        })
        .collect()
}

#[test]
fn every_symbol_a_fleet_cell_shows_is_in_the_legend_under_its_column() {
    let model = probed_fleet();
    let legend = legend_lines();
    let mut missing = Vec::new();
    for row in model.fleet.rows() {
        for column in Column::ALL {
            for form in [Form::Full, Form::Compact] {
                let text = cell(column, form, row, model.now);
                for symbol in symbols_of(column, &text, &row.key.name) {
                    let titles = [title(column, Form::Full), title(column, Form::Compact)];
                    let explained = legend.iter().any(|line| {
                        line.split_whitespace()
                            .collect::<Vec<_>>()
                            .join(" ")
                            .contains(&symbol)
                            && titles.iter().any(|t| line.contains(t))
                    });
                    if !explained && !missing.contains(&(titles[0], symbol.clone())) {
                        missing.push((titles[0], symbol));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in the legend: {missing:?}\n{legend:#?}"
    );
}

/// The rows inside the help popup's borders.
fn popup_rows(screen: &str) -> Vec<String> {
    let rows: Vec<Vec<char>> = screen.lines().map(|r| r.chars().collect()).collect();
    let Some(top) = rows.iter().position(|r| r.contains(&'┌')) else {
        return Vec::new();
    };
    let left = rows[top].iter().position(|c| *c == '┌').unwrap_or(0);
    let right = rows[top].iter().position(|c| *c == '┐').unwrap_or(0);
    rows[top + 1..]
        .iter()
        .take_while(|r| !r.contains(&'└'))
        .map(|r| {
            r.get(left + 1..right.min(r.len()))
                .unwrap_or(&[])
                .iter()
                .collect()
        })
        .collect()
}

/// Every row of the help, scrolled through to its end, joined: a description cut at the
/// popup's edge does not read whole.
fn whole_help(width: u16, height: u16) -> String {
    let mut model = probed_fleet();
    press(&mut model, "?");
    let mut seen: Vec<String> = Vec::new();
    let mut last = String::new();
    for _ in 0..300 {
        let screen = render(&mut model, width, height, &Theme::plain());
        if screen == last {
            break;
        }
        let rows = popup_rows(&screen);
        // Each step scrolls one row: the new last row is the one not seen yet.
        if seen.is_empty() {
            seen.extend(rows);
        } else if let Some(row) = rows.last() {
            seen.push(row.clone());
        }
        last = screen;
        press(&mut model, "j");
    }
    seen.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_help_wraps_instead_of_cutting_at_80_and_200_columns() {
    for (width, height) in [(80, 24), (200, 50)] {
        let help = whole_help(width, height);
        for text in [
            "filter: text, re:REGEX, mode:seed, phase:Failed, chain:ID, drift, running:IMAGE, stale-image",
            "next container: seid, sei-sidecar, kube-rbac-proxy, then the pod's others and init containers",
            "a seed's last outside probe (P): reachable, failed, being probed (not its phase)",
        ] {
            assert!(
                help.contains(text),
                "{width}x{height}: {text:?} cut\n{help}"
            );
        }
    }
}

#[test]
fn the_legend_at_80x24_and_200x50() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = probed_fleet();
        press(&mut model, "?");
        for _ in 0..200 {
            press(&mut model, "j");
        }
        insta::assert_snapshot!(
            format!("legend_{width}x{height}"),
            render(&mut model, width, height, &Theme::plain())
        );
    }
}
