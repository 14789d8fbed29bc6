//! Issue 33, "image references that make sense", through `sei-console rollout` against the real
//! API server: an untagged reference is refused (the pod would pull `latest`), a tag unlike the
//! running one (`v6.5.O` where `v6.4.0` runs) is refused with `--yes` unless
//! `--allow-unusual-tag`, naming the difference in one line; nothing is changed by a refusal.
use crate::common::TestNamespace;
use crate::common::console::{cli, node_reported_running};

const RUNNING: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn spec_image(ns: &TestNamespace) -> String {
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    node.data["spec"]["image"].as_str().unwrap_or("").to_owned()
}

fn rollout(ns: &str, image: &str, extra: &[&str], state: &std::path::Path) -> std::process::Output {
    let mut args = vec![
        "rollout",
        "--no-health-gate",
        "rpc-0",
        "-n",
        ns,
        "--image",
        image,
        "--yes",
        "--no-wait",
        "--executor",
        "embedded",
    ];
    args.extend_from_slice(extra);
    cli(&args, state)
}

#[tokio::test]
async fn an_untagged_image_is_refused_in_one_line() {
    let ns = TestNamespace::new("image-untagged").await;
    node_reported_running(&ns, "rpc-0", RUNNING).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = rollout(&ns.name, "ghcr.io/sei-protocol/sei", &[], state.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("would pull `latest`"), "{stderr}");
    assert_eq!(spec_image(&ns).await, RUNNING, "nothing changed");
}

#[tokio::test]
async fn a_tag_unlike_the_running_one_needs_allow_unusual_tag() {
    let ns = TestNamespace::new("image-unusual").await;
    node_reported_running(&ns, "rpc-0", RUNNING).await;
    let state = tempfile::tempdir().expect("tempdir");
    let typo = "ghcr.io/sei-protocol/sei:v6.5.O";
    let out = rollout(&ns.name, typo, &[], state.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "tag v6.5.O does not look like the running tag v6.4.0: the letter 'O' at position 6 \
             where it has the digit '0'"
        ) && stderr.contains("--allow-unusual-tag"),
        "{stderr}"
    );
    assert_eq!(spec_image(&ns).await, RUNNING, "nothing changed");

    // A tag of the family needs no word (previewed only).
    let usual = rollout(
        &ns.name,
        "ghcr.io/sei-protocol/sei:v6.5.0",
        &["--dry-run"],
        state.path(),
    );
    assert!(usual.status.success(), "{}", text(&usual.stderr));

    let allowed = rollout(&ns.name, typo, &["--allow-unusual-tag"], state.path());
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    assert_eq!(spec_image(&ns).await, typo, "rolled when allowed");
}
