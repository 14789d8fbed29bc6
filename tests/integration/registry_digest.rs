//! Issue 33 item 6, `rollout --resolve-digest`, against a real OCI registry: go-containerregistry's
//! `crane registry serve` on 127.0.0.1 (built by `tests/control-plane/build crane`), test images
//! pushed with `crane append`. The tag is resolved by the registry's own answer, the preview names
//! the digest, the node is pinned to `name:tag@digest`; a tag moved after the rollout does not move
//! the node; a tag the registry does not have is refused in one line with nothing changed.
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::console::{cli, node_reported_running};
use crate::common::{TestNamespace, repo_path, wait_for};

/// `crane`, built into the control-plane cache on first use.
fn crane() -> PathBuf {
    let build = repo_path("tests/control-plane/build");
    let out = Command::new("bash")
        .arg(&build)
        .arg("crane-path")
        .output()
        .expect("run tests/control-plane/build crane-path");
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !path.is_file() {
        let status = Command::new("bash")
            .arg(&build)
            .arg("crane")
            .status()
            .expect("run tests/control-plane/build crane");
        assert!(
            status.success() && path.is_file(),
            "crane could not be built"
        );
    }
    path
}

/// A registry on a free loopback port, stopped when dropped.
struct Registry {
    child: Child,
    host: String,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn registry() -> Registry {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port();
    let host = format!("127.0.0.1:{port}");
    let child = Command::new(crane())
        .args(["registry", "serve", "--address", &host])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("crane registry serve");
    let registry = Registry { child, host };
    wait_for("the registry to listen", Duration::from_secs(20), || {
        let host = registry.host.clone();
        async move { Ok(std::net::TcpStream::connect(host).ok()) }
    })
    .await;
    registry
}

/// Pushes a one-file image as `reference` and returns its digest as crane reports it.
fn push(reference: &str, content: &str, dir: &Path) -> String {
    let file = dir.join("content");
    std::fs::write(&file, content).expect("write");
    let layer = dir.join("layer.tar");
    let tar = Command::new("tar")
        .arg("-cf")
        .arg(&layer)
        .arg("-C")
        .arg(dir)
        .arg("content")
        .status()
        .expect("tar");
    assert!(tar.success());
    let out = Command::new(crane())
        .arg("append")
        .arg("-f")
        .arg(&layer)
        .args(["-t", reference, "--insecure"])
        .output()
        .expect("crane append");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pushed = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let (_, digest) = pushed.split_once('@').expect("crane prints name@digest");
    digest.to_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn spec_image(ns: &TestNamespace) -> String {
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    node.data["spec"]["image"].as_str().unwrap_or("").to_owned()
}

fn rollout(ns: &str, image: &str, extra: &[&str], state: &Path) -> std::process::Output {
    let mut args = vec![
        "rollout",
        "--no-health-gate",
        "rpc-0",
        "-n",
        ns,
        "--image",
        image,
        "--resolve-digest",
        "--yes",
        "--no-wait",
        "--executor",
        "embedded",
    ];
    args.extend_from_slice(extra);
    cli(&args, state)
}

#[tokio::test]
async fn resolve_digest_pins_the_digest_the_registry_serves_for_the_tag() {
    let registry = registry().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let repository = format!("{}/sei-protocol/sei", registry.host);
    let running = format!("{repository}:v6.4.0");
    push(&running, "v6.4.0", dir.path());
    let tagged = format!("{repository}:v6.5.0");
    let digest = push(&tagged, "v6.5.0", dir.path());

    let ns = TestNamespace::new("resolve-digest").await;
    node_reported_running(&ns, "rpc-0", &running).await;
    let state = tempfile::tempdir().expect("tempdir");

    let preview = rollout(&ns.name, &tagged, &["--dry-run"], state.path());
    assert!(preview.status.success(), "{}", text(&preview.stderr));
    let said = format!("{}{}", text(&preview.stdout), text(&preview.stderr));
    assert!(
        said.contains(&format!("{tagged} resolved to {digest}")),
        "the preview names the digest: {said}"
    );
    assert_eq!(spec_image(&ns).await, running, "a dry run changes nothing");

    let out = rollout(&ns.name, &tagged, &[], state.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pinned = format!("{tagged}@{digest}");
    assert_eq!(
        spec_image(&ns).await,
        pinned,
        "pinned to the registry's digest"
    );

    // The tag moves; the node stays on the bytes it was pinned to.
    let moved = push(&tagged, "v6.5.0, rebuilt", dir.path());
    assert_ne!(moved, digest);
    assert_eq!(spec_image(&ns).await, pinned);
}

#[tokio::test]
async fn a_tag_the_registry_does_not_have_is_refused_in_one_line_and_nothing_changes() {
    let registry = registry().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let repository = format!("{}/sei-protocol/sei", registry.host);
    let running = format!("{repository}:v6.4.0");
    push(&running, "v6.4.0", dir.path());

    let ns = TestNamespace::new("resolve-missing").await;
    node_reported_running(&ns, "rpc-0", &running).await;
    let state = tempfile::tempdir().expect("tempdir");
    let missing = format!("{repository}:v6.5.0");
    let out = rollout(&ns.name, &missing, &[], state.path());
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no such tag") && stderr.contains("nothing was changed"),
        "{stderr}"
    );
    assert_eq!(spec_image(&ns).await, running, "nothing changed");
}
