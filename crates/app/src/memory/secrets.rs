//! Text that looks like a secret (keys, tokens, passwords, private keys, card numbers, SSNs)
//! is never stored as a fact.
//!
//! The checks are a table of rules rather than one growing regex: provider tokens with
//! distinctive shapes ported from the gitleaks default rule set ([`providers`],
//! [`services`]), then heuristics for what has no fixed shape ([`heuristics`]): `key =
//! value` assignments, passwords in prose, credentials in URLs and headers, card numbers,
//! SSNs and bare high-entropy runs. As in gitleaks, a rule runs only when one of its
//! keywords is in the text, and may require a minimum Shannon entropy of the secret; some
//! add a check in code ([`checks`]: Luhn, SSN ranges, "does this look random").

/// gitleaks' shape for a value that is a secret only next to a name: `DISCORD_TOKEN = "…"`,
/// `heroku_api_key: …`. Capture group 1 is the value.
macro_rules! keyed {
    ($name:literal, $value:literal) => {
        concat!(
            r"(?i)[0-9A-Za-z_.-]{0,50}?(?:",
            $name,
            r#")[ \t0-9A-Za-z_.-]{0,20}[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[`'"\s=]{0,5}("#,
            $value,
            r#")(?:[`'"\s;,.)]|\\[nr]|$)"#
        )
    };
}

/// A token not glued to letters or digits on either side (gitleaks' `\b`, except that `_`
/// and `-` count as separators, so `key_AKIA…` is still found). Capture group 1 is the
/// token.
macro_rules! lone {
    ($token:literal) => {
        concat!(r"(?:^|[^0-9A-Za-z])(", $token, r")(?:[^0-9A-Za-z]|$)")
    };
}

mod checks;
mod heuristics;
mod providers;
mod services;
#[cfg(test)]
mod tests;

use std::sync::LazyLock;

use regex::Regex;

/// One detection rule.
struct Rule {
    /// Stable name, reported by [`find_secret`]; gitleaks' id where the rule comes from it.
    id: &'static str,
    /// Lowercase substrings one of which must be in the text for the regex to run (a cheap
    /// prefilter, as in gitleaks); empty means always run.
    keywords: &'static [&'static str],
    /// The regex; its first capture group that takes part, if any, is the secret itself.
    pattern: &'static str,
    /// The secret's Shannon entropy (bits per character) must exceed this; 0 skips it.
    entropy: f64,
    /// A further check of the candidate in code.
    check: Option<fn(&Candidate<'_>) -> bool>,
}

/// A rule with no check in code.
const fn rule(
    id: &'static str,
    keywords: &'static [&'static str],
    pattern: &'static str,
    entropy: f64,
) -> Rule {
    Rule {
        id,
        keywords,
        pattern,
        entropy,
        check: None,
    }
}

/// A regex match handed to a rule's check.
struct Candidate<'a> {
    /// The whole text being checked.
    text: &'a str,
    /// The whole match.
    matched: &'a str,
    /// The secret: the first capture group that took part, else the whole match.
    secret: &'a str,
    /// Byte offset of `secret` in `text`.
    start: usize,
    /// Byte offset of the end of `secret` in `text`.
    end: usize,
}

/// Every rule, compiled once, in the order they are tried: provider rules before the
/// heuristics, so the reported id is the most precise.
static COMPILED: LazyLock<Vec<(&'static Rule, Option<Regex>)>> = LazyLock::new(|| {
    providers::PROVIDERS
        .iter()
        .chain(services::SERVICES)
        .chain(heuristics::HEURISTICS)
        .map(|rule| (rule, Regex::new(rule.pattern).ok()))
        .collect()
});

/// The id of the first rule under which `text` holds a secret, if any, so callers can log
/// why a fact was refused without logging the secret.
pub(crate) fn find_secret(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    COMPILED.iter().find_map(|(rule, regex)| {
        if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k)) {
            return None;
        }
        // A rule that failed to compile (a bug a test catches) refuses rather than lets a
        // secret through.
        let Some(regex) = regex else {
            return Some(rule.id);
        };
        if rule.entropy <= 0.0 && rule.check.is_none() {
            return regex.is_match(text).then_some(rule.id);
        }
        regex
            .captures_iter(text)
            .any(|caps| {
                let Some(whole) = caps.get(0) else {
                    return false;
                };
                let secret = caps.iter().skip(1).flatten().next().unwrap_or(whole);
                let candidate = Candidate {
                    text,
                    matched: whole.as_str(),
                    secret: secret.as_str(),
                    start: secret.start(),
                    end: secret.end(),
                };
                (rule.entropy <= 0.0 || entropy(candidate.secret) > rule.entropy)
                    && rule.check.is_none_or(|check| check(&candidate))
            })
            .then_some(rule.id)
    })
}

/// Whether `text` holds something that looks like a secret: a provider key or token
/// (OpenAI, Anthropic, GitHub, GitLab, AWS, Slack, Google, Stripe, Hugging Face, npm, PyPI,
/// Twilio, SendGrid, Shopify, …), a private key, a JWT, a password or credential in prose,
/// a URL or a header, a card number, a US SSN, or a long random-looking run.
pub(crate) fn looks_secret(text: &str) -> bool {
    find_secret(text).is_some()
}

/// Shannon entropy of `s` in bits per character, as gitleaks computes it.
fn entropy(s: &str) -> f64 {
    let mut counts: Vec<(char, u32)> = Vec::with_capacity(64);
    let mut total = 0u32;
    for c in s.chars() {
        total += 1;
        match counts.iter_mut().find(|(seen, _)| *seen == c) {
            Some((_, n)) => *n += 1,
            None => counts.push((c, 1)),
        }
    }
    let total = f64::from(total.max(1));
    counts
        .iter()
        .map(|&(_, n)| {
            let p = f64::from(n) / total;
            -p * p.log2()
        })
        .sum()
}
