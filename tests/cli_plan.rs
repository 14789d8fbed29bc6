//! `sei-console plan` through the binary: the oracle rows of spec/planner.md section 4, output
//! formats, and bad input (exit code 2, one line, no panic).
use std::io::Write;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const PLAN_ID: &str = "11111111-1111-4111-8111-111111111111";

/// A SeiNode manifest: `spec` lines go under `spec:` (after chainId/image), `status` under
/// `status:` (empty = no status). Both are written with two-space indentation relative to
/// their parent.
fn manifest(spec: &str, status: &str) -> String {
    let indent = |block: &str| -> String { block.lines().map(|l| format!("  {l}\n")).collect() };
    let mut text = String::from(
        "apiVersion: sei.io/v1alpha1\nkind: SeiNode\nmetadata:\n  name: n-0\n  namespace: ns\nspec:\n  chainId: pacific-1\n  image: sei:v2\n",
    );
    text.push_str(&indent(spec));
    if !status.is_empty() {
        text.push_str("status:\n");
        text.push_str(&indent(status));
    }
    text
}

fn write_temp(text: &str) -> tempfile_path::TempPath {
    tempfile_path::TempPath::with_contents(text)
}

/// Tiny self-cleaning temp file (no extra crate).
mod tempfile_path {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub struct TempPath(pub PathBuf);

    impl TempPath {
        pub fn with_contents(text: &str) -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, Ordering::SeqCst);
            let path = std::env::temp_dir()
                .join(format!("sei-console-plan-{}-{n}.yaml", std::process::id()));
            std::fs::write(&path, text).expect("write temp manifest");
            TempPath(path)
        }
    }

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

fn plan_json(text: &str, extra: &[&str]) -> Value {
    let file = write_temp(text);
    let output = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-o", "json", "--plan-id", PLAN_ID, "-f"])
        .arg(&file.0)
        .args(extra)
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("json output")
}

fn types(plan: &Value) -> Vec<String> {
    plan["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["type"].as_str().expect("type").to_owned())
        .collect()
}

fn expand(abbrevs: &str) -> Vec<String> {
    abbrevs
        .split(", ")
        .map(|a| {
            match a {
                "PVC" => "ensure-data-pvc",
                "VSK" => "validate-signing-key",
                "VNK" => "validate-node-key",
                "VOK" => "validate-operator-keyring",
                "RBAC" => "apply-rbac-proxy-config",
                "STS" => "apply-statefulset",
                "SVC" => "apply-service",
                "SR" => "snapshot-restore",
                "CG" => "configure-genesis",
                "CA" => "config-apply",
                "CSS" => "configure-state-sync",
                "CV" => "config-validate",
                "MR" => "mark-ready",
                "CP" => "config-patch",
                "RP" => "replace-pod",
                "OI" => "observe-image",
                "DBS" => "deploy-bootstrap-service",
                "DBJ" => "deploy-bootstrap-job",
                "ABC" => "await-bootstrap-complete",
                "TB" => "teardown-bootstrap",
                other => other,
            }
            .to_owned()
        })
        .collect()
}

const KEYS: &str =
    "  signingKey: {secret: {secretName: sk}}\n  nodeKey: {secret: {secretName: nk}}\n";
const OPK: &str = "  operatorKeyring: {secret: {secretName: opk, passphraseSecretRef: {secretName: pass, key: p}}}\n";
const PEERS: &str = "peers:\n- static: {addresses: [\"id@h:26656\"]}\n";

fn validator(extra: &str) -> String {
    format!("validator:\n{extra}")
}

fn init_rows() -> Vec<(&'static str, String, &'static str)> {
    let boot = "PVC, RBAC, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR";
    vec![
        (
            "I1",
            "fullNode: {}".into(),
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I2",
            "fullNode: {snapshot: {stateSync: {}}}".into(),
            "PVC, RBAC, STS, SVC, CG, CA, CSS, CV, MR",
        ),
        (
            "I3",
            "fullNode: {snapshot: {s3: {targetHeight: 100}}}".into(),
            "PVC, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        (
            "I4",
            "archive: {snapshotGeneration: {tendermint: {keepRecent: 5}}}".into(),
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I5",
            format!("{PEERS}replayer: {{snapshot: {{s3: {{targetHeight: 100}}}}}}"),
            "PVC, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        (
            "I6",
            "validator: {}".into(),
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I7",
            validator(KEYS),
            "PVC, VSK, VNK, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I8",
            validator(&format!(
                "{KEYS}{OPK}  snapshot: {{s3: {{targetHeight: 100}}}}\n"
            )),
            "PVC, VSK, VNK, VOK, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        (
            "I9",
            validator(&format!("{OPK}  snapshot: {{stateSync: {{}}}}\n")),
            "PVC, VOK, RBAC, STS, SVC, CG, CA, CSS, CV, MR",
        ),
        (
            "I10",
            "seed: {nodeKey: {secret: {secretName: seed-key}}}".into(),
            "PVC, VNK, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I11",
            validator(
                "  genesisCeremony: {chainId: arctic-1, stakingAmount: 1usei, accountBalance: 2usei, index: 0}\n",
            ),
            "PVC, RBAC, STS, SVC, generate-identity, generate-gentx, upload-genesis-artifacts, CG, CA, set-genesis-peers, CV, MR",
        ),
        (
            "I12",
            format!(
                "{PEERS}replayer: {{snapshot: {{s3: {{targetHeight: 100}}, bootstrapImage: sei:v1}}}}"
            ),
            boot,
        ),
        (
            "I12 full",
            "fullNode: {snapshot: {s3: {targetHeight: 100}, bootstrapImage: sei:v1}}".into(),
            boot,
        ),
        (
            "I13",
            validator(&format!(
                "{KEYS}  snapshot: {{s3: {{targetHeight: 100}}, bootstrapImage: sei:v1}}\n"
            )),
            "PVC, RBAC, VSK, VNK, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I14",
            validator(&format!(
                "{KEYS}{OPK}  snapshot: {{s3: {{targetHeight: 100}}, bootstrapImage: sei:v1}}\n"
            )),
            "PVC, RBAC, VSK, VNK, VOK, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR",
        ),
    ]
}

#[test]
fn oracle_init_rows_through_the_binary() {
    for (row, spec, expected) in init_rows() {
        let plan = plan_json(&manifest(&spec, ""), &[]);
        assert_eq!(types(&plan), expand(expected), "{row}");
        assert_eq!(plan["id"], PLAN_ID, "{row}");
        assert_eq!(
            (plan["targetPhase"].as_str(), plan["failedPhase"].as_str()),
            (Some("Running"), Some("Failed")),
            "{row}"
        );
    }
}

const UPDATE: &str = "STS, SVC, CP, CV, RP, OI, MR";

#[test]
fn oracle_running_rows_through_the_binary() {
    let drift = "phase: Running\ncurrentImage: sei:v1";
    let backfill = "phase: Running";
    let sidecar = "phase: Running\ncurrentImage: sei:v2\ncurrentSidecarImage: seictl:old";
    let update = UPDATE.to_owned();
    let rows: Vec<(&str, String, &str, String)> = vec![
        (
            "R1 full",
            "fullNode: {}\nsidecar: {image: seictl:new}".into(),
            sidecar,
            update.clone(),
        ),
        ("R1 archive", "archive: {}".into(), drift, update.clone()),
        (
            "R1 replayer",
            format!("{PEERS}replayer: {{snapshot: {{s3: {{targetHeight: 1}}}}}}"),
            drift,
            update.clone(),
        ),
        ("R2", "validator: {}".into(), drift, update.clone()),
        ("R3", validator(KEYS), drift, format!("VSK, VNK, {UPDATE}")),
        (
            "R4",
            validator(&format!("{KEYS}{OPK}")),
            drift,
            format!("VSK, VNK, VOK, {UPDATE}"),
        ),
        (
            "R5",
            "seed: {nodeKey: {secret: {secretName: k}}}".into(),
            drift,
            format!("VNK, {UPDATE}"),
        ),
        ("R8", "fullNode: {}".into(), backfill, update.clone()),
        (
            "R6",
            "fullNode: {}".into(),
            "phase: Running\ncurrentImage: sei:v2\nconditions:\n- {type: SidecarReady, status: \"False\", reason: NotReady, message: m, lastTransitionTime: \"2024-05-01T12:00:00Z\"}",
            "MR".to_owned(),
        ),
    ];
    for (row, spec, status, expected) in rows {
        let plan = plan_json(&manifest(&spec, status), &[]);
        assert_eq!(types(&plan), expand(&expected), "{row}");
        assert_eq!(plan["targetPhase"], "Running", "{row}");
        assert!(
            plan.get("failedPhase").is_none(),
            "{row}: update plans have no failedPhase"
        );
    }
}

#[test]
fn oracle_r7_steady_state_prints_null_and_no_plan() {
    let text = manifest("fullNode: {}", "phase: Running\ncurrentImage: sei:v2");
    assert_eq!(plan_json(&text, &[]), Value::Null);
    let file = write_temp(&text);
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-f"])
        .arg(&file.0)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("no plan: steady state"));
}

#[test]
fn table_lists_tasks_with_ids_and_params() {
    let file = write_temp(&manifest("validator: {}", ""));
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args([
            "plan",
            "--plan-id",
            "00000000-0000-0000-0000-000000000000",
            "-f",
        ])
        .arg(&file.0)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "a6787ec4-4403-56ac-afd0-f275a2954e39",
        ))
        .stdout(predicate::str::contains(r#"{"ExpectedGenesisHash":""}"#))
        .stdout(predicate::str::contains("(init, 8 tasks)"));
}

#[test]
fn yaml_output_and_stdin() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sei-console"))
        .args(["plan", "-o", "yaml", "--plan-id", PLAN_ID, "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(manifest("archive: {}", "").as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success());
    let plan: Value = serde_yaml_ng::from_slice(&output.stdout).expect("yaml");
    assert_eq!(plan["tasks"][5]["params"]["mode"], "archive");
}

#[test]
fn platform_config_sets_sidecar_default_and_state_sync_gate() {
    let config = write_temp(
        "images:\n  sidecar: seictl:platform\nstateSync:\n  syncers:\n    pacific-1: [\"h2:26657, h1:26657\"]\n",
    );
    let config_arg = config.0.to_str().expect("utf8").to_owned();
    let sidecar = manifest(
        "fullNode: {}",
        "phase: Running\ncurrentImage: sei:v2\ncurrentSidecarImage: seictl:old",
    );
    assert_eq!(
        types(&plan_json(&sidecar, &["--platform-config", &config_arg])),
        expand(UPDATE)
    );
    assert_eq!(
        plan_json(&sidecar, &[]),
        Value::Null,
        "without a platform config the running sidecar is assumed"
    );
    let state_sync = manifest("fullNode: {snapshot: {stateSync: {}}}", "");
    let plan = plan_json(&state_sync, &["--platform-config", &config_arg]);
    assert_eq!(
        plan["tasks"][6]["params"]["RpcServers"],
        serde_json::json!(["h1:26657", "h2:26657"])
    );
    let empty = write_temp("images:\n  sidecar: seictl:platform\n");
    let empty_arg = empty.0.to_str().expect("utf8").to_owned();
    assert_eq!(
        plan_json(&state_sync, &["--platform-config", &empty_arg]),
        Value::Null
    );
}

fn bad(text: &str, extra: &[&str], message: &str) {
    let file = write_temp(text);
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-f"])
        .arg(&file.0)
        .args(extra)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(message))
        .stderr(predicate::str::contains("panicked").not())
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn bad_input_exits_2_with_one_clear_line() {
    bad(
        &manifest("fullNode: {}\narchive: {}", ""),
        &[],
        "exactly one of fullNode, archive, replayer, validator, or seed must be set",
    );
    bad(
        &manifest("paused: false", ""),
        &[],
        "exactly one of fullNode, archive, replayer, validator, or seed must be set",
    );
    bad(
        &manifest(
            "fullNode: {snapshot: {bootstrapImage: x, stateSync: {}}}",
            "",
        ),
        &[],
        "error: fullNode: bootstrapImage requires s3 with targetHeight > 0",
    );
    // What the API server would refuse is refused first, in its words (the CRD's CEL rules).
    bad(
        &manifest("seed: {nodeKey: {}}", ""),
        &[],
        "the API server would refuse it: SeiNode.sei.io \"n-0\" is invalid: spec.seed.nodeKey: \
         Invalid value: exactly one node key source must be set",
    );
    bad(
        &manifest("replayer: {snapshot: {stateSync: {}}}", ""),
        &[],
        "spec: Invalid value: peers is required when replayer mode is set",
    );
    // What the CRD admits and the controller's validation refuses: the planner's words.
    bad(
        &manifest(
            "replayer: {snapshot: {stateSync: {}}}\npeers: [{static: {addresses: [\"a@h:1\"]}}]",
            "",
        ),
        &[],
        "replayer requires an S3 snapshot source",
    );
    bad(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
        &[],
        "is not a SeiNode",
    );
    bad("kind: SeiNode\nspec: [unclosed\n", &[], "line 2 column");
    bad(
        &manifest("fullNode: {}\nimage2: [", ""),
        &[],
        "invalid YAML",
    );
    bad(
        &manifest("fullNode: {}", "phase: Sideways"),
        &[],
        "not a valid SeiNode",
    );
    bad(
        &manifest("fullNode: {}", ""),
        &["--platform-config", "/nonexistent/config.yaml"],
        "does not exist",
    );
}

#[test]
fn unreadable_file_and_bad_plan_id_exit_2() {
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-f", "/nonexistent/node.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("reading /nonexistent/node.yaml"));
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-f", "x.yaml", "--plan-id", "not-a-uuid"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--plan-id"));
}

#[test]
fn help_explains_with_an_example() {
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Example:"))
        .stdout(predicate::str::contains("sei-console plan -f"))
        .stdout(predicate::str::contains("--plan-id"));
}

/// The `config-apply` task's `network.p2p.persistent_peers` override of an init plan.
fn persistent_peers(plan: &Value) -> String {
    plan["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["type"] == "config-apply")
        .and_then(|t| t["params"]["overrides"]["network.p2p.persistent_peers"].as_str())
        .unwrap_or_else(|| panic!("no config-apply with persistent peers in {plan}"))
        .to_owned()
}

#[test]
fn offline_plan_resolves_static_peers_sorted_and_deduplicated_as_the_controller_does() {
    // The controller resolves spec.peers on every reconcile before it plans: a stale status
    // list is replaced by the static sources, sorted and de-duplicated.
    let text = manifest(
        "fullNode: {}\npeers:\n- static: {addresses: [\"b@h2:26656\", \"a@h1:26656\"]}\n- static: {addresses: [\"a@h1:26656\"]}\n",
        "resolvedPeers: [\"stale@old:26656\"]\n",
    );
    assert_eq!(
        persistent_peers(&plan_json(&text, &[])),
        "a@h1:26656,b@h2:26656"
    );
}

#[test]
fn offline_plan_an_empty_spec_peers_clears_stale_resolved_peers_as_the_controller_does() {
    let text = manifest(
        "fullNode: {}\npeers: []\n",
        "resolvedPeers: [\"stale@old:26656\"]\n",
    );
    assert_eq!(persistent_peers(&plan_json(&text, &[])), "");
}

#[test]
fn offline_plan_names_the_label_and_ec2_sources_it_cannot_resolve_and_keeps_the_status() {
    let text = manifest(
        "fullNode: {}\npeers:\n- label: {selector: {tier: rpc}}\n- ec2Tags: {region: eu-west-1, tags: {role: sei}}\n- static: {addresses: [\"s@h:26656\"]}\n",
        "resolvedPeers: [\"e@10.0.0.1:26656\"]\n",
    );
    let file = write_temp(&text);
    let output = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["plan", "-o", "json", "--plan-id", PLAN_ID, "-f"])
        .arg(&file.0)
        .output()
        .expect("run");
    assert!(output.status.success(), "{output:?}");
    let plan: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(persistent_peers(&plan), "e@10.0.0.1:26656,s@h:26656");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("note: spec.peers: the label source tier=rpc (namespace ns) needs the cluster's SeiNodes and their sidecars, which plan -f cannot reach; the status's 1 resolvedPeers were kept")
            && stderr.contains("the ec2Tags source (region eu-west-1) needs EC2"),
        "{stderr}"
    );
}

/// Issue 33: explicit nulls the API server accepts (it drops nulls of non-nullable fields before
/// it validates) plan offline as they would in the cluster, instead of tripping a CEL rule.
#[test]
fn explicit_nulls_plan_as_the_api_server_stores_them() {
    let with_nulls = plan_json(
        &manifest(
            "fullNode:\n  snapshot: null\n  snapshotGeneration: null",
            "",
        ),
        &[],
    );
    let without = plan_json(&manifest("fullNode: {}", ""), &[]);
    assert_eq!(with_nulls, without);
    assert_eq!(with_nulls["phase"], "Active", "{with_nulls}");
}
