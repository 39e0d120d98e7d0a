//! Skill name rules from the Agent Skills specification.

/// Longest allowed skill name.
pub const MAX_NAME_LEN: usize = 64;

/// Checks a skill name: 1–64 characters of lowercase ASCII letters, digits and `-`, not
/// starting or ending with `-`, and without `--`. Returns why it is invalid.
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
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
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
    use super::check_name;

    #[test]
    fn accepts_lowercase_digits_and_single_hyphens() {
        for ok in ["a", "pdf", "skill-creator", "x2", "a-b-c", &"a".repeat(64)] {
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
            "ümlaut",
            &"a".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad:?} should be rejected");
        }
    }
}
