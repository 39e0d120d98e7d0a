//! When and how long to wait before retrying a model call.

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// Statuses worth retrying: rate limits and server-side failures.
pub fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || status.is_server_error()
}

/// The delay before attempt `attempt` (1-based): `Retry-After` when the server sent one,
/// else exponential backoff with jitter, capped.
pub fn delay(attempt: u32, headers: Option<&HeaderMap>, base_ms: u64, max_ms: u64) -> Duration {
    if let Some(after) = headers.and_then(retry_after) {
        return after.min(Duration::from_millis(max_ms.max(1000) * 4));
    }
    let exp = base_ms.saturating_mul(1u64 << attempt.saturating_sub(1).min(20));
    let capped = exp.min(max_ms);
    // Full jitter on the upper half keeps concurrent runs from retrying in lockstep.
    let jitter = rand::random_range(0..=capped / 2);
    Duration::from_millis(capped / 2 + jitter)
}

/// `Retry-After`: seconds or an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_wins_over_backoff() {
        let mut h = HeaderMap::new();
        h.insert(reqwest::header::RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(delay(1, Some(&h), 500, 30_000), Duration::from_secs(2));
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        h.insert(reqwest::header::RETRY_AFTER, date.parse().unwrap());
        let d = delay(1, Some(&h), 500, 30_000);
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        for attempt in 1..10 {
            let d = delay(attempt, None, 500, 4_000);
            let cap = (500u64 << (attempt - 1)).min(4_000);
            assert!(
                d >= Duration::from_millis(cap / 2) && d <= Duration::from_millis(cap),
                "{attempt}: {d:?}"
            );
        }
    }

    #[test]
    fn rate_limits_and_server_errors_are_retried() {
        assert!(retryable(StatusCode::TOO_MANY_REQUESTS));
        assert!(retryable(StatusCode::BAD_GATEWAY));
        assert!(!retryable(StatusCode::BAD_REQUEST));
        assert!(!retryable(StatusCode::UNAUTHORIZED));
    }
}
