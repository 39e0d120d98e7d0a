//! Passwords (Argon2id) and random secrets (sessions, CSRF, tokens; stored as SHA-256).

use antler_protocol::validation::{MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS};
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};

/// Prefix of personal access tokens, so they are recognisable (and findable by secret
/// scanners) when leaked.
pub(crate) const TOKEN_PREFIX: &str = "antler_pat_";

/// 32 random bytes as 64 hex characters.
pub(crate) fn random_secret() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// A new personal access token.
pub(crate) fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", random_secret())
}

/// How a secret is stored and looked up. Secrets carry 256 random bits, so a fast hash is
/// enough (no salt or stretching needed, unlike passwords).
pub(crate) fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The Argon2id PHC string of `password` (CPU-heavy: call off the async threads).
pub(crate) fn hash_password(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing a password failed: {e}"))
}

/// Whether `password` matches the PHC string `hash` (false for a malformed hash).
pub(crate) fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A password that is not acceptable, and why.
pub(crate) fn password_problem(password: &str) -> Option<String> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Some(format!(
            "the password must have at least {MIN_PASSWORD_CHARS} characters"
        ));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Some(format!(
            "the password must have at most {MAX_PASSWORD_CHARS} characters"
        ));
    }
    None
}

/// A password for accounts created without one (16 random bytes, hex).
pub fn generated_password() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_hash_with_argon2id_and_verify_only_themselves() {
        let hash = hash_password("correct horse").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsf", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(hash, hash_password("correct horse").unwrap(), "salted");
    }

    #[test]
    fn secrets_are_random_and_stored_as_digests() {
        let (a, b) = (random_secret(), random_secret());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(new_token().starts_with(TOKEN_PREFIX));
        assert_eq!(digest(&a), digest(&a));
        assert_ne!(digest(&a), a);
    }

    #[test]
    fn short_and_huge_passwords_are_refused() {
        assert!(password_problem("1234567").is_some());
        assert!(password_problem("12345678").is_none());
        assert!(password_problem(&"x".repeat(MAX_PASSWORD_CHARS + 1)).is_some());
        // Characters, not bytes, as the OpenAPI document's maxLength counts.
        assert!(password_problem(&"é".repeat(MAX_PASSWORD_CHARS)).is_none());
    }
}
