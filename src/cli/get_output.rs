//! `get -o`: kubectl's output forms beyond the table and JSON/YAML — `name`
//! (`seinode.sei.io/NAME`), `jsonpath=TEMPLATE` and `custom-columns=HEADER:PATH,…` — parsed
//! once, before anything is read.
//!
//! Paths address the items of `get -o json` (`.name`, `.chainId`, `.plan.done`,
//! `.conditions[0].type`, `.verdict.problems[*].kind`). A `jsonpath` template is applied to
//! `{"kind": "List", "items": [...]}`, as kubectl's is, and supports kubectl's everyday
//! subset: `{.field}`, `['key']`, `[N]`, `[*]`, `{range …}…{end}` and quoted literals
//! (`{"\n"}`); several results of one expression are joined by a space.
use serde_json::Value;

/// What `-o` asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum GetOutput {
    #[default]
    Table,
    Wide,
    Json,
    Yaml,
    /// `seinode.sei.io/NAME`, one a line.
    Name,
    JsonPath(Template),
    CustomColumns(Vec<Column>),
}

/// Why an `-o` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    #[error(
        "unknown output format {0:?}: table, wide, json, yaml, name, jsonpath=TEMPLATE or \
         custom-columns=HEADER:PATH,…"
    )]
    Unknown(String),
    #[error("jsonpath {template:?}: {why}")]
    JsonPath { template: String, why: String },
    #[error("custom-columns {spec:?}: {why}")]
    Columns { spec: String, why: String },
}

impl GetOutput {
    /// Parses an `-o` value (clap's value parser).
    pub fn parse(text: &str) -> Result<GetOutput, OutputError> {
        Ok(match text {
            "table" => GetOutput::Table,
            "wide" => GetOutput::Wide,
            "json" => GetOutput::Json,
            "yaml" => GetOutput::Yaml,
            "name" => GetOutput::Name,
            _ => {
                if let Some(template) = text.strip_prefix("jsonpath=") {
                    GetOutput::JsonPath(Template::parse(template)?)
                } else if let Some(spec) = text.strip_prefix("custom-columns=") {
                    GetOutput::CustomColumns(Column::parse_all(spec)?)
                } else {
                    return Err(OutputError::Unknown(text.to_owned()));
                }
            }
        })
    }

    /// Whether the output is a document for scripts (skipped objects are reported as JSON).
    pub fn is_document(&self) -> bool {
        !matches!(self, GetOutput::Table | GetOutput::Wide)
    }
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    Index(usize),
    All,
}

/// Why a path was refused: what in it is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct PathError(String);

/// A path: `.a.b[0]['c'][*]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path(Vec<Step>);

impl Path {
    fn parse(text: &str) -> Result<Path, PathError> {
        let mut steps = Vec::new();
        let mut rest = text.trim();
        if rest == "." || rest == "@" {
            return Ok(Path(steps));
        }
        rest = rest.strip_prefix('@').unwrap_or(rest);
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let end = after.find(['.', '[']).unwrap_or(after.len());
                let name = &after[..end];
                if name.is_empty() {
                    return Err(PathError(format!("an empty field name in {text:?}")));
                }
                steps.push(Step::Field(name.to_owned()));
                rest = &after[end..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let end = after
                    .find(']')
                    .ok_or_else(|| PathError(format!("an unclosed [ in {text:?}")))?;
                let inner = after[..end].trim();
                steps.push(if inner == "*" {
                    Step::All
                } else if let Some(key) =
                    inner.strip_prefix('\'').and_then(|k| k.strip_suffix('\''))
                {
                    Step::Field(key.to_owned())
                } else {
                    Step::Index(inner.parse().map_err(|_| {
                        PathError(format!("[{inner}] is not an index, '*' or 'key'"))
                    })?)
                });
                rest = &after[end + 1..];
            } else {
                return Err(PathError(format!("{rest:?} is not .field or [..]")));
            }
        }
        Ok(Path(steps))
    }

    /// The values the path selects in `value` (none when a step finds nothing).
    fn select<'a>(&self, value: &'a Value) -> Vec<&'a Value> {
        let mut current = vec![value];
        for step in &self.0 {
            current = current
                .into_iter()
                .flat_map(|v| -> Vec<&Value> {
                    match (step, v) {
                        (Step::Field(name), Value::Object(map)) => {
                            map.get(name).into_iter().collect()
                        }
                        (Step::Index(i), Value::Array(items)) => {
                            items.get(*i).into_iter().collect()
                        }
                        (Step::All, Value::Array(items)) => items.iter().collect(),
                        (Step::All, Value::Object(map)) => map.values().collect(),
                        _ => Vec::new(),
                    }
                })
                .collect();
        }
        current
    }
}

/// A value as jsonpath prints it: strings bare, `null` empty, others as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A part of a jsonpath template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Expr(Path),
    Range(Path, Vec<Part>),
}

/// A parsed `-o jsonpath=` template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Vec<Part>);

impl Template {
    pub fn parse(template: &str) -> Result<Template, OutputError> {
        let error = |why: String| OutputError::JsonPath {
            template: template.to_owned(),
            why,
        };
        let mut stack: Vec<(Path, Vec<Part>)> = Vec::new();
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            let Some(open) = rest.find('{') else {
                parts.push(Part::Text(rest.to_owned()));
                break;
            };
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| error("an unclosed {".to_owned()))?;
            let expr = after[..close].trim();
            rest = &after[close + 1..];
            if let Some(quoted) = expr.strip_prefix('"').and_then(|e| e.strip_suffix('"')) {
                let text = quoted
                    .replace("\\n", "\n")
                    .replace("\\t", "\t")
                    .replace("\\\"", "\"");
                parts.push(Part::Text(text));
            } else if let Some(path) = expr.strip_prefix("range ") {
                let path = Path::parse(path).map_err(|e| error(e.0))?;
                stack.push((path, std::mem::take(&mut parts)));
            } else if expr == "end" {
                let (path, outer) = stack
                    .pop()
                    .ok_or_else(|| error("{end} without {range}".to_owned()))?;
                let body = std::mem::replace(&mut parts, outer);
                parts.push(Part::Range(path, body));
            } else {
                parts.push(Part::Expr(Path::parse(expr).map_err(|e| error(e.0))?));
            }
        }
        if !stack.is_empty() {
            return Err(error("{range} without {end}".to_owned()));
        }
        Ok(Template(parts))
    }

    /// The template applied to `items` (wrapped in a List).
    pub fn render(&self, items: &[Value]) -> String {
        let list = serde_json::json!({"kind": "List", "apiVersion": "v1", "items": items});
        let mut out = String::new();
        render_parts(&self.0, &list, &mut out);
        out
    }
}

fn render_parts(parts: &[Part], value: &Value, out: &mut String) {
    for part in parts {
        match part {
            Part::Text(text) => out.push_str(text),
            Part::Expr(path) => {
                let values: Vec<String> = path.select(value).into_iter().map(plain).collect();
                out.push_str(&values.join(" "));
            }
            Part::Range(path, body) => {
                for item in path.select(value) {
                    render_parts(body, item, out);
                }
            }
        }
    }
}

/// One `HEADER:PATH` of `-o custom-columns=`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    header: String,
    path: Path,
}

impl Column {
    fn parse_all(spec: &str) -> Result<Vec<Column>, OutputError> {
        let error = |why: String| OutputError::Columns {
            spec: spec.to_owned(),
            why,
        };
        spec.split(',')
            .map(|column| {
                let (header, path) = column
                    .split_once(':')
                    .ok_or_else(|| error(format!("{column:?} is not HEADER:PATH")))?;
                let path = path.trim();
                let path = path
                    .strip_prefix('{')
                    .and_then(|p| p.strip_suffix('}'))
                    .unwrap_or(path);
                if header.is_empty() {
                    return Err(error(format!("{column:?} has no header")));
                }
                Ok(Column {
                    header: header.to_owned(),
                    path: Path::parse(path).map_err(|e| error(e.0))?,
                })
            })
            .collect()
    }
}

/// The items as a table of `columns` (`<none>` where a path finds nothing), aligned with three
/// spaces as kubectl's; the header line first unless `no_headers`.
pub fn custom_columns(columns: &[Column], items: &[Value], no_headers: bool) -> String {
    let mut lines: Vec<Vec<String>> = Vec::new();
    if !no_headers {
        lines.push(columns.iter().map(|c| c.header.clone()).collect());
    }
    for item in items {
        lines.push(
            columns
                .iter()
                .map(|c| {
                    let values: Vec<String> = c.path.select(item).into_iter().map(plain).collect();
                    if values.is_empty() || values.iter().all(String::is_empty) {
                        "<none>".to_owned()
                    } else {
                        values.join(",")
                    }
                })
                .collect(),
        );
    }
    let width = |text: &str| unicode_width::UnicodeWidthStr::width(text);
    let widths: Vec<usize> = (0..columns.len())
        .map(|i| lines.iter().map(|l| width(&l[i])).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for line in lines {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            text.push_str(cell);
            if i + 1 < line.len() {
                text.push_str(&" ".repeat(widths[i] - width(cell) + 3));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// `seinode.sei.io/NAME`, as `kubectl get -o name` names objects.
pub fn name_line(name: &str) -> String {
    format!("seinode.{}/{name}\n", crate::api::GROUP)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items() -> Vec<Value> {
        vec![
            json!({"name": "a", "phase": "Running", "plan": {"done": 2},
                   "conditions": [{"type": "Ready"}, {"type": "Synced"}]}),
            json!({"name": "bb", "phase": null, "plan": null, "conditions": []}),
        ]
    }

    #[test]
    fn jsonpath_reads_fields_indexes_wildcards_ranges_and_literals() {
        let render = |t: &str| Template::parse(t).expect(t).render(&items());
        assert_eq!(render("{.items[*].name}"), "a bb");
        assert_eq!(render("{.items[0].conditions[1].type}"), "Synced");
        assert_eq!(render("{.items[0]['plan'].done}"), "2");
        assert_eq!(render("{.kind}: {.items[1].phase}!"), "List: !");
        assert_eq!(
            render("{range .items[*]}{.name}{\"\\t\"}{.conditions[*].type}{\"\\n\"}{end}"),
            "a\tReady Synced\nbb\t\n"
        );
        assert_eq!(render("{.items[5].name}"), "");
    }

    #[test]
    fn bad_templates_are_one_line_refusals() {
        for bad in [
            "{.items",
            "{range .items[*]}{.name}",
            "{end}",
            "{.items[x]}",
            "{..}",
        ] {
            let err = GetOutput::parse(&format!("jsonpath={bad}")).expect_err(bad);
            assert!(matches!(err, OutputError::JsonPath { .. }), "{bad}: {err}");
            assert!(!err.to_string().contains('\n'), "{err}");
        }
        assert!(matches!(
            GetOutput::parse("xml"),
            Err(OutputError::Unknown(_))
        ));
    }

    #[test]
    fn custom_columns_align_and_say_none_for_what_is_missing() {
        let GetOutput::CustomColumns(columns) = GetOutput::parse(
            "custom-columns=NAME:.name,PHASE:{.phase},DONE:.plan.done,COND:.conditions[*].type",
        )
        .expect("parses") else {
            panic!("custom columns");
        };
        assert_eq!(
            custom_columns(&columns, &items(), false),
            "NAME   PHASE     DONE     COND\n\
             a      Running   2        Ready,Synced\n\
             bb     <none>    <none>   <none>\n"
        );
        assert_eq!(
            custom_columns(&columns, &items()[..1], true),
            "a   Running   2   Ready,Synced\n"
        );
        for bad in [
            "custom-columns=NAME",
            "custom-columns=:.name",
            "custom-columns=N:.a[b]",
        ] {
            assert!(
                matches!(GetOutput::parse(bad), Err(OutputError::Columns { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn name_is_the_resource_and_the_name() {
        assert_eq!(GetOutput::parse("name"), Ok(GetOutput::Name));
        assert_eq!(name_line("full-0"), "seinode.sei.io/full-0\n");
    }
}
