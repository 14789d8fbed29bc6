//! Keys, the default bindings per screen context, and the help text generated from the same table.
//!
//! `Key` is our own type so the update loop never sees a terminal library's event types; the
//! terminal adapter converts crossterm events into it.
use std::fmt;

/// A key without modifiers other than control (shift is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCode {
    Char(char),
    Enter,
    Esc,
    Backspace,
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Delete,
}

/// One keystroke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key { code, ctrl: false }
    }

    pub const fn char(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            ctrl: true,
        }
    }

    /// Parses the notation used in the binding table and the help text: `q`, `?`, `enter`,
    /// `esc`, `ctrl-c`, `pgdn`, `shift-tab`, `space`.
    pub fn parse(text: &str) -> Result<Key, KeyParseError> {
        let (ctrl, rest) = match text.strip_prefix("ctrl-") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let code = match rest {
            "enter" => KeyCode::Enter,
            "esc" => KeyCode::Esc,
            "backspace" => KeyCode::Backspace,
            "tab" => KeyCode::Tab,
            "shift-tab" => KeyCode::BackTab,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pgup" => KeyCode::PageUp,
            "pgdn" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "del" => KeyCode::Delete,
            "space" => KeyCode::Char(' '),
            single => {
                let mut chars = single.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyCode::Char(c),
                    _ => return Err(KeyParseError(text.to_owned())),
                }
            }
        };
        Ok(Key { code, ctrl })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Up => f.write_str("up"),
            KeyCode::Down => f.write_str("down"),
            KeyCode::Left => f.write_str("left"),
            KeyCode::Right => f.write_str("right"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::Delete => f.write_str("del"),
        }
    }
}

/// A key name the parser does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key {0:?} (examples: q, ?, enter, esc, ctrl-c, pgdn, shift-tab)")]
pub struct KeyParseError(pub String);

/// Where the key was pressed; each context has its own bindings plus the global ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    /// Available everywhere except while typing in an input line.
    Global,
    Fleet,
    Node,
    Help,
    /// The action dialogs (prompt, preview, confirmation, progress).
    Dialog,
    /// The read-only text viewer (describe, YAML, events).
    Viewer,
    /// The logs view (`l`).
    Logs,
    /// The fleet doctor (`D`, `:doctor`).
    Doctor,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Fleet => "Fleet",
            Context::Node => "Node",
            Context::Help => "Help",
            Context::Dialog => "Action dialogs",
            Context::Viewer => "Viewer (d, y, :events, :journal)",
            Context::Logs => "Logs (l)",
            Context::Doctor => "Doctor (D, :doctor)",
        }
    }
}

/// What a key asks for, independent of which key it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    ToggleHelp,
    Back,
    Open,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    StartFilter,
    StartCommand,
    ClearFilter,
    SortNextColumn,
    SortPreviousColumn,
    SortReverse,
    NextPane,
    /// The node screen's pane before the focused one (shift-tab).
    PreviousPane,
    SwitchTheme,
    ToggleMark,
    ShowAction,
    /// Probe the selected seed from outside now (its P2P handshake).
    ProbeSeed,
    Confirm,
    Cancel,
    NextField,
    PreviousField,
    Suspend,
    Describe,
    Yaml,
    SearchNext,
    SearchPrevious,
    ClearMarks,
    ToggleDryRuns,
    Logs,
    NextContainer,
    PreviousLogs,
    /// The logs view: each line with its time (`kubectl logs --timestamps`), or without.
    ToggleTimestamps,
    /// The logs view: type a regex; only the lines matching it are shown (`&`, as in less).
    StartLineFilter,
    /// The logs view: write the lines shown to a file under the state dir.
    SaveLogs,
    ToggleWrap,
    /// Scroll the viewer's unwrapped lines sideways.
    ScrollLeft,
    ScrollRight,
    /// Open the fleet doctor: every finding, ranked.
    Doctor,
    /// The doctor's fix of the selected finding: the action's preview, or the probe.
    Fix,
    /// Copy the selected thing to the terminal's clipboard (OSC 52): a node's name, a seed's
    /// peer string, the viewer's line, a finding's fix command.
    Copy,
    /// Copy the selected fleet row as text.
    CopyRow,
    /// Run user plugin N of the config file's `[[plugins]]` (bound where its scopes say).
    Plugin(u16),
    /// An operator action the console registers with its own keys and help (`rollout`,
    /// `pause`, …): its name in the config file. The core lists none; the console hands their
    /// bindings in.
    Operator(&'static str),
}

/// One row of the binding table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    pub context: Context,
    pub keys: &'static [&'static str],
    pub action: Action,
    pub help: &'static str,
}

/// The default bindings. The help overlay is generated from this table, so it cannot drift.
#[rustfmt::skip]
pub const DEFAULT_BINDINGS: &[Binding] = &[
    Binding { context: Context::Global, keys: &["q", "ctrl-c"], action: Action::Quit, help: "quit" },
    Binding { context: Context::Global, keys: &["?"], action: Action::ToggleHelp, help: "toggle this help" },
    Binding { context: Context::Global, keys: &[":"], action: Action::StartCommand, help: "command (tab): ns [NAME|all], ctx, events, journal, rollouts, doctor, dump [FILE], q" },
    Binding { context: Context::Global, keys: &["D"], action: Action::Doctor, help: "fleet doctor: every problem, ranked, with evidence and fix" },
    Binding { context: Context::Global, keys: &["ctrl-z"], action: Action::Suspend, help: "suspend to the shell (fg resumes)" },
    Binding { context: Context::Global, keys: &["T"], action: Action::SwitchTheme, help: "switch theme: dark, light, plain (saved to the config file)" },
    Binding { context: Context::Fleet, keys: &["j", "down"], action: Action::Down, help: "next node" },
    Binding { context: Context::Fleet, keys: &["k", "up"], action: Action::Up, help: "previous node" },
    Binding { context: Context::Fleet, keys: &["pgdn", "ctrl-f"], action: Action::PageDown, help: "next page" },
    Binding { context: Context::Fleet, keys: &["pgup", "ctrl-b"], action: Action::PageUp, help: "previous page" },
    Binding { context: Context::Fleet, keys: &["g", "home"], action: Action::Top, help: "first node" },
    Binding { context: Context::Fleet, keys: &["G", "end"], action: Action::Bottom, help: "last node" },
    Binding { context: Context::Fleet, keys: &["enter"], action: Action::Open, help: "open node detail" },
    Binding { context: Context::Fleet, keys: &["/"], action: Action::StartFilter, help: "filter: text, re:REGEX, mode:seed, phase:Failed, chain:ID, drift, running:IMAGE, stale-image" },
    Binding { context: Context::Fleet, keys: &["esc"], action: Action::ClearFilter, help: "clear filter" },
    Binding { context: Context::Fleet, keys: &[">", "s"], action: Action::SortNextColumn, help: "sort by next column" },
    Binding { context: Context::Fleet, keys: &["<"], action: Action::SortPreviousColumn, help: "sort by previous column" },
    Binding { context: Context::Fleet, keys: &["S"], action: Action::SortReverse, help: "reverse sort order" },
    Binding { context: Context::Fleet, keys: &["space"], action: Action::ToggleMark, help: "mark/unmark node and move to the next (image rollout of the marked nodes)" },
    Binding { context: Context::Fleet, keys: &["ctrl-space"], action: Action::ClearMarks, help: "clear every mark (esc too, once the filter is clear)" },
    Binding { context: Context::Fleet, keys: &["p"], action: Action::ShowAction, help: "show the running or last action" },
    Binding { context: Context::Fleet, keys: &["P"], action: Action::ProbeSeed, help: "probe the selected seed from outside now (P2P handshake)" },
    Binding { context: Context::Fleet, keys: &["d"], action: Action::Describe, help: "describe the selected node" },
    Binding { context: Context::Fleet, keys: &["y"], action: Action::Yaml, help: "YAML of the selected node" },
    Binding { context: Context::Fleet, keys: &["l"], action: Action::Logs, help: "container logs of the selected node (seid first)" },
    Binding { context: Context::Fleet, keys: &["c"], action: Action::Copy, help: "copy the selected node's name to the clipboard (OSC 52)" },
    Binding { context: Context::Fleet, keys: &["C"], action: Action::CopyRow, help: "copy the selected row, as the table shows it, to the clipboard" },
    Binding { context: Context::Node, keys: &["esc", "backspace"], action: Action::Back, help: "back to fleet" },
    Binding { context: Context::Node, keys: &["tab"], action: Action::NextPane, help: "next pane (scrolls to it)" },
    Binding { context: Context::Node, keys: &["shift-tab"], action: Action::PreviousPane, help: "previous pane (scrolls to it)" },
    Binding { context: Context::Node, keys: &["j", "down"], action: Action::Down, help: "scroll down a line" },
    Binding { context: Context::Node, keys: &["k", "up"], action: Action::Up, help: "scroll up a line" },
    Binding { context: Context::Node, keys: &["pgdn", "ctrl-f"], action: Action::PageDown, help: "next page" },
    Binding { context: Context::Node, keys: &["pgup", "ctrl-b"], action: Action::PageUp, help: "previous page" },
    Binding { context: Context::Node, keys: &["g", "home"], action: Action::Top, help: "top" },
    Binding { context: Context::Node, keys: &["G", "end"], action: Action::Bottom, help: "bottom" },
    Binding { context: Context::Node, keys: &["p"], action: Action::ShowAction, help: "show the running or last action" },
    Binding { context: Context::Node, keys: &["P"], action: Action::ProbeSeed, help: "probe this seed from outside now (P2P handshake)" },
    Binding { context: Context::Node, keys: &["d"], action: Action::Describe, help: "describe this node" },
    Binding { context: Context::Node, keys: &["y"], action: Action::Yaml, help: "YAML of this node" },
    Binding { context: Context::Node, keys: &["l"], action: Action::Logs, help: "container logs of this node (seid first)" },
    Binding { context: Context::Node, keys: &["c"], action: Action::Copy, help: "copy a seed's peer string (ID@host:port) when shown, else the node's name" },
    Binding { context: Context::Dialog, keys: &["enter", "y"], action: Action::Confirm, help: "next field, preview, confirm (y only where nothing is typed)" },
    Binding { context: Context::Dialog, keys: &["esc"], action: Action::Cancel, help: "cancel before execution; hide progress while it runs" },
    Binding { context: Context::Dialog, keys: &["tab"], action: Action::NextField, help: "next field" },
    Binding { context: Context::Dialog, keys: &["shift-tab"], action: Action::PreviousField, help: "previous field" },
    Binding { context: Context::Dialog, keys: &["j", "down"], action: Action::Down, help: "scroll down (next field in a form)" },
    Binding { context: Context::Dialog, keys: &["k", "up"], action: Action::Up, help: "scroll up (previous field in a form)" },
    Binding { context: Context::Viewer, keys: &["esc", "q"], action: Action::Back, help: "close the viewer" },
    Binding { context: Context::Viewer, keys: &["j", "down"], action: Action::Down, help: "scroll down" },
    Binding { context: Context::Viewer, keys: &["k", "up"], action: Action::Up, help: "scroll up" },
    Binding { context: Context::Viewer, keys: &["pgdn", "ctrl-f", "space"], action: Action::PageDown, help: "next page" },
    Binding { context: Context::Viewer, keys: &["pgup", "ctrl-b"], action: Action::PageUp, help: "previous page" },
    Binding { context: Context::Viewer, keys: &["g", "home"], action: Action::Top, help: "top" },
    Binding { context: Context::Viewer, keys: &["G", "end"], action: Action::Bottom, help: "bottom" },
    Binding { context: Context::Viewer, keys: &["w"], action: Action::ToggleWrap, help: "wrap long lines (on when it opens) / cut them" },
    Binding { context: Context::Viewer, keys: &["h", "left"], action: Action::ScrollLeft, help: "scroll left (lines not wrapped)" },
    Binding { context: Context::Viewer, keys: &["l", "right"], action: Action::ScrollRight, help: "scroll right (lines not wrapped)" },
    Binding { context: Context::Viewer, keys: &["/"], action: Action::StartFilter, help: "search (any case)" },
    Binding { context: Context::Viewer, keys: &["n"], action: Action::SearchNext, help: "next match" },
    Binding { context: Context::Viewer, keys: &["N"], action: Action::SearchPrevious, help: "previous match" },
    Binding { context: Context::Viewer, keys: &["a"], action: Action::ToggleDryRuns, help: "journal: show or hide dry runs" },
    Binding { context: Context::Viewer, keys: &["c"], action: Action::Copy, help: "copy the line at the top of the viewer (/ brings a match there)" },
    Binding { context: Context::Logs, keys: &["esc", "q"], action: Action::Back, help: "close the logs" },
    Binding { context: Context::Logs, keys: &["c"], action: Action::NextContainer, help: "next container: seid, sei-sidecar, kube-rbac-proxy, then the pod's others and init containers" },
    Binding { context: Context::Logs, keys: &["p"], action: Action::PreviousLogs, help: "the previous container's logs (after a restart) / back to the running one" },
    Binding { context: Context::Logs, keys: &["w"], action: Action::ToggleWrap, help: "wrap long lines" },
    Binding { context: Context::Logs, keys: &["t"], action: Action::ToggleTimestamps, help: "timestamps on each line (the API server's, as kubectl logs --timestamps) / off" },
    Binding { context: Context::Logs, keys: &["j", "down"], action: Action::Down, help: "scroll down" },
    Binding { context: Context::Logs, keys: &["k", "up"], action: Action::Up, help: "scroll up (stops following)" },
    Binding { context: Context::Logs, keys: &["pgdn", "ctrl-f", "space"], action: Action::PageDown, help: "next page" },
    Binding { context: Context::Logs, keys: &["pgup", "ctrl-b"], action: Action::PageUp, help: "previous page" },
    Binding { context: Context::Logs, keys: &["g", "home"], action: Action::Top, help: "oldest line kept" },
    Binding { context: Context::Logs, keys: &["G", "end"], action: Action::Bottom, help: "newest line, following again" },
    Binding { context: Context::Logs, keys: &["/"], action: Action::StartFilter, help: "search (any case)" },
    Binding { context: Context::Logs, keys: &["n"], action: Action::SearchNext, help: "next match" },
    Binding { context: Context::Logs, keys: &["N"], action: Action::SearchPrevious, help: "previous match" },
    Binding { context: Context::Logs, keys: &["C"], action: Action::Copy, help: "copy the newest line (following) or the top line shown (paused)" },
    Binding { context: Context::Logs, keys: &["&"], action: Action::StartLineFilter, help: "filter: only the lines matching a regex (any case unless it has a capital; empty: all)" },
    Binding { context: Context::Logs, keys: &["ctrl-s"], action: Action::SaveLogs, help: "save the lines shown to a file under the state dir (path shown)" },
    Binding { context: Context::Doctor, keys: &["esc", "q"], action: Action::Back, help: "close the doctor" },
    Binding { context: Context::Doctor, keys: &["j", "down"], action: Action::Down, help: "next finding" },
    Binding { context: Context::Doctor, keys: &["k", "up"], action: Action::Up, help: "previous finding" },
    Binding { context: Context::Doctor, keys: &["g", "home"], action: Action::Top, help: "first (worst) finding" },
    Binding { context: Context::Doctor, keys: &["G", "end"], action: Action::Bottom, help: "last finding" },
    Binding { context: Context::Doctor, keys: &["enter"], action: Action::Open, help: "go to the finding's node" },
    Binding { context: Context::Doctor, keys: &["f"], action: Action::Fix, help: "the fix: the rollout preview or the seed probe it names" },
    Binding { context: Context::Doctor, keys: &["c"], action: Action::Copy, help: "copy the selected finding's fix command to the clipboard" },
    Binding { context: Context::Help, keys: &["esc", "?"], action: Action::ToggleHelp, help: "close help" },
    Binding { context: Context::Help, keys: &["j", "down"], action: Action::Down, help: "scroll help down" },
    Binding { context: Context::Help, keys: &["k", "up"], action: Action::Up, help: "scroll help up" },
];

/// Resolved bindings, ready for lookup.
#[derive(Debug, Clone)]
pub struct Keymap {
    entries: Vec<(Context, Key, Action)>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap::from_table(DEFAULT_BINDINGS).expect("default bindings parse")
    }
}

impl Keymap {
    /// Parses a binding table; fails on the first key name it does not know.
    pub fn from_table(table: &[Binding]) -> Result<Keymap, KeyParseError> {
        let mut entries = Vec::new();
        for binding in table {
            for key in binding.keys {
                entries.push((binding.context, Key::parse(key)?, binding.action));
            }
        }
        Ok(Keymap { entries })
    }

    /// Replaces every key of `action` in `context` by `keys` (config file overrides). A key
    /// taken from another action in the same context moves to `action`.
    pub fn rebind(&mut self, context: Context, action: Action, keys: &[Key]) {
        self.entries
            .retain(|(c, k, a)| !(*c == context && (*a == action || keys.contains(k))));
        for key in keys {
            self.entries.push((context, *key, action));
        }
    }

    /// Binds `key` to `action` in `context` besides the table's keys (a user plugin's; the caller
    /// refuses a key already bound there).
    pub fn bind(&mut self, context: Context, key: Key, action: Action) {
        self.entries.push((context, key, action));
    }

    /// The action bound to `key` in `context`; the context's own bindings win over global ones.
    /// The help overlay only sees its own bindings and quit.
    pub fn action(&self, context: Context, key: Key) -> Option<Action> {
        let find = |ctx: Context| {
            self.entries
                .iter()
                .find(|(c, k, _)| *c == ctx && *k == key)
                .map(|(_, _, action)| *action)
        };
        find(context).or_else(|| match context {
            Context::Help => find(Context::Global).filter(|a| *a == Action::Quit),
            // Dialogs own their keys; quitting is ctrl-c there.
            Context::Dialog => None,
            _ => find(Context::Global),
        })
    }
}

/// A section of the help overlay: a context title and its (keys, description) lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpSection {
    pub title: &'static str,
    pub lines: Vec<(String, &'static str)>,
}

/// Help text generated from a binding table, one section per context, in table order.
pub fn help_sections(table: &[Binding]) -> Vec<HelpSection> {
    let mut sections: Vec<HelpSection> = Vec::new();
    for binding in table {
        let title = binding.context.title();
        let line = (binding.keys.join(", "), binding.help);
        match sections.iter_mut().find(|s| s.title == title) {
            Some(section) => section.lines.push(line),
            None => sections.push(HelpSection {
                title,
                lines: vec![line],
            }),
        }
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_default_key() {
        for binding in DEFAULT_BINDINGS {
            for text in binding.keys {
                let key = Key::parse(text).expect("parses");
                assert_eq!(key.to_string(), *text);
            }
        }
    }

    #[test]
    fn rejects_unknown_key_names() {
        assert_eq!(
            Key::parse("hyper-x"),
            Err(KeyParseError("hyper-x".to_owned()))
        );
    }

    #[test]
    fn context_bindings_win_over_global_and_help_only_quits() {
        let keymap = Keymap::default();
        assert_eq!(
            keymap.action(Context::Fleet, Key::char('q')),
            Some(Action::Quit)
        );
        assert_eq!(
            keymap.action(Context::Node, Key::plain(KeyCode::Esc)),
            Some(Action::Back)
        );
        assert_eq!(
            keymap.action(Context::Fleet, Key::plain(KeyCode::Esc)),
            Some(Action::ClearFilter)
        );
        assert_eq!(keymap.action(Context::Help, Key::char(':')), None);
        assert_eq!(
            keymap.action(Context::Help, Key::ctrl('c')),
            Some(Action::Quit)
        );
        assert_eq!(keymap.action(Context::Fleet, Key::char('x')), None);
        // Dialogs own their keys: nothing global leaks in.
        assert_eq!(keymap.action(Context::Dialog, Key::char('q')), None);
        assert_eq!(
            keymap.action(Context::Dialog, Key::char('y')),
            Some(Action::Confirm)
        );
    }

    #[test]
    fn help_lists_every_binding_once_grouped_by_context() {
        let sections = help_sections(DEFAULT_BINDINGS);
        let titles: Vec<_> = sections.iter().map(|s| s.title).collect();
        assert_eq!(
            titles,
            [
                "Everywhere",
                "Fleet",
                "Node",
                "Action dialogs",
                "Viewer (d, y, :events, :journal)",
                "Logs (l)",
                "Doctor (D, :doctor)",
                "Help"
            ]
        );
        let lines: usize = sections.iter().map(|s| s.lines.len()).sum();
        assert_eq!(lines, DEFAULT_BINDINGS.len());
        assert!(
            sections[1]
                .lines
                .contains(&("enter".to_owned(), "open node detail"))
        );
    }
}
