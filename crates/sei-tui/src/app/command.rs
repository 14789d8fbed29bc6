//! The `:` command palette: commands, their completion (tab) and the checks that refuse a
//! context or namespace that does not exist, naming the ones that do.
use super::errors::ContextsError;
use super::model::{Cmd, Flash, Model, Scope};
use super::update::switch_scope;
use super::viewer::{Viewer, ViewerKind};

/// The commands, in the order completion offers them.
pub const COMMANDS: [&str; 8] = [
    "ns", "ctx", "events", "journal", "rollouts", "doctor", "dump", "q",
];

/// At most this many names are listed in a message.
const LISTED: usize = 12;

fn list(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        text.push_str(&format!(", … ({} in all)", names.len()));
    }
    if text.is_empty() {
        text.push_str("none");
    }
    text
}

fn flash(model: &mut Model, text: String, error: bool) {
    model.flash = Some(Flash { text, error });
}

/// What `word` may complete to after `command` (the command itself when `command` is empty).
fn candidates(model: &Model, command: Option<&str>) -> Vec<String> {
    match command {
        None => COMMANDS.iter().map(|c| (*c).to_owned()).collect(),
        Some("ctx" | "context") => model.contexts.clone(),
        Some("ns" | "namespace") => {
            let mut names = match &model.namespaces {
                Some(Ok(names)) => names.clone(),
                _ => Vec::new(),
            };
            names.insert(0, "all".to_owned());
            names
        }
        Some(_) => Vec::new(),
    }
}

/// Completes the last word of `text` (tab): the one candidate it starts, else the longest
/// common prefix, and the candidates in the footer when several remain.
pub fn complete(model: &mut Model, text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let ends_in_space = text.ends_with(' ');
    let (command, partial) = match (words.as_slice(), ends_in_space) {
        ([], _) => (None, ""),
        ([word], false) => (None, *word),
        ([command], true) => (Some(*command), ""),
        ([command, word], false) => (Some(*command), *word),
        _ => return text.to_owned(),
    };
    let matching: Vec<String> = candidates(model, command)
        .into_iter()
        .filter(|c| c.starts_with(partial))
        .collect();
    let prefix = command.map_or(String::new(), |c| format!("{c} "));
    match matching.as_slice() {
        [] => {
            flash(model, format!("no completion for {partial:?}"), true);
            text.to_owned()
        }
        [one] => format!("{prefix}{one} "),
        several => {
            let common = several.iter().skip(1).fold(several[0].clone(), |acc, c| {
                acc.chars()
                    .zip(c.chars())
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| a)
                    .collect()
            });
            flash(model, list(several), false);
            format!("{prefix}{common}")
        }
    }
}

/// Runs a typed command.
pub fn run(model: &mut Model, text: &str) -> Vec<Cmd> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["q" | "quit" | "q!"] => {
            model.quit = true;
            Vec::new()
        }
        ["events" | "ev" | "event"] => {
            model.viewer = Some(Viewer::new(ViewerKind::Events));
            // The events replace the logs view (and its stream).
            if model.logs.take().is_some() {
                return vec![Cmd::StopLogs];
            }
            Vec::new()
        }
        ["rollouts" | "rollout" | "ro"] => {
            model.viewer = Some(Viewer::new(ViewerKind::Rollouts));
            Vec::new()
        }
        ["dump"] => super::dump::dump(model, None),
        ["dump", file] => super::dump::dump(model, Some(file)),
        ["doctor" | "dr"] => {
            super::doctor::open(model);
            Vec::new()
        }
        ["journal" | "j", args @ ..] => match super::journal_view::parse(args, model.now) {
            Ok(filter) => {
                model.viewer = Some(Viewer::new(ViewerKind::Journal(filter)));
                // Read again at every open: other consoles of this machine append to it.
                model.journal = None;
                vec![Cmd::ReadJournal]
            }
            Err(error) => {
                flash(model, error.to_string(), true);
                Vec::new()
            }
        },
        ["ns" | "namespace"] => {
            let text = match &model.namespaces {
                Some(Ok(names)) => format!("namespaces: {}; :ns NAME or :ns all", list(names)),
                Some(Err(why)) => format!("cannot list namespaces ({why}); :ns NAME or :ns all"),
                None => "namespaces not listed yet; :ns NAME or :ns all".to_owned(),
            };
            flash(model, text, false);
            if model.namespaces.is_none() {
                return vec![Cmd::ListNamespaces {
                    context: model.scope.context().to_owned(),
                }];
            }
            Vec::new()
        }
        ["ns" | "namespace", "all" | "-A" | "*"] => {
            let scope = Scope {
                contexts: model.scope.contexts.clone(),
                namespace: None,
            };
            switch_scope(model, scope)
        }
        ["ns" | "namespace", name] => {
            let unchecked = match &model.namespaces {
                Some(Ok(names)) if !names.iter().any(|n| n == name) => {
                    let text = format!("no namespace {name:?}; namespaces: {}", list(names));
                    flash(model, text, true);
                    return Vec::new();
                }
                Some(Ok(_)) => None,
                Some(Err(why)) => Some(why.to_string()),
                None => Some("not listed yet".to_owned()),
            };
            let scope = Scope {
                contexts: model.scope.contexts.clone(),
                namespace: Some((*name).to_owned()),
            };
            let cmds = switch_scope(model, scope);
            if let Some(why) = unchecked {
                let text = format!(
                    "switched to namespace {name} unchecked: cannot list namespaces ({why})"
                );
                flash(model, text, false);
            }
            cmds
        }
        ["ctx" | "context"] => {
            let text = format!(
                "contexts: {} (watching {}); :ctx NAME, :ctx A,B or :ctx all",
                list(&model.contexts),
                model.scope.contexts_label()
            );
            flash(model, text, false);
            Vec::new()
        }
        ["ctx" | "context", names] => {
            let contexts = match parse_contexts(&model.contexts, names) {
                Ok(contexts) => contexts,
                Err(error) => {
                    flash(model, error.to_string(), true);
                    return Vec::new();
                }
            };
            let scope = Scope {
                contexts,
                namespace: model.scope.namespace.clone(),
            };
            // Another cluster has other namespaces: listed again at the next `:ns`, once the
            // scope's watches have connected to it.
            model.namespaces = None;
            switch_scope(model, scope)
        }
        _ => {
            let text = format!(
                "unknown command {text:?}: try {} (tab completes)",
                COMMANDS.join(", ")
            );
            flash(model, text, true);
            Vec::new()
        }
    }
}

/// The contexts of `:ctx A,B` (or `all`: every context of the kubeconfig), in the order typed,
/// each once; the error names what is not in the kubeconfig and what is.
fn parse_contexts(known: &[String], names: &str) -> Result<Vec<String>, ContextsError> {
    if names == "all" {
        if known.is_empty() {
            return Err(ContextsError::NoContexts);
        }
        return Ok(known.to_vec());
    }
    let mut contexts: Vec<String> = Vec::new();
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !known.iter().any(|c| c == name) {
            return Err(ContextsError::Unknown {
                name: name.to_owned(),
                known: list(known),
            });
        }
        if !contexts.iter().any(|c| c == name) {
            contexts.push(name.to_owned());
        }
    }
    if contexts.is_empty() {
        return Err(ContextsError::NoneNamed);
    }
    Ok(contexts)
}
