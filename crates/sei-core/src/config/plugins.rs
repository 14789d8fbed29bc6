//! `[[plugins]]`: a team's own commands bound to a key of the fleet or the node screen, k9s'
//! `plugins.yaml` in the console's config file.
//!
//! ```toml
//! [[plugins]]
//! name = "seid shell"
//! key = "ctrl-e"
//! scopes = ["fleet", "node"]          # where the key works (default: both)
//! command = "kubectl"
//! args = ["--context", "$CONTEXT", "-n", "$NAMESPACE", "exec", "-it", "$POD", "-c", "seid", "--", "sh"]
//! confirm = false                     # ask y/n first
//! background = false                  # true: run detached, output to a file under the state dir
//! read_only = true                    # may run in read-only mode (default: refused there)
//! shell = false                       # true: `sh -c COMMAND`, args as $1…; default: no shell
//! ```
//!
//! The variables `$NODE`, `$NAMESPACE`, `$CONTEXT`, `$POD`, `$CHAIN`, `$IMAGE` (also
//! `${NODE}`, `$$` for a dollar) are replaced in `command` and each of `args`, which are passed
//! as a list, never through a shell. With `shell = true` nothing is replaced: the same names are
//! in the environment of `sh -c COMMAND`, so the shell expands them itself and a value is never
//! read as shell syntax. A plugin with a problem (an unknown variable, a key that does not
//! parse, no command) is named with its line and left out; the console refuses a key its screen
//! already binds (`app::plugins`).
use crate::keymap::Key;

/// Where a plugin's key works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginScope {
    /// On the fleet, for the selected node.
    Fleet,
    /// On the node screen, for its node.
    Node,
}

impl PluginScope {
    pub fn name(self) -> &'static str {
        match self {
            PluginScope::Fleet => "fleet",
            PluginScope::Node => "node",
        }
    }
}

/// One `[[plugins]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    pub name: String,
    pub key: Key,
    pub scopes: Vec<PluginScope>,
    pub command: String,
    pub args: Vec<String>,
    pub confirm: bool,
    pub background: bool,
    pub read_only: bool,
    pub shell: bool,
    /// The entry's line in the file, for messages.
    pub line: usize,
}

/// The variables a plugin's command and arguments may name, in the order the docs list them.
pub const VARIABLES: [&str; 6] = ["NODE", "NAMESPACE", "CONTEXT", "POD", "CHAIN", "IMAGE"];

/// The values of [`VARIABLES`] for one node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PluginVars {
    pub node: String,
    pub namespace: String,
    pub context: String,
    pub pod: String,
    pub chain: String,
    pub image: String,
}

impl PluginVars {
    /// The value of variable `name`, if it is one.
    pub fn get(&self, name: &str) -> Option<&str> {
        Some(match name {
            "NODE" => &self.node,
            "NAMESPACE" => &self.namespace,
            "CONTEXT" => &self.context,
            "POD" => &self.pod,
            "CHAIN" => &self.chain,
            "IMAGE" => &self.image,
            _ => return None,
        })
    }

    /// `(NAME, value)` of every variable, for a shell plugin's environment.
    pub fn pairs(&self) -> Vec<(&'static str, &str)> {
        VARIABLES
            .iter()
            .filter_map(|name| Some((*name, self.get(name)?)))
            .collect()
    }
}

/// A `$` the substitution does not understand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariableError {
    #[error("unknown variable ${0} (use $NODE, $NAMESPACE, $CONTEXT, $POD, $CHAIN, $IMAGE or $$)")]
    Unknown(String),
    #[error("a lone $ (write $$ for a dollar)")]
    Lone,
    #[error("${{ without its }}")]
    Unclosed,
}

/// `text` with each `$NAME` / `${NAME}` replaced by its value in `vars` and `$$` by `$`.
pub fn substitute(text: &str, vars: &PluginVars) -> Result<String, VariableError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, next) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced.find('}').ok_or(VariableError::Unclosed)?;
            (&braced[..end], &braced[end + 1..])
        } else if let Some(next) = after.strip_prefix('$') {
            out.push('$');
            rest = next;
            continue;
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            return Err(VariableError::Lone);
        }
        let value = vars
            .get(name)
            .ok_or_else(|| VariableError::Unknown(name.to_owned()))?;
        out.push_str(value);
        rest = next;
    }
    out.push_str(rest);
    Ok(out)
}

impl Plugin {
    /// The program and its arguments for `vars`: substituted, or for a shell plugin
    /// `sh -c COMMAND NAME ARGS…` (the values are in its environment, [`PluginVars::pairs`]).
    pub fn argv(&self, vars: &PluginVars) -> Result<Vec<String>, VariableError> {
        if self.shell {
            let mut argv = vec![
                "sh".to_owned(),
                "-c".to_owned(),
                self.command.clone(),
                self.name.clone(),
            ];
            argv.extend(self.args.iter().cloned());
            return Ok(argv);
        }
        std::iter::once(&self.command)
            .chain(&self.args)
            .map(|text| substitute(text, vars))
            .collect()
    }

    /// The help overlay's line: what it runs and how.
    pub fn help(&self) -> String {
        let mut how = Vec::new();
        if self.background {
            how.push("background");
        }
        if self.confirm {
            how.push("asks first");
        }
        if self.read_only {
            how.push("read-only ok");
        }
        if self.shell {
            how.push("shell");
        }
        let scopes: Vec<&str> = self.scopes.iter().map(|s| s.name()).collect();
        let mut line = format!("{}: {}", self.name, self.command);
        for arg in &self.args {
            line.push(' ');
            line.push_str(arg);
        }
        line.push_str(&format!(" [{}", scopes.join(", ")));
        for word in how {
            line.push_str(", ");
            line.push_str(word);
        }
        line.push(']');
        line
    }
}

/// Checks a decoded entry's variables (never with `shell = true`, whose text the shell reads).
pub(super) fn check_variables(plugin: &Plugin) -> Result<(), VariableError> {
    if plugin.shell {
        return Ok(());
    }
    plugin.argv(&PluginVars::default()).map(|_| ())
}

/// The most plugins a config file may declare (each is a key and a help line).
pub const MAX_PLUGINS: usize = 64;

/// Decodes `[[plugins]]`; an entry with a problem is named by its line and left out.
pub(super) fn decode(
    item: &toml_edit::Item,
    text: &str,
    problems: &mut Vec<String>,
) -> Vec<Plugin> {
    let table_line = |table: &toml_edit::Table| {
        table
            .span()
            .map_or(1, |span| super::line_of(text, span.start))
    };
    let Some(array) = item.as_array_of_tables() else {
        let line = item
            .span()
            .map_or(1, |span| super::line_of(text, span.start));
        problems.push(format!(
            "line {line}: plugins must be [[plugins]] tables, not {}; ignored",
            item.type_name()
        ));
        return Vec::new();
    };
    let mut plugins: Vec<Plugin> = Vec::new();
    for table in array.iter() {
        let line = table_line(table);
        if plugins.len() == MAX_PLUGINS {
            problems.push(format!(
                "line {line}: more than {MAX_PLUGINS} plugins; this one and the rest left out"
            ));
            break;
        }
        match entry(table, line) {
            Ok(plugin) if plugins.iter().any(|p| p.name == plugin.name) => problems.push(format!(
                "line {line}: plugin {:?} is declared twice; the second left out",
                plugin.name
            )),
            Ok(plugin) => plugins.push(plugin),
            Err(problem) => problems.push(format!("line {line}: {problem}; plugin left out")),
        }
    }
    plugins
}

/// What is wrong with one `[[plugins]]` entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    #[error("plugin needs {0}")]
    Missing(&'static str),
    #[error("plugin {plugin:?}: {field} must be {expected}")]
    Type {
        plugin: String,
        field: &'static str,
        expected: &'static str,
    },
    #[error("plugin {plugin:?}: {error}")]
    Key {
        plugin: String,
        error: crate::keymap::KeyParseError,
    },
    #[error("plugin {plugin:?}: unknown scope {scope:?} (use fleet, node)")]
    Scope { plugin: String, scope: String },
    #[error("plugin {plugin:?}: unknown field {field}")]
    Field { plugin: String, field: String },
    #[error("plugin {plugin:?}: {error}")]
    Variable {
        plugin: String,
        error: VariableError,
    },
}

fn entry(table: &toml_edit::Table, line: usize) -> Result<Plugin, PluginError> {
    let name = table
        .get("name")
        .and_then(|i| i.as_str())
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or(PluginError::Missing("a name"))?
        .to_owned();
    let wrong = |field: &'static str, expected: &'static str| PluginError::Type {
        plugin: name.clone(),
        field,
        expected,
    };
    let text = |field: &'static str| -> Result<Option<String>, PluginError> {
        match table.get(field) {
            None => Ok(None),
            Some(item) => item
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| wrong(field, "a string")),
        }
    };
    let flag = |field: &'static str| -> Result<bool, PluginError> {
        match table.get(field) {
            None => Ok(false),
            Some(item) => item.as_bool().ok_or_else(|| wrong(field, "true or false")),
        }
    };
    let list = |field: &'static str| -> Result<Option<Vec<String>>, PluginError> {
        let Some(item) = table.get(field) else {
            return Ok(None);
        };
        let array = item
            .as_array()
            .ok_or_else(|| wrong(field, "a list of strings"))?;
        array
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| wrong(field, "a list of strings"))
    };
    for (field, _) in table.iter() {
        if !FIELDS.contains(&field) {
            return Err(PluginError::Field {
                plugin: name.clone(),
                field: field.to_owned(),
            });
        }
    }
    let key_text = text("key")?.ok_or(PluginError::Missing("a key"))?;
    let key = Key::parse(key_text.trim()).map_err(|error| PluginError::Key {
        plugin: name.clone(),
        error,
    })?;
    let command = text("command")?
        .filter(|c| !c.trim().is_empty())
        .ok_or(PluginError::Missing("a command"))?;
    let scopes = match list("scopes")? {
        None => vec![PluginScope::Fleet, PluginScope::Node],
        Some(names) => {
            let mut scopes = Vec::new();
            for scope in names {
                let found = match scope.as_str() {
                    "fleet" => PluginScope::Fleet,
                    "node" => PluginScope::Node,
                    _ => {
                        return Err(PluginError::Scope {
                            plugin: name.clone(),
                            scope,
                        });
                    }
                };
                if !scopes.contains(&found) {
                    scopes.push(found);
                }
            }
            if scopes.is_empty() {
                return Err(wrong("scopes", "fleet, node or both"));
            }
            scopes
        }
    };
    let plugin = Plugin {
        key,
        scopes,
        command,
        args: list("args")?.unwrap_or_default(),
        confirm: flag("confirm")?,
        background: flag("background")?,
        read_only: flag("read_only")?,
        shell: flag("shell")?,
        line,
        name: name.clone(),
    };
    check_variables(&plugin).map_err(|error| PluginError::Variable {
        plugin: name,
        error,
    })?;
    Ok(plugin)
}

/// The fields of a `[[plugins]]` entry.
const FIELDS: [&str; 9] = [
    "name",
    "key",
    "scopes",
    "command",
    "args",
    "confirm",
    "background",
    "read_only",
    "shell",
];
