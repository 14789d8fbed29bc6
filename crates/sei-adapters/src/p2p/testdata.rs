//! Test vectors (see `testdata/README.md` for where each comes from).
use std::collections::HashMap;

pub fn hex32(text: &str) -> [u8; 32] {
    let bytes = hex(text);
    bytes.try_into().expect("32 bytes of hex")
}

pub fn hex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex {text}");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// One line of upstream's `TestDeriveSecretsAndChallengeGolden.golden`.
pub struct GoldenLine {
    pub dh: [u8; 32],
    pub loc_is_least: bool,
    pub recv: [u8; 32],
    pub send: [u8; 32],
}

pub fn upstream_golden() -> Vec<GoldenLine> {
    include_str!("testdata/derive_secrets_golden.csv")
        .lines()
        .map(|line| {
            let cols: Vec<&str> = line.split(',').collect();
            GoldenLine {
                dh: hex32(cols[0]),
                loc_is_least: cols[1] == "true",
                recv: hex32(cols[2]),
                send: hex32(cols[3]),
            }
        })
        .collect()
}

/// A whole session computed by Go with upstream's libraries.
pub struct GoSession {
    pub loc_secret: [u8; 32],
    pub rem_secret: [u8; 32],
    pub loc_pub: [u8; 32],
    pub rem_pub: [u8; 32],
    pub challenge: [u8; 32],
    pub send: [u8; 32],
    pub recv: [u8; 32],
    pub frame0_hello_sha256: [u8; 32],
    pub frame0_hello_tag: Vec<u8>,
    pub node_key_seed: [u8; 32],
    pub node_id: String,
    pub challenge_sig: Vec<u8>,
}

pub fn go_sessions() -> Vec<GoSession> {
    include_str!("testdata/go_sessions.txt")
        .split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let fields: HashMap<&str, &str> = block
                .split_whitespace()
                .filter_map(|token| token.split_once('='))
                .collect();
            let get = |k: &str| *fields.get(k).unwrap_or_else(|| panic!("field {k}"));
            GoSession {
                loc_secret: hex32(get("loc_secret")),
                rem_secret: hex32(get("rem_secret")),
                loc_pub: hex32(get("loc_pub")),
                rem_pub: hex32(get("rem_pub")),
                challenge: hex32(get("challenge")),
                send: hex32(get("send")),
                recv: hex32(get("recv")),
                frame0_hello_sha256: hex32(get("frame0_hello_sha256")),
                frame0_hello_tag: hex(get("frame0_hello_tag")),
                node_key_seed: hex32(get("node_key_seed")),
                node_id: get("node_id").to_owned(),
                challenge_sig: hex(get("challenge_sig")),
            }
        })
        .collect()
}
