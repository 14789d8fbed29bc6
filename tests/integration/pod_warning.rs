//! Issue 27, point 8 on the real control plane: a Running SeiNode whose pod the real
//! kube-scheduler cannot place (a node pool no Node has) reaches `get` through the pod's real
//! FailedScheduling event: the pod's warning in the JSON and the wide MESSAGE, the verdict `▲`
//! (a warning, not a failure) in the HEALTH column, and `--filter warning`; the live console's
//! watches bring it to the fleet row (`▲ Running`, the pod's warning under LAST WARNING). Once
//! another pod of that name stands there (Running on a kwok Node), the event is outlived and no
//! longer counted, in `get` and on the console's screen.

use std::time::Duration;

use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{DeleteParams, ListParams, PostParams};
use serde_json::{Value, json};

use sei_console::app::model::WatchState;
use sei_console::fleet::watches::WatchKind;

use crate::common::console::{cli, node_reported_running};
use crate::common::{TestNamespace, platform_value, wait_for};
use crate::console::Console;

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

async fn get(ns: &str, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<String> = ["get", "-n", ns].iter().map(|s| (*s).to_owned()).collect();
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    tokio::task::spawn_blocking(move || {
        let state = tempfile::tempdir().expect("tempdir");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args, state.path())
    })
    .await
    .expect("join")
}

async fn rows(ns: &str) -> Vec<Value> {
    let out = get(ns, &["-o", "json"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn row(rows: &[Value], name: &str) -> Value {
    rows.iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {rows:?}"))
        .clone()
}

/// The pod `full-1-0` of SeiNode full-1, asking for `pool` (tolerating its taint).
fn pod_in_pool(pool: &str) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": "full-1-0", "labels": {"sei.io/node": "full-1"}},
        "spec": {"nodeSelector": {"karpenter.sh/nodepool": pool},
                 "tolerations": [{"key": platform_value("scheduling.tolerationKey"),
                                  "value": pool, "effect": "NoSchedule"}],
                 "containers": [{"name": "seid", "image": IMAGE}]}}))
    .expect("pod")
}

#[tokio::test(flavor = "multi_thread")]
async fn get_and_the_console_report_a_running_node_whose_pod_cannot_be_scheduled_until_outlived() {
    let ns = TestNamespace::new("pod-warning").await;
    node_reported_running(&ns, "full-0", IMAGE).await;
    node_reported_running(&ns, "full-1", IMAGE).await;
    let pods = ns.api::<Pod>();
    pods.create(&PostParams::default(), &pod_in_pool("no-such-pool"))
        .await
        .expect("create Pod");
    let events = ns.api::<Event>();
    let failed_scheduling = ListParams::default()
        .fields("involvedObject.name=full-1-0,reason=FailedScheduling,type=Warning");
    wait_for(
        "the real scheduler's FailedScheduling of full-1-0",
        Duration::from_secs(60),
        || async {
            let list = events.list(&failed_scheduling).await?;
            Ok((!list.items.is_empty()).then_some(()))
        },
    )
    .await;

    let listed = rows(&ns.name).await;
    let sick = row(&listed, "full-1");
    assert_eq!(sick["podWarning"]["pod"], "full-1-0", "{sick}");
    assert_eq!(sick["podWarning"]["reason"], "FailedScheduling", "{sick}");
    assert!(
        sick["podWarning"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("0/")),
        "the scheduler's own words: {sick}"
    );
    assert_eq!(sick["verdict"]["healthy"], false, "{sick}");
    assert_eq!(sick["verdict"]["severity"], "warning", "{sick}");
    assert_eq!(
        sick["verdict"]["problems"][0]["kind"], "pod-warning",
        "{sick}"
    );
    assert_eq!(
        sick["verdict"]["problems"][0]["text"], "pod FailedScheduling",
        "{sick}"
    );
    assert_eq!(row(&listed, "full-0")["verdict"]["healthy"], true);
    assert_eq!(row(&listed, "full-0")["podWarning"], Value::Null);

    let out = get(&ns.name, &["-o", "wide"]).await;
    let table = String::from_utf8_lossy(&out.stdout);
    let line = table
        .lines()
        .find(|l| l.starts_with("full-1 "))
        .unwrap_or_else(|| panic!("full-1 in\n{table}"));
    assert!(line.contains("▲ pod FailedScheduling"), "{table}");
    assert!(line.contains("⚠ Pod full-1-0: FailedScheduling"), "{table}");
    assert!(line.contains("Pod full-1-0: 0/"), "{table}");
    for filter in ["warning", "sick"] {
        let out = get(&ns.name, &["--filter", filter]).await;
        let table = String::from_utf8_lossy(&out.stdout);
        let names: Vec<&str> = table
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(names, ["full-1"], "--filter {filter}:\n{table}");
    }
    let out = get(&ns.name, &["--filter", "failed"]).await;
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("full-1 "),
        "a pod warning is not a failure"
    );

    // The console, through its own watches (Events of Pods of type Warning, the SeiNodes' pods).
    let mut console = Console::start(&ns);
    let row_of = |screen: &str| {
        screen
            .lines()
            .find(|l| l.contains("full-1 "))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let screen = console
        .until(
            "full-1 marked by its pod's FailedScheduling",
            |m, screen| {
                m.watch_state(m.scope.context(), WatchKind::PodWarnings) == Some(&WatchState::Live)
                    && row_of(screen).contains("Pod full-1-0: FailedScheduling")
            },
        )
        .await;
    assert!(row_of(&screen).contains("▲ Running"), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("full-0 ") && l.contains("● Running")),
        "{screen}"
    );

    // The StatefulSet would create the pod again: another pod of the name, in a real pool, that
    // the scheduler places and kwok runs. The FailedScheduling of the first is outlived.
    pods.delete("full-1-0", &DeleteParams::default().grace_period(0))
        .await
        .expect("delete Pod");
    wait_for("full-1-0 gone", Duration::from_secs(30), || async {
        Ok(pods.get_opt("full-1-0").await?.is_none().then_some(()))
    })
    .await;
    pods.create(
        &PostParams::default(),
        &pod_in_pool(&platform_value("scheduling.nodepoolName")),
    )
    .await
    .expect("create Pod again");
    wait_for("full-1-0 Running", Duration::from_secs(60), || async {
        let pod = pods.get("full-1-0").await?;
        let running = pod.status.and_then(|s| s.phase).as_deref() == Some("Running");
        Ok(running.then_some(()))
    })
    .await;
    assert!(
        !events
            .list(&failed_scheduling)
            .await
            .expect("events")
            .items
            .is_empty(),
        "the event is still there: only the pod's present state outlives it"
    );
    console
        .until(
            "the console drops the outlived FailedScheduling",
            |_, screen| {
                let line = row_of(screen);
                !line.is_empty() && !line.contains("FailedScheduling")
            },
        )
        .await;
    let well = row(&rows(&ns.name).await, "full-1");
    assert_eq!(well["podWarning"], Value::Null, "{well}");
    // What is left is the Running pod's own story (no seid answers its RPC here), not the
    // outlived FailedScheduling.
    let kinds: Vec<&str> = well["verdict"]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    assert!(!kinds.contains(&"pod-warning"), "{well}");
}
