//! Copying out (`c`, `C`): what the selected thing is on each screen, and the status line that
//! says exactly what was copied. The text goes to the terminal's clipboard through OSC 52, which
//! works over SSH: `update` only leaves it in `Model::clipboard`, and the loop (`run`), the
//! terminal's one owner, writes the sequence before the next frame.
//!
//! What `c` copies: on the fleet the selected node's name (`C`: its row with the table's header,
//! as plain text); on the node screen a seed's peer string (`ID@host:port`) when the console
//! shows one, else the node's name; in the viewer the line at its top (`/` brings a match
//! there); in the logs (`C`, as `c` picks the container) the newest line while following, else
//! the top line shown; in the doctor the selected finding's fix command.
use super::model::{Flash, Model, Screen};
use crate::fleet::columns::{self, Form};
use crate::fleet::detail::SeedPeer;
use crate::fleet::rows::FleetRow;
use crate::fleet::sort::Column;

/// What a copy takes: the text and what it is, in words, for the status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub what: String,
    pub text: String,
}

/// Why `c` copied nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NothingToCopy {
    #[error("no finding selected")]
    NoFinding,
    #[error("this finding's fix is no command: {0}")]
    NoCommand(String),
    #[error("no log line yet")]
    NoLogLine,
    #[error("the viewer is empty")]
    EmptyViewer,
    #[error("no node selected")]
    NoNode,
}

/// The most of the copied text the status line quotes.
const QUOTED: usize = 48;

/// `c` (or `C`, `whole_row`): leaves the selected thing for the loop to copy and says what it
/// is, or why nothing was copied.
pub fn copy(model: &mut Model, whole_row: bool) {
    let flash = match selected(model, whole_row) {
        Ok(copied) => {
            let text = status_line(&copied);
            model.clipboard = Some(copied.text);
            Flash { text, error: false }
        }
        Err(why) => Flash {
            text: format!("nothing copied: {why}"),
            error: true,
        },
    };
    model.flash = Some(flash);
}

/// `copied to the clipboard (OSC 52): node name "arctic-1-0"`; a long text is quoted in part,
/// with its length.
pub fn status_line(copied: &Copied) -> String {
    let chars = copied.text.chars().count();
    let lines = copied.text.lines().count();
    let quoted = if chars > QUOTED || lines > 1 {
        let first: String = copied
            .text
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(QUOTED)
            .collect();
        let size = if lines > 1 {
            format!("{lines} lines, {chars} characters")
        } else {
            format!("{chars} characters")
        };
        format!("\"{first}…\" ({size})")
    } else {
        format!("{:?}", copied.text)
    };
    format!(
        "sent to the terminal's clipboard (OSC 52): {} {quoted}",
        copied.what
    )
}

/// What `c` (`C`: `whole_row`) would copy on the screen in front, or why nothing.
pub fn selected(model: &Model, whole_row: bool) -> Result<Copied, NothingToCopy> {
    if model.doctor.open {
        let finding = model
            .doctor
            .findings
            .get(model.doctor.selected)
            .ok_or(NothingToCopy::NoFinding)?;
        return match &finding.fix.command {
            Some(command) => Ok(Copied {
                what: format!("the fix command of {}", finding.class.as_str()),
                text: command.clone(),
            }),
            None => Err(NothingToCopy::NoCommand(finding.fix.summary.clone())),
        };
    }
    if let Some(view) = &model.logs {
        let line = if view.at_end {
            view.lines.back()
        } else {
            view.lines.get(view.scroll)
        };
        let line = line.ok_or(NothingToCopy::NoLogLine)?;
        let which = if view.at_end { "newest" } else { "top" };
        return Ok(Copied {
            what: format!("the {which} log line of {}", view.container),
            text: line.clone(),
        });
    }
    if let Some(viewer) = &model.viewer {
        let lines = super::viewer::lines(model, &viewer.kind);
        let rows = super::viewer::rows(model, viewer);
        let top = rows.get(viewer.scroll).map_or(0, |row| row.line);
        let line = lines.get(top).ok_or(NothingToCopy::EmptyViewer)?;
        return Ok(Copied {
            what: format!("line {} of the viewer", top + 1),
            text: line.clone(),
        });
    }
    match &model.screen {
        Screen::Node(key) => {
            if let Some(SeedPeer::Known { peer, .. }) =
                model.detail.as_ref().and_then(|d| d.seed_peer.as_ref())
            {
                return Ok(Copied {
                    what: format!("the seed peer of {}", key.name),
                    text: peer.clone(),
                });
            }
            Ok(Copied {
                what: "node name".to_owned(),
                text: key.name.to_string(),
            })
        }
        Screen::Fleet => {
            let key = model.selected_key().ok_or(NothingToCopy::NoNode)?;
            if whole_row {
                let row = model.fleet.row(key).ok_or(NothingToCopy::NoNode)?;
                return Ok(Copied {
                    what: format!("the row of {}", key.name),
                    text: table_text(model, [row]),
                });
            }
            Ok(Copied {
                what: "node name".to_owned(),
                text: key.name.to_string(),
            })
        }
    }
}

/// The fleet table's columns as the wide screen shows them (the cluster with several, the
/// namespace over all namespaces, the health once read), full cells.
fn shown_columns(model: &Model) -> Vec<Column> {
    Column::ALL
        .into_iter()
        .filter(|c| *c != Column::Namespace || model.scope.namespace.is_none())
        .filter(|c| *c != Column::Cluster || model.multi_cluster())
        .filter(|c| *c != Column::Health || model.fleet.has_health())
        .collect()
}

/// `rows` as plain text under the table's header, columns aligned by two spaces, no trailing
/// blanks.
pub fn table_text<'a>(model: &Model, rows: impl IntoIterator<Item = &'a FleetRow>) -> String {
    let columns = shown_columns(model);
    let mut lines: Vec<Vec<String>> = vec![
        columns
            .iter()
            .map(|c| columns::title(*c, Form::Full).to_owned())
            .collect(),
    ];
    for row in rows {
        lines.push(
            columns
                .iter()
                .map(|c| columns::cell(*c, Form::Full, row, model.now))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| {
            lines
                .iter()
                .map(|cells| cells[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for cells in &lines {
        let mut line = String::new();
        for (cell, width) in cells.iter().zip(&widths) {
            line.push_str(cell);
            let pad = width.saturating_sub(cell.chars().count()) + 2;
            line.extend(std::iter::repeat_n(' ', pad));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
