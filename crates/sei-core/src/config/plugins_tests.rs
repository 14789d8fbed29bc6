//! `[[plugins]]`: decoding (every field, defaults, each problem named by its line) and the
//! variables' substitution.
use super::plugins::{Plugin, PluginScope, PluginVars, VariableError, substitute};
use super::*;
use crate::keymap::Key;

fn decode_text(text: &str) -> LoadedConfig {
    from_text(text, Path::new("/cfg/config.toml"))
}

fn vars() -> PluginVars {
    PluginVars {
        node: "rpc-0".into(),
        namespace: "sei".into(),
        context: "kind-sei".into(),
        pod: "rpc-0-0".into(),
        chain: "pacific-1".into(),
        image: "ghcr.io/sei-protocol/sei:v6.3.0".into(),
    }
}

#[test]
fn variables_are_replaced_braced_or_not_and_dollars_kept() {
    let vars = vars();
    assert_eq!(
        substitute("$CONTEXT/$NAMESPACE/${NODE}x $POD $CHAIN $IMAGE", &vars),
        Ok("kind-sei/sei/rpc-0x rpc-0-0 pacific-1 ghcr.io/sei-protocol/sei:v6.3.0".into())
    );
    assert_eq!(substitute("cost $$5", &vars), Ok("cost $5".into()));
    assert_eq!(substitute("plain", &vars), Ok("plain".into()));
    assert_eq!(
        substitute("$NODES", &vars),
        Err(VariableError::Unknown("NODES".into()))
    );
    assert_eq!(substitute("a $ b", &vars), Err(VariableError::Lone));
    assert_eq!(substitute("${NODE", &vars), Err(VariableError::Unclosed));
}

#[test]
fn every_field_is_read_and_the_argv_is_a_list() {
    let loaded = decode_text(
        r#"
[[plugins]]
name = "seid shell"
key = "ctrl-e"
scopes = ["node"]
command = "kubectl"
args = ["--context", "$CONTEXT", "-n", "$NAMESPACE", "exec", "-it", "$POD", "--", "sh"]
confirm = true
background = true
read_only = true

[[plugins]]
name = "grafana"
key = "W"
command = "xdg-open https://grafana/d/x?var-node=$NODE"
shell = true
"#,
    );
    assert_eq!(loaded.problems, Vec::<String>::new());
    let [shell, grafana] = loaded.config.plugins.as_slice() else {
        panic!("two plugins: {:?}", loaded.config.plugins);
    };
    assert_eq!(
        *shell,
        Plugin {
            name: "seid shell".into(),
            key: Key::ctrl('e'),
            scopes: vec![PluginScope::Node],
            command: "kubectl".into(),
            args: [
                "--context",
                "$CONTEXT",
                "-n",
                "$NAMESPACE",
                "exec",
                "-it",
                "$POD",
                "--",
                "sh"
            ]
            .map(String::from)
            .to_vec(),
            confirm: true,
            background: true,
            read_only: true,
            shell: false,
            line: 2,
        }
    );
    assert_eq!(
        shell.argv(&vars()).expect("substitutes"),
        [
            "kubectl",
            "--context",
            "kind-sei",
            "-n",
            "sei",
            "exec",
            "-it",
            "rpc-0-0",
            "--",
            "sh"
        ]
    );
    // Defaults: both scopes, foreground, no question, refused in read-only mode.
    assert_eq!(grafana.scopes, [PluginScope::Fleet, PluginScope::Node]);
    assert!(!grafana.confirm && !grafana.background && !grafana.read_only && grafana.shell);
    // A shell plugin's text is the shell's: the values are in its environment, not in it.
    assert_eq!(
        grafana.argv(&vars()).expect("as written"),
        [
            "sh",
            "-c",
            "xdg-open https://grafana/d/x?var-node=$NODE",
            "grafana"
        ]
    );
}

#[test]
fn a_bad_entry_is_named_by_its_line_and_left_out_the_others_kept() {
    let loaded = decode_text(
        r#"
[[plugins]]
name = "no key"
command = "true"

[[plugins]]
name = "bad key"
key = "hyper-x"
command = "true"

[[plugins]]
name = "bad var"
key = "x"
command = "echo"
args = ["$NOPE"]

[[plugins]]
name = "bad scope"
key = "x"
scopes = ["doctor"]
command = "true"

[[plugins]]
name = "typo"
key = "x"
command = "true"
backgrond = true

[[plugins]]
name = "ok"
key = "x"
command = "true"

[[plugins]]
name = "ok"
key = "X"
command = "true"
"#,
    );
    assert_eq!(
        loaded.problems,
        [
            "config file /cfg/config.toml: line 2: plugin needs a key; plugin left out",
            "config file /cfg/config.toml: line 6: plugin \"bad key\": unknown key \"hyper-x\" (examples: q, ?, enter, esc, ctrl-c, pgdn, shift-tab); plugin left out",
            "config file /cfg/config.toml: line 11: plugin \"bad var\": unknown variable $NOPE (use $NODE, $NAMESPACE, $CONTEXT, $POD, $CHAIN, $IMAGE or $$); plugin left out",
            "config file /cfg/config.toml: line 17: plugin \"bad scope\": unknown scope \"doctor\" (use fleet, node); plugin left out",
            "config file /cfg/config.toml: line 23: plugin \"typo\": unknown field backgrond; plugin left out",
            "config file /cfg/config.toml: line 34: plugin \"ok\" is declared twice; the second left out",
        ]
    );
    let names: Vec<&str> = loaded
        .config
        .plugins
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["ok"]);
    for problem in &loaded.problems {
        assert_eq!(problem.lines().count(), 1, "{problem}");
    }
}
