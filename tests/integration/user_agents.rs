//! Every request to the API server names its program (issue 39): between two marker requests
//! of this test, the API server's audit log (`DIR/logs/audit.log`) holds no request without a
//! User-Agent — whoever sent it: the console's commands and its terminal console, the control
//! plane's add-on (`sidecar-standin/…`), the stand-ins and the harness (`sei-console-tests/…`),
//! the other tests running meanwhile. The operator's own requests — a rollout through a
//! port-forward to the sidecar, its node Lease, its access reviews, `get`, `describe`,
//! `doctor` and the console in a pseudo-terminal — all say `sei-console/VERSION`.
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use serde_json::Value;

use crate::common::console::{cli_as, console_in, production_env, running_full_nodes};
use crate::common::{TestNamespace, control_plane};
use crate::pty::{Key, Terminal};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
/// The identity of `DIR/operator.kubeconfig` (the add-on's operator ServiceAccount).
const OPERATOR: &str = "system:serviceaccount:default:sei-console-operator";

/// A request whose URI names `tag` (a ConfigMap that does not exist), to find in the log.
async fn marker(ns: &TestNamespace, tag: &str) -> String {
    let name = format!("ua-marker-{tag}-{}", uuid::Uuid::new_v4().simple());
    let found = ns
        .api::<ConfigMap>()
        .get_opt(&name)
        .await
        .expect("marker request");
    assert!(found.is_none());
    name
}

/// The audit events logged between the two markers (every identity), waiting until the end
/// marker is in the log.
async fn between(start: &str, end: &str) -> Vec<Value> {
    let path = control_plane().dir.join("logs").join("audit.log");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let log = std::fs::read_to_string(&path).expect("audit log");
        let lines: Vec<&str> = log.lines().collect();
        let at = |marker: &str| lines.iter().position(|l| l.contains(marker));
        if let (Some(from), Some(to)) = (at(start), at(end)) {
            return lines[from..=to]
                .iter()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the markers never reached the log"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

#[tokio::test]
async fn every_request_to_the_api_server_names_its_program() {
    let ns = TestNamespace::new("user-agents").await;
    let state = tempfile::tempdir().expect("state");
    let node = "ua-0";
    let start = marker(&ns, "start").await;
    running_full_nodes(&ns, &[node.to_owned()], OLD, &BTreeMap::new(), state.path()).await;
    let env = production_env();
    let rollout = [
        "rollout",
        node,
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--yes",
        "--executor",
        "embedded",
        "--no-health-gate",
    ];
    let run = console_in(env.clone(), &rollout, state.path(), &[]).await;
    assert!(run.ok, "{run:?}");
    let kubeconfig = std::path::PathBuf::from(&env["KUBECONFIG"]);
    for args in [
        vec!["get", "-n", &ns.name],
        vec!["describe", node, "-n", &ns.name],
        vec!["doctor", "-n", &ns.name],
    ] {
        let out = cli_as(&args, &kubeconfig, state.path());
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut terminal = Terminal::start(&["-n", &ns.name], &env, state.path(), 120, 40);
    terminal.wait_for("the node listed", Duration::from_secs(30), |s| {
        s.contents().contains(node)
    });
    terminal.key(Key::Text("q"));
    terminal.wait_exit(Duration::from_secs(15));
    let end = marker(&ns, "end").await;

    let events = between(&start, &end).await;
    let anonymous: Vec<String> = events
        .iter()
        .filter(|e| text(&e["userAgent"]).is_empty())
        .map(|e| {
            format!(
                "{} {} by {}",
                text(&e["verb"]),
                text(&e["requestURI"]),
                text(&e["user"]["username"])
            )
        })
        .collect();
    assert!(
        anonymous.is_empty(),
        "requests without a User-Agent: {anonymous:#?}"
    );
    let agents: BTreeSet<&str> = events.iter().map(|e| text(&e["userAgent"])).collect();
    eprintln!("user agents between the markers: {agents:#?}");

    let operator: Vec<&Value> = events
        .iter()
        .filter(|e| e["user"]["username"] == OPERATOR)
        .collect();
    for event in &operator {
        assert_eq!(
            text(&event["userAgent"]),
            sei_console::kube::client::USER_AGENT,
            "{event}"
        );
    }
    let touched: BTreeSet<(&str, &str)> = operator
        .iter()
        .map(|e| {
            (
                text(&e["objectRef"]["resource"]),
                text(&e["objectRef"]["subresource"]),
            )
        })
        .collect();
    for wanted in [
        ("pods", "portforward"),
        ("leases", ""),
        ("selfsubjectaccessreviews", ""),
        ("seinodes", "status"),
    ] {
        assert!(
            touched.contains(&wanted),
            "the operator's requests include {wanted:?}: {touched:?}"
        );
    }
}
