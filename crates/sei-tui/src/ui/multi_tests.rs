//! Snapshots of one fleet across two clusters: the CLUSTER column at 80 and 200 columns,
//! per-cluster counts in the header, one cluster's STALE banner beside the other's rows, and
//! the node screen naming its cluster.
use super::tests::render;
use super::theme::Theme;
use crate::app::multi_tests::{PACIFIC, silence, two_cluster_model};
use crate::app::tests::{key, press};
use crate::keymap::KeyCode;

#[test]
fn two_clusters_at_80x24_keep_name_phase_drift_plan_warning_and_an_abbreviated_cluster() {
    let mut model = two_cluster_model();
    let screen = render(&mut model, 80, 24, &Theme::dark());
    let header = screen.lines().nth(2).unwrap_or_default().to_owned();
    for title in ["CL", "NAME", "PH", "DRIFT", "PLAN", "WARN"] {
        assert!(header.contains(title), "{title} in {header:?}");
    }
    insta::assert_snapshot!("two_clusters_80x24", screen);
}

#[test]
fn two_clusters_at_200x24() {
    let mut model = two_cluster_model();
    let screen = render(&mut model, 200, 24, &Theme::dark());
    assert!(screen.contains("CLUSTER"));
    insta::assert_snapshot!("two_clusters_200x24", screen);
}

#[test]
fn one_cluster_stale_keeps_both_clusters_rows() {
    let mut model = two_cluster_model();
    silence(&mut model, PACIFIC);
    let screen = render(&mut model, 200, 24, &Theme::dark());
    assert!(screen.contains("STALE pacific-1"));
    assert!(screen.contains("arctic-1") && screen.contains("pacific-1 "));
    insta::assert_snapshot!("two_clusters_one_stale_200x24", screen);
    insta::assert_snapshot!(
        "two_clusters_one_stale_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
}

#[test]
fn the_node_screen_names_its_cluster() {
    let mut model = two_cluster_model();
    press(&mut model, "G");
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, 120, 24, &Theme::dark());
    assert!(screen.contains("· cluster pacific-1"), "{screen}");
}

#[test]
fn each_cluster_in_trouble_has_its_own_banner_line() {
    use crate::app::model::Msg;
    use crate::app::multi_tests::{ARCTIC, epoch_of};
    use crate::app::update::update;
    use crate::fleet::watches::WatchKind;
    use crate::fleet::watches::WatchReport;
    let mut model = two_cluster_model();
    silence(&mut model, PACIFIC);
    let banners = super::chrome::banner_lines(&model);
    assert_eq!(banners.len(), 1, "{banners:?}");
    assert!(banners[0].starts_with(" STALE pacific-1 — data last confirmed 9s ago"));
    let epoch = epoch_of(&model, ARCTIC);
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Failed {
                error: "connection refused".into(),
                forbidden: false,
            },
        },
    );
    let banners = super::chrome::banner_lines(&model);
    assert_eq!(banners.len(), 2, "{banners:?}");
    assert!(
        banners[0].starts_with(" STALE arctic-1 since"),
        "{banners:?}"
    );
    assert!(banners[1].starts_with(" STALE pacific-1"), "{banners:?}");
}

#[test]
fn the_action_dialog_names_the_cluster_it_goes_to() {
    let mut model = two_cluster_model();
    press(&mut model, "G");
    press(&mut model, "i");
    let screen = render(&mut model, 120, 24, &Theme::dark());
    assert!(
        screen.contains("Image rollout · cluster pacific-1"),
        "{screen}"
    );
}
