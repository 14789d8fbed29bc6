use std::time::{Duration, Instant};

use super::*;

fn flow_bomb(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

fn block_bomb(levels: usize) -> String {
    format!("{}x\n", "- ".repeat(levels))
}

fn json_bomb(levels: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels))
}

#[test]
fn shallow_documents_pass_and_bombs_are_refused_naming_the_limit() {
    let manifest = "apiVersion: sei.io/v1alpha1\nkind: SeiNode\nspec:\n  full: {}\n";
    assert_eq!(check_yaml(manifest, MANIFEST), Ok(()));
    for bomb in [flow_bomb(100_000), block_bomb(100_000), json_bomb(100_000)] {
        let started = Instant::now();
        let refused = check_yaml(&bomb, MANIFEST);
        // Bounded in time: the check stops at the first level over the limit.
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            refused.map_err(|e| e.to_string()),
            Err("nested deeper than the limit of 64 levels (line 1)".to_owned())
        );
    }
    assert_eq!(check_yaml(&flow_bomb(64), MANIFEST), Ok(()));
    assert!(check_yaml(&flow_bomb(65), MANIFEST).is_err());
}

#[test]
fn oversized_input_is_refused_before_parsing() {
    let big = "a".repeat(CONFIG_FILE.max_bytes + 1);
    assert_eq!(
        check_yaml(&big, CONFIG_FILE).map_err(|e| e.to_string()),
        Err("over the limit of 1048576 bytes (read 1048577)".to_owned())
    );
}

#[test]
fn syntax_errors_are_left_to_the_decoder() {
    assert_eq!(check_yaml("a: [1, 2", MANIFEST), Ok(()));
}

#[test]
fn long_values_are_elided_with_their_length_and_short_ones_kept() {
    assert_eq!(elide("short"), "short");
    let long = "x".repeat(1_000_000);
    let shown = elide(&long);
    assert_eq!(
        shown.chars().count(),
        200 + "… (1000000 characters)".chars().count()
    );
    assert!(shown.ends_with("… (1000000 characters)"));
    assert_eq!(elide("two\nlines"), "two… (9 characters)");
}

#[test]
fn toml_brackets_count_outside_strings_and_comments() {
    let config = "theme = \"dark [\" # [[[[\n[keys]\nfleet = { quit = [\"q\"] }\n";
    assert_eq!(check_brackets(config, CONFIG_FILE), Ok(()));
    let bomb = format!("a = {}", "[".repeat(100_000));
    assert_eq!(
        check_brackets(&bomb, CONFIG_FILE).map_err(|e| e.to_string()),
        Err("nested deeper than the limit of 32 levels (line 1)".to_owned())
    );
}

#[test]
fn bounded_reads_stop_past_the_limit() {
    let limits = InputLimits {
        max_bytes: 10,
        max_depth: 1,
    };
    let endless = std::io::repeat(b'a');
    assert_eq!(
        read_bounded(endless, limits).expect("read"),
        Err(LimitError::TooLarge {
            size: 11,
            limit: 10
        })
    );
    assert_eq!(
        read_bounded(&b"short"[..], limits).expect("read"),
        Ok("short".to_owned())
    );
}
