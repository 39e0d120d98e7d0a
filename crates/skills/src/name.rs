//! Skill name rules from the Agent Skills specification.

/// Longest allowed skill name.
pub const MAX_NAME_LEN: usize = 64;
/// Longest name a skill may load with at all (outside the specification, with a warning).
pub const MAX_USABLE_NAME_LEN: usize = 200;

/// Checks that a name outside the specification (`Active Directory Attacks`, `PDF_Tools`)
/// can still identify a skill: not empty or blank, not over-long, no control characters and
/// no path separators. Returns why it cannot.
pub fn check_usable_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("name must not be empty".into());
    }
    if name.chars().count() > MAX_USABLE_NAME_LEN {
        return Err(format!(
            "name is {} characters long; at most {MAX_USABLE_NAME_LEN} allowed",
            name.chars().count()
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("name must not contain control characters".into());
    }
    if name.contains(['/', '\\']) {
        return Err("name must not contain '/' or '\\'".into());
    }
    Ok(())
}

/// Checks a skill name as the specification and its reference validator do: 1–64
/// characters, lowercase, letters and digits (any script, as `skills-ref` counts them) and
/// `-`, not starting or ending with `-`, and without `--`. Returns why it is invalid.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("name must not be empty".into());
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(format!(
            "name is {} characters long; at most {MAX_NAME_LEN} allowed",
            name.chars().count()
        ));
    }
    if name.to_lowercase() != name {
        return Err("name must be lowercase".into());
    }
    if let Some(bad) = name.chars().find(|c| !(c.is_alphanumeric() || *c == '-')) {
        return Err(format!(
            "name may contain only lowercase letters, digits and '-'; found {bad:?}"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err("name must not start or end with '-'".into());
    }
    if name.contains("--") {
        return Err("name must not contain '--'".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{check_name, check_usable_name};

    #[test]
    fn names_outside_the_spec_are_usable_unless_they_break_paths_or_text() {
        for ok in [
            "Active Directory Attacks",
            "PDF_Tools",
            "Claude Code Guide",
            "dot.name",
            "Ümlaut",
        ] {
            assert!(check_usable_name(ok).is_ok(), "{ok}");
            assert!(check_name(ok).is_err(), "{ok} is outside the spec");
        }
        for bad in [
            "",
            "   ",
            "a/b",
            "a\\b",
            "tab\there",
            "c1\u{85}",
            &"a".repeat(201),
        ] {
            assert!(check_usable_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn accepts_lowercase_digits_and_single_hyphens() {
        for ok in [
            "a",
            "pdf",
            "skill-creator",
            "x2",
            "a-b-c",
            &"a".repeat(64),
            "ümlaut",
            "数据-分析",
        ] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_names_breaking_the_spec() {
        for bad in [
            "",
            "-lead",
            "trail-",
            "dou--ble",
            "Upper",
            "spa ce",
            "under_score",
            "dot.name",
            "Ümlaut",
            &"a".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} should be rejected");
        }
    }
}
