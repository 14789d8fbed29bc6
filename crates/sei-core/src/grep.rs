//! The line filter of `sei-console logs --grep RE` and the logs view's `&`: a regular
//! expression (the `regex` crate's syntax) a line must match to be kept. Smart case, as
//! ripgrep's: any case unless the pattern has a capital letter. One definition, so the CLI and
//! the console keep the same lines.

/// Compiled programs larger than this are refused (a pathological pattern cannot take the
/// memory of the console or of a `logs` stream).
const SIZE_LIMIT: usize = 1 << 20;

/// A pattern that does not compile, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad filter {pattern:?}: {reason}")]
pub struct FilterError {
    pub pattern: String,
    pub reason: String,
}

/// Keeps the lines matching a regex.
#[derive(Debug, Clone)]
pub struct LineFilter {
    pattern: String,
    regex: regex::Regex,
}

impl LineFilter {
    pub fn new(pattern: &str) -> Result<LineFilter, FilterError> {
        let capital = pattern.chars().any(char::is_uppercase);
        regex::RegexBuilder::new(pattern)
            .case_insensitive(!capital)
            .size_limit(SIZE_LIMIT)
            .build()
            .map(|regex| LineFilter {
                pattern: pattern.to_owned(),
                regex,
            })
            .map_err(|error| FilterError {
                pattern: pattern.to_owned(),
                // The syntax error's last line says what is wrong (the lines above it draw
                // the pattern with a caret).
                reason: error
                    .to_string()
                    .lines()
                    .rfind(|line| !line.trim().is_empty())
                    .unwrap_or("does not compile")
                    .trim()
                    .trim_start_matches("error: ")
                    .to_owned(),
            })
    }

    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `line` is kept.
    pub fn keeps(&self, line: &str) -> bool {
        self.regex.is_match(line)
    }
}

impl PartialEq for LineFilter {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern
    }
}

impl Eq for LineFilter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_matching_lines_in_any_case_unless_the_pattern_has_a_capital() {
        let filter = LineFilter::new("err(or)?|panic").expect("compiles");
        let lines = ["ERROR: disk", "all fine", "panic: boom", "an error"];
        let kept: Vec<&str> = lines.into_iter().filter(|l| filter.keeps(l)).collect();
        assert_eq!(kept, ["ERROR: disk", "panic: boom", "an error"]);
        let exact = LineFilter::new("ERROR").expect("compiles");
        assert!(exact.keeps("ERROR: disk") && !exact.keeps("an error"));
        assert_eq!(exact.pattern(), "ERROR");
        // Anchors and classes work as regexes do.
        let height = LineFilter::new(r"^\S+ height=\d+$").expect("compiles");
        assert!(height.keeps("commit height=42") && !height.keeps("commit height=x"));
    }

    #[test]
    fn a_pattern_that_does_not_compile_is_one_line_naming_it() {
        let error = LineFilter::new("(unclosed").expect_err("refused");
        let text = error.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.starts_with("bad filter \"(unclosed\": "), "{text}");
        assert!(text.contains("unclosed"), "{text}");
        // Too large a program is refused too, not built.
        assert!(LineFilter::new(r"\w{1000}\w{1000}\w{1000}").is_err());
    }
}
