//! User plugins (`[[plugins]]`, `config::plugins`): their keys bound on the fleet and the node
//! screen (a key that screen or every screen already binds is refused at load, one line among
//! the config file's problems), the help overlay's lines, and a run: the selected (or open)
//! node's variables, the read-only refusal (unless the plugin says `read_only = true`), the y/n
//! question (`confirm`), then either the effects run it detached with its output in a file
//! under the state directory (`background`), or the loop, the terminal's one owner, gives the
//! terminal to it and takes it back when it ends (`run`). Never through a shell unless the
//! plugin asks (`shell = true`); the variables are in the process's environment either way.
use std::path::PathBuf;
use std::sync::Arc;

use super::model::{Cmd, Flash, Model, Msg, Screen};
use crate::config::plugins::{Plugin, PluginScope, PluginVars};
use crate::keymap::{Action, Context, Key, KeyCode};

/// One plugin run, as the effects or the loop start it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginRun {
    pub name: String,
    /// The program and its arguments, never read by a shell unless the program is `sh`.
    pub argv: Vec<String>,
    /// `NODE`, `NAMESPACE`, … for the process's environment.
    pub env: Vec<(String, String)>,
    /// Background: where its output goes (`None`: nowhere, no state directory).
    pub log: Option<PathBuf>,
}

/// Why a plugin did not run to its end.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PluginRunError {
    #[error("cannot start {program}: {error}")]
    Start {
        program: String,
        error: Arc<std::io::Error>,
    },
    #[error("cannot open its output file {path}: {error}")]
    Log {
        path: String,
        error: Arc<std::io::Error>,
    },
}

/// Binds the config's plugins on the model's keymap, refusing (one problem line each) a key
/// the screen or every screen already binds, or an earlier plugin's.
pub fn configure(model: &mut Model, plugins: &[Plugin]) {
    model.plugins.clear();
    for plugin in plugins {
        let mut taken = None;
        for scope in &plugin.scopes {
            let context = context_of(*scope);
            if let Some(action) = model.keymap.action(context, plugin.key) {
                taken = Some((*scope, action));
                break;
            }
        }
        if let Some((scope, action)) = taken {
            let what = match action {
                Action::Plugin(i) => model
                    .plugins
                    .get(usize::from(i))
                    .map_or("another plugin".to_owned(), |p| {
                        format!("plugin {:?}", p.name)
                    }),
                other => format!("{other:?}"),
            };
            model.settings.problems.push(format!(
                "config file: line {}: plugin {:?}: key {} is taken on the {} screen by {what}; plugin left out",
                plugin.line,
                plugin.name,
                plugin.key,
                scope.name()
            ));
            continue;
        }
        let Ok(index) = u16::try_from(model.plugins.len()) else {
            break;
        };
        for scope in &plugin.scopes {
            model
                .keymap
                .bind(context_of(*scope), plugin.key, Action::Plugin(index));
        }
        model.plugins.push(plugin.clone());
    }
}

fn context_of(scope: PluginScope) -> Context {
    match scope {
        PluginScope::Fleet => Context::Fleet,
        PluginScope::Node => Context::Node,
    }
}

/// The help overlay's lines: (key, what it runs).
pub fn help_lines(model: &Model) -> Vec<(String, String)> {
    model
        .plugins
        .iter()
        .map(|plugin| (plugin.key.to_string(), plugin.help()))
        .collect()
}

/// The variables of node `key` as the fleet knows it.
pub fn vars(model: &Model, key: &crate::fleet::store::ObjectKey) -> PluginVars {
    let row = model.fleet.row(key);
    PluginVars {
        node: key.name.to_string(),
        namespace: key.namespace.to_string(),
        context: key.context.to_string(),
        // The StatefulSet's one pod.
        pod: format!("{}-0", key.name),
        chain: row.map(|r| r.chain_id.clone()).unwrap_or_default(),
        image: row.map(|r| r.image.clone()).unwrap_or_default(),
    }
}

fn flash(model: &mut Model, text: String, error: bool) {
    model.flash = Some(Flash { text, error });
}

/// The plugin's key: refused in read-only mode unless it says `read_only`, asked first when it
/// says `confirm`, else started.
pub fn on_key(model: &mut Model, index: u16) -> Vec<Cmd> {
    let Some(plugin) = model.plugins.get(usize::from(index)).cloned() else {
        return Vec::new();
    };
    let key = match &model.screen {
        Screen::Node(key) => Some(key.clone()),
        Screen::Fleet => model.selected_key().cloned(),
    };
    let Some(key) = key else {
        flash(
            model,
            format!("plugin {:?}: no node selected", plugin.name),
            true,
        );
        return Vec::new();
    };
    if model.settings.guard.is_read_only() && !plugin.read_only {
        let text = format!(
            "read-only mode: plugin {:?} refused, nothing run (read_only = true in its [[plugins]] entry allows it)",
            plugin.name
        );
        flash(model, text, true);
        return Vec::new();
    }
    let vars = vars(model, &key);
    let argv = match plugin.argv(&vars) {
        Ok(argv) => argv,
        Err(error) => {
            flash(model, format!("plugin {:?}: {error}", plugin.name), true);
            return Vec::new();
        }
    };
    let log = plugin
        .background
        .then(|| log_path(&plugin.name, model.now))
        .flatten();
    let run = PluginRun {
        name: plugin.name.clone(),
        argv,
        env: vars
            .pairs()
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect(),
        log,
    };
    if plugin.confirm {
        let text = format!(
            "run plugin {:?}: {}? y runs it, any other key does not",
            plugin.name,
            run.argv.join(" ")
        );
        flash(model, text, false);
        model.plugin_pending = Some((run, plugin.background));
        return Vec::new();
    }
    start(model, run, plugin.background)
}

/// The key after a plugin's question: `y` starts it, any other says it was not run.
pub fn on_answer(model: &mut Model, key: Key) -> Vec<Cmd> {
    let Some((run, background)) = model.plugin_pending.take() else {
        return Vec::new();
    };
    model.dirty = true;
    if key == Key::plain(KeyCode::Char('y')) {
        return start(model, run, background);
    }
    flash(model, format!("plugin {:?} not run", run.name), false);
    Vec::new()
}

fn start(model: &mut Model, run: PluginRun, background: bool) -> Vec<Cmd> {
    if !background {
        flash(model, format!("running plugin {:?} …", run.name), false);
        model.foreground = Some(run);
        return Vec::new();
    }
    let output = match &run.log {
        Some(path) => format!("its output in {}", path.display()),
        None => "its output discarded (no state directory)".to_owned(),
    };
    flash(
        model,
        format!("plugin {:?} started in the background, {output}", run.name),
        false,
    );
    vec![Cmd::RunPlugin(run)]
}

/// `<state dir>/plugins/<name>-<UTC time>.log`, the name made a file name.
fn log_path(name: &str, now: jiff::Timestamp) -> Option<PathBuf> {
    let file: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let at = now.strftime("%Y%m%dT%H%M%SZ");
    Some(
        crate::config::paths::state_dir()?
            .join("plugins")
            .join(format!("{file}-{at}.log")),
    )
}

/// A plugin ended (or could not start): said on the status line.
pub fn on_ended(
    model: &mut Model,
    name: &str,
    log: Option<&std::path::Path>,
    outcome: Result<Option<i32>, PluginRunError>,
) {
    let output = log.map_or(String::new(), |p| format!("; output in {}", p.display()));
    let (text, error) = match outcome {
        Ok(Some(0)) => (format!("plugin {name:?} exited 0{output}"), false),
        Ok(Some(code)) => (format!("plugin {name:?} exited {code}{output}"), true),
        Ok(None) => (
            format!("plugin {name:?} was ended by a signal{output}"),
            true,
        ),
        Err(error) => (format!("plugin {name:?}: {error}"), true),
    };
    flash(model, text, error);
    model.dirty = true;
}

/// Runs a background plugin to its end (its output in its log file), killed if the console
/// ends first; answers `Msg::PluginEnded`.
pub async fn background(run: PluginRun, tx: tokio::sync::mpsc::Sender<Msg>) {
    let outcome = spawn_background(&run).await;
    let _ = tx
        .send(Msg::PluginEnded {
            name: run.name,
            log: run.log,
            outcome,
        })
        .await;
}

async fn spawn_background(run: &PluginRun) -> Result<Option<i32>, PluginRunError> {
    let (stdout, stderr) = match &run.log {
        Some(path) => {
            let failed = |error| PluginRunError::Log {
                path: path.display().to_string(),
                error: Arc::new(error),
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(failed)?;
            }
            let file = std::fs::File::create(path).map_err(failed)?;
            let copy = file.try_clone().map_err(failed)?;
            (
                std::process::Stdio::from(file),
                std::process::Stdio::from(copy),
            )
        }
        None => (std::process::Stdio::null(), std::process::Stdio::null()),
    };
    let mut child = command(run)?
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| started(run, error))?;
    let status = child.wait().await.map_err(|error| started(run, error))?;
    Ok(status.code())
}

fn started(run: &PluginRun, error: std::io::Error) -> PluginRunError {
    PluginRunError::Start {
        program: run.argv.first().cloned().unwrap_or_default(),
        error: Arc::new(error),
    }
}

fn command(run: &PluginRun) -> Result<tokio::process::Command, PluginRunError> {
    let Some((program, args)) = run.argv.split_first() else {
        return Err(started(run, std::io::ErrorKind::NotFound.into()));
    };
    let mut command = tokio::process::Command::new(program);
    command.args(args).envs(run.env.iter().map(|(k, v)| (k, v)));
    Ok(command)
}

/// Runs a foreground plugin on the terminal the loop gave back, waiting for its end.
pub fn foreground(run: &PluginRun) -> Result<Option<i32>, PluginRunError> {
    let Some((program, args)) = run.argv.split_first() else {
        return Err(started(run, std::io::ErrorKind::NotFound.into()));
    };
    let status = std::process::Command::new(program)
        .args(args)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .status()
        .map_err(|error| started(run, error))?;
    Ok(status.code())
}
