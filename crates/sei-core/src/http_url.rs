//! One grammar for the `http(s)://` URLs of the config file: a chain's reference RPC
//! (`chain::ReferenceUrl`, no query: `/status` is appended) and the `[notify]` webhooks
//! (`config::notify::WebhookUrl`, a query allowed: webhook URLs often carry a token in it).
//! No user part, fragment or whitespace in either.

/// Why a URL was refused: one line for the config problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpUrlError {
    #[error("is not an http:// or https:// URL")]
    Scheme,
    #[error("has no host")]
    NoHost,
    #[error("has a port that is not a number from 1 to 65535")]
    Port,
    #[error("has a user part, fragment or space")]
    Extra,
    #[error("has a query (only http(s)://HOST[:PORT][/PATH])")]
    Query,
}

/// Whether the URL may end in `?QUERY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    Allowed,
    Refused,
}

/// Checks `http(s)://HOST[:PORT][/PATH][?QUERY]` and gives the text back trimmed.
pub fn check(text: &str, query: Query) -> Result<&str, HttpUrlError> {
    let text = text.trim();
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or(HttpUrlError::Scheme)?;
    if rest
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '#' | '@'))
    {
        return Err(HttpUrlError::Extra);
    }
    if query == Query::Refused && rest.contains('?') {
        return Err(HttpUrlError::Query);
    }
    let authority = authority(rest);
    // `[::1]:26657`: the port follows the bracket.
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (authority, None),
    };
    if host.is_empty() || host == "[]" {
        return Err(HttpUrlError::NoHost);
    }
    if let Some(port) = port
        && !port.parse::<u16>().is_ok_and(|p| p > 0)
    {
        return Err(HttpUrlError::Port);
    }
    Ok(text)
}

/// `HOST[:PORT]` of what follows `scheme://`.
pub fn authority(rest: &str) -> &str {
    rest.split(['/', '?']).next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_an_http_scheme_a_host_and_a_port_in_range() {
        for (bad, why) in [
            ("rpc.sei.example", HttpUrlError::Scheme),
            ("ftp://x", HttpUrlError::Scheme),
            ("https://", HttpUrlError::NoHost),
            ("https://:443", HttpUrlError::NoHost),
            ("http://x:0", HttpUrlError::Port),
            ("http://x:70000/", HttpUrlError::Port),
            ("http://x:http", HttpUrlError::Port),
            ("http://user@x", HttpUrlError::Extra),
            ("http://x y", HttpUrlError::Extra),
            ("http://x/#top", HttpUrlError::Extra),
        ] {
            assert_eq!(check(bad, Query::Allowed), Err(why.clone()), "{bad}");
            assert_eq!(check(bad, Query::Refused), Err(why), "{bad}");
        }
        assert_eq!(
            check(" http://[::1]:26657 ", Query::Refused),
            Ok("http://[::1]:26657")
        );
    }

    #[test]
    fn a_query_is_refused_only_where_it_has_no_place() {
        let url = "https://hooks.example.com/T0?token=1";
        assert_eq!(check(url, Query::Allowed), Ok(url));
        assert_eq!(check(url, Query::Refused), Err(HttpUrlError::Query));
        assert_eq!(
            check("http://h:9000?x", Query::Allowed),
            Ok("http://h:9000?x")
        );
    }
}
