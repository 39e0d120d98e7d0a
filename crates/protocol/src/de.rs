//! Deserializers for request fields that JSON Schema types more loosely than serde does.

use serde::{Deserialize, Deserializer, de::Error as _};

/// An optional whole number in `u32`'s range. JSON Schema counts `10.0` as an integer, so
/// it is taken too; a fraction or a value out of range is an error naming it.
pub fn opt_u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    opt_whole(d)
}

/// A whole number in `u32`'s range (see [`opt_u32`]).
pub fn u32<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    opt_u32(d)?.ok_or_else(|| D::Error::custom("expected a whole number, not null"))
}

/// An optional whole number in `u64`'s range, `10.0` included (see [`opt_u32`]).
pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    opt_whole(d)
}

/// A whole number in `u64`'s range (see [`opt_u64`]).
pub fn u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    opt_u64(d)?.ok_or_else(|| D::Error::custom("expected a whole number, not null"))
}

fn opt_whole<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64> + num_max::Max,
{
    let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    whole(&number)
        .and_then(|n| T::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| {
            D::Error::custom(format!(
                "expected a whole number 0-{}, not {number}",
                T::MAX_TEXT
            ))
        })
}

mod num_max {
    /// The largest value, as the error message names it.
    pub(super) trait Max {
        const MAX_TEXT: &'static str;
    }
    impl Max for u32 {
        const MAX_TEXT: &'static str = "4294967295";
    }
    impl Max for u64 {
        const MAX_TEXT: &'static str = "18446744073709551615";
    }
}

/// A value of type `T`, or `None` when it has another shape (keys clients share with
/// other servers are read without refusing what they meant for someone else).
pub fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

fn whole(n: &serde_json::Number) -> Option<u64> {
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    let f = n.as_f64()?;
    // Exact: no fraction, not negative, within u64 (larger values fail the range check).
    (f.fract() == 0.0 && f >= 0.0 && f < 2f64.powi(64)).then_some(f as u64)
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Deserialize)]
    struct Page {
        #[serde(default, deserialize_with = "super::opt_u32")]
        limit: Option<u32>,
    }

    fn limit(json: &str) -> Result<Option<u32>, String> {
        serde_json::from_str::<Page>(json)
            .map(|p| p.limit)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn whole_numbers_in_any_notation_are_taken() {
        assert_eq!(limit(r#"{"limit": 10}"#), Ok(Some(10)));
        assert_eq!(limit(r#"{"limit": 10.0}"#), Ok(Some(10)));
        assert_eq!(limit(r#"{"limit": 1e3}"#), Ok(Some(1000)));
        assert_eq!(limit(r#"{"limit": null}"#), Ok(None));
        assert_eq!(limit("{}"), Ok(None));
        for bad in ["10.5", "-1", "4294967296", "\"10\"", "true"] {
            assert!(limit(&format!(r#"{{"limit": {bad}}}"#)).is_err(), "{bad}");
        }
    }

    #[derive(Debug, serde::Deserialize)]
    struct Tokens {
        #[serde(default, deserialize_with = "super::opt_u64")]
        tokens: Option<u64>,
    }

    #[test]
    fn u64_takes_whole_floats_and_names_its_range() {
        let tokens = |json: &str| serde_json::from_str::<Tokens>(json).map(|t| t.tokens);
        assert_eq!(tokens(r#"{"tokens": 4408.0}"#).unwrap(), Some(4408));
        assert_eq!(
            tokens(r#"{"tokens": 5000000000}"#).unwrap(),
            Some(5_000_000_000)
        );
        let err = tokens(r#"{"tokens": 1.5}"#).unwrap_err().to_string();
        assert!(err.contains("0-18446744073709551615"), "{err}");
    }
}
