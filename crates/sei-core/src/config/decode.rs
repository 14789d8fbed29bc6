//! Decoding the config document by hand (not serde) so every problem can name its line and the
//! rest of the file still applies.
use toml_edit::{Document, Item, Table};

use super::ThemeName;
use super::keys;
use super::{Config, ExecutorMode, line_of};
use crate::chain::ReferenceUrl;

/// The config and one message per problem (`line N: ...`).
pub(super) fn decode(text: &str, operator_actions: &[&'static str]) -> (Config, Vec<String>) {
    let doc = match Document::parse(text) {
        Ok(doc) => doc,
        Err(err) => {
            let line = err.span().map_or(1, |span| line_of(text, span.start));
            // The parser's message can span several lines; the first one says what is wrong.
            let what = err
                .message()
                .lines()
                .next()
                .unwrap_or("invalid TOML")
                .trim();
            return (
                Config::default(),
                vec![format!(
                    "line {line}: {what}; the file is not valid TOML, using the defaults for every setting"
                )],
            );
        }
    };
    let mut decoder = Decoder {
        text,
        operator_actions,
        problems: Vec::new(),
    };
    let config = decoder.config(doc.as_table());
    (config, decoder.problems)
}

struct Decoder<'t> {
    text: &'t str,
    operator_actions: &'t [&'static str],
    problems: Vec<String>,
}

impl Decoder<'_> {
    fn config(&mut self, root: &Table) -> Config {
        let defaults = Config::default();
        let mut config = Config::default();
        for (name, item) in root.iter() {
            let line = self.line(root, name, item);
            match name {
                "theme" => {
                    config.theme = self.choice(line, name, item, THEMES, defaults.theme);
                }
                "executor" => {
                    config.executor = self.choice(line, name, item, EXECUTORS, defaults.executor);
                }
                "read_only" => match item.as_bool() {
                    Some(value) => config.read_only = value,
                    None => self.wrong_type(line, name, item, "true or false", "false"),
                },
                "require_journal" => match item.as_bool() {
                    Some(value) => config.require_journal = value,
                    None => self.wrong_type(line, name, item, "true or false", "false"),
                },
                "contexts" => self.contexts(line, item, &mut config),
                "fleet" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.fleet(table, &mut config);
                    }
                }
                "waves" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.waves(table, &mut config);
                    }
                }
                "keys" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.keys(table, &mut config);
                    }
                }
                "doctor" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.doctor(table, &mut config);
                    }
                }
                "chains" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.chains(table, &mut config);
                    }
                }
                "notify" => {
                    if let Some(table) = self.table(line, name, item) {
                        self.notify(table, &mut config);
                    }
                }
                "plugins" => {
                    config.plugins = super::plugins::decode(item, self.text, &mut self.problems);
                }
                other => self.unknown(line, other),
            }
        }
        config
    }

    /// `contexts = ["a", "b"]`: the contexts watched at once; a wrong entry is named and the
    /// rest kept.
    fn contexts(&mut self, line: usize, item: &Item, config: &mut Config) {
        let Some(array) = item.as_array() else {
            self.wrong_type(line, "contexts", item, "a list of context names", "[]");
            return;
        };
        for value in array.iter() {
            match value.as_str().map(str::trim) {
                Some(name) if !name.is_empty() => {
                    if !config.contexts.iter().any(|c| c == name) {
                        config.contexts.push(name.to_owned());
                    }
                }
                _ => self.problems.push(format!(
                    "line {line}: contexts holds {}, not a context name; left out",
                    value.to_string().trim()
                )),
            }
        }
    }

    fn fleet(&mut self, table: &Table, config: &mut Config) {
        for (name, item) in table.iter() {
            let line = self.line(table, name, item);
            match name {
                "filter" => match item.as_str() {
                    Some(filter) => config.fleet_filter = filter.to_owned(),
                    None => self.wrong_type(line, "fleet.filter", item, "a string", "\"\""),
                },
                "remember_filter" => match item.as_bool() {
                    Some(on) => config.remember_filter = on,
                    None => self.wrong_type(
                        line,
                        "fleet.remember_filter",
                        item,
                        "true or false",
                        "false",
                    ),
                },
                "filters" => {
                    if let Some(filters) = self.table(line, "fleet.filters", item) {
                        for (context, filter) in filters.iter() {
                            let line = self.line(filters, context, filter);
                            match filter.as_str() {
                                Some(text) => {
                                    config
                                        .saved_filters
                                        .insert(context.to_owned(), text.to_owned());
                                }
                                None => self.wrong_type(
                                    line,
                                    &format!("fleet.filters.{context}"),
                                    filter,
                                    "a string",
                                    "\"\"",
                                ),
                            }
                        }
                    }
                }
                other => self.unknown(line, &format!("fleet.{other}")),
            }
        }
    }

    fn waves(&mut self, table: &Table, config: &mut Config) {
        for (name, item) in table.iter() {
            let line = self.line(table, name, item);
            let (slot, default, minimum) = match name {
                "canary" => (&mut config.waves.canary, 1, 0),
                "batch" => (&mut config.waves.batch, 3, 1),
                other => {
                    self.unknown(line, &format!("waves.{other}"));
                    continue;
                }
            };
            match item.as_integer().and_then(|n| u32::try_from(n).ok()) {
                Some(n) if n >= minimum => *slot = n,
                _ => self.problems.push(format!(
                    "line {line}: waves.{name} must be a whole number of at least {minimum}, not {}; using {default}",
                    shown(item)
                )),
            }
        }
    }

    /// `[doctor.task_minutes]`: `default` and one entry per task type, whole minutes of at
    /// least 1; a wrong value is named and that entry keeps its default.
    fn doctor(&mut self, table: &Table, config: &mut Config) {
        for (name, item) in table.iter() {
            let line = self.line(table, name, item);
            if name != "task_minutes" {
                self.unknown(line, &format!("doctor.{name}"));
                continue;
            }
            let Some(minutes) = self.table(line, "doctor.task_minutes", item) else {
                continue;
            };
            for (kind, value) in minutes.iter() {
                let line = self.line(minutes, kind, value);
                let Some(n) = value
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| *n >= 1)
                else {
                    self.problems.push(format!(
                        "line {line}: doctor.task_minutes.{kind} must be a whole number of minutes of at least 1, not {}; keeping the default",
                        shown(value)
                    ));
                    continue;
                };
                if kind == "default" {
                    config.doctor.default_minutes = n;
                } else {
                    config.doctor.task_minutes.insert(kind.to_owned(), n);
                }
            }
        }
    }

    /// `[chains."CHAIN-ID"]`: `reference_rpc`, an http(s) URL; a bad one is named in one line
    /// and that chain is measured against the fleet, the rest of the file applies.
    fn chains(&mut self, table: &Table, config: &mut Config) {
        for (chain, item) in table.iter() {
            let line = self.line(table, chain, item);
            let Some(settings) = self.table(line, &format!("chains.\"{chain}\""), item) else {
                continue;
            };
            for (name, value) in settings.iter() {
                let line = self.line(settings, name, value);
                if name != "reference_rpc" {
                    self.unknown(line, &format!("chains.\"{chain}\".{name}"));
                    continue;
                }
                match value.as_str().map(ReferenceUrl::parse) {
                    Some(Ok(url)) => {
                        config.reference_rpc.insert(chain.to_owned(), url);
                    }
                    Some(Err(why)) => self.problems.push(format!(
                        "line {line}: chains.\"{chain}\".reference_rpc {} {why}; {chain} is measured against the fleet top",
                        shown(value)
                    )),
                    None => self.wrong_type(
                        line,
                        &format!("chains.\"{chain}\".reference_rpc"),
                        value,
                        "an http(s) URL string",
                        "none (the fleet top)",
                    ),
                }
            }
        }
    }

    /// `[notify]`: `webhooks` (http(s) URLs; a bad one is named and left out),
    /// `timeout_seconds` (1 to 60) and `attempts` (1 to 10); a bad number keeps its default.
    fn notify(&mut self, table: &Table, config: &mut Config) {
        use super::notify::{DEFAULT_ATTEMPTS, MAX_ATTEMPTS, MAX_TIMEOUT_SECONDS, WebhookUrl};
        for (name, item) in table.iter() {
            let line = self.line(table, name, item);
            match name {
                "webhooks" => {
                    let Some(array) = item.as_array() else {
                        self.wrong_type(line, "notify.webhooks", item, "a list of URLs", "[]");
                        continue;
                    };
                    for value in array.iter() {
                        match value.as_str().map(WebhookUrl::parse) {
                            Some(Ok(url)) => {
                                if !config.notify.webhooks.contains(&url) {
                                    config.notify.webhooks.push(url);
                                }
                            }
                            Some(Err(why)) => self.problems.push(format!(
                                "line {line}: notify.webhooks holds a URL that {why}; left out"
                            )),
                            None => self.problems.push(format!(
                                "line {line}: notify.webhooks holds {}, not a URL; left out",
                                value.to_string().trim()
                            )),
                        }
                    }
                }
                "timeout_seconds" => match item
                    .as_integer()
                    .and_then(|n| u64::try_from(n).ok())
                    .filter(|n| (1..=MAX_TIMEOUT_SECONDS).contains(n))
                {
                    Some(n) => config.notify.timeout = std::time::Duration::from_secs(n),
                    None => self.problems.push(format!(
                        "line {line}: notify.timeout_seconds must be a whole number from 1 to {MAX_TIMEOUT_SECONDS}, not {}; using {}",
                        shown(item),
                        super::notify::DEFAULT_TIMEOUT.as_secs()
                    )),
                },
                "attempts" => match item
                    .as_integer()
                    .and_then(|n| u32::try_from(n).ok())
                    .filter(|n| (1..=MAX_ATTEMPTS).contains(n))
                {
                    Some(n) => config.notify.attempts = n,
                    None => self.problems.push(format!(
                        "line {line}: notify.attempts must be a whole number from 1 to {MAX_ATTEMPTS}, not {}; using {DEFAULT_ATTEMPTS}",
                        shown(item)
                    )),
                },
                other => self.unknown(line, &format!("notify.{other}")),
            }
        }
    }

    fn keys(&mut self, table: &Table, config: &mut Config) {
        for (screen, item) in table.iter() {
            let line = self.line(table, screen, item);
            let Some(context) = keys::context_by_name(screen) else {
                self.problems.push(format!(
                    "line {line}: unknown screen keys.{screen} (use one of: {}); ignored",
                    keys::CONTEXT_NAMES.join(", ")
                ));
                continue;
            };
            let Some(bindings) = self.table(line, &format!("keys.{screen}"), item) else {
                continue;
            };
            for (action_name, keys_item) in bindings.iter() {
                let line = self.line(bindings, action_name, keys_item);
                match keys::parse_override(context, action_name, keys_item, self.operator_actions) {
                    Ok(binding) => config.keys.push(binding),
                    Err(problem) => self.problems.push(format!(
                        "line {line}: keys.{screen}.{action_name}: {problem}; keeping the default keys"
                    )),
                }
            }
        }
    }

    fn choice<T: Copy + PartialEq>(
        &mut self,
        line: usize,
        name: &str,
        item: &Item,
        options: &[(&str, T)],
        default: T,
    ) -> T {
        let found = item
            .as_str()
            .and_then(|text| options.iter().find(|(n, _)| *n == text));
        match found {
            Some((_, value)) => *value,
            None => {
                let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
                let default_name = options
                    .iter()
                    .find(|(_, v)| *v == default)
                    .map_or("", |(n, _)| n);
                self.problems.push(format!(
                    "line {line}: {name} must be one of {}, not {}; using \"{default_name}\"",
                    names.join(", "),
                    shown(item)
                ));
                default
            }
        }
    }

    fn table<'a>(&mut self, line: usize, name: &str, item: &'a Item) -> Option<&'a Table> {
        let table = item.as_table();
        if table.is_none() {
            self.problems.push(format!(
                "line {line}: {name} must be a table ([{name}]), not {}; ignored",
                item.type_name()
            ));
        }
        table
    }

    fn wrong_type(&mut self, line: usize, name: &str, item: &Item, expected: &str, default: &str) {
        self.problems.push(format!(
            "line {line}: {name} must be {expected}, not {}; using {default}",
            shown(item)
        ));
    }

    fn unknown(&mut self, line: usize, name: &str) {
        self.problems
            .push(format!("line {line}: unknown setting {name}; ignored"));
    }

    /// The line of a table entry: where its key is (a table's header for `[x]` tables).
    fn line(&self, table: &Table, name: &str, item: &Item) -> usize {
        let span = table
            .get_key_value(name)
            .and_then(|(key, _)| key.span())
            .or_else(|| item.span());
        span.map_or(1, |span| line_of(self.text, span.start))
    }
}

const THEMES: &[(&str, ThemeName)] = &[
    ("dark", ThemeName::Dark),
    ("light", ThemeName::Light),
    ("plain", ThemeName::Plain),
];

const EXECUTORS: &[(&str, ExecutorMode)] = &[
    ("auto", ExecutorMode::Auto),
    ("controller", ExecutorMode::Controller),
    ("embedded", ExecutorMode::Embedded),
];

/// A value as the user wrote it, for messages.
fn shown(item: &Item) -> String {
    match item.as_value() {
        Some(value) => value.to_string().trim().to_owned(),
        None => item.type_name().to_owned(),
    }
}
