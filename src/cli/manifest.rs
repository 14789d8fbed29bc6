//! Reading one SeiNode manifest (YAML or JSON) from a file or standard input, with errors fit
//! for one line on stderr.
use std::path::Path;

use super::CliError;
use crate::api::{API_VERSION, KIND, SeiNode, defaulting, schema, validation};
use crate::limits;

/// Reads and decodes `path` (`-` = standard input). Errors are bad input: unreadable file, YAML
/// or JSON syntax (with line and column), a document that is not a SeiNode, a SeiNode the API
/// server would refuse (`refuse_invalid`), or one whose fields do not decode.
pub fn read_seinode(path: &Path) -> Result<SeiNode, CliError> {
    let shown = if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let text = read_manifest_text(path, &shown)?;
    // Syntax first, so a YAML error reports its own line and column.
    let value: serde_json::Value = serde_yaml_ng::from_str(&text)
        .map_err(|e| CliError::BadInput(format!("{shown}: invalid YAML: {e}")))?;
    let kind = value
        .get("kind")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let api_version = value
        .get("apiVersion")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    if kind != KIND || api_version != API_VERSION {
        let found = if kind.is_empty() {
            "no kind".to_owned()
        } else {
            format!("{api_version} {kind}")
        };
        return Err(CliError::BadInput(format!(
            "{shown} is not a SeiNode (expected apiVersion {API_VERSION}, kind {KIND}; found {found})"
        )));
    }
    let value = as_the_api_server_decodes(value)?;
    refuse_invalid(&value, &shown)?;
    serde_json::from_value(value)
        .map_err(|e| CliError::BadInput(format!("{shown}: not a valid SeiNode: {e}")))
}

/// `value` as the API server decodes a manifest before it validates it: nulls of fields that
/// are neither nullable nor defaulted dropped, the CRD's defaults filled in
/// (`api::defaulting`). Every manifest the API server accepts is then accepted here.
pub fn as_the_api_server_decodes(
    mut value: serde_json::Value,
) -> Result<serde_json::Value, CliError> {
    defaulting::as_the_api_server_decodes(&mut value)
        .map_err(|err| CliError::Failed(err.to_string()))?;
    Ok(value)
}

/// Refuses (bad input, one line) a manifest the API server would refuse on create: the CRD's
/// patterns, lengths, bounds, required fields and CEL rules, in the API server's own words. A
/// manifest checked offline never reaches a pod's shell script unchecked.
pub fn refuse_invalid(value: &serde_json::Value, shown: &str) -> Result<(), CliError> {
    match validation::validate_create(value) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(invalid)) => Err(CliError::BadInput(format!(
            "{shown}: the API server would refuse it: {invalid}"
        ))),
        Err(err) => Err(CliError::Failed(err.to_string())),
    }
}

/// The text of a manifest (`-` = standard input), refused before any parser sees it when it is
/// larger or nests deeper than [`limits::MANIFEST`] (deep YAML costs the YAML decoder
/// quadratic time): one line naming the limit.
pub fn read_manifest_text(path: &Path, shown: &str) -> Result<String, CliError> {
    let read = if path == Path::new("-") {
        limits::read_bounded(std::io::stdin().lock(), limits::MANIFEST)
    } else {
        std::fs::File::open(path).and_then(|file| limits::read_bounded(file, limits::MANIFEST))
    };
    let text = read
        .map_err(|e| CliError::BadInput(format!("reading {shown}: {e}")))?
        .map_err(|refused| {
            CliError::BadInput(format!("{shown}: refused before parsing: {refused}"))
        })?;
    limits::check_yaml(&text, limits::MANIFEST).map_err(|refused| {
        CliError::BadInput(format!("{shown}: refused before parsing: {refused}"))
    })?;
    Ok(text)
}

/// The manifest's fields the CRD does not declare (the API server would drop them).
pub fn unknown_fields(node: &SeiNode) -> Vec<String> {
    serde_json::to_value(node)
        .ok()
        .and_then(|value| schema::unknown_field_paths(&value).ok())
        .unwrap_or_default()
}
