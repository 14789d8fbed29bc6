//! YAML reading with the controller's resolution rules.
//!
//! The controller decodes its app-config with `sigs.k8s.io/yaml`, which parses with go-yaml v2
//! (YAML 1.1: plain `yes`/`no`/`on`/`off` are booleans, `0777` is octal, `_` is ignored in numbers)
//! and then coerces numbers and booleans to strings wherever the target is a string. A YAML 1.2
//! reader would turn `no` into `"no"` where the controller sees `"false"`, so this module keeps
//! each scalar's style and resolves plain scalars the way go-yaml v2 does.
use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

/// Upper bound on nodes produced while expanding aliases (guards against alias bombs).
const MAX_NODES: usize = 100_000;

/// A resolved YAML scalar, typed as go-yaml v2 would type it.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
}

/// A parsed YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Scalar(Scalar),
    Seq(Vec<Node>),
    /// Entries in document order (merge keys already applied).
    Map(Vec<(Node, Node)>),
}

/// Why a document could not be read, in go-yaml's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum YamlError {
    #[error("yaml: line {line}: {info}")]
    Syntax { line: usize, info: String },
    #[error("yaml: document contains excessive aliasing")]
    ExcessiveAliasing,
    #[error("yaml: unknown anchor referenced")]
    UnknownAnchor,
    #[error("yaml: unexpected end of stream")]
    UnexpectedEnd,
    /// The parser's event, as `Debug` writes it.
    #[error("yaml: unexpected event {0}")]
    UnexpectedEvent(String),
    #[error("yaml: map merge requires map or sequence of maps as the value")]
    MergeValue,
    #[error("yaml: cannot decode {found} `{value}` as a {tag}")]
    CannotDecode {
        found: &'static str,
        value: String,
        tag: String,
    },
    #[error("error converting YAML to JSON: unsupported map key of type: <nil>")]
    NullKey,
    #[error("yaml: invalid map key")]
    InvalidKey,
}

/// Parses the first document of `text`. An empty stream is `Scalar::Null`, as in go-yaml.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let mut reader = Reader {
        parser: Parser::new_from_str(text),
        anchors: HashMap::new(),
        produced: 0,
    };
    loop {
        match reader.next()? {
            None | Some(Event::StreamEnd) => return Ok(Node::Scalar(Scalar::Null)),
            Some(Event::StreamStart) | Some(Event::DocumentStart(_)) => continue,
            Some(Event::DocumentEnd) => return Ok(Node::Scalar(Scalar::Null)),
            Some(event) => return reader.node(event),
        }
    }
}

struct Reader<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    anchors: HashMap<usize, Node>,
    produced: usize,
}

impl<'a> Reader<'a> {
    fn next(&mut self) -> Result<Option<Event<'a>>, YamlError> {
        match self.parser.next() {
            None => Ok(None),
            Some(Ok((event, _span))) => Ok(Some(event)),
            Some(Err(err)) => Err(YamlError::Syntax {
                line: err.marker().line(),
                info: err.info().to_string(),
            }),
        }
    }

    fn count(&mut self, node: &Node) -> Result<(), YamlError> {
        self.produced += size(node);
        if self.produced > MAX_NODES {
            return Err(YamlError::ExcessiveAliasing);
        }
        Ok(())
    }

    fn node(&mut self, event: Event<'a>) -> Result<Node, YamlError> {
        let (node, anchor) = match event {
            Event::Scalar(value, style, anchor, tag) => (
                Node::Scalar(resolve(&value, style, tag.as_deref())?),
                anchor,
            ),
            Event::Alias(id) => {
                let node = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or(YamlError::UnknownAnchor)?;
                self.count(&node)?;
                return Ok(node);
            }
            Event::SequenceStart(anchor, _) => {
                let mut items = Vec::new();
                loop {
                    match self.next()? {
                        Some(Event::SequenceEnd) => break,
                        Some(event) => items.push(self.node(event)?),
                        None => return Err(YamlError::UnexpectedEnd),
                    }
                }
                (Node::Seq(items), anchor)
            }
            Event::MappingStart(anchor, _) => {
                let mut entries: Vec<(Node, Node)> = Vec::new();
                loop {
                    let key = match self.next()? {
                        Some(Event::MappingEnd) => break,
                        Some(event) => self.node(event)?,
                        None => return Err(YamlError::UnexpectedEnd),
                    };
                    let value = match self.next()? {
                        Some(event) => self.node(event)?,
                        None => return Err(YamlError::UnexpectedEnd),
                    };
                    if key == Node::Scalar(Scalar::Str(MERGE_KEY.into())) {
                        merge_into(&mut entries, value)?;
                    } else {
                        entries.push((key, value));
                    }
                }
                (Node::Map(entries), anchor)
            }
            other => return Err(YamlError::UnexpectedEvent(format!("{other:?}"))),
        };
        self.count(&node)?;
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        Ok(node)
    }
}

/// Marker the resolver uses for a plain `<<` key.
const MERGE_KEY: &str = "\u{0}<<merge>>";

/// go-yaml v2 merge: a map's entries are inserted at the `<<` position; a sequence of maps is
/// merged last-to-first so earlier maps win.
fn merge_into(entries: &mut Vec<(Node, Node)>, value: Node) -> Result<(), YamlError> {
    match value {
        Node::Map(merged) => {
            entries.extend(merged);
            Ok(())
        }
        Node::Seq(items) => {
            for item in items.into_iter().rev() {
                match item {
                    Node::Map(merged) => entries.extend(merged),
                    _ => {
                        return Err(YamlError::MergeValue);
                    }
                }
            }
            Ok(())
        }
        _ => Err(YamlError::MergeValue),
    }
}

fn size(node: &Node) -> usize {
    match node {
        Node::Scalar(_) => 1,
        Node::Seq(items) => 1 + items.iter().map(size).sum::<usize>(),
        Node::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| size(k) + size(v))
                .sum::<usize>()
        }
    }
}

fn resolve(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Scalar, YamlError> {
    let short_tag = tag.map(|t| {
        if t.is_yaml_core_schema() {
            format!("!!{}", t.suffix)
        } else {
            format!("{}{}", t.handle, t.suffix)
        }
    });
    match short_tag.as_deref() {
        // Quoted and block scalars without a tag are strings.
        None if style != ScalarStyle::Plain => Ok(Scalar::Str(value.to_string())),
        None => Ok(if value == "<<" {
            Scalar::Str(MERGE_KEY.into())
        } else {
            resolve_plain(value)
        }),
        Some("!!str") | Some("!!binary") => Ok(Scalar::Str(value.to_string())),
        Some(t @ ("!!bool" | "!!int" | "!!float" | "!!null" | "!!timestamp")) => {
            let resolved = resolve_plain(value);
            let matches = matches!(
                (t, &resolved),
                ("!!bool", Scalar::Bool(_))
                    | ("!!int", Scalar::Int(_) | Scalar::Uint(_))
                    | ("!!float", Scalar::Float(_))
                    | ("!!null", Scalar::Null)
                    | ("!!timestamp", Scalar::Str(_))
            );
            match (t, resolved) {
                (_, resolved) if matches => Ok(resolved),
                ("!!float", Scalar::Int(i)) => Ok(Scalar::Float(i as f64)),
                (t, resolved) => Err(YamlError::CannotDecode {
                    found: tag_name(&resolved),
                    value: value.to_owned(),
                    tag: t.to_owned(),
                }),
            }
        }
        // Unknown tags keep the text.
        Some(_) => Ok(Scalar::Str(value.to_string())),
    }
}

fn tag_name(scalar: &Scalar) -> &'static str {
    match scalar {
        Scalar::Null => "!!null",
        Scalar::Bool(_) => "!!bool",
        Scalar::Int(_) | Scalar::Uint(_) => "!!int",
        Scalar::Float(_) => "!!float",
        Scalar::Str(_) => "!!str",
    }
}

/// go-yaml v2 `resolve` for an untagged plain scalar.
pub fn resolve_plain(text: &str) -> Scalar {
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Scalar::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Scalar::Bool(false);
        }
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let first = text.as_bytes()[0];
    match first {
        b'.' => match text.parse::<f64>() {
            Ok(f) if is_go_float_syntax(text) => Scalar::Float(f),
            _ => Scalar::Str(text.to_string()),
        },
        b'0'..=b'9' | b'+' | b'-' => resolve_number(text),
        _ => Scalar::Str(text.to_string()),
    }
}

fn resolve_number(text: &str) -> Scalar {
    let plain: String = text.chars().filter(|c| *c != '_').collect();
    if let Some(i) = go_parse_int(&plain) {
        return Scalar::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Scalar::Uint(u);
    }
    if is_yaml_style_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
    {
        return Scalar::Float(f);
    }
    Scalar::Str(text.to_string())
}

/// `strconv.ParseInt(s, 0, 64)`: optional sign, then `0x`/`0o`/`0b` prefix, leading `0` octal,
/// or decimal.
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = go_parse_uint(rest)?;
    if negative {
        if magnitude <= i64::MAX as u64 + 1 {
            Some((magnitude as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// `strconv.ParseUint(s, 0, 64)` (no sign allowed).
fn go_parse_uint(s: &str) -> Option<u64> {
    let lower = s.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat` accepts a little more than Rust's parser for the leading-dot case,
/// but for `.5`, `.5e3` both agree; reject things like `.inf` variants already handled above.
fn is_go_float_syntax(s: &str) -> bool {
    is_yaml_style_float(s)
}

/// Go's `strconv.FormatFloat(v, 'g', -1, 32)`: the shortest float32 digits, in `%e` form when the
/// decimal exponent is below -4 or at least 6.
pub fn go_format_float32(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let single = v as f32;
    if single.is_infinite() {
        return if single > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if single == 0.0 {
        return if single.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // Rust's `{:e}` prints the shortest round-trip digits, e.g. `-1.5e-7`.
    let sci = format!("{single:e}");
    let (negative, sci) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci.as_str()),
    };
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if !(-4..6).contains(&exponent) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exponent.abs()));
    } else if exponent < 0 {
        out.push_str("0.");
        for _ in 0..(-exponent - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = exponent as usize + 1;
        if digits.len() <= int_len {
            out.push_str(&digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// The string a scalar becomes when its target is a Go `string` (sigs.k8s.io/yaml coercion).
/// `None` for null: the target keeps its previous value.
pub fn scalar_as_go_string(scalar: &Scalar) -> Option<String> {
    match scalar {
        Scalar::Null => None,
        Scalar::Bool(b) => Some(b.to_string()),
        Scalar::Int(i) => Some(i.to_string()),
        Scalar::Uint(u) => Some(u.to_string()),
        Scalar::Float(f) => Some(go_format_float32(*f)),
        Scalar::Str(s) => Some(s.clone()),
    }
}

/// A map key as sigs.k8s.io/yaml stringifies it.
pub fn key_as_string(key: &Node) -> Result<String, YamlError> {
    match key {
        Node::Scalar(Scalar::Float(f)) => Ok(match go_format_float32(*f).as_str() {
            "+Inf" => ".inf".into(),
            "-Inf" => "-.inf".into(),
            "NaN" => ".nan".into(),
            other => other.to_string(),
        }),
        Node::Scalar(Scalar::Null) => Err(YamlError::NullKey),
        Node::Scalar(scalar) => Ok(scalar_as_go_string(scalar).unwrap_or_default()),
        _ => Err(YamlError::InvalidKey),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml11_booleans_resolve_in_plain_scalars_only() {
        assert_eq!(resolve_plain("no"), Scalar::Bool(false));
        assert_eq!(resolve_plain("On"), Scalar::Bool(true));
        let doc = parse("a: no\nb: 'no'\nc: \"yes\"\n").expect("parses");
        let Node::Map(entries) = doc else {
            panic!("map")
        };
        assert_eq!(entries[0].1, Node::Scalar(Scalar::Bool(false)));
        assert_eq!(entries[1].1, Node::Scalar(Scalar::Str("no".into())));
        assert_eq!(entries[2].1, Node::Scalar(Scalar::Str("yes".into())));
    }

    #[test]
    fn yaml11_integers_octal_hex_and_underscores() {
        assert_eq!(resolve_plain("0777"), Scalar::Int(511));
        assert_eq!(resolve_plain("0x1F"), Scalar::Int(31));
        assert_eq!(resolve_plain("1_000"), Scalar::Int(1000));
        assert_eq!(resolve_plain("+5"), Scalar::Int(5));
        assert_eq!(resolve_plain("-8"), Scalar::Int(-8));
        assert_eq!(
            resolve_plain("18446744073709551615"),
            Scalar::Uint(u64::MAX)
        );
        // Invalid octal falls through to the float pattern, as in go-yaml.
        assert_eq!(resolve_plain("08"), Scalar::Float(8.0));
        assert_eq!(resolve_plain("2Gi"), Scalar::Str("2Gi".into()));
        assert_eq!(
            resolve_plain("2006-01-02"),
            Scalar::Str("2006-01-02".into())
        );
    }

    #[test]
    fn go_float_formatting_matches_strconv_g_32() {
        assert_eq!(go_format_float32(1.5), "1.5");
        assert_eq!(go_format_float32(1.0), "1");
        assert_eq!(go_format_float32(100000.0), "100000");
        assert_eq!(go_format_float32(1e6), "1e+06");
        assert_eq!(go_format_float32(2.5e10), "2.5e+10");
        assert_eq!(go_format_float32(0.0001), "0.0001");
        assert_eq!(go_format_float32(0.00001), "1e-05");
        assert_eq!(go_format_float32(-0.25), "-0.25");
        assert_eq!(go_format_float32(0.1), "0.1");
        assert_eq!(go_format_float32(f64::INFINITY), "+Inf");
        assert_eq!(go_format_float32(0.0), "0");
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let doc = parse("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n").expect("parses");
        let Node::Map(entries) = doc else {
            panic!("map")
        };
        let Node::Map(other) = &entries[1].1 else {
            panic!("map")
        };
        assert_eq!(other.len(), 2);
        assert_eq!(other[0].0, Node::Scalar(Scalar::Str("x".into())));
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse("").expect("parses"), Node::Scalar(Scalar::Null));
        assert_eq!(
            parse("# only a comment\n").expect("parses"),
            Node::Scalar(Scalar::Null)
        );
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = parse("a: [1, 2\nb: c: d\n")
            .expect_err("bad yaml")
            .to_string();
        assert!(err.starts_with("yaml: line "), "{err}");
    }
}
