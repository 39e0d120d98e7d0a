//! Checks in code for candidates a regex alone cannot judge: card checksums, SSN ranges,
//! whether a value reads like a password or like a word, and whether a bare run is random.

use std::sync::LazyLock;

use regex::Regex;

use super::{Candidate, entropy};

/// Words that follow "password is" or "token:" in ordinary statements about secrets rather
/// than in a secret ("the password is stored in …", "token: expired").
const NOT_SECRETS: &str = "\
    also always available being blank blocked case-sensitive changed compromised correct \
    default different disabled easy empty enabled encrypted expired expires expiring forgotten \
    generated getting gone hard hashed here hidden important incorrect insecure invalid kept \
    known leaked locked long lost managed mandatory masked missing needed never none null \
    often optional personal private protected random really redacted required reset reused \
    rotated safe same saved secret secure sensitive shared short shown simple somewhere still \
    stolen stored strong synced temporary their there this unique unknown unset updated \
    usually valid very weak what where written wrong your";

/// `value` without the sentence's punctuation after it.
fn trimmed(value: &str) -> &str {
    value.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\''])
}

/// Whether `value` is a placeholder or a reference to a secret kept elsewhere
/// (`<password>`, `${DB_PASSWORD}`, `$TOKEN`, `%s`, `****`, `os.environ[…]`).
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with(['<', '$', '%', '{', '['])
        || value
            .chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
        || ["environ", "getenv", "process.env", "secrets.", "vault:"]
            .iter()
            .any(|s| lower.contains(s))
}

/// Whether `s` holds an ASCII digit.
pub(super) fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// Whether `value` has what plain words lack: a digit, a symbol, or a capital after a small
/// letter.
fn password_like(value: &str) -> bool {
    let letters = value.chars().any(char::is_alphabetic);
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let symbol = value
        .chars()
        .any(|c| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '\''));
    let camel = value
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    (letters && (digits > 0 || symbol || camel)) || (digits >= 6 && digits == value.len())
}

/// The value after "password is/:/=": anything but a placeholder or a word describing it.
pub(super) fn password_value(c: &Candidate<'_>) -> bool {
    let value = trimmed(c.secret);
    value.chars().count() >= 4
        && !placeholder(value)
        && !NOT_SECRETS
            .split_whitespace()
            .any(|w| value.eq_ignore_ascii_case(w))
}

/// The value after "token:" or "Authorization:" (or straight after "password"): it must
/// also look like a credential, not a word.
pub(super) fn credential_value(c: &Candidate<'_>) -> bool {
    password_value(c) && password_like(trimmed(c.secret))
}

/// A one-time or recovery code: has a digit and is no placeholder.
pub(super) fn code_value(c: &Candidate<'_>) -> bool {
    has_digit(c.secret) && !placeholder(c.secret)
}

/// The password in `scheme://user:password@host`.
pub(super) fn url_password(c: &Candidate<'_>) -> bool {
    !placeholder(c.secret)
}

/// Key names that gitleaks' generic-api-key allows (public keys, key ids, keyboards,
/// API versions and URLs, authors, …).
static GENERIC_ALLOWED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)",
        r"|rapid|capital|author|credentials?[_.-]?id|withcredentials",
        r"|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence)[_.-]?key|turkey",
        r"|key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector",
        r"|signature|size|stone|storetype|word|up|down|left|right)|monkey|keying",
        r"|secret[_.-]?(?:length|name|size)|csrf[_.-]?token|public[_.-]?token",
        r"|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])|(?:key|token)[_.-]?file",
    ))
    .ok()
});

/// gitleaks' generic-api-key allowlists: the value is not just letters and punctuation, the
/// key is not an allowed name, and the value is no placeholder.
pub(super) fn generic_value(c: &Candidate<'_>) -> bool {
    let letters_only = c
        .secret
        .chars()
        .all(|ch| ch.is_ascii_alphabetic() || "_.-".contains(ch));
    let allowed = GENERIC_ALLOWED
        .as_ref()
        .is_some_and(|re| re.is_match(c.matched));
    !letters_only && !allowed && !placeholder(c.secret)
}

/// The character before and after the candidate are not in `class` (the run is whole).
fn isolated(c: &Candidate<'_>, class: fn(char) -> bool) -> bool {
    let before = c.text[..c.start].chars().next_back();
    let after = c.text[c.end..].chars().next();
    !before.is_some_and(class) && !after.is_some_and(class)
}

/// Up to `bytes` bytes of text before the candidate, lowercased.
fn preceding(c: &Candidate<'_>, bytes: usize) -> String {
    let mut from = c.start.saturating_sub(bytes);
    while !c.text.is_char_boundary(from) {
        from += 1;
    }
    c.text[from..c.start].to_lowercase()
}

/// Whether the run sits inside a URL, whose path segments and ids are not secrets on their
/// own (credentials in URLs have their own rule).
fn in_url(c: &Candidate<'_>) -> bool {
    let token_start = c.text[..c.start]
        .rfind(char::is_whitespace)
        .map_or(0, |i| i + 1);
    let token = &c.text[token_start..c.start];
    token.contains("://") || token.starts_with("www.")
}

/// Card numbers: 13 to 19 digits (single spaces or dashes allowed) from a card issuer's
/// range that pass the Luhn checksum. Any prefix ending at a separator is tried, so a
/// trailing expiry date does not hide the number.
pub(super) fn card_number(c: &Candidate<'_>) -> bool {
    let digit = |ch: char| ch.is_ascii_digit();
    if c.text[..c.start].ends_with(digit) {
        return false;
    }
    let digit_after = c.text[c.end..].starts_with(digit);
    let mut digits = Vec::with_capacity(19);
    let bytes = c.secret.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            digits.push(b - b'0');
            let n = digits.len();
            let ends_group = bytes
                .get(i + 1)
                .map_or(!digit_after, |next| !next.is_ascii_digit());
            if (13..=19).contains(&n) && ends_group && card_like(&digits) {
                return true;
            }
        }
    }
    false
}

/// A card issuer's prefix, not one repeated digit, and a valid Luhn checksum.
fn card_like(digits: &[u8]) -> bool {
    let prefix = |n: usize| {
        digits[..n]
            .iter()
            .fold(0u32, |acc, &d| acc * 10 + u32::from(d))
    };
    // Visa, Mastercard (51-55, 2221-2720), Amex, Diners, JCB, Discover, UnionPay, Maestro.
    let issuer = matches!(digits[0], 3..=6) || (2221..=2720).contains(&prefix(4));
    let varied = digits.iter().any(|&d| d != digits[0]);
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    issuer && varied && sum.is_multiple_of(10)
}

/// US Social Security numbers: `AAA-GG-SSSS` with an area other than 000, 666 and 900-999,
/// a group other than 00 and a serial other than 0000.
pub(super) fn ssn(c: &Candidate<'_>) -> bool {
    let digits: Vec<u32> = c.secret.chars().filter_map(|ch| ch.to_digit(10)).collect();
    if digits.len() != 9 || !isolated(c, |ch| ch.is_ascii_digit() || ch == '-') {
        return false;
    }
    let number = |r: std::ops::Range<usize>| digits[r].iter().fold(0, |acc, d| acc * 10 + d);
    let (area, group, serial) = (number(0..3), number(3..5), number(5..9));
    area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
}

/// Entropy a random base64 run of `len` characters almost always exceeds (about its 0.1%
/// quantile, measured): 4.0 bits at 32 characters rising to 4.7 at 64 and beyond.
fn base64_threshold(len: usize) -> f64 {
    const POINTS: [(f64, f64); 4] = [(32.0, 4.0), (40.0, 4.25), (48.0, 4.45), (64.0, 4.7)];
    let len = len as f64;
    if len >= 64.0 {
        return 4.7;
    }
    POINTS.windows(2).find(|w| len <= w[1].0).map_or(4.0, |w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        y0 + (y1 - y0) * (len.max(x0) - x0) / (x1 - x0)
    })
}

/// Whether the run is public by its marker: an SSH public key (`ssh-ed25519 AAAA…`), a key
/// fingerprint (`SHA256:…`) or a subresource-integrity hash (`sha384-…`).
fn public_base64(c: &Candidate<'_>) -> bool {
    let before = preceding(c, 40);
    let glued = [
        "sha1:", "sha256:", "sha384:", "sha512:", "md5:", "sha256-", "sha384-", "sha512-",
    ];
    let words = before
        .trim_end()
        .rsplit(char::is_whitespace)
        .next()
        .unwrap_or_default();
    let run = c.secret.get(..7).unwrap_or_default().to_ascii_lowercase();
    glued.iter().any(|m| before.ends_with(m) || run == *m)
        || ["ssh-rsa", "ssh-dss", "ssh-ed25519", "ecdsa-sha2-nistp"]
            .iter()
            .any(|m| words.starts_with(m))
}

/// A bare run of 32+ base64 characters that looks random: capitals, small letters and
/// digits all present, few word-like stretches of 4+ small letters (identifiers and paths
/// are made of words), and high entropy for its length; not part of a URL, nor public.
pub(super) fn random_base64(c: &Candidate<'_>) -> bool {
    let run = c.secret.trim_end_matches('=');
    let base64 = |ch: char| ch.is_ascii_alphanumeric() || "+/=_-".contains(ch);
    if run.len() < 32 || !isolated(c, base64) || in_url(c) || public_base64(c) {
        return false;
    }
    let bytes = run.as_bytes();
    let has = |f: fn(&u8) -> bool| bytes.iter().any(f);
    if !(has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit)) {
        return false;
    }
    let wordy: usize = bytes
        .split(|b| !b.is_ascii_lowercase())
        .filter(|w| w.len() >= 4)
        .map(<[u8]>::len)
        .sum();
    wordy * 100 < run.len() * 35 && entropy(run) >= base64_threshold(run.len())
}

/// A bare hex run longer than a SHA-1 (so commit ids stay), single-case, not after a word
/// naming it a hash or digest ("sha256 …", "checksum …"), and not all one digit.
pub(super) fn random_hex(c: &Candidate<'_>) -> bool {
    let run = c.secret;
    let upper = run.bytes().any(|b| b.is_ascii_uppercase());
    let lower = run.bytes().any(|b| b.is_ascii_lowercase());
    if run.len() <= 40 || (upper && lower) || !isolated(c, |ch| ch.is_ascii_alphanumeric()) {
        return false;
    }
    let before = preceding(c, 40);
    let hash_words = "sha md5 hash digest checksum commit revision fingerprint blob etag object";
    !hash_words.split(' ').any(|w| before.contains(w)) && !in_url(c) && entropy(run) >= 3.0
}
