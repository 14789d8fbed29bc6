//! What a render-failure event means now, as the node screen and `describe` say it.
use crate::api::{NodeMode, SeiNode};
use crate::fleet::sample;
use crate::platform::PlatformConfig;
use crate::render::RenderError;
use crate::render::fix::{PlatformInUse, PlatformSource, judge_render_event};

fn seed() -> SeiNode {
    sample::node("sei", "seed-0", NodeMode::Seed, 600)
}

fn in_use(config: Option<PlatformConfig>) -> PlatformInUse {
    PlatformInUse {
        source: PlatformSource::File("/etc/platform.yaml".into()),
        config,
        read_at: Some(sample::now()),
    }
}

fn seed_message() -> String {
    format!(
        "Cannot render the StatefulSet: {}",
        RenderError::SeedNodepoolMissing
    )
}

#[test]
fn a_config_that_renders_the_seed_makes_the_event_from_before_and_says_since_when() {
    let mut config = PlatformConfig::test_fixture();
    config.scheduling.nodepool_seed = "sei-seed".into();
    let now = sample::now();
    let verdict = judge_render_event(&seed(), &seed_message(), Some(&in_use(Some(config))));
    assert_eq!(verdict.verdict(), "from-before");
    let seen = now
        .checked_sub(jiff::SignedDuration::from_mins(12))
        .expect("time");
    let line = super::text::render_event_line(&verdict, Some(seen), now).expect("a line");
    assert!(
        line.starts_with("from before (last seen 12m ago, "),
        "{line}"
    );
    assert!(
        line.contains("the platform config file /etc/platform.yaml, read 0s ago"),
        "{line}"
    );
    assert!(!line.contains("set scheduling.nodepoolSeed"), "{line}");
}

#[test]
fn a_config_that_still_fails_gives_the_fix_and_none_read_gives_it_unchecked() {
    let mut config = PlatformConfig::test_fixture();
    config.scheduling.nodepool_seed = String::new();
    let now = sample::now();
    let verdict = judge_render_event(&seed(), &seed_message(), Some(&in_use(Some(config))));
    assert_eq!(
        super::text::render_event_line(&verdict, None, now).as_deref(),
        Some("fix: set scheduling.nodepoolSeed in the platform config file /etc/platform.yaml")
    );
    let unread = judge_render_event(&seed(), &seed_message(), Some(&in_use(None)));
    assert_eq!(unread.verdict(), "unchecked");
    assert!(
        super::text::render_event_line(&unread, None, now)
            .is_some_and(|l| l.starts_with("fix: set scheduling.nodepoolSeed")),
        "{unread:?}"
    );
}
