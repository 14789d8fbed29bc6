//! The logs view (`l`): one container of the node's pod `<node>-0`, streamed by a background
//! task (`Cmd::StreamLogs`) into a bounded buffer here, following the end while the view is
//! at the bottom. Pure state and keys; the stream lives in `effects`.
//!
//! Triage: `t` asks the stream again with timestamps (`kubectl logs --timestamps`); `&` keeps
//! only the lines matching a regex (`grep::LineFilter`, as `logs --grep`), beside `/` search;
//! `ctrl-s` writes the lines shown to a file under the state dir (`log_save`), the path in the
//! footer.
use std::collections::VecDeque;

use super::model::{Cmd, Flash, Model};
use crate::fleet::store::ObjectKey;
use crate::grep::LineFilter;
use crate::keymap::{Action, Key, KeyCode};
use crate::ports::logs::LogRequest;

/// Lines kept (and asked for when the view opens): older ones are dropped from the front.
pub const LOG_BUFFER_LINES: usize = 5_000;

/// The containers a node's pod renders, in the order `c` cycles them when the pod is not
/// listed yet.
pub const NODE_CONTAINERS: [&str; 3] = ["seid", "sei-sidecar", "kube-rbac-proxy"];

/// Where the stream stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogStatus {
    Opening,
    /// Lines come as they are written.
    Following,
    /// The stream closed (the previous container's log is complete, or the container stopped).
    Ended,
    /// Why there are no (more) lines, as one line.
    Failed(String),
}

/// The logs view's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsView {
    pub node: ObjectKey,
    pub container: String,
    /// The previous (terminated) container's logs instead of the running one's.
    pub previous: bool,
    pub wrap: bool,
    pub lines: VecDeque<String>,
    /// Lines dropped from the front to keep the buffer bounded.
    pub dropped: u64,
    /// Index of the first line shown when not following.
    pub scroll: usize,
    /// The view stays at the end as lines arrive (left by scrolling up, back with `G`).
    pub at_end: bool,
    pub status: LogStatus,
    pub search: String,
    pub typing: bool,
    /// Lines carry the API server's timestamps (`t`).
    pub timestamps: bool,
    /// Only the lines matching it are shown (`&`).
    pub filter: Option<LineFilter>,
    /// The filter line being typed (`&`), compiled on enter.
    pub filter_typing: bool,
    pub filter_text: String,
    /// Line numbers since the stream opened (`dropped` + index) of the lines the filter keeps,
    /// oldest first; empty without a filter.
    pub matching: VecDeque<u64>,
    /// Messages of older streams (another container, a reopened view) are dropped.
    pub epoch: u64,
}

impl LogsView {
    pub fn pod(&self) -> String {
        format!("{}-0", self.node.name)
    }

    pub fn title(&self) -> String {
        let which = if self.previous { "previous " } else { "" };
        let state = match &self.status {
            LogStatus::Opening => "opening",
            LogStatus::Following if self.at_end => "following",
            LogStatus::Following => "paused (G follows)",
            LogStatus::Ended => "ended",
            LogStatus::Failed(_) => "failed",
        };
        format!(
            "logs {}/{} · {which}{} · {state}{}",
            self.node.namespace,
            self.pod(),
            self.container,
            if self.wrap { " · wrap" } else { "" }
        ) + if self.timestamps {
            " · timestamps"
        } else {
            ""
        }
    }

    /// The lines the view shows: those the filter keeps, or all.
    pub fn shown(&self) -> Vec<&String> {
        match &self.filter {
            Some(_) => self
                .matching
                .iter()
                .filter_map(|n| usize::try_from(n - self.dropped).ok())
                .filter_map(|i| self.lines.get(i))
                .collect(),
            None => self.lines.iter().collect(),
        }
    }

    /// How many lines the view shows.
    pub fn shown_len(&self) -> usize {
        match &self.filter {
            Some(_) => self.matching.len(),
            None => self.lines.len(),
        }
    }

    /// Keeps only the lines `filter` matches (all when `None`), following the end again.
    fn set_filter(&mut self, filter: Option<LineFilter>) {
        self.matching = match &filter {
            Some(filter) => (self.dropped..)
                .zip(&self.lines)
                .filter(|(_, line)| filter.keeps(line))
                .map(|(n, _)| n)
                .collect(),
            None => VecDeque::new(),
        };
        self.filter = filter;
        self.scroll = 0;
        self.at_end = true;
    }

    fn request(&self) -> LogRequest {
        LogRequest {
            namespace: self.node.namespace.to_string(),
            pod: self.pod(),
            container: self.container.clone(),
            // A terminated container writes no more.
            follow: !self.previous,
            previous: self.previous,
            since_seconds: None,
            tail_lines: i64::try_from(LOG_BUFFER_LINES).ok(),
            timestamps: self.timestamps,
        }
    }

    /// Appends lines, dropping the oldest beyond the bound; a reader scrolled up keeps the
    /// same lines in view.
    pub fn push(&mut self, lines: Vec<String>) {
        for line in lines {
            let number = self.dropped + self.lines.len() as u64;
            if self.filter.as_ref().is_some_and(|f| f.keeps(&line)) {
                self.matching.push_back(number);
            }
            self.lines.push_back(line);
            if self.lines.len() > LOG_BUFFER_LINES {
                self.lines.pop_front();
                let gone = self.dropped;
                self.dropped += 1;
                // The scroll counts shown lines: it moves only when a shown line went.
                let shown_gone = match &self.filter {
                    Some(_) => self.matching.front() == Some(&gone),
                    None => true,
                };
                if shown_gone {
                    if self.filter.is_some() {
                        self.matching.pop_front();
                    }
                    self.scroll = self.scroll.saturating_sub(1);
                }
            }
        }
    }
}

/// The containers of the node's pod as the detail watch lists them (the node's three first,
/// then any other, then the init containers), or the rendered three before it has.
pub fn containers(model: &Model, node: &ObjectKey) -> Vec<String> {
    let key = ObjectKey::new(node.namespace.clone(), format!("{}-0", node.name))
        .in_context(&node.context);
    let mut out: Vec<String> = NODE_CONTAINERS.iter().map(|c| (*c).to_owned()).collect();
    if let Some(spec) = model.fleet.pod(&key).and_then(|pod| pod.spec.as_ref()) {
        let init = spec.init_containers.iter().flatten();
        for container in spec.containers.iter().chain(init) {
            if !out.contains(&container.name) {
                out.push(container.name.clone());
            }
        }
    }
    out
}

/// Starts streaming `view`'s container under a new epoch, emptying the buffer.
fn restart(model: &mut Model) -> Vec<Cmd> {
    model.next_logs_epoch += 1;
    let epoch = model.next_logs_epoch;
    let Some(view) = model.logs.as_mut() else {
        return Vec::new();
    };
    view.epoch = epoch;
    view.lines.clear();
    view.matching.clear();
    view.dropped = 0;
    view.scroll = 0;
    view.at_end = true;
    view.status = LogStatus::Opening;
    vec![Cmd::StreamLogs {
        epoch,
        context: view.node.context.to_string(),
        request: view.request(),
    }]
}

/// `l`: opens the logs of `node`'s seid container.
pub fn open(model: &mut Model, node: ObjectKey) -> Vec<Cmd> {
    model.logs = Some(LogsView {
        node,
        container: NODE_CONTAINERS[0].to_owned(),
        previous: false,
        wrap: false,
        lines: VecDeque::new(),
        dropped: 0,
        scroll: 0,
        at_end: true,
        status: LogStatus::Opening,
        search: String::new(),
        typing: false,
        timestamps: false,
        filter: None,
        filter_typing: false,
        filter_text: String::new(),
        matching: VecDeque::new(),
        epoch: 0,
    });
    restart(model)
}

/// Lines of the stream of `epoch`.
pub fn on_lines(model: &mut Model, epoch: u64, lines: Vec<String>) {
    if let Some(view) = model.logs.as_mut().filter(|v| v.epoch == epoch) {
        // The first lines, also after a refusal the stream asked again past.
        if matches!(view.status, LogStatus::Opening | LogStatus::Failed(_)) {
            view.status = LogStatus::Following;
        }
        view.push(lines);
        model.dirty = true;
    }
}

/// The stream of `epoch` closed, or could not be opened (`error`).
pub fn on_ended(model: &mut Model, epoch: u64, error: Option<String>) {
    if let Some(view) = model.logs.as_mut().filter(|v| v.epoch == epoch) {
        view.status = match error {
            Some(error) => LogStatus::Failed(error),
            None => LogStatus::Ended,
        };
        model.dirty = true;
    }
}

/// Lines of the body: the frame less a header of up to three lines, the view's two rules and
/// the footer.
fn page(model: &Model) -> usize {
    usize::from(model.size.1.saturating_sub(6)).max(1)
}

/// A key of the logs view; returns the commands it asks for (`None`: not the view's key).
pub fn on_action(model: &mut Model, action: Action) -> Option<Vec<Cmd>> {
    let page = page(model);
    let view = model.logs.as_mut()?;
    let last = view.shown_len().saturating_sub(page);
    // Scrolling starts from where the followed end showed it.
    let top = if view.at_end { last } else { view.scroll };
    let scroll_to = |view: &mut LogsView, line: usize| {
        view.scroll = line.min(last);
        view.at_end = view.scroll >= last;
    };
    match action {
        Action::Back => {
            model.logs = None;
            return Some(vec![Cmd::StopLogs]);
        }
        Action::Down => scroll_to(view, top + 1),
        Action::Up => scroll_to(view, top.saturating_sub(1)),
        Action::PageDown => scroll_to(view, top + page),
        Action::PageUp => scroll_to(view, top.saturating_sub(page)),
        Action::Top => scroll_to(view, 0),
        Action::Bottom => scroll_to(view, last),
        Action::ToggleWrap => view.wrap = !view.wrap,
        Action::StartFilter => {
            view.typing = true;
            view.search.clear();
        }
        Action::SearchNext => jump(model, true, 1),
        Action::SearchPrevious => jump(model, false, 1),
        Action::NextContainer => {
            let node = view.node.clone();
            let all = containers(model, &node);
            let view = model.logs.as_mut()?;
            let at = all.iter().position(|c| *c == view.container);
            let next = at.map_or(0, |i| (i + 1) % all.len());
            view.container = all[next].clone();
            return Some(restart(model));
        }
        Action::PreviousLogs => {
            view.previous = !view.previous;
            return Some(restart(model));
        }
        Action::ToggleTimestamps => {
            view.timestamps = !view.timestamps;
            return Some(restart(model));
        }
        Action::StartLineFilter => {
            view.filter_typing = true;
            view.filter_text = view
                .filter
                .as_ref()
                .map(|f| f.pattern().to_owned())
                .unwrap_or_default();
        }
        Action::SaveLogs => return Some(super::log_save::save(model)),
        _ => return None,
    }
    Some(Vec::new())
}

/// Moves to the next (or previous) line holding the search, `skip` lines on from the top.
fn jump(model: &mut Model, forward: bool, skip: usize) {
    let page = page(model);
    let Some(view) = model.logs.as_mut() else {
        return;
    };
    let count = view.shown_len();
    let last = count.saturating_sub(page);
    let top = if view.at_end { last } else { view.scroll };
    let from = if forward {
        top + skip
    } else {
        (top + count).saturating_sub(skip)
    };
    let search = view.search.clone();
    let found = super::viewer::find(&view.shown(), &search, from % count.max(1), forward);
    match found {
        Some(line) => {
            view.scroll = line.min(last);
            // A match stays in view while more lines arrive.
            view.at_end = false;
            model.flash = None;
        }
        None if !search.is_empty() => {
            model.flash = Some(Flash {
                text: format!("{search:?} not found in the last {count} lines"),
                error: true,
            });
        }
        None => {}
    }
}

/// A key while the search (or filter) line is typed: enter jumps to the first match (applies
/// the filter), esc drops it.
pub fn on_search_key(model: &mut Model, key: Key) {
    let Some(view) = model.logs.as_mut() else {
        return;
    };
    if view.filter_typing {
        return on_filter_key(model, key);
    }
    match key.code {
        KeyCode::Enter => {
            view.typing = false;
            jump(model, true, 0);
        }
        KeyCode::Esc => {
            view.typing = false;
            view.search.clear();
        }
        KeyCode::Backspace => {
            view.search.pop();
        }
        KeyCode::Char(c) if !key.ctrl => view.search.push(c),
        _ => {}
    }
}

/// A key while the filter line is typed: enter keeps the matching lines (an empty line shows
/// all again), esc leaves the filter as it was; a pattern that does not compile is one line in
/// the footer and changes nothing.
fn on_filter_key(model: &mut Model, key: Key) {
    let Some(view) = model.logs.as_mut() else {
        return;
    };
    match key.code {
        KeyCode::Enter => {
            let text = view.filter_text.trim().to_owned();
            let filter = match (!text.is_empty()).then(|| LineFilter::new(&text)) {
                None => None,
                Some(Ok(filter)) => Some(filter),
                Some(Err(error)) => {
                    model.flash = Some(Flash {
                        text: error.to_string(),
                        error: true,
                    });
                    return;
                }
            };
            view.filter_typing = false;
            view.set_filter(filter);
            model.flash = None;
        }
        KeyCode::Esc => view.filter_typing = false,
        KeyCode::Backspace => {
            view.filter_text.pop();
        }
        // ctrl-u clears the line, as in every other line the console reads.
        KeyCode::Char('u') if key.ctrl => view.filter_text.clear(),
        KeyCode::Char(c) if !key.ctrl => view.filter_text.push(c),
        _ => {}
    }
}
