//! Text that looks like a secret (keys, tokens, passwords, private keys) is never stored as
//! a fact.

use std::sync::LazyLock;

use regex::Regex;

static SECRET: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(",
        r"\bsk-[a-z0-9_-]{16,}",
        r"|\b(ghp|gho|ghu|ghs|ghr|github_pat)_[a-z0-9_]{20,}",
        r"|\bAKIA[0-9A-Z]{16}\b",
        r"|\bxox[abprs]-[a-z0-9-]{10,}",
        r"|\bAIza[0-9a-z_-]{30,}",
        r"|\bantler_pat_[a-z0-9]{16,}",
        r"|\b(sk|rk|pk)_(live|test)_[a-z0-9]{16,}",
        r"|\bglpat-[a-z0-9_-]{20,}",
        r"|\bhf_[a-z0-9]{30,}",
        r"|\bnpm_[a-z0-9]{36}\b",
        r"|-----BEGIN [A-Z ]*PRIVATE KEY-----",
        r"|\beyJ[a-z0-9_-]{10,}\.[a-z0-9_-]{10,}\.",
        r"|\b(password|passwd|pwd|passphrase|secret|api[_ -]?key|token|pin)\b\s*(is|:|=)\s*\S{4,}",
        // "the password for the bank is …", "password of my laptop: …"
        r"|\b(password|passwd|passphrase|api[_ -]?key|pin)\s+(for|of|to)\s+[^.,;:\n]{1,40}?(\s+(is|was)|\s*[:=])\s*\S{4,}",
        r")"
    ))
    .ok()
});

/// Whether `text` holds something that looks like a secret (OpenAI, GitHub, GitLab, AWS,
/// Slack, Google, Stripe, Hugging Face, npm and Antler keys, private keys, JWTs, "password
/// is …", "the password for … is …").
pub(crate) fn looks_secret(text: &str) -> bool {
    SECRET.as_ref().is_none_or(|re| re.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::looks_secret;

    #[test]
    fn keys_tokens_and_passwords_are_caught_and_plain_facts_are_not() {
        for secret in [
            "my key is sk-proj-abcdefghijklmnop1234",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123",
            "AKIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdef",
            "AIzaSyA1234567890abcdefghijklmnopqrstu",
            "-----BEGIN RSA PRIVATE KEY-----",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
            "My password is hunter22",
            "api key: 1234abcd",
            "uses antler_pat_0123456789abcdef0123",
            "the password for the bank is Tr0ub4dor",
            "Password of my laptop: correcthorse",
            "stripe sk_live_51HabcdefghijklmnopQRST",
            "gitlab glpat-abcdefghijklmnopqrst12",
        ] {
            assert!(looks_secret(secret), "{secret}");
        }
        for fact in [
            "Prefers Python for data analysis",
            "Their team uses tokens of appreciation",
            "Works on password managers as a product manager",
            "Resets the password for their parents sometimes",
            "Lives in Lyon",
        ] {
            assert!(!looks_secret(fact), "{fact}");
        }
    }
}
