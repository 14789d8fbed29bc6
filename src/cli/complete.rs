//! Shell completion: `completion SHELL` prints a script that asks the binary itself for the
//! candidates at each TAB (clap_complete's dynamic engine, [`COMPLETE_VAR`]), so node names,
//! contexts, namespaces and the images in use are completed from the kubeconfig and the cluster,
//! not frozen into the script.
//!
//! The cluster is read with the `--kubeconfig`, `--context` and `-n` already typed on the line,
//! once per TAB, and bounded: at most [`READ_TIMEOUT`] (a cluster that does not answer completes
//! nothing) and [`MAX_CANDIDATES`] names.
use std::ffi::OsString;
use std::time::Duration;

use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use kube::api::{Api, ApiResource, DynamicObject, ListParams};

use crate::api::SeiNode;
use crate::kube::client::{connect, context_names};

/// The environment variable the completion script sets when it asks the binary for candidates.
pub const COMPLETE_VAR: &str = "SEI_CONSOLE_COMPLETE";

/// The longest a TAB waits for the cluster.
const READ_TIMEOUT: Duration = Duration::from_secs(3);

/// The most names one TAB offers.
const MAX_CANDIDATES: usize = 500;

/// Answers a completion request (the script sets [`COMPLETE_VAR`]) and exits; returns at once on
/// any other run.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(super::command)
        .var(COMPLETE_VAR)
        .complete();
}

/// Writes the registration script of `shell` for the program `bin` (its name on `$PATH`).
pub fn write_script(
    shell: clap_complete::Shell,
    bin: &str,
    out: &mut dyn std::io::Write,
) -> Result<(), std::io::Error> {
    let name = shell.to_string();
    let shells = clap_complete::env::Shells::builtins();
    let Some(completer) = shells.completer(&name) else {
        return Err(std::io::Error::other(format!("no completion for {name}")));
    };
    completer.write_registration(COMPLETE_VAR, "sei-console", bin, bin, out)
}

/// What an argument completes to.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Node,
    Context,
    Namespace,
    Image,
}

/// The argument ids that complete from the kubeconfig or the cluster, and to what.
const COMPLETED: &[(&str, Kind)] = &[
    ("node", Kind::Node),
    ("nodes", Kind::Node),
    ("context", Kind::Context),
    (super::CONTEXT_AFTER_SUBCOMMAND, Kind::Context),
    ("namespace", Kind::Namespace),
    ("image", Kind::Image),
];

/// `command` and its subcommands with dynamic candidates on the arguments of [`COMPLETED`].
pub fn with_candidates(mut command: clap::Command) -> clap::Command {
    for (id, kind) in COMPLETED {
        if command.get_arguments().any(|arg| arg.get_id() == *id) {
            let kind = *kind;
            command = command.mut_arg(*id, move |arg| {
                arg.add(ArgValueCandidates::new(move || candidates(kind)))
            });
        }
    }
    command.mut_subcommands(with_candidates)
}

/// The connection flags typed so far on the line being completed (the script passes the words
/// after `--`).
#[derive(Debug, Default, PartialEq, Eq)]
struct Typed {
    kubeconfig: Option<std::path::PathBuf>,
    context: Option<String>,
    namespace: Option<String>,
    all_namespaces: bool,
}

fn typed(words: &[OsString]) -> Typed {
    let mut typed = Typed::default();
    let words: Vec<String> = words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    for (i, word) in words.iter().enumerate() {
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
            _ => (word.as_str(), None),
        };
        let value = || inline.clone().or_else(|| words.get(i + 1).cloned());
        match flag {
            "--kubeconfig" => typed.kubeconfig = value().map(Into::into),
            "--context" => {
                // The first of `A,B` (completion reads one cluster).
                typed.context = value().and_then(|v| v.split(',').next().map(str::to_owned));
            }
            "-n" | "--namespace" => typed.namespace = value(),
            "-A" | "--all-namespaces" => typed.all_namespaces = true,
            _ => {}
        }
    }
    typed
}

fn candidates(kind: Kind) -> Vec<CompletionCandidate> {
    let words: Vec<OsString> = std::env::args_os().skip(1).collect();
    let typed = typed(&words);
    let names = match kind {
        Kind::Context => context_names(typed.kubeconfig.as_deref()),
        Kind::Node | Kind::Namespace | Kind::Image => from_cluster(kind, &typed),
    };
    names
        .into_iter()
        .take(MAX_CANDIDATES)
        .map(CompletionCandidate::new)
        .collect()
}

/// The names of `kind` the cluster holds, sorted; empty when it cannot be read in time.
fn from_cluster(kind: Kind, typed: &Typed) -> Vec<String> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    runtime
        .block_on(async {
            tokio::time::timeout(READ_TIMEOUT, read(kind, typed))
                .await
                .ok()
        })
        .unwrap_or_default()
}

async fn read(kind: Kind, typed: &Typed) -> Vec<String> {
    let Ok(conn) = connect(typed.kubeconfig.as_deref(), typed.context.as_deref()).await else {
        return Vec::new();
    };
    let params = ListParams::default().limit(MAX_CANDIDATES as u32);
    let mut names: Vec<String> = if let Kind::Namespace = kind {
        let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(conn.client);
        match api.list_metadata(&params).await {
            Ok(list) => list
                .items
                .into_iter()
                .filter_map(|n| n.metadata.name)
                .collect(),
            Err(_) => Vec::new(),
        }
    } else {
        let resource = ApiResource::erase::<SeiNode>(&());
        let api: Api<DynamicObject> = if typed.all_namespaces {
            Api::all_with(conn.client, &resource)
        } else {
            let ns = typed
                .namespace
                .as_deref()
                .unwrap_or(&conn.default_namespace);
            Api::namespaced_with(conn.client, ns, &resource)
        };
        let Ok(list) = api.list(&params).await else {
            return Vec::new();
        };
        list.items
            .into_iter()
            .filter_map(|node| match kind {
                Kind::Image => node.data["spec"]["image"].as_str().map(str::to_owned),
                _ => node.metadata.name,
            })
            .collect()
    };
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn the_connection_flags_typed_so_far_are_read_in_both_spellings() {
        let got = typed(&words(
            "sei-console get --kubeconfig /k --context=a,b -n ns full-",
        ));
        assert_eq!(
            got,
            Typed {
                kubeconfig: Some("/k".into()),
                context: Some("a".to_owned()),
                namespace: Some("ns".to_owned()),
                all_namespaces: false,
            }
        );
        let got = typed(&words("sei-console describe -A --namespace=x"));
        assert!(got.all_namespaces);
        assert_eq!(got.namespace.as_deref(), Some("x"));
        assert_eq!(typed(&words("sei-console get -n")).namespace, None);
    }

    #[test]
    fn node_context_namespace_and_image_arguments_complete_dynamically() {
        let command = with_candidates(super::super::command());
        let dynamic = |path: &[&str], id: &str| {
            let mut cmd = &command;
            for name in path {
                cmd = cmd.find_subcommand(name).expect("a subcommand");
            }
            cmd.get_arguments()
                .find(|arg| arg.get_id() == id)
                .and_then(|arg| arg.get::<ArgValueCandidates>())
                .is_some()
        };
        assert!(dynamic(&["describe"], "node"));
        assert!(dynamic(&["get"], "nodes"));
        assert!(dynamic(&["restart"], "node"));
        assert!(dynamic(&["rollout"], "image"));
        assert!(dynamic(&["get"], super::super::CONTEXT_AFTER_SUBCOMMAND));
        assert!(dynamic(&[], "context"));
        assert!(dynamic(&[], "namespace"));
    }

    #[test]
    fn every_shell_has_a_script_that_asks_the_binary() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            write_script(shell, "sei-console", &mut out).expect("script");
            let script = String::from_utf8(out).expect("utf-8");
            assert!(script.contains(COMPLETE_VAR), "{shell}: {script}");
            assert!(script.contains("sei-console"), "{shell}: {script}");
        }
    }
}
