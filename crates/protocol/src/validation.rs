//! What request fields must be, stated once: the services check these values and the OpenAPI
//! document publishes the same ones (`crates/gateway/src/openapi/constraints.rs`), so a client
//! that follows the document is never refused for the shape of a field, and the server refuses
//! what the document forbids.
//!
//! Patterns name their characters explicitly (no `\s`, `\S`, `\w`): Rust's `regex`, Python's
//! `re` (the API fuzzer) and ECMA-262 (JSON Schema) disagree on what those classes hold.
//! Lengths count characters (Unicode scalar values), as JSON Schema's `minLength` and
//! `maxLength` do, of the value as sent.

/// Unicode `White_Space` characters (what Rust's `char::is_whitespace` and `str::trim` know),
/// as the inside of a regex character class.
pub const WHITE_SPACE: &str = r"\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

/// Control characters (`char::is_control`) and `White_Space`, as the inside of a character
/// class: the characters that neither print nor show.
pub const CONTROL_OR_SPACE: &str =
    r"\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

/// Shortest password accepted.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// Longest password accepted.
pub const MAX_PASSWORD_CHARS: usize = 1024;

/// Longest email address accepted, as sent.
pub const MAX_EMAIL_CHARS: usize = 254;
/// An email address: `local@domain`, one `@`, neither part empty, no space or control
/// character inside; white space around it is trimmed.
pub const EMAIL_PATTERN: &str = concat!(
    r"^[\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*",
    r"[^@\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+",
    "@",
    r"[^@\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+",
    r"[\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$",
);

/// Longest personal access token name, as sent.
pub const MAX_TOKEN_NAME_CHARS: usize = 100;
/// A token name: no control characters, and not blank (it is stored trimmed).
pub const TOKEN_NAME_PATTERN: &str = concat!(
    r"^[^\x00-\x1F\x7F-\x9F]*",
    r"[^\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]",
    r"[^\x00-\x1F\x7F-\x9F]*$",
);
/// Longest token lifetime, in days.
pub const MAX_TOKEN_DAYS: u32 = 3650;

/// Text that is not blank: it has a character that is not `White_Space`.
pub const NOT_BLANK_PATTERN: &str =
    r"[^\t-\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";

/// Longest remembered fact (and memory summary), as sent.
pub const MAX_FACT_CHARS: usize = 2000;
/// Most facts one memory import may hold.
pub const MAX_IMPORTED_FACTS: usize = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    /// The patterns spell the two classes out inline (`concat!` takes literals only).
    #[test]
    fn patterns_are_built_from_the_named_classes() {
        assert!(EMAIL_PATTERN.starts_with(&format!("^[{WHITE_SPACE}]*[^@{CONTROL_OR_SPACE}]+@")));
        assert!(EMAIL_PATTERN.ends_with(&format!("[^@{CONTROL_OR_SPACE}]+[{WHITE_SPACE}]*$")));
        assert!(TOKEN_NAME_PATTERN.contains(&format!("[^{CONTROL_OR_SPACE}]")));
        assert_eq!(NOT_BLANK_PATTERN, format!("[^{WHITE_SPACE}]"));
    }
}
