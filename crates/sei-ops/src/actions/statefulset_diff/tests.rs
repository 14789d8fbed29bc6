use k8s_openapi::api::core::v1::{EnvVar, Volume};

use super::*;
use crate::actions::image_ref::ImageRef;
use crate::actions::preview::{image_pin_preview, image_pin_text, pinned_node};
use crate::planner::test_support::{ctx, full_node, running};
use crate::platform::PlatformConfig;
use crate::ports::ClusterErrorKind;
use crate::render::RenderError;
use crate::tasks::platform_renderer::PlatformRenderer;
use crate::tasks::testing::{FakeCluster, FakeRenderer};

const V1: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const V2: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn node() -> SeiNode {
    let mut node = running(full_node("rpc-0"), V1, "");
    node.metadata.uid = Some("uid-rpc-0".into());
    node
}

fn renderer() -> PlatformRenderer {
    PlatformRenderer::new(PlatformConfig::test_fixture())
}

async fn live_cluster(node: &SeiNode) -> FakeCluster {
    let cluster = FakeCluster::new();
    let live = desired_statefulset(&renderer(), node).expect("render");
    cluster
        .apply(&ClusterObject::StatefulSet(live))
        .await
        .expect("apply live");
    cluster
}

#[tokio::test]
async fn no_live_statefulset_says_so() {
    let cluster = FakeCluster::new();
    let preview = statefulset_preview(&cluster, &renderer(), &node()).await;
    assert_eq!(
        preview,
        StatefulSetPreview::NoLive {
            name: "rpc-0".into()
        }
    );
    assert!(
        !cluster.calls().iter().any(|c| c.starts_with("dry-run")),
        "no dry run without a live object"
    );
}

#[tokio::test]
async fn an_image_pin_changes_the_image_of_the_containers_running_spec_image() {
    let node = node();
    let cluster = live_cluster(&node).await;
    let image = ImageRef::parse(V2).expect("image");
    let preview = statefulset_preview(&cluster, &renderer(), &pinned_node(&node, &image)).await;
    let StatefulSetPreview::Changes { name, changes } = &preview else {
        panic!("expected changes, got {preview:?}");
    };
    assert_eq!(name, "rpc-0");
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.template.spec.initContainers[seid-init].image",
            "spec.template.spec.containers[seid].image"
        ]
    );
    assert!(
        changes
            .iter()
            .all(|c| c.before == Some(V1.into()) && c.after == Some(V2.into()))
    );
    assert!(
        cluster
            .calls()
            .contains(&"dry-run apply statefulsets rpc-0".to_owned())
    );
    assert_eq!(
        cluster.count_calls("apply statefulsets rpc-0"),
        1,
        "only the live object's own apply; the dry run stores nothing"
    );
}

#[tokio::test]
async fn an_unchanged_node_has_an_unchanged_statefulset() {
    let node = node();
    let cluster = live_cluster(&node).await;
    let preview = statefulset_preview(&cluster, &renderer(), &node).await;
    assert_eq!(
        preview,
        StatefulSetPreview::Unchanged {
            name: "rpc-0".into()
        }
    );
}

#[tokio::test]
async fn render_failure_and_a_refused_dry_run_are_reported_not_hidden() {
    let node = node();
    let failing = FakeRenderer::default();
    *failing.statefulset_error.lock().expect("lock") = Some(RenderError::SeedNodepoolMissing);
    let preview = statefulset_preview(&FakeCluster::new(), &failing, &node).await;
    assert_eq!(
        preview,
        StatefulSetPreview::RenderFailed {
            message: "generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file".into()
        }
    );

    let cluster = live_cluster(&node).await;
    cluster.fail_next(
        "dry-run apply",
        ClusterErrorKind::Forbidden,
        "statefulsets.apps \"rpc-0\" is forbidden",
    );
    let preview = statefulset_preview(&cluster, &renderer(), &node).await;
    assert_eq!(
        preview,
        StatefulSetPreview::Unavailable {
            message:
                "server-side dry run of StatefulSet rpc-0: statefulsets.apps \"rpc-0\" is forbidden"
                    .into()
        }
    );
}

fn with_pod(sts: &mut StatefulSet, edit: impl FnOnce(&mut PodSpec)) {
    edit(sts.spec.template.spec.get_or_insert_with(PodSpec::default));
}

#[test]
fn metadata_churn_is_not_a_change() {
    let live = desired_statefulset(&renderer(), &node()).expect("render");
    let mut after = live.clone();
    after.metadata.resource_version = Some("999".into());
    after.metadata.generation = Some(7);
    after.metadata.managed_fields = Some(vec![Default::default()]);
    after.metadata.uid = Some("other".into());
    after.status = Some(Default::default());
    assert_eq!(statefulset_changes(&live, &after), []);
}

#[test]
fn env_volumes_replicas_annotations_and_args_are_compared_by_name() {
    let live = desired_statefulset(&renderer(), &node()).expect("render");
    let mut after = live.clone();
    after.spec.replicas = Some(0);
    after
        .metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert("sei.io/note".into(), "x".into());
    with_pod(&mut after, |pod| {
        let seid = pod
            .containers
            .iter_mut()
            .find(|c| c.name == "seid")
            .expect("seid");
        seid.args = Some(vec!["start".into()]);
        let env = seid.env.get_or_insert_with(Vec::new);
        env.retain(|e| e.name != "TMPDIR");
        env.push(EnvVar {
            name: "GOMEMLIMIT".into(),
            value: Some("1GiB".into()),
            ..EnvVar::default()
        });
        pod.volumes.get_or_insert_with(Vec::new).push(Volume {
            name: "extra".into(),
            ..Volume::default()
        });
    });
    let mut text = String::new();
    statefulset_text(
        &mut text,
        &StatefulSetPreview::Changes {
            name: "rpc-0".into(),
            changes: statefulset_changes(&live, &after),
        },
    );
    insta::assert_snapshot!("diff_by_name", text);
}

#[tokio::test]
async fn image_pin_preview_text_with_the_statefulset_diff() {
    let node = node();
    let cluster = live_cluster(&node).await;
    let image = ImageRef::parse(V2).expect("image");
    let mut preview = image_pin_preview(&node, &image, &ctx()).expect("preview");
    preview.statefulset =
        Some(statefulset_preview(&cluster, &renderer(), &pinned_node(&node, &image)).await);
    insta::assert_snapshot!(
        "image_pin_text_with_statefulset_diff",
        image_pin_text(&preview)
    );
    insta::assert_json_snapshot!("image_pin_json_statefulset", preview.statefulset);
}

#[test]
fn texts_of_the_other_outcomes() {
    let mut text = String::new();
    for preview in [
        StatefulSetPreview::NoLive {
            name: "rpc-0".into(),
        },
        StatefulSetPreview::Unchanged {
            name: "rpc-0".into(),
        },
        StatefulSetPreview::RenderFailed {
            message: "generating statefulset: boom".into(),
        },
        StatefulSetPreview::Unavailable {
            message: "server-side dry run of StatefulSet rpc-0: forbidden".into(),
        },
    ] {
        statefulset_text(&mut text, &preview);
    }
    insta::assert_snapshot!("other_outcomes_text", text);
}
