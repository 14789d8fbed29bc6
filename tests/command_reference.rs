//! `docs/commands.md`, the command reference, is generated from the command line's clap
//! definition (`sei_console::cli::command()`): every command and subcommand with its about, usage,
//! arguments and options. This test regenerates it and fails when the file differs, so the page
//! cannot drift from `--help`. To rewrite the file after changing the command line:
//!
//!     SEI_UPDATE_DOCS=1 cargo test --test command_reference
use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Arg, Command};

const UPDATE_ENV: &str = "SEI_UPDATE_DOCS";

/// The reference page for `root` (the whole command line, built so usage lines are complete).
fn reference(mut root: Command) -> String {
    root.build();
    let mut out = String::new();
    out.push_str("# Command reference\n\n");
    out.push_str(
        "Generated from the command line's clap definition by `tests/command_reference.rs`; do not \
         edit by hand. After changing the command line, rewrite it with\n\
         `SEI_UPDATE_DOCS=1 cargo test --test command_reference`. The same text is in `--help`.\n\n",
    );
    let globals: Vec<&Arg> = root.get_arguments().filter(|arg| shown(arg)).collect();
    let global_longs: Vec<&str> = globals.iter().filter_map(|arg| arg.get_long()).collect();
    section(&root, &root_name(&root), &[], &mut out);
    out.push_str("Commands:\n\n");
    contents(&root, &root_name(&root), 0, &mut out);
    out.push('\n');
    walk(&root, &root_name(&root), &global_longs, &mut out);
    out
}

fn root_name(root: &Command) -> String {
    root.get_bin_name()
        .unwrap_or_else(|| root.get_name())
        .to_owned()
}

/// A bulleted list of every subcommand, nested, linking to its section.
fn contents(command: &Command, path: &str, depth: usize, out: &mut String) {
    for sub in subcommands(command) {
        let name = format!("{path} {}", sub.get_name());
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}- [`{name}`](#{}): {}",
            "  ".repeat(depth),
            anchor(&name),
            first_line(&about)
        );
        contents(sub, &name, depth + 1, out);
    }
}

fn walk(command: &Command, path: &str, global_longs: &[&str], out: &mut String) {
    for sub in subcommands(command) {
        let name = format!("{path} {}", sub.get_name());
        section(sub, &name, global_longs, out);
        walk(sub, &name, global_longs, out);
    }
}

/// The subcommands a user sees (clap's own `help` left out).
fn subcommands(command: &Command) -> impl Iterator<Item = &Command> {
    command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
}

/// One command's section: about, usage, arguments, options (those of the root shown once, at
/// the top), and any text after the help.
fn section(command: &Command, name: &str, global_longs: &[&str], out: &mut String) {
    let _ = writeln!(out, "## `{name}`\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = writeln!(out, "{}\n", about.to_string().trim_end());
    }
    let usage = command.clone().render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "```\n{usage}\n```\n");
    let own: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| shown(arg))
        .filter(|arg| {
            !arg.get_long()
                .is_some_and(|long| global_longs.contains(&long))
        })
        .collect();
    let positionals: Vec<&Arg> = own.iter().copied().filter(|a| a.is_positional()).collect();
    let options: Vec<&Arg> = own.iter().copied().filter(|a| !a.is_positional()).collect();
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for arg in positionals {
            item(arg, out);
        }
        out.push('\n');
    }
    if !options.is_empty() {
        out.push_str(if global_longs.is_empty() {
            "Global options (every command takes them):\n\n"
        } else {
            "Options:\n\n"
        });
        for arg in options {
            item(arg, out);
        }
        out.push('\n');
    }
    if !global_longs.is_empty() {
        out.push_str("Global options: as for `sei-console`.\n\n");
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        let _ = writeln!(out, "{}\n", after.to_string().trim_end());
    }
}

/// Arguments shown in help: not hidden, and not clap's own `--help`/`--version`.
fn shown(arg: &Arg) -> bool {
    !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version")
}

/// One argument as a list item: its spelling, its help, default and possible values.
fn item(arg: &Arg, out: &mut String) {
    let mut spelling = Vec::new();
    if let Some(short) = arg.get_short() {
        spelling.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        spelling.push(format!("--{long}"));
    }
    let value = value_names(arg);
    let spelled = if arg.is_positional() {
        value
    } else if value.is_empty() {
        spelling.join(", ")
    } else {
        format!("{} {value}", spelling.join(", "))
    };
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut line = format!("- `{spelled}`");
    if !help.is_empty() {
        let _ = write!(line, ": {}", one_paragraph(&help));
    }
    let mut notes = Vec::new();
    if arg.is_required_set() && !arg.is_positional() {
        notes.push("required".to_owned());
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        notes.push(format!("default {}", defaults.join(",")));
    }
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !possible.is_empty() && arg.get_action().takes_values() {
        notes.push(format!("one of {}", possible.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        notes.push(format!("env `{}`", env.to_string_lossy()));
    }
    if !notes.is_empty() {
        let _ = write!(line, " ({})", notes.join("; "));
    }
    let _ = writeln!(out, "{line}");
    for value in arg.get_possible_values() {
        if let (false, Some(help)) = (value.is_hide_set(), value.get_help()) {
            let _ = writeln!(
                out,
                "  - `{}`: {}",
                value.get_name(),
                one_paragraph(&help.to_string())
            );
        }
    }
}

/// `<NAME>` for each value an argument takes (`NAME...` when it repeats), empty for a flag.
fn value_names(arg: &Arg) -> String {
    if !arg.get_action().takes_values() {
        return String::new();
    }
    let names: Vec<String> = match arg.get_value_names() {
        Some(names) => names.iter().map(ToString::to_string).collect(),
        None => vec![arg.get_id().as_str().to_uppercase()],
    };
    let repeats = arg
        .get_num_args()
        .is_some_and(|range| range.max_values() > 1 && names.len() == 1);
    let names: Vec<String> = names.iter().map(|n| format!("<{n}>")).collect();
    let joined = names.join(" ");
    if repeats {
        format!("{joined}...")
    } else {
        joined
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// Help text as one Markdown paragraph (clap's line breaks inside a paragraph kept as spaces).
fn one_paragraph(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// GitHub's anchor of a `## `name`` heading.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn page() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md")
}

#[test]
fn the_command_reference_is_what_clap_says() {
    let generated = reference(sei_console::cli::command());
    if std::env::var_os(UPDATE_ENV).is_some() {
        std::fs::write(page(), &generated).expect("docs/commands.md is writable");
        return;
    }
    let on_disk = std::fs::read_to_string(page()).unwrap_or_default();
    if on_disk != generated {
        let line = on_disk
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| on_disk.lines().count().min(generated.lines().count()));
        panic!(
            "docs/commands.md differs from the command line's definition (first at line {}); \
             rewrite it with `{UPDATE_ENV}=1 cargo test --test command_reference`\n\
             on disk:   {:?}\n\
             generated: {:?}",
            line + 1,
            on_disk.lines().nth(line).unwrap_or("<end>"),
            generated.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

#[test]
fn every_subcommand_has_its_section() {
    let generated = reference(sei_console::cli::command());
    let mut root = sei_console::cli::command();
    root.build();
    let mut missing = Vec::new();
    let mut stack: Vec<(String, &Command)> = vec![(root_name(&root), &root)];
    while let Some((path, command)) = stack.pop() {
        if !generated.contains(&format!("## `{path}`\n")) {
            missing.push(path.clone());
        }
        for sub in subcommands(command) {
            stack.push((format!("{path} {}", sub.get_name()), sub));
        }
    }
    assert!(missing.is_empty(), "no section for {missing:?}");
}
