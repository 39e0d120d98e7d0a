//! Validation of frontmatter against the Agent Skills specification.
//!
//! Loading is lenient like the reference clients (a name/directory mismatch or an over-long
//! description still loads, with a warning); validating and installing is strict.

use serde::Serialize;

use crate::frontmatter::{self, Frontmatter, ParsedSkillFile};
use crate::name::{check_name, check_usable_name};

/// Longest allowed `description`, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 1024;
/// Longest allowed `compatibility`, in characters.
pub const MAX_COMPATIBILITY_LEN: usize = 500;

/// Frontmatter keys outside the specification that Antler gives a meaning to (the ones
/// Claude Code users already write): `antler skill validate` accepts and names them.
pub const EXTENSION_FIELDS: &[&str] = &[
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
];

/// How hard to be on problems the reference clients tolerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Catalog loading: spec deviations that do not break the skill are warnings.
    Lenient,
    /// Installs: deviations in the fields the specification defines are errors, except a
    /// name outside it that still makes a folder name; keys it does not define are warnings
    /// (real skills carry them).
    Strict,
    /// `antler skill validate`: as the reference validator (`skills-ref`) judges, so keys the
    /// specification does not define are errors too, except Antler's extension fields.
    Reference,
    /// `antler skill validate --strict`: exactly the specification's fields.
    Spec,
}

impl Mode {
    /// Whether deviations in the specification's own fields are errors.
    fn strict_fields(self) -> bool {
        self != Mode::Lenient
    }
}

/// Whether a finding stops the skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The skill is refused (or skipped when loading).
    Error,
    /// Reported, not refusing.
    Warning,
}

/// One problem found in a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// Stable rule id such as `name-format`.
    pub rule: &'static str,
    /// What is wrong, for people.
    pub message: String,
}

impl Finding {
    fn new(severity: Severity, rule: &'static str, message: impl Into<String>) -> Self {
        Finding {
            severity,
            rule,
            message: message.into(),
        }
    }
}

/// The result of reading and validating one `SKILL.md`.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// The parsed file, when it could be parsed.
    pub parsed: Option<ParsedSkillFile>,
    /// Every problem, errors first in file order.
    pub findings: Vec<Finding>,
}

impl Inspection {
    /// True when no finding is an error.
    pub fn is_valid(&self) -> bool {
        !self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// The error messages joined for a one-line report.
    pub fn error_summary(&self) -> String {
        error_summary(&self.findings)
    }

    /// The warnings with their codes.
    pub fn warning_details(&self) -> Vec<antler_protocol::skills::SkillWarning> {
        warning_details(&self.findings)
    }

    /// The warnings.
    pub fn warnings(&self) -> Vec<String> {
        warnings(&self.findings)
    }
}

/// Parses and validates the text of a `SKILL.md` found in a directory named `dir_name`.
pub fn inspect(text: &str, dir_name: Option<&str>, mode: Mode) -> Inspection {
    match frontmatter::parse(text) {
        Ok(parsed) => {
            let findings = judge(&parsed.frontmatter, &parsed.warnings, dir_name, mode);
            Inspection {
                parsed: Some(parsed),
                findings,
            }
        }
        Err(e) => Inspection {
            parsed: None,
            findings: vec![unparseable(&e)],
        },
    }
}

/// [`inspect`] without keeping the body (what loading a catalog needs): the frontmatter
/// and every finding, or the one finding saying why it could not be parsed.
pub fn inspect_frontmatter(
    text: &str,
    dir_name: Option<&str>,
    mode: Mode,
) -> Result<(Frontmatter, Vec<Finding>), Finding> {
    let (fm, warnings) = frontmatter::parse_frontmatter(text).map_err(|e| unparseable(&e))?;
    let findings = judge(&fm, &warnings, dir_name, mode);
    Ok((fm, findings))
}

fn unparseable(e: &frontmatter::ParseError) -> Finding {
    Finding::new(Severity::Error, "frontmatter", e.to_string())
}

/// Every finding for parsed frontmatter, errors first in file order.
fn judge(
    fm: &Frontmatter,
    warnings: &[frontmatter::ParseWarning],
    dir_name: Option<&str>,
    mode: Mode,
) -> Vec<Finding> {
    let mut findings = validate(fm, dir_name, mode);
    findings.extend(
        warnings
            .iter()
            .filter(|w| w.code != "unknown-key")
            .map(|w| Finding::new(Severity::Warning, w.code, w.message.clone())),
    );
    findings.extend(fm.extra.keys().filter_map(|k| unknown_key_finding(k, mode)));
    findings.sort_by_key(|f| f.severity != Severity::Error);
    findings
}

/// The error messages of `findings` joined for a one-line report.
pub fn error_summary(findings: &[Finding]) -> String {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The warnings of `findings` with their codes.
pub fn warning_details(findings: &[Finding]) -> Vec<antler_protocol::skills::SkillWarning> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| antler_protocol::skills::SkillWarning {
            code: f.rule.to_string(),
            message: f.message.clone(),
        })
        .collect()
}

/// The warning messages of `findings`.
pub fn warnings(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| f.message.clone())
        .collect()
}

/// A key the specification does not define, judged for `mode`: an error for the validator
/// (extension fields only with `--strict`), a warning otherwise.
fn unknown_key_finding(key: &str, mode: Mode) -> Option<Finding> {
    let extension = EXTENSION_FIELDS.contains(&key);
    Some(match (mode, extension) {
        // Loading and installing use them: nothing to say.
        (Mode::Lenient | Mode::Strict, true) => return None,
        (Mode::Reference, true) => Finding::new(
            Severity::Warning,
            "extension-field",
            format!("'{key}' is an Antler extension field (not in the Agent Skills specification)"),
        ),
        (Mode::Reference | Mode::Spec, _) => Finding::new(
            Severity::Error,
            "unknown-key",
            format!("'{key}' is not a field of the Agent Skills specification"),
        ),
        _ => Finding::new(
            Severity::Warning,
            "unknown-key",
            format!("unknown frontmatter key '{key}' (kept, not used)"),
        ),
    })
}

/// Checks the fields of parsed frontmatter.
pub fn validate(fm: &Frontmatter, dir_name: Option<&str>, mode: Mode) -> Vec<Finding> {
    let soft = if mode.strict_fields() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut out = Vec::new();
    match fm.name.as_deref() {
        None => out.push(Finding::new(
            Severity::Error,
            "name-missing",
            "frontmatter has no 'name'",
        )),
        Some(name) => {
            if let Err(why) = check_usable_name(name) {
                out.push(Finding::new(Severity::Error, "name-unusable", why));
            } else if let Err(why) = check_name(name) {
                // Real collections use names like `Claude Code Guide`: they load, install
                // (as a folder of that name) and work, flagged; only the validator refuses
                // them. A name that would install as a hidden folder never loads again.
                let severity = match mode {
                    Mode::Lenient => Severity::Warning,
                    Mode::Strict if !name.starts_with('.') => Severity::Warning,
                    _ => Severity::Error,
                };
                out.push(Finding::new(severity, "name-format", why));
            } else if let Some(dir) = dir_name.filter(|d| *d != name) {
                out.push(Finding::new(
                    soft,
                    "name-dir-mismatch",
                    format!("name '{name}' does not match its directory '{dir}'"),
                ));
            }
        }
    }
    match fm.description.as_deref() {
        None | Some("") => out.push(Finding::new(
            Severity::Error,
            "description-missing",
            "frontmatter has no 'description'",
        )),
        Some(d) if d.chars().count() > MAX_DESCRIPTION_LEN => out.push(Finding::new(
            soft,
            "description-too-long",
            format!(
                "description is {} characters long; at most {MAX_DESCRIPTION_LEN} allowed",
                d.chars().count()
            ),
        )),
        Some(_) => {}
    }
    if let Some(c) = fm.compatibility.as_deref()
        && c.chars().count() > MAX_COMPATIBILITY_LEN
    {
        out.push(Finding::new(
            soft,
            "compatibility-too-long",
            format!(
                "compatibility is {} characters long; at most {MAX_COMPATIBILITY_LEN} allowed",
                c.chars().count()
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(fields: &str) -> String {
        format!("---\n{fields}---\nbody\n")
    }

    #[test]
    fn a_well_formed_skill_has_no_findings() {
        let i = inspect(
            &doc("name: pdf\ndescription: PDFs.\n"),
            Some("pdf"),
            Mode::Strict,
        );
        assert!(i.is_valid());
        assert!(i.findings.is_empty(), "{:?}", i.findings);
    }

    #[test]
    fn name_dir_mismatch_warns_when_loading_and_fails_when_strict() {
        let text = doc("name: pdf\ndescription: PDFs.\n");
        let lenient = inspect(&text, Some("pdf-tools"), Mode::Lenient);
        assert!(lenient.is_valid());
        assert_eq!(lenient.findings[0].rule, "name-dir-mismatch");
        assert_eq!(lenient.findings[0].severity, Severity::Warning);
        assert!(!inspect(&text, Some("pdf-tools"), Mode::Strict).is_valid());
    }

    #[test]
    fn over_long_description_warns_when_loading_and_fails_when_strict() {
        let text = doc(&format!("name: a\ndescription: {}\n", "x".repeat(1025)));
        let lenient = inspect(&text, Some("a"), Mode::Lenient);
        assert!(lenient.is_valid());
        assert_eq!(lenient.findings[0].rule, "description-too-long");
        assert!(!inspect(&text, Some("a"), Mode::Strict).is_valid());
        let exact = doc(&format!("name: a\ndescription: {}\n", "x".repeat(1024)));
        assert!(inspect(&exact, Some("a"), Mode::Strict).is_valid());
    }

    #[test]
    fn over_long_compatibility_is_reported() {
        let text = doc(&format!(
            "name: a\ndescription: d\ncompatibility: {}\n",
            "c".repeat(501)
        ));
        let i = inspect(&text, Some("a"), Mode::Strict);
        assert_eq!(i.findings[0].rule, "compatibility-too-long");
        assert!(!i.is_valid());
    }

    #[test]
    fn missing_description_and_unusable_names_are_errors_in_both_modes() {
        for mode in [Mode::Lenient, Mode::Strict] {
            let i = inspect(&doc("name: a\n"), Some("a"), mode);
            assert_eq!(i.findings[0].rule, "description-missing");
            assert!(!i.is_valid());
            let i = inspect(&doc("name: a\ndescription: '  '\n"), Some("a"), mode);
            assert!(!i.is_valid());
            let i = inspect(&doc("name: a/b\ndescription: d\n"), None, mode);
            assert_eq!(i.findings[0].rule, "name-unusable");
            assert!(!i.is_valid());
            let i = inspect(&doc("description: d\n"), None, mode);
            assert_eq!(i.findings[0].rule, "name-missing");
        }
    }

    #[test]
    fn names_outside_the_spec_load_and_install_with_a_warning_and_fail_validation() {
        let text = doc("name: Claude Code Guide\ndescription: d\n");
        let lenient = inspect(&text, Some("claude-code-guide"), Mode::Lenient);
        assert!(lenient.is_valid(), "{:?}", lenient.findings);
        assert_eq!(lenient.findings[0].rule, "name-format");
        assert_eq!(lenient.findings[0].severity, Severity::Warning);
        assert!(
            inspect(&text, None, Mode::Strict).is_valid(),
            "installs take it too"
        );
        assert!(
            !inspect(&text, None, Mode::Reference).is_valid(),
            "the validator does not"
        );
        let hidden = doc("name: .secret\ndescription: d\n");
        assert!(!inspect(&hidden, None, Mode::Strict).is_valid());
    }

    #[test]
    fn the_validator_refuses_unknown_keys_names_extensions_and_strict_refuses_both() {
        let text =
            doc("name: a\ndescription: d\nargument-hint: '[file]'\nmetadata:\n  tags: [x, y]\n");
        let reference = inspect(&text, Some("a"), Mode::Reference);
        assert!(reference.is_valid(), "{:?}", reference.findings);
        let rules: Vec<_> = reference.findings.iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["metadata-value-not-string", "extension-field"]);
        assert!(!inspect(&text, Some("a"), Mode::Spec).is_valid());
        let other = doc("name: a\ndescription: d\nauthor: me\n");
        for mode in [Mode::Reference, Mode::Spec] {
            let i = inspect(&other, Some("a"), mode);
            assert_eq!((i.is_valid(), i.findings[0].rule), (false, "unknown-key"));
        }
        assert!(
            inspect(&other, Some("a"), Mode::Strict).is_valid(),
            "installs keep them"
        );
    }

    #[test]
    fn unparseable_yaml_is_a_single_error_finding() {
        let i = inspect("---\nname: [\n---\n", Some("a"), Mode::Lenient);
        assert!(i.parsed.is_none());
        assert_eq!(i.findings.len(), 1);
        assert!(i.error_summary().contains("invalid YAML"));
    }

    #[test]
    fn unknown_keys_stay_warnings_even_when_strict() {
        let i = inspect(
            &doc("name: a\ndescription: d\nauthor: me\n"),
            Some("a"),
            Mode::Strict,
        );
        assert!(i.is_valid());
        assert_eq!(i.warnings().len(), 1);
    }
}
