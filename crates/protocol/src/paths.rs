//! Where things are inside a sandbox, and the rule thread ids follow (they name directories
//! and containers, so every layer checks them the same way).

/// The skills, read-only, inside every sandbox.
pub const SKILLS_ROOT: &str = "/mnt/skills";

/// A thread's files (`workspace`, `uploads`, `outputs`) inside its sandbox.
pub const USER_DATA_ROOT: &str = "/mnt/user-data";

/// Longest thread id.
pub const MAX_THREAD_ID_LEN: usize = 64;

/// Checks a thread id: 1–64 characters of ASCII letters, digits, `-` and `_`. The error says
/// what is wrong, quoting at most the start of a long id.
pub fn check_thread_id(id: &str) -> Result<(), String> {
    let ok = (1..=MAX_THREAD_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        return Ok(());
    }
    let shown: String = id.chars().take(80).collect();
    let more = if shown.len() < id.len() { "…" } else { "" };
    Err(format!(
        "thread id {shown:?}{more} must be 1-{MAX_THREAD_ID_LEN} characters of letters, digits, '-' and '_'"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ids_are_short_and_plain() {
        assert!(check_thread_id("t-1_A").is_ok());
        assert!(check_thread_id(&"a".repeat(64)).is_ok());
        for bad in ["", "a/b", "a b", "ü", "..", &"a".repeat(65)] {
            assert!(check_thread_id(bad).is_err(), "{bad}");
        }
        let long = check_thread_id(&"x".repeat(10_000)).unwrap_err();
        assert!(long.len() < 300, "a long id is cut in the message: {long}");
    }
}
