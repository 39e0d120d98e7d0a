//! Secrets with no fixed shape, tried after the provider rules: credentials in URLs and
//! headers, passwords in prose, card numbers, SSNs, gitleaks' generic-api-key (a `key =
//! value` assignment whose value has entropy) and bare runs that look random.

use super::{Rule, checks};

/// Words for a password, in a few languages. No boundary before them, so `DB_PASSWORD=`
/// counts; elsewhere `(?-u:\b)` is used as a Unicode `\b` is slow on non-ASCII text.
macro_rules! password_words {
    () => {
        r"(?:password|passwd|passphrase|passcode|pwd|mot\s+de\s+passe|passwort|kennwort|contraseña|senha)"
    };
}

/// "for the bank", "of my laptop": what a password is for, between the word and its value.
macro_rules! purpose {
    () => {
        r"(?:\s+(?:for|of|to|on|at|in)\s+[^.,;:\n]{1,40}?)?"
    };
}

/// Keywords that let the password rules run.
const PASSWORD_KEYWORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pwd",
    "mot de passe",
    "passwort",
    "kennwort",
    "contraseña",
    "senha",
];

/// Every heuristic rule, tried after the provider rules in this order.
pub(super) static HEURISTICS: &[Rule] = &[
    Rule {
        id: "url-credentials",
        keywords: &["://"],
        // postgres://user:pass@host, redis://:pass@host, https://user:token@host, …
        pattern: r"(?i)[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@]*:([^\s/?#@]+)@[^\s/?#@]",
        entropy: 0.0,
        check: Some(checks::url_password),
    },
    Rule {
        id: "authorization-header",
        keywords: &["authorization"],
        pattern: r#"(?i)(?-u:\b)(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token|digest|negotiate|api-?key)\s+)?([0-9A-Za-z_~+/.=:-]{8,})"#,
        entropy: 0.0,
        check: Some(checks::credential_value),
    },
    Rule {
        id: "bearer-token",
        keywords: &["bearer"],
        pattern: r"(?i)(?-u:\b)bearer\s+([0-9A-Za-z_~+/.=-]{16,})",
        entropy: 3.0,
        check: Some(checks::credential_value),
    },
    Rule {
        id: "curl-auth-user",
        keywords: &["curl"],
        pattern: r#"(?i)(?-u:\b)curl(?-u:\b).*?\s(?:-u|--user)(?:=|\s+)["']?([^\s"':]+:[^\s"']{3,})"#,
        entropy: 0.0,
        check: Some(checks::url_password),
    },
    Rule {
        id: "password-assignment",
        keywords: PASSWORD_KEYWORDS,
        // "password is …", "password: …", "the password for the bank is …", "… est …".
        pattern: concat!(
            "(?i)",
            password_words!(),
            "s?",
            purpose!(),
            r#"(?:\s*(?:[:=]|=>|->)|\s+(?:is|was|est|ist|es|é))\s*["'`]?([^\s"'`]{4,})"#
        ),
        entropy: 0.0,
        check: Some(checks::password_value),
    },
    Rule {
        id: "password-assignment",
        keywords: &["密码", "口令", "密钥", "パスワード"],
        pattern: r#"(?:密码|口令|密钥|パスワード)\s*(?:是|为|為|は|:|：|=)\s*["'`“]?([^\s"'`”，。、]{4,})"#,
        entropy: 0.0,
        check: Some(checks::password_value),
    },
    Rule {
        id: "secret-assignment",
        keywords: &["secret", "key", "token", "pw", "pass"],
        // "api key: …", "the token is …": the value must also look like a credential.
        pattern: concat!(
            r"(?i)(?:(?-u:\b)|_)(?:secret|api[_ -]?key|access[_ -]?key|auth[_ -]?token|access[_ -]?token",
            r"|token|private[_ -]?key|client[_ -]?secret|secret[_ -]?key|pw|my\s+pass)s?",
            purpose!(),
            r#"(?:\s*(?:[:=]|=>)|\s+(?:is|was))\s*["'`]?([^\s"'`]{4,})"#
        ),
        entropy: 0.0,
        check: Some(checks::credential_value),
    },
    Rule {
        id: "password-in-prose",
        keywords: PASSWORD_KEYWORDS,
        // "my password hunter2 for email": the word right after must read like a password.
        pattern: concat!("(?i)", password_words!(), r#"\s+["'`]?([^\s"'`]{4,})"#),
        entropy: 0.0,
        check: Some(checks::credential_value),
    },
    Rule {
        id: "pin-code",
        keywords: &["pin"],
        pattern: concat!(
            r"(?i)(?-u:\b)pin(?:\s*code|\s*number)?",
            purpose!(),
            r#"(?:\s*[:=]|\s+(?:is|was))?\s*["'`]?([0-9]{4,8})(?-u:\b)"#
        ),
        entropy: 0.0,
        check: None,
    },
    Rule {
        id: "mfa-backup-code",
        keywords: &["code"],
        // Two-factor recovery codes: "backup codes: 7f3a-9b2c, …", "2FA code 12345678".
        pattern: r"(?i)(?-u:\b)(?:recovery|backup|2fa|mfa|otp|2-step)(?:\s+[A-Za-z]+)?\s+codes?\s*(?:[:=]|is|are)?\s*([0-9A-Za-z]{4,}(?:[ -][0-9A-Za-z]{4,})*)",
        entropy: 0.0,
        check: Some(checks::code_value),
    },
    Rule {
        id: "otp-secret",
        keywords: &["totp", "2fa", "mfa", "otp", "authenticator"],
        // The base32 seed of an authenticator app: "TOTP secret JBSW Y3DP …".
        pattern: r#"(?i)(?:totp|2fa|mfa|otp|authenticator)[ _-]?(?:secret|seed|key)["']?\s*(?:[:=]|is)?\s*["']?([A-Z2-7]{4}(?: ?[A-Z2-7]{4}){3,})"#,
        entropy: 0.0,
        check: Some(checks::code_value),
    },
    Rule {
        id: "seed-phrase",
        keywords: &["seed", "recovery", "mnemonic"],
        // A wallet's 12 to 24 recovery words.
        pattern: r"(?i)(?:seed|recovery|mnemonic|secret)\s+(?:phrase|words)\s*(?:[:=]|is|are)?\s*((?:[a-z]{3,8}[ ,]+){11,23}[a-z]{3,8})",
        entropy: 0.0,
        check: None,
    },
    Rule {
        id: "credit-card",
        keywords: &[],
        pattern: r"[0-9](?:[ -]?[0-9]){12,18}",
        entropy: 0.0,
        check: Some(checks::card_number),
    },
    Rule {
        id: "us-ssn",
        keywords: &["-", "ssn", "social security"],
        pattern: r"(?i)[0-9]{3}-[0-9]{2}-[0-9]{4}|(?:ssn|social\s+security(?:\s+number)?)[^0-9]{0,12}([0-9]{3} ?[0-9]{2} ?[0-9]{4})",
        entropy: 0.0,
        check: Some(checks::ssn),
    },
    Rule {
        id: "generic-api-key",
        keywords: &[
            "access",
            "api",
            "auth",
            "key",
            "credential",
            "creds",
            "passwd",
            "password",
            "secret",
            "token",
        ],
        pattern: keyed!(
            r"access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token",
            r"[0-9A-Za-z_.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3}"
        ),
        // gitleaks' threshold: random values of 10+ characters clear it, words and
        // dates ("2024-01-05" has 2.4 bits) do not.
        entropy: 3.5,
        check: Some(checks::generic_value),
    },
    Rule {
        id: "aws-secret-access-key",
        keywords: &[],
        // A bare 40-character AWS secret key; other lengths fall to the next rule.
        pattern: r"(?-u:\b)[0-9A-Za-z/+]{40}(?-u:\b)",
        entropy: 0.0,
        check: Some(checks::random_base64),
    },
    Rule {
        id: "high-entropy-base64",
        keywords: &[],
        // Key bodies without their header: PEM lines, base64 or url-safe tokens.
        pattern: r"[0-9A-Za-z+/_-]{32,}={0,2}",
        entropy: 0.0,
        check: Some(checks::random_base64),
    },
    Rule {
        id: "high-entropy-hex",
        keywords: &[],
        pattern: r"[0-9a-fA-F]{41,}",
        entropy: 0.0,
        check: Some(checks::random_hex),
    },
];
