//! Bounds on what the console reads, checked before any recursive decoder sees it, and the
//! elision of long values in messages.
//!
//! serde_yaml_ng spends quadratic time on deeply nested YAML before it fails, and the platform
//! config's YAML reader recurses once per level: a 200 KB file of 100,000 nested brackets cost a
//! minute of CPU or the stack. So every file (manifests, the console's config, the platform
//! config) and every YAML document read from the cluster passes [`check_yaml`] first: a size
//! bound, then a depth bound counted on a streaming parser that stops at the first level over
//! the limit, so the cost is bounded by the limit, not by the input. JSON read from the cluster
//! is bounded by serde_json's own recursion limit (128 levels, an error, never a crash).
//!
//! The bounds: `MANIFEST`, `CONFIG_FILE`, `SIDECAR_BODY` and `LOG_LINE_BYTES`; `check_brackets`
//! does for TOML what `check_yaml` does for YAML, and `read_bounded` never reads past the size
//! limit. `elide` cuts a value over 200 characters, saying its length, and `elide_long_lines` does
//! it per line.
use std::borrow::Cow;

use saphyr_parser::{Event, Parser};

/// Size and depth bounds of one kind of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputLimits {
    pub max_bytes: usize,
    /// Deepest nesting of sequences and mappings allowed (the document itself is level 0).
    pub max_depth: usize,
}

/// A SeiNode manifest (`plan -f`, `render -f`): the API server stores at most about 1.5 MiB
/// per object, and the deepest upstream sample nests 9 levels.
pub const MANIFEST: InputLimits = InputLimits {
    max_bytes: 2 * 1024 * 1024,
    max_depth: 64,
};

/// The console's own `config.toml` and the controller's platform config (`config.yaml`,
/// from a file or its ConfigMap): small, shallow files.
pub const CONFIG_FILE: InputLimits = InputLimits {
    max_bytes: 1024 * 1024,
    max_depth: 32,
};

/// A sidecar's answer body. The largest the sidecar API sends is the task list (`GET /v0/tasks`),
/// a few hundred bytes per task; the depth is serde_json's own recursion limit, which bounds
/// the decode.
pub const SIDECAR_BODY: InputLimits = InputLimits {
    max_bytes: 4 * 1024 * 1024,
    max_depth: 128,
};

/// One line of a pod's log: a longer one is cut there with a marker, and the lines after it
/// follow (a log line is never a reason to stop reading the log).
pub const LOG_LINE_BYTES: usize = 64 * 1024;

/// Why an input was refused before decoding; the text names the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// `size` may be a lower bound (reading stopped past the limit).
    #[error("over the limit of {limit} bytes (read {size})")]
    TooLarge { size: usize, limit: usize },
    #[error("nested deeper than the limit of {limit} levels (line {line})")]
    TooDeep { limit: usize, line: usize },
}

/// Checks size then nesting depth of a YAML (or JSON, which is YAML) document stream. A syntax
/// error is not reported here: the decoder that follows reports it with its own position.
pub fn check_yaml(text: &str, limits: InputLimits) -> Result<(), LimitError> {
    check_size(text.len(), limits)?;
    let mut depth = 0usize;
    for item in Parser::new_from_str(text) {
        let (event, span) = match item {
            Ok(found) => found,
            // The parser's own bound on flow nesting (255 levels, met while it looks ahead
            // before the first event) is the same refusal.
            Err(error) if error.info().contains("recursion limit") => {
                return Err(LimitError::TooDeep {
                    limit: limits.max_depth,
                    line: error.marker().line(),
                });
            }
            Err(_) => return Ok(()),
        };
        match event {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > limits.max_depth {
                    return Err(LimitError::TooDeep {
                        limit: limits.max_depth,
                        line: span.start.line(),
                    });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Checks size then the nesting of `[` and `{` outside strings and `#` comments: the depth
/// bound of TOML (the console's `config.toml`), whose arrays and inline tables nest that way.
pub fn check_brackets(text: &str, limits: InputLimits) -> Result<(), LimitError> {
    check_size(text.len(), limits)?;
    let (mut depth, mut line) = (0usize, 1usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    for c in text.chars() {
        if c == '\n' {
            line += 1;
            comment = false;
            // Basic strings end at the line; multi-line ones are rare in a config file and
            // only make this count more generous, never stricter.
            quote = None;
            continue;
        }
        if comment {
            continue;
        }
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' && open == '"' {
                escaped = true;
            } else if c == open {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '#' => comment = true,
            '[' | '{' => {
                depth += 1;
                if depth > limits.max_depth {
                    return Err(LimitError::TooDeep {
                        limit: limits.max_depth,
                        line,
                    });
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Reads at most `limits.max_bytes` (and one byte more, to tell) from `reader` as text: an
/// endless or huge input is refused without being read whole.
pub fn read_bounded(
    reader: impl std::io::Read,
    limits: InputLimits,
) -> std::io::Result<Result<String, LimitError>> {
    let bytes = match read_bounded_bytes(reader, limits)? {
        Ok(bytes) => bytes,
        Err(refused) => return Ok(Err(refused)),
    };
    String::from_utf8(bytes)
        .map(Ok)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// [`read_bounded`] without the UTF-8 check.
pub fn read_bounded_bytes(
    reader: impl std::io::Read,
    limits: InputLimits,
) -> std::io::Result<Result<Vec<u8>, LimitError>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader
        .take(limits.max_bytes as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > limits.max_bytes {
        return Ok(Err(LimitError::TooLarge {
            size: bytes.len(),
            limit: limits.max_bytes,
        }));
    }
    Ok(Ok(bytes))
}

/// Checks the size of an input of `size` bytes.
pub fn check_size(size: usize, limits: InputLimits) -> Result<(), LimitError> {
    if size > limits.max_bytes {
        return Err(LimitError::TooLarge {
            size,
            limit: limits.max_bytes,
        });
    }
    Ok(())
}

/// Characters of a quoted value kept in a message; longer values are elided.
pub const SHOWN_VALUE_CHARS: usize = 200;

/// `text` cut to [`SHOWN_VALUE_CHARS`] characters with its length named, for error lines:
/// one hostile value never makes a megabyte line.
pub fn elide(text: &str) -> Cow<'_, str> {
    elide_to(text, SHOWN_VALUE_CHARS)
}

/// `text` cut to `max` characters, the rest replaced by `… (N characters)`; also keeps only
/// the first line (a message is one line).
pub fn elide_to(text: &str, max: usize) -> Cow<'_, str> {
    let first_line = text.lines().next().unwrap_or_default();
    let total = text.chars().count();
    if total <= max && first_line.len() == text.len() {
        return Cow::Borrowed(text);
    }
    let kept: String = first_line.chars().take(max).collect();
    Cow::Owned(format!("{kept}… ({total} characters)"))
}

/// Characters of one message line past which the last net below cuts it. Far above any line
/// the console writes itself (a permission refusal listing twenty denied calls is about 2,000),
/// far below a hostile value quoted whole.
pub const MAX_LINE_CHARS: usize = 8_000;

/// Lines longer than [`MAX_LINE_CHARS`] cut to [`SHOWN_VALUE_CHARS`] with their length named;
/// shorter lines and the line breaks kept. The last net under messages built from values the
/// console did not elide itself (a serde message quoting a field whole).
pub fn elide_long_lines(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            if line.chars().count() > MAX_LINE_CHARS {
                elide(line).into_owned()
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests;
