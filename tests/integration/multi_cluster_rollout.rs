//! `rollout --across-clusters` over two real control planes (the run's as context `alpha`, a
//! second one started by this test as `beta`), Running full nodes in each initialised by the
//! embedded executor through the stand-in sidecars: a dry run prints both clusters' previews
//! with their waves and changes nothing; a node missing in the second cluster stops the
//! rollout before any change in the first; `--yes` rolls both clusters, cluster after cluster,
//! every JSON line naming its context.
use std::collections::BTreeMap;
use std::path::PathBuf;

use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;

use crate::common::console::{Run, console_env, console_in, sidecar_home};
use crate::common::second::{SecondControlPlane, merged_kubeconfig};
use crate::common::{TestNamespace, repo_path, seinode_resource};
use crate::multi_cluster::create_namespace;

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const LABEL: &str = "across";

/// Both clusters' context, their kubeconfig and the journal's state dir.
pub(crate) struct Clusters {
    pub(crate) kubeconfig: PathBuf,
    pub(crate) state: tempfile::TempDir,
}

impl Clusters {
    /// `sei-console ARGS -o json --kubeconfig MERGED` with the stand-ins' direct transport
    /// (one for both clusters: the stand-in serves `/{namespace}/{node}` whatever the
    /// cluster) and the demo platform config (the bare cluster has no ConfigMap).
    async fn console(&self, args: &[&str]) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        all.push("--kubeconfig");
        all.push(self.kubeconfig.to_str().expect("utf-8 path"));
        console_in(console_env(), &all, self.state.path(), &platform()).await
    }

    /// The same in text, for the previews as an operator reads them: (ok, stdout, stderr).
    fn text(&self, args: &[&str]) -> (bool, String, String) {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
            .envs(console_env())
            .envs(platform())
            .env("XDG_STATE_HOME", self.state.path())
            .env("XDG_CONFIG_HOME", self.state.path())
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run sei-console");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

pub(crate) fn platform() -> Vec<(&'static str, String)> {
    vec![(
        "SEI_CONSOLE_PLATFORM_CONFIG",
        repo_path("assets/demo/platform-config.yaml")
            .to_string_lossy()
            .into_owned(),
    )]
}

/// Full nodes on `OLD` labelled `across=yes` in one cluster, brought to Running by
/// `exec --executor embedded` in that context. The sidecar router reads SeiNodes from the run's
/// cluster only: alpha's nodes get the real seictl, beta's (unknown there) the stand-in, whose
/// chain ID the test writes where the add-on's watcher would.
pub(crate) async fn running_nodes(
    clusters: &Clusters,
    seinodes: &Api<DynamicObject>,
    namespace: &str,
    context: &str,
    names: &[&str],
) {
    for name in names {
        let home = sidecar_home(namespace, name);
        std::fs::create_dir_all(&home).expect("stand-in home");
        std::fs::write(home.join(".standin-chain-id"), "pacific-1\n").expect("chain id");
        let mut node = DynamicObject::new(name, &seinode_resource());
        node.metadata.labels = Some(BTreeMap::from([(LABEL.to_owned(), "yes".to_owned())]));
        node.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
        seinodes
            .create(&PostParams::default(), &node)
            .await
            .expect("create SeiNode");
    }
    let runs = futures::future::join_all(names.iter().map(|name| async move {
        let args = [
            "exec",
            name,
            "-n",
            namespace,
            "--context",
            context,
            "--executor",
            "embedded",
            "--yes",
        ];
        (name, clusters.console(&args).await)
    }))
    .await;
    for (name, run) in runs {
        assert!(run.ok, "init of {context}/{name}: {run:?}");
    }
}

pub(crate) async fn images(seinodes: &Api<DynamicObject>, names: &[&str]) -> Vec<(String, String)> {
    let mut images = Vec::new();
    for name in names {
        let node = seinodes.get(name).await.expect("get SeiNode");
        images.push((
            node.data["spec"]["image"]
                .as_str()
                .unwrap_or("?")
                .to_owned(),
            node.data["status"]["currentImage"]
                .as_str()
                .unwrap_or("?")
                .to_owned(),
        ));
    }
    images
}

pub(crate) fn all_on(image: &str, n: usize) -> Vec<(String, String)> {
    vec![(image.to_owned(), image.to_owned()); n]
}

/// `spec.image` of each node (an init plan sets no `currentImage`).
async fn pinned(seinodes: &Api<DynamicObject>, names: &[&str]) -> Vec<String> {
    images(seinodes, names)
        .await
        .into_iter()
        .map(|(spec, _)| spec)
        .collect()
}

#[tokio::test]
async fn a_rollout_across_clusters_previews_every_cluster_refuses_before_any_change_and_rolls_each()
{
    let ns = TestNamespace::new("across").await;
    let second = tokio::task::spawn_blocking(|| SecondControlPlane::start("across"))
        .await
        .expect("start second control plane");
    let state = tempfile::tempdir().expect("state dir");
    let kubeconfig = merged_kubeconfig(
        "alpha",
        &second.kubeconfig,
        "beta",
        &state.path().join("kubeconfig"),
    );
    let beta = sei_console::kube::client::connect(Some(&kubeconfig), Some("beta"))
        .await
        .expect("beta");
    create_namespace(&beta.client, &ns.name).await;
    let account: k8s_openapi::api::core::v1::ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(beta.client.clone(), &ns.name)
        .create(&PostParams::default(), &account)
        .await
        .expect("seid-node in beta");
    let clusters = Clusters { kubeconfig, state };
    let alpha_nodes: Api<DynamicObject> =
        Api::namespaced_with(ns.client.clone(), &ns.name, &seinode_resource());
    let beta_nodes: Api<DynamicObject> =
        Api::namespaced_with(beta.client.clone(), &ns.name, &seinode_resource());
    let (alpha_names, beta_names) = (["xa-0", "xa-1"], ["xb-0", "xb-1"]);
    tokio::join!(
        running_nodes(&clusters, &alpha_nodes, &ns.name, "alpha", &alpha_names),
        running_nodes(&clusters, &beta_nodes, &ns.name, "beta", &beta_names),
    );
    let selected = format!("{LABEL}=yes");
    let rollout = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "rollout",
            "--no-health-gate",
            "-l",
            &selected,
            "--image",
            NEW,
            "-n",
            &ns.name,
            "--context",
            "alpha,beta",
            "--across-clusters",
            "--executor",
            "embedded",
            "--canary",
            "1",
            "--batch",
            "1",
        ]
        .map(str::to_owned)
        .to_vec();
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        args
    };

    // (a) A dry run: both previews under their cluster's heading, each with its waves.
    let args = rollout(&["--dry-run"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = clusters.text(&args);
    assert!(ok, "{stdout}\n{stderr}");
    let at = |text: &str| {
        stdout
            .find(text)
            .unwrap_or_else(|| panic!("{text:?} not in:\n{stdout}\n{stderr}"))
    };
    let order = [
        at("== cluster alpha (1 of 2) =="),
        at("  1. canary xa-0"),
        at("  2. batch  xa-1"),
        at("== cluster beta (2 of 2) =="),
        at("  1. canary xb-0"),
        at("  2. batch  xb-1"),
        at("dry run in 2 clusters (alpha, beta): nothing was changed"),
    ];
    assert!(order.is_sorted(), "{order:?}\n{stdout}");
    eprintln!("{stdout}{stderr}");
    assert_eq!(pinned(&alpha_nodes, &alpha_names).await, [OLD; 2]);
    assert_eq!(pinned(&beta_nodes, &beta_names).await, [OLD; 2]);

    // (c) A node the second cluster does not have: refused before any change in the first.
    let missing = clusters
        .console(&[
            "rollout",
            "--no-health-gate",
            "xa-0",
            "--image",
            NEW,
            "-n",
            &ns.name,
            "--context",
            "alpha,beta",
            "--across-clusters",
            "--yes",
        ])
        .await;
    assert!(!missing.ok, "{missing:?}");
    assert!(
        missing.stderr.contains(&format!(
            "error: cluster beta: SeiNode {}/xa-0 not found (the rollout stopped before any \
             change in any cluster)",
            ns.name
        )),
        "{missing:?}"
    );
    assert!(
        !missing.lines.iter().any(|l| l["event"] == "result"),
        "{missing:?}"
    );
    assert_eq!(pinned(&alpha_nodes, &alpha_names).await, [OLD; 2]);

    // (b) `--yes`: alpha's waves, then beta's; every line names its cluster.
    let args = rollout(&["--yes"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = clusters.console(&args).await;
    assert!(run.ok, "{run:?}");
    let unnamed: Vec<&serde_json::Value> = run
        .lines
        .iter()
        .filter(|l| !matches!(l["context"].as_str(), Some("alpha" | "beta")))
        .collect();
    assert!(unnamed.is_empty(), "lines without context: {unnamed:?}");
    let results: Vec<(&str, bool)> = run
        .lines
        .iter()
        .filter(|l| l["event"] == "result")
        .map(|l| (l["context"].as_str().unwrap_or("?"), l["ok"] == true))
        .collect();
    assert_eq!(results, [("alpha", true), ("beta", true)], "{run:?}");
    let waves: Vec<(&str, &str)> = run
        .lines
        .iter()
        .filter(|l| l["event"] == "note")
        .filter_map(|l| {
            let message = l["message"].as_str()?;
            message
                .starts_with("wave ")
                .then(|| (l["context"].as_str().unwrap_or("?"), message))
        })
        .collect();
    assert_eq!(
        waves,
        [
            ("alpha", "wave 1 of 2: xa-0"),
            ("alpha", "wave 2 of 2: xa-1"),
            ("beta", "wave 1 of 2: xb-0"),
            ("beta", "wave 2 of 2: xb-1"),
        ],
        "{run:?}"
    );
    assert_eq!(images(&alpha_nodes, &alpha_names).await, all_on(NEW, 2));
    assert_eq!(images(&beta_nodes, &beta_names).await, all_on(NEW, 2));

    // The journal of one context: the rollout's lines there, each naming it.
    let (ok, stdout, stderr) = clusters.text(&["journal", "--context", "beta", "-o", "json"]);
    assert!(ok, "{stderr}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).expect("journal json");
    let rows: Vec<(&str, &str, &str)> = rows
        .as_array()
        .expect("array")
        .iter()
        .filter(|r| r["action"] == "rollout")
        .map(|r| {
            (
                r["context"].as_str().unwrap_or("?"),
                r["nodes"][0].as_str().unwrap_or("?"),
                r["outcome"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    let (b0, b1) = (format!("{}/xb-0", ns.name), format!("{}/xb-1", ns.name));
    assert_eq!(
        rows,
        [
            ("beta", b0.as_str(), "started"),
            ("beta", b0.as_str(), "succeeded"),
            ("beta", b1.as_str(), "started"),
            ("beta", b1.as_str(), "succeeded"),
        ],
        "{stdout}"
    );
    drop(second);
}
