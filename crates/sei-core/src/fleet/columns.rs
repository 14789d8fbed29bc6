//! The fleet table's cells in a full and a compact form, and the widths they need across the
//! whole scope. Narrow terminals compact and drop columns by priority (see `ui::fleet`); the
//! widths are a high-water mark over every row the scope has shown, so neither typing a filter
//! nor scrolling moves a column.
use jiff::Timestamp;
use unicode_width::UnicodeWidthStr;

use super::rows::FleetRow;
use super::sort::Column;
use super::text;

/// How much of a cell to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    Full,
    /// Short enough for 80 columns: the status mark and the name that explains it survive.
    Compact,
}

impl Form {
    fn index(self) -> usize {
        match self {
            Form::Full => 0,
            Form::Compact => 1,
        }
    }
}

/// Room left for an age that grows with the clock (`0s` is measured, `3h59m` may be shown).
const AGE_RESERVE: usize = 3;

/// Column title in `form`.
pub fn title(column: Column, form: Form) -> &'static str {
    match (column, form) {
        (Column::Cluster, Form::Compact) => "CL",
        (Column::Namespace, Form::Compact) => "NS",
        (Column::Image, Form::Compact) => "DRIFT",
        (Column::Conditions, Form::Compact) => "COND",
        (Column::Warning, Form::Compact) => "WARNING",
        (Column::Health, Form::Compact) => "H",
        (column, _) => column.title(),
    }
}

/// The text of `column` for `row` in `form`; ages against `now`.
pub fn cell(column: Column, form: Form, row: &FleetRow, now: Timestamp) -> String {
    match (column, form) {
        (Column::Cluster, Form::Full) => row.key.context.to_string(),
        (Column::Cluster, Form::Compact) => text::context_short(&row.key.context),
        (Column::Namespace, _) => row.key.namespace.to_string(),
        (Column::Name, _) => name_cell(row),
        (Column::Mode, _) => text::mode_text(row).to_owned(),
        (Column::Chain, _) => row.chain_id.clone(),
        (Column::Phase, Form::Full) => text::verdict_phase_text(row),
        (Column::Phase, Form::Compact) => text::verdict_phase_short(row),
        (Column::Health, Form::Full) => match (row.health, row.seed_cell) {
            (Some(health), _) => health.cell(now),
            (None, Some(seed)) => seed.cell(),
            (None, None) => "-".to_owned(),
        },
        (Column::Health, Form::Compact) => match (row.health, row.seed_cell) {
            (Some(health), _) => health.state.mark(),
            (None, Some(seed)) => seed.mark(),
            (None, None) => "-",
        }
        .to_owned(),
        (Column::Image, Form::Full) => text::image_cell(row),
        (Column::Image, Form::Compact) => text::drift_short(row.drift).to_owned(),
        (Column::Plan, Form::Full) => text::row_plan_cell(row, now),
        (Column::Plan, Form::Compact) => text::row_plan_short(row),
        (Column::Conditions, Form::Full) => text::conditions_cell(row),
        (Column::Conditions, Form::Compact) => text::conditions_short(row),
        (Column::Warning, Form::Full) => text::warning_cell(row, now),
        (Column::Warning, Form::Compact) => text::warning_short(row),
        (Column::Age, _) => text::age(row.created, now),
    }
}

/// The name, then a seed's probe mark, then the mark of fields the port does not know.
fn name_cell(row: &FleetRow) -> String {
    let mut cell = row.key.name.to_string();
    for mark in [row.probe_mark, unknown_fields_mark(row)]
        .into_iter()
        .flatten()
    {
        cell.push(' ');
        cell.push_str(mark);
    }
    cell
}

/// [`super::symbols::UNKNOWN_FIELDS`] when the node carries fields outside the embedded CRD.
fn unknown_fields_mark(row: &FleetRow) -> Option<&'static str> {
    (!row.unknown_fields.is_empty()).then_some(super::symbols::UNKNOWN_FIELDS)
}

/// Widest cell of each column and form over the rows measured so far (titles included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellWidths {
    widths: [[usize; 2]; Column::ALL.len()],
}

impl Default for CellWidths {
    fn default() -> Self {
        let mut widths = [[0; 2]; Column::ALL.len()];
        for (i, column) in Column::ALL.iter().enumerate() {
            for form in [Form::Full, Form::Compact] {
                // Two more for the sort arrow.
                widths[i][form.index()] = title(*column, form).width() + 2;
            }
        }
        CellWidths { widths }
    }
}

impl CellWidths {
    /// The width `column` needs in `form`.
    pub fn get(&self, column: Column, form: Form) -> usize {
        self.widths[column.index()][form.index()]
    }

    /// Widens every column to at least `other`'s width (the fleets of several clusters).
    pub fn widen(&mut self, other: &CellWidths) {
        for (mine, theirs) in self.widths.iter_mut().zip(other.widths.iter()) {
            for (slot, width) in mine.iter_mut().zip(theirs) {
                *slot = (*slot).max(*width);
            }
        }
    }

    /// Widens the columns `row` needs more room in. Ages are measured at zero plus a reserve,
    /// so the clock never widens a column between two changes of the row.
    pub fn grow(&mut self, row: &FleetRow) {
        for (i, column) in Column::ALL.iter().enumerate() {
            for form in [Form::Full, Form::Compact] {
                let width = measure(*column, form, row);
                let slot = &mut self.widths[i][form.index()];
                *slot = (*slot).max(width);
            }
        }
    }
}

fn measure(column: Column, form: Form, row: &FleetRow) -> usize {
    let (at, reserve) = match column {
        Column::Age => (row.created, AGE_RESERVE),
        Column::Plan if form == Form::Full => (
            row.plan
                .as_ref()
                .and_then(|p| p.current.as_ref())
                .and_then(|t| t.submitted_at),
            AGE_RESERVE,
        ),
        Column::Warning if form == Form::Full => {
            (row.warning().and_then(|w| w.last_seen), AGE_RESERVE)
        }
        Column::Health if form == Form::Full => (
            row.health.and_then(|h| h.since),
            super::health::HealthBrief::AGE_RESERVE,
        ),
        _ => (None, 0),
    };
    let now = at.unwrap_or_default();
    let reserve = if at.is_some() { reserve } else { 0 };
    cell(column, form, row, now).width() + reserve
}
