//! Sealing secret values: AES-256-GCM (ring) with a random nonce per value and the secret's
//! name as associated data, so a sealed value moved to another name does not open.

use base64::Engine as _;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};

/// The format byte in front of every sealed value.
const VERSION: u8 = 1;

/// The key secrets are sealed with.
pub(crate) struct Key {
    key: LessSafeKey,
    rng: SystemRandom,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(…)")
    }
}

impl Key {
    /// A key from its text: 32 bytes as base64 (`openssl rand -base64 32`) or 64 hex digits.
    pub(crate) fn parse(text: &str) -> Result<Key, String> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            hex::decode(text).map_err(|e| e.to_string())?
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|_| "ANTLER_SECRETS_KEY is neither base64 nor hex".to_string())?
        };
        if bytes.len() != 32 {
            return Err(format!(
                "ANTLER_SECRETS_KEY must be 32 bytes (base64 of 32 bytes, e.g. `openssl rand -base64 32`, or 64 hex digits); it has {}",
                bytes.len()
            ));
        }
        let key = UnboundKey::new(&AES_256_GCM, &bytes)
            .map_err(|_| "ANTLER_SECRETS_KEY is not a usable AES-256 key".to_string())?;
        Ok(Key {
            key: LessSafeKey::new(key),
            rng: SystemRandom::new(),
        })
    }

    /// `value` sealed for `name`: version, nonce, ciphertext and tag.
    pub(crate) fn seal(&self, name: &str, value: &str) -> Result<Vec<u8>, String> {
        let mut nonce = [0u8; NONCE_LEN];
        self.rng
            .fill(&mut nonce)
            .map_err(|_| "no randomness for a nonce".to_string())?;
        let mut data = value.as_bytes().to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(name.as_bytes()),
                &mut data,
            )
            .map_err(|_| "sealing failed".to_string())?;
        let mut out = Vec::with_capacity(1 + NONCE_LEN + data.len());
        out.push(VERSION);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&data);
        Ok(out)
    }

    /// The value of `sealed` for `name`; `None` when this key did not seal it (or it was
    /// altered, or moved to another name).
    pub(crate) fn open(&self, name: &str, sealed: &[u8]) -> Option<String> {
        let (&version, rest) = sealed.split_first()?;
        if version != VERSION || rest.len() < NONCE_LEN {
            return None;
        }
        let (nonce, data) = rest.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut data = data.to_vec();
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(name.as_bytes()), &mut data)
            .ok()?;
        String::from_utf8(plain.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn a_sealed_value_opens_only_with_its_key_and_name() {
        let key = Key::parse(KEY).unwrap();
        let sealed = key.seal("IMAGE_KEY", "sk-very-secret-value").unwrap();
        assert!(
            !sealed
                .windows(b"very-secret".len())
                .any(|w| w == b"very-secret"),
            "not in the clear"
        );
        assert_ne!(
            sealed,
            key.seal("IMAGE_KEY", "sk-very-secret-value").unwrap(),
            "fresh nonce"
        );
        assert_eq!(
            key.open("IMAGE_KEY", &sealed).as_deref(),
            Some("sk-very-secret-value")
        );
        assert_eq!(key.open("OTHER", &sealed), None, "bound to its name");
        let other = Key::parse(&"ab".repeat(32)).unwrap();
        assert_eq!(other.open("IMAGE_KEY", &sealed), None);
        let mut tampered = sealed;
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert_eq!(key.open("IMAGE_KEY", &tampered), None);
        assert_eq!(key.open("IMAGE_KEY", &[]), None);
    }

    #[test]
    fn keys_must_be_32_bytes() {
        assert!(Key::parse("c2hvcnQ=").unwrap_err().contains("32 bytes"));
        assert!(Key::parse("not base64!").is_err());
        assert!(Key::parse(&"0f".repeat(32)).is_ok());
    }
}
