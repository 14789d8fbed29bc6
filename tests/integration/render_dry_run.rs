//! The rendered workload of every mode is accepted by the real API server: each SeiNode is
//! created for real (so the CRD's validation runs and the owner references carry its UID), then
//! its StatefulSet, headless Service, data PVC, kube-rbac-proxy ConfigMap (and, for a snapshot
//! bootstrap, the bootstrap Job and Service) are server-side applied with `dryRun=All` as the
//! controller's field manager.
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Service};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::common::{TestNamespace, repo_path};
use sei_console::api::SeiNode;
use sei_console::platform::PlatformConfig;
use sei_console::render;

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

fn manifests() -> Vec<(&'static str, String)> {
    let head = |name: &str| {
        format!(
            "apiVersion: sei.io/v1alpha1\nkind: SeiNode\nmetadata:\n  name: {name}\nspec:\n  chainId: pacific-1\n  image: {IMAGE}\n"
        )
    };
    vec![
        (
            "full",
            head("full-1")
                + "  fullNode:\n    snapshotGeneration: {tendermint: {keepRecent: 3, publish: {}}}\n",
        ),
        ("archive", head("archive-1") + "  archive: {}\n"),
        (
            "replayer",
            head("replayer-1")
                + "  sidecar: {port: 7777}\n  peers: [{static: {addresses: [\"0123456789abcdef0123456789abcdef01234567@10.0.0.1:26656\"]}}]\n  replayer:\n    snapshot: {s3: {targetHeight: 1000}, bootstrapImage: ghcr.io/sei-protocol/sei:v6.2.0}\n",
        ),
        (
            "validator",
            head("validator-1")
                + "  validator:\n    signingKey: {secret: {secretName: validator-1-signing}}\n    nodeKey: {secret: {secretName: validator-1-node-key}}\n    operatorKeyring:\n      secret: {secretName: validator-1-keyring, passphraseSecretRef: {secretName: validator-1-passphrase, key: passphrase}, seidMount: true}\n",
        ),
        (
            "seed",
            head("seed-1") + "  seed:\n    nodeKey: {secret: {secretName: seed-1-node-key}}\n",
        ),
    ]
}

async fn dry_run_apply<K>(api: &Api<K>, name: &str, object: &K) -> K
where
    K: kube::Resource + Clone + Serialize + DeserializeOwned + std::fmt::Debug,
{
    let params = PatchParams::apply("seinode-controller").force().dry_run();
    api.patch(name, &params, &Patch::Apply(object))
        .await
        .unwrap_or_else(|e| panic!("API server rejected {name}: {e}"))
}

#[tokio::test]
async fn rendered_objects_of_every_mode_pass_server_side_dry_run() {
    let ns = TestNamespace::new("render-dry-run").await;
    let platform = PlatformConfig::read_file(&repo_path("assets/demo/platform-config.yaml"))
        .expect("demo platform config");
    if let Err(e) = platform.validate() {
        // The file carries no gateway settings (controller env vars); everything else must be set.
        assert!(
            e.to_string().starts_with("SEI_GATEWAY_"),
            "demo platform config invalid: {e}"
        );
    }
    let nodes: Api<SeiNode> = ns.api();
    for (mode, manifest) in manifests() {
        let mut node: SeiNode = serde_yaml_ng::from_str(&manifest).expect("manifest");
        node.metadata.namespace = Some(ns.name.clone());
        let created = nodes
            .create(&PostParams::default(), &node)
            .await
            .unwrap_or_else(|e| panic!("{mode}: SeiNode rejected: {e}"));
        assert!(created.metadata.uid.is_some());
        let name = created.name().to_string();

        let applied =
            render::applied_workload(&created, &platform).unwrap_or_else(|e| panic!("{mode}: {e}"));
        let sts = dry_run_apply(&ns.api::<StatefulSet>(), &name, &applied.statefulset).await;
        assert_eq!(
            sts.metadata.owner_references.expect("owner")[0].uid,
            created.metadata.uid.clone().expect("uid")
        );
        let pod = sts.spec.template.spec.expect("pod spec");
        let containers: Vec<_> = pod.containers.iter().map(|c| c.name.as_str()).collect();
        let want: &[&str] = if mode == "seed" {
            &["seid"]
        } else {
            &["seid", "cosmos-exporter"]
        };
        assert_eq!(containers, want, "{mode}");

        dry_run_apply(&ns.api::<Service>(), &name, &applied.service).await;
        let pvc = applied.data_pvc.expect("create path renders a PVC");
        let pvc_name = pvc.metadata.name.clone().expect("pvc name");
        dry_run_apply(&ns.api::<PersistentVolumeClaim>(), &pvc_name, &pvc).await;
        let config_map = render::rbac_proxy_config_map(&created);
        let cm_name = config_map.metadata.name.clone().expect("cm name");
        dry_run_apply(&ns.api::<ConfigMap>(), &cm_name, &config_map).await;

        if let Some(snapshot) = created.spec.snapshot_source() {
            let job =
                render::bootstrap_job(&created, Some(snapshot), &platform).expect("bootstrap job");
            dry_run_apply(
                &ns.api::<Job>(),
                &render::bootstrap_job_name(&created),
                &job,
            )
            .await;
            // Nothing persists under dryRun, so the bootstrap Service can share the node's name.
            dry_run_apply(
                &ns.api::<Service>(),
                &name,
                &render::bootstrap_service(&created),
            )
            .await;
        }
    }
    // Dry runs persisted nothing.
    assert!(
        ns.api::<StatefulSet>()
            .list(&Default::default())
            .await
            .expect("list")
            .items
            .is_empty()
    );
}

/// `sei-console render` without `--platform-config` reads the controller's ConfigMap through the
/// kubeconfig: a clear error while it is missing or lacks `config.yaml`, the rendered List once
/// it exists.
#[tokio::test]
async fn render_command_reads_platform_config_from_the_controller_config_map() {
    let ns = TestNamespace::new("render-cm").await;
    let kubeconfig = crate::common::control_plane().kubeconfig.clone();
    let node_file = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("render-cm-{}.yaml", ns.name));
    std::fs::write(
        &node_file,
        format!("apiVersion: sei.io/v1alpha1\nkind: SeiNode\nmetadata: {{name: rpc-1, namespace: sei}}\nspec: {{chainId: pacific-1, image: {IMAGE}, fullNode: {{}}}}\n"),
    )
    .expect("write node manifest");
    let run = || {
        let mut cmd = assert_cmd::Command::cargo_bin("sei-console").expect("binary");
        cmd.env_remove("SEI_CONSOLE_PLATFORM_CONFIG")
            .env_remove("SEI_CONSOLE_CONTROLLER_NAMESPACE")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args([
                "render",
                "-o",
                "json",
                "--controller-namespace",
                &ns.name,
                "-f",
            ])
            .arg(&node_file);
        cmd
    };
    let missing = run().assert().code(1).get_output().stderr.clone();
    let missing = String::from_utf8_lossy(&missing);
    assert!(
        missing.contains(&format!(
            "ConfigMap {}/sei-controller-config not found",
            ns.name
        )),
        "{missing}"
    );

    let config_maps: Api<ConfigMap> = ns.api();
    let mut cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "sei-controller-config"},
        "data": {"other.yaml": "x: 1"}
    }))
    .expect("configmap json");
    config_maps
        .create(&PostParams::default(), &cm)
        .await
        .expect("create ConfigMap");
    let no_key = run().assert().code(1).get_output().stderr.clone();
    assert!(String::from_utf8_lossy(&no_key).contains("has no key config.yaml"));

    let text =
        std::fs::read_to_string(repo_path("assets/demo/platform-config.yaml")).expect("config");
    cm.data = Some([("config.yaml".to_string(), text)].into());
    config_maps
        .replace("sei-controller-config", &PostParams::default(), &{
            let mut live = config_maps.get("sei-controller-config").await.expect("get");
            live.data = cm.data.clone();
            live
        })
        .await
        .expect("update ConfigMap");
    let out = run().assert().success().get_output().stdout.clone();
    let list: serde_json::Value = serde_json::from_slice(&out).expect("json List");
    assert_eq!(list["kind"], "List");
    assert_eq!(
        list["items"][0]["spec"]["template"]["spec"]["tolerations"][0]["value"],
        "sei-node"
    );
    std::fs::remove_file(&node_file).expect("cleanup");
}
