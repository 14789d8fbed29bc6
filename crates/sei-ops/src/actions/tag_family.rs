//! Whether a tag to roll looks like the tags the nodes run now: a version number where they run
//! version numbers (or the other way round), and no letter where their tags have a digit (the
//! typo `v6.5.O` for `v6.5.0`). A tag that does not fit is not refused outright — a new naming
//! scheme is possible — but it takes an explicit word from the operator (`--allow-unusual-tag`
//! on the command line, the tag typed in the console). Pure.
use std::fmt;

use super::image_ref::ImageRef;

/// How a tag differs from the tags running now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnusualTag {
    pub tag: String,
    /// The running tag it was compared with.
    pub running: String,
    pub difference: String,
}

impl fmt::Display for UnusualTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tag {} does not look like the running tag {}: {}",
            self.tag, self.running, self.difference
        )
    }
}

/// `v6.4.0`, `6.4`, `v1.2.3-rc1`: digits joined by dots (at least two numbers), an optional `v`
/// and an optional `-`/`+` suffix.
fn is_version(tag: &str) -> bool {
    let core = tag.strip_prefix('v').unwrap_or(tag);
    let core = core.split(['-', '+']).next().unwrap_or(core);
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The first place where `tag` has a letter and `running` a digit, when that is how they
/// differ: same length, and everywhere else the same character class (digit, letter or the
/// same separator).
fn letter_for_digit(tag: &str, running: &str) -> Option<(usize, char, char)> {
    if tag.len() != running.len() {
        return None;
    }
    let class = |c: char| match c {
        c if c.is_ascii_digit() => '9',
        c if c.is_ascii_alphabetic() => 'a',
        c => c,
    };
    let mut found = None;
    for (at, (new, old)) in tag.chars().zip(running.chars()).enumerate() {
        if new.is_ascii_alphabetic() && old.is_ascii_digit() {
            found = found.or(Some((at, new, old)));
        } else if class(new) != class(old) {
            return None;
        }
    }
    found
}

/// How `image`'s tag differs from the tags of `running` (the images the nodes run or are
/// pinned to now), or `None` when it looks like one of them, is pinned by digest, or nothing
/// runs with a tag to compare.
pub fn unusual_tag(image: &ImageRef, running: &[ImageRef]) -> Option<UnusualTag> {
    if image.is_pinned_by_digest() {
        return None;
    }
    let tag = image.tag.as_deref()?;
    let mut tags: Vec<&str> = running.iter().filter_map(|r| r.tag.as_deref()).collect();
    tags.sort_unstable();
    tags.dedup();
    let first = *tags.first()?;
    if tags.contains(&tag) {
        return None;
    }
    let unusual = |running: &str, difference: String| UnusualTag {
        tag: tag.to_owned(),
        running: running.to_owned(),
        difference,
    };
    // Against version tags only: a commit-hash tag mixes letters and digits at random.
    if let Some((running, (at, new, old))) = tags
        .iter()
        .filter(|r| is_version(r))
        .find_map(|r| letter_for_digit(tag, r).map(|found| (*r, found)))
    {
        return Some(unusual(
            running,
            format!(
                "the letter {new:?} at position {} where it has the digit {old:?}",
                at + 1
            ),
        ));
    }
    let versions: Vec<&str> = tags.iter().copied().filter(|t| is_version(t)).collect();
    match (is_version(tag), versions.first()) {
        (false, Some(running)) => Some(unusual(
            running,
            "not a version number, where the running tag is one".to_owned(),
        )),
        (true, None) => Some(unusual(
            first,
            "a version number, where the running tag is not one".to_owned(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(text: &str) -> ImageRef {
        ImageRef::parse(text).expect("valid")
    }

    fn running(texts: &[&str]) -> Vec<ImageRef> {
        texts.iter().map(|t| image(t)).collect()
    }

    /// Issue 33: `…:v6.5.O` reached the confirmation with only the generic digest warning.
    #[test]
    fn a_letter_where_the_running_tag_has_a_digit_is_named() {
        let found = unusual_tag(
            &image("ghcr.io/sei-protocol/sei:v6.5.O"),
            &running(&["ghcr.io/sei-protocol/sei:v6.4.0"]),
        )
        .expect("unusual");
        assert_eq!(
            found.to_string(),
            "tag v6.5.O does not look like the running tag v6.4.0: the letter 'O' at position 6 \
             where it has the digit '0'"
        );
    }

    #[test]
    fn version_numbers_and_other_tags_do_not_mix() {
        let latest = unusual_tag(&image("sei:latest"), &running(&["sei:v6.4.0"]));
        assert_eq!(
            latest.map(|u| u.difference),
            Some("not a version number, where the running tag is one".to_owned())
        );
        let version = unusual_tag(&image("sei:v6.4.0"), &running(&["sei:main-abc123"]));
        assert_eq!(
            version.map(|u| u.difference),
            Some("a version number, where the running tag is not one".to_owned())
        );
    }

    #[test]
    fn tags_like_the_running_ones_pass() {
        let fleet = running(&["sei:v6.3.0", "sei:v6.4.0"]);
        for tag in ["sei:v6.5.0", "sei:v6.10.1", "sei:v7.0.0-rc1", "sei:v6.4.0"] {
            assert_eq!(unusual_tag(&image(tag), &fleet), None, "{tag}");
        }
        let sha = running(&["sei:main-abc1234"]);
        assert_eq!(unusual_tag(&image("sei:main-def5678"), &sha), None);
        assert_eq!(
            unusual_tag(&image("sei:main-1234abc"), &sha),
            None,
            "hashes mix"
        );
        let digest = format!("sei@sha256:{}", "0".repeat(64));
        assert_eq!(unusual_tag(&image(&digest), &fleet), None, "pinned");
        assert_eq!(
            unusual_tag(&image("sei:v6.5.O"), &[]),
            None,
            "nothing to compare"
        );
    }
}
