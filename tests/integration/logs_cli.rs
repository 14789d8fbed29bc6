//! `sei-console logs NODE`: a node's container logs through the API server (kwok serves them
//! from its `Logs` objects, which the sidecar add-on points at each node's stand-in log files).
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncBufReadExt;

use crate::common::console::{production_env, running_full_nodes, sidecar_home};
use crate::common::{TestNamespace, repo_path};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn logs_command(ns: &str, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"));
    command
        .envs(production_env())
        .env(
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml"),
        )
        .args(["logs", "-n", ns])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

async fn logs(ns: &str, args: &[&str]) -> (bool, String, String) {
    let output = logs_command(ns, args).output().await.expect("run logs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn logs_print_each_container_follow_new_lines_and_show_the_previous_container() {
    let ns = TestNamespace::new("logs").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-a".to_owned()];
    running_full_nodes(&ns, &names, IMAGE, &Default::default(), state.path()).await;
    // kwok serves the logs once the add-on has seen the pod Running (within a second or two).
    let out = crate::common::wait_for("the pod's logs served", Duration::from_secs(20), || {
        let ns = ns.name.clone();
        async move {
            let (ok, out, _) = logs(&ns, &["full-a"]).await;
            Ok(ok.then_some(out))
        }
    })
    .await;
    assert!(out.contains("seid stand-in of"), "seid by default: {out}");
    let (ok, out, err) = logs(&ns.name, &["full-a", "-c", "sidecar"]).await;
    assert!(ok && out.contains("sei-sidecar stand-in of"), "{out}{err}");

    // Follow the proxy's log while a sidecar call goes through it.
    let mut follow = logs_command(&ns.name, &["full-a", "-c", "kube-rbac-proxy", "-f"])
        .spawn()
        .expect("logs -f");
    let mut lines = tokio::io::BufReader::new(follow.stdout.take().expect("stdout")).lines();
    let first = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("a first line in time")
        .expect("read");
    assert!(first.is_some(), "no line");
    let marker = format!("/v0/livez?marker={}", ns.name);
    // A request through the forward, as the console makes them, appears while following.
    let env = production_env();
    let kubeconfig = kube::config::Kubeconfig::read_from(&env["KUBECONFIG"]).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("config");
    let pods: kube::Api<k8s_openapi::api::core::v1::Pod> = kube::Api::namespaced(
        kube::Client::try_from(crate::common::named(config)).expect("client"),
        &ns.name,
    );
    let mut forward = pods
        .portforward("full-a-0", &[8443])
        .await
        .expect("forward");
    let mut stream = forward.take_stream(8443).expect("stream");
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream
        .write_all(
            format!("GET {marker} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .expect("send");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    let seen = tokio::time::timeout(Duration::from_secs(15), async {
        // Bounded by the timeout around it.
        while let Ok(Some(line)) = lines.next_line().await {
            if line.contains("/v0/livez") {
                return line;
            }
        }
        String::new()
    })
    .await
    .expect("the new request's line while following");
    assert!(seen.contains("status=200"), "{seen}");
    let _ = follow.kill().await;

    let (ok, out, err) = logs(&ns.name, &["full-a", "--previous"]).await;
    assert!(ok, "{err}");
    assert!(!out.contains("container started"), "no restart yet: {out}");

    // A rollout replaces the pod: the container's logs start afresh and the old ones are the
    // previous container's.
    let run = crate::common::console::console(
        &[
            "rollout",
            "--no-health-gate",
            "full-a",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--executor",
            "embedded",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let previous = sidecar_home(&ns.name, "full-a").join("logs/seid.previous.log");
    crate::common::wait_for("the replaced pod's logs", Duration::from_secs(20), || {
        let moved = std::fs::metadata(&previous).is_ok_and(|m| m.len() > 0);
        async move { Ok(moved.then_some(())) }
    })
    .await;
    let (ok, out, err) = logs(&ns.name, &["full-a", "--previous"]).await;
    assert!(ok && out.contains("container started"), "{out}{err}");

    let (ok, _, err) = logs(&ns.name, &["nobody"]).await;
    assert!(!ok);
    // A node that does not exist is named missing before anything is read (issue 33).
    assert!(err.contains("no SeiNode \"nobody\""), "{err}");
}

#[tokio::test]
async fn an_over_long_log_line_is_cut_with_a_marker_and_the_lines_after_it_follow() {
    let ns = TestNamespace::new("logs-long").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-a".to_owned()],
        IMAGE,
        &Default::default(),
        state.path(),
    )
    .await;
    // The start line served first: the add-on has written the file and will leave it alone.
    crate::common::wait_for("the pod's logs served", Duration::from_secs(20), || {
        let ns = ns.name.clone();
        async move {
            let (ok, out, _) = logs(&ns, &["full-a"]).await;
            Ok((ok && out.contains("container started")).then_some(()))
        }
    })
    .await;
    // Four times the line limit, then an ordinary line, in the CRI file kwok serves.
    let log = sidecar_home(&ns.name, "full-a").join("logs/seid.log");
    let now = jiff::Timestamp::now();
    let long = "x".repeat(4 * sei_console::limits::LOG_LINE_BYTES);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("seid's log file");
    use std::io::Write as _;
    write!(
        file,
        "{now} stdout F {long}\n{now} stdout F after the long line\n"
    )
    .expect("append");
    drop(file);

    let out = crate::common::wait_for("the appended lines served", Duration::from_secs(20), || {
        let ns = ns.name.clone();
        async move {
            let (ok, out, _) = logs(&ns, &["full-a"]).await;
            Ok((ok && out.contains("after the long line")).then_some(out))
        }
    })
    .await;
    let cut = out
        .lines()
        .find(|line| line.starts_with("xxx"))
        .expect("the long line, cut");
    assert_eq!(
        cut,
        format!(
            "{}… [line cut at {max} bytes: {} more bytes not shown]",
            "x".repeat(sei_console::limits::LOG_LINE_BYTES),
            3 * sei_console::limits::LOG_LINE_BYTES,
            max = sei_console::limits::LOG_LINE_BYTES
        )
    );
    assert!(
        out.ends_with("after the long line\n"),
        "{}",
        &out[out.len() - 200..]
    );
}
