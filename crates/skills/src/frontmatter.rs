//! Splitting a `SKILL.md` into YAML frontmatter and markdown body, and reading the fields.
//!
//! The frontmatter is the YAML between the first line (`---`) and the next `---` line. A UTF-8
//! BOM, CRLF line endings and a file without a trailing newline are all accepted.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_yaml::Value;

/// The fields of a skill's frontmatter, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    /// `name`, when present.
    pub name: Option<String>,
    /// `description`, when present (surrounding whitespace trimmed).
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata`, string to string.
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, from a space-separated string or a list.
    pub allowed_tools: Vec<String>,
    /// Keys the specification does not define, kept as written (the extension fields too,
    /// so validation can name them).
    pub extra: BTreeMap<String, Value>,
    /// Extension `disable-model-invocation: true`: not offered to the model, only to people
    /// as a slash command.
    pub disable_model_invocation: bool,
    /// Extension `user-invocable` (default true): offered as a slash command.
    pub user_invocable: bool,
    /// Extension `argument-hint`: what to type after the slash command.
    pub argument_hint: Option<String>,
}

impl Default for Frontmatter {
    fn default() -> Self {
        Frontmatter {
            name: None,
            description: None,
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            allowed_tools: Vec::new(),
            extra: BTreeMap::new(),
            disable_model_invocation: false,
            user_invocable: true,
            argument_hint: None,
        }
    }
}

/// A parsed `SKILL.md`: frontmatter, body and the problems seen while reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSkillFile {
    /// The frontmatter fields.
    pub frontmatter: Frontmatter,
    /// The markdown after the closing `---` line, with `\n` line endings.
    pub body: String,
    /// Non-fatal problems (unknown keys, values read as text).
    pub warnings: Vec<ParseWarning>,
}

/// A problem that did not stop reading the frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseWarning {
    /// Stable code of the kind of deviation (`unknown-key`, `metadata-value-not-string`…).
    pub code: &'static str,
    /// What was found and what was done with it.
    pub message: String,
}

fn warn(code: &'static str, message: String) -> ParseWarning {
    ParseWarning { code, message }
}

/// Why a `SKILL.md` could not be parsed at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The first line is not `---`.
    #[error("SKILL.md must start with a '---' line opening the YAML frontmatter")]
    MissingFrontmatter,
    /// No second `---` line.
    #[error("the YAML frontmatter is not closed by a '---' line")]
    UnclosedFrontmatter,
    /// The YAML itself is broken.
    #[error("invalid YAML frontmatter: {0}")]
    Yaml(String),
    /// The YAML is valid but not a mapping, or a field has the wrong shape.
    #[error("{0}")]
    Shape(String),
}

/// Splits text into (frontmatter YAML, body), normalising line endings to `\n`.
pub fn split(text: &str) -> Result<(String, String), ParseError> {
    let text = normalized(text);
    let (yaml, body) = sections(&text)?;
    Ok((yaml.to_string(), body.to_string()))
}

/// The text without a BOM and with `\n` line endings (copied only when it had CRLF).
fn normalized(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The frontmatter YAML and the body of normalised text.
fn sections(text: &str) -> Result<(&str, &str), ParseError> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().ok_or(ParseError::MissingFrontmatter)?;
    if first.trim_end() != "---" {
        return Err(ParseError::MissingFrontmatter);
    }
    let mut offset = first.len();
    for line in lines {
        if line.trim_end() == "---" {
            return Ok((&text[first.len()..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(ParseError::UnclosedFrontmatter)
}

/// Parses a whole `SKILL.md`.
pub fn parse(text: &str) -> Result<ParsedSkillFile, ParseError> {
    let text = normalized(text);
    let (yaml, body) = sections(&text)?;
    let (frontmatter, warnings) = fields(yaml)?;
    Ok(ParsedSkillFile {
        frontmatter,
        body: body.to_string(),
        warnings,
    })
}

/// Parses only the frontmatter of a `SKILL.md` (what a catalog keeps: not the body).
pub fn parse_frontmatter(text: &str) -> Result<(Frontmatter, Vec<ParseWarning>), ParseError> {
    let text = normalized(text);
    let (yaml, _) = sections(&text)?;
    fields(yaml)
}

/// Reads the fields of frontmatter YAML.
fn fields(yaml: &str) -> Result<(Frontmatter, Vec<ParseWarning>), ParseError> {
    let value: Value = if yaml.trim().is_empty() {
        Value::Mapping(Default::default())
    } else if let Some(map) = simple::mapping(yaml) {
        Value::Mapping(map)
    } else {
        serde_yaml::from_str(yaml).map_err(|e| ParseError::Yaml(e.to_string()))?
    };
    let Value::Mapping(map) = value else {
        return Err(ParseError::Shape(
            "the frontmatter must be a YAML mapping of keys to values".into(),
        ));
    };
    let mut fm = Frontmatter::default();
    let mut warnings: Vec<ParseWarning> = Vec::new();
    for (key, value) in map {
        let Some(key) = key.as_str().map(str::to_owned) else {
            return Err(ParseError::Shape(format!(
                "frontmatter keys must be strings; found {}",
                describe(&key)
            )));
        };
        match key.as_str() {
            "name" => fm.name = Some(string_field(&key, &value, &mut warnings)?),
            "description" => {
                fm.description = Some(
                    string_field(&key, &value, &mut warnings)?
                        .trim()
                        .to_string(),
                )
            }
            "license" => fm.license = Some(text_field(&key, &value, &mut warnings)),
            "compatibility" => {
                fm.compatibility = Some(text_field(&key, &value, &mut warnings).trim().into())
            }
            "metadata" => fm.metadata = metadata_field(&value, &mut warnings),
            "allowed-tools" => fm.allowed_tools = allowed_tools_field(&value, &mut warnings),
            "disable-model-invocation" | "user-invocable" | "argument-hint" => {
                match key.as_str() {
                    "disable-model-invocation" => {
                        fm.disable_model_invocation =
                            flag_field(&key, &value, false, &mut warnings);
                    }
                    "user-invocable" => {
                        fm.user_invocable = flag_field(&key, &value, true, &mut warnings);
                    }
                    _ => fm.argument_hint = Some(text_field(&key, &value, &mut warnings)),
                }
                fm.extra.insert(key, value);
            }
            _ => {
                warnings.push(warn(
                    "unknown-key",
                    format!("unknown frontmatter key '{key}' (kept, not used)"),
                ));
                fm.extra.insert(key, value);
            }
        }
    }
    Ok((fm, warnings))
}

/// A YAML scalar as text; numbers and booleans are accepted with a warning.
fn string_field(
    key: &str,
    value: &Value,
    warnings: &mut Vec<ParseWarning>,
) -> Result<String, ParseError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(_) | Value::Bool(_) => {
            let text = scalar_text(value);
            warnings.push(warn(
                "field-not-string",
                format!("'{key}' should be a string; read {text:?}"),
            ));
            Ok(text)
        }
        Value::Null => Ok(String::new()),
        other => Err(ParseError::Shape(format!(
            "'{key}' must be a string; found {}",
            describe(other)
        ))),
    }
}

/// Any YAML value as text, for optional fields real skills write in other shapes (DeerFlow's
/// `compatibility` mapping): read as text, with a warning, rather than dropping the skill.
/// A boolean extension field: `true`/`false` (also as text); anything else keeps `default`,
/// with a warning.
fn flag_field(key: &str, value: &Value, default: bool, warnings: &mut Vec<ParseWarning>) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => true,
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") => false,
        other => {
            warnings.push(warn(
                "field-not-boolean",
                format!(
                    "'{key}' should be true or false, not {}; read as {default}",
                    describe(other)
                ),
            ));
            default
        }
    }
}

fn text_field(key: &str, value: &Value, warnings: &mut Vec<ParseWarning>) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => {
            let text = as_text(other);
            warnings.push(warn(
                "field-not-string",
                format!(
                    "'{key}' should be a string; read {} as {text:?}",
                    describe(other)
                ),
            ));
            text
        }
    }
}

/// A value written as text: scalars as themselves, a list of scalars comma-separated,
/// anything else as JSON.
fn as_text(value: &Value) -> String {
    match value {
        Value::Sequence(items) if items.iter().all(is_scalar) => {
            items.iter().map(scalar_text).collect::<Vec<_>>().join(", ")
        }
        v if is_scalar(v) => scalar_text(v),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// `metadata` as string to string. Real skills put lists (`trigger-keywords: [a, b]`) and
/// mappings there; they are read as text with a warning, as the reference validator does,
/// and a `metadata` that is not a mapping is ignored with one.
fn metadata_field(value: &Value, warnings: &mut Vec<ParseWarning>) -> BTreeMap<String, String> {
    let map = match value {
        Value::Null => return BTreeMap::new(),
        Value::Mapping(map) => map,
        other => {
            warnings.push(warn(
                "metadata-not-mapping",
                format!(
                    "'metadata' should be a mapping of strings to strings; found {}, ignored",
                    describe(other)
                ),
            ));
            return BTreeMap::new();
        }
    };
    let mut out = BTreeMap::new();
    for (k, v) in map {
        let key = as_text(k);
        let val = match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => {
                warnings.push(warn(
                    "metadata-value-not-string",
                    format!(
                        "metadata '{key}' should be a string; read {} as text",
                        describe(other)
                    ),
                ));
                as_text(other)
            }
        };
        out.insert(key, val);
    }
    out
}

fn allowed_tools_field(value: &Value, warnings: &mut Vec<ParseWarning>) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
        Value::Sequence(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => s.trim().to_string(),
                other => {
                    warnings.push(warn(
                        "allowed-tools-shape",
                        format!(
                            "'allowed-tools' entries should be strings; read {} as text",
                            describe(other)
                        ),
                    ));
                    as_text(other)
                }
            })
            .collect(),
        other => {
            warnings.push(warn("allowed-tools-shape", format!(
                "'allowed-tools' should be a space-separated string or a list; found {}, ignored",
                describe(other)
            )));
            Vec::new()
        }
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

mod simple;

#[cfg(test)]
mod tests;
