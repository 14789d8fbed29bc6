//! A chain's reference RPC (issue 24, item 2): an RPC outside the fleet, set per chain ID in the
//! config file (`[chains."pacific-1"] reference_rpc = "https://…"`), whose `/status` height the
//! fleet's nodes are measured against instead of the fleet's own highest node. Pure: the URL,
//! its validation, and the last read the console made of it. An unreachable reference is kept
//! as such, and the lag falls back to the fleet's highest height (`fleet::chain_tops`).
//!
//! The fleet keeps them (`Fleets::set_references`, `record_reference`, `references_due`, `top_of`):
//! an answering reference is its chain's top (`LagSource::Reference`), an unreachable one leaves
//! the fleet's top as `LagSource::FleetReferenceUnreachable`. The console reads each every 5 s
//! (`app::chain_health`); `get`, `describe` and `doctor` read each once
//! (`cli::chain_health::references`, `read_references`).
use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;

use super::health::{ChainTop, LagSource};
use super::rpc::RpcFailure;
use crate::http_url::{self, HttpUrlError, Query};

/// A validated `http(s)://HOST[:PORT][/PATH]`, without a trailing slash: `/status` is appended.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct ReferenceUrl(String);

impl ReferenceUrl {
    pub fn parse(text: &str) -> Result<ReferenceUrl, HttpUrlError> {
        let text = http_url::check(text, Query::Refused)?;
        Ok(ReferenceUrl(text.trim_end_matches('/').to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_https(&self) -> bool {
        self.0.starts_with("https://")
    }

    /// `GET <url>/status`.
    pub fn status_url(&self) -> String {
        format!("{}/status", self.0)
    }
}

impl std::fmt::Display for ReferenceUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One read of a reference's `/status`: its height, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceRead {
    pub at: Timestamp,
    pub outcome: Result<u64, RpcFailure>,
}

/// A chain's reference and its last read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub url: ReferenceUrl,
    pub last: Option<ReferenceRead>,
    /// A read is in flight (the console's poller asks for one at a time).
    pub reading: bool,
}

impl Reference {
    pub fn new(url: ReferenceUrl) -> Reference {
        Reference {
            url,
            last: None,
            reading: false,
        }
    }

    /// The height it answered last, when its last read answered.
    pub fn height(&self) -> Option<u64> {
        self.last
            .as_ref()
            .and_then(|r| r.outcome.as_ref().ok())
            .copied()
    }

    /// Why its last read failed.
    pub fn failure(&self) -> Option<&RpcFailure> {
        self.last.as_ref().and_then(|r| r.outcome.as_ref().err())
    }
}

/// Every chain's reference, by chain ID.
pub type References = BTreeMap<String, Reference>;

/// The references the config names, none read yet.
pub fn references_of(urls: &BTreeMap<String, ReferenceUrl>) -> References {
    urls.iter()
        .map(|(chain, url)| (chain.clone(), Reference::new(url.clone())))
        .collect()
}

/// Puts each chain's reference over the fleet's tops (`fleet_tops`: the highest height read per
/// chain ID): a reference whose last read answered is the top, even below the fleet's highest
/// node (the operator chose it as the truth); one that did not answer leaves the fleet's top,
/// marked as the fallback it is.
pub fn apply_references(fleet_tops: &mut BTreeMap<String, ChainTop>, references: &References) {
    for (chain, reference) in references {
        if let Some(height) = reference.height() {
            fleet_tops.insert(
                chain.clone(),
                ChainTop {
                    height,
                    source: Some(LagSource::Reference),
                },
            );
        } else if reference.failure().is_some()
            && let Some(top) = fleet_tops.get_mut(chain)
        {
            top.source = Some(LagSource::FleetReferenceUnreachable);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_urls_are_http_or_https_with_a_host_and_lose_a_trailing_slash() {
        let url = ReferenceUrl::parse(" https://rpc.sei.example:443/ ").expect("valid");
        assert_eq!(url.status_url(), "https://rpc.sei.example:443/status");
        assert!(url.is_https());
        let path = ReferenceUrl::parse("http://127.0.0.1:26657/rpc").expect("valid");
        assert_eq!(path.status_url(), "http://127.0.0.1:26657/rpc/status");
        assert!(ReferenceUrl::parse("http://[::1]:26657").is_ok());
        for (bad, why) in [
            ("rpc.sei.example", HttpUrlError::Scheme),
            ("ftp://x", HttpUrlError::Scheme),
            ("https://", HttpUrlError::NoHost),
            ("https://:443", HttpUrlError::NoHost),
            ("http://x:0", HttpUrlError::Port),
            ("http://x:http", HttpUrlError::Port),
            ("http://x/status?y=1", HttpUrlError::Query),
            ("http://user@x", HttpUrlError::Extra),
            ("http://x y", HttpUrlError::Extra),
        ] {
            assert_eq!(ReferenceUrl::parse(bad), Err(why), "{bad}");
        }
    }

    #[test]
    fn an_answering_reference_is_the_top_and_an_unreachable_one_leaves_the_fleet_top_said_so() {
        let at: Timestamp = "2026-12-01T12:00:00Z".parse().expect("time");
        let fleet = |height| ChainTop {
            height,
            source: Some(LagSource::Fleet),
        };
        let mut tops: BTreeMap<String, ChainTop> =
            [("a".to_owned(), fleet(900)), ("b".to_owned(), fleet(500))].into();
        let mut references = references_of(
            &[
                (
                    "a".to_owned(),
                    ReferenceUrl::parse("http://a").expect("url"),
                ),
                (
                    "b".to_owned(),
                    ReferenceUrl::parse("http://b").expect("url"),
                ),
                (
                    "c".to_owned(),
                    ReferenceUrl::parse("http://c").expect("url"),
                ),
            ]
            .into(),
        );
        let mut unread = tops.clone();
        apply_references(&mut unread, &references);
        assert_eq!(unread, tops, "a reference not read yet changes nothing");
        if let Some(a) = references.get_mut("a") {
            a.last = Some(ReferenceRead {
                at,
                outcome: Ok(800),
            });
        }
        if let Some(b) = references.get_mut("b") {
            b.last = Some(ReferenceRead {
                at,
                outcome: Err(RpcFailure::Refused("http://b: connection refused".into())),
            });
        }
        apply_references(&mut tops, &references);
        assert_eq!(
            tops.get("a"),
            Some(&ChainTop {
                height: 800,
                source: Some(LagSource::Reference)
            }),
            "the reference, even below the fleet's highest node"
        );
        assert_eq!(
            tops.get("b"),
            Some(&ChainTop {
                height: 500,
                source: Some(LagSource::FleetReferenceUnreachable)
            })
        );
        assert_eq!(tops.get("c"), None, "no node of c read: no top");
    }
}
