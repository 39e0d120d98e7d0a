//! When and how long to wait before retrying a model call.

use std::time::{Duration, SystemTime};

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;

/// Statuses worth retrying: rate limits and server-side failures.
pub fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::REQUEST_TIMEOUT
        || status.is_server_error()
}

/// The waits between attempts: doubling from `base_ms`, capped at `max_ms`, `max_retries` of
/// them. Each step is drawn from its upper half (backon's jitter adds up to the step to its
/// half), so concurrent runs do not retry in lockstep.
pub fn schedule(base_ms: u64, max_ms: u64, max_retries: u32) -> ExponentialBackoff {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(base_ms.max(2) / 2))
        .with_max_delay(Duration::from_millis(max_ms.max(2) / 2))
        .with_jitter()
        .with_max_times(max_retries as usize)
        .build()
}

/// The wait before the next attempt: `Retry-After` when the server sent one (within reason),
/// else the schedule's next step; `None` when no retries are left.
pub fn next_delay(
    schedule: &mut ExponentialBackoff,
    headers: Option<&HeaderMap>,
    max_ms: u64,
) -> Option<Duration> {
    let step = schedule.next()?;
    Some(match headers.and_then(retry_after) {
        Some(after) => after.min(Duration::from_millis(max_ms.max(1000) * 4)),
        None => step,
    })
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
        let mut s = schedule(500, 30_000, 4);
        let mut h = HeaderMap::new();
        h.insert(reqwest::header::RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(
            next_delay(&mut s, Some(&h), 30_000),
            Some(Duration::from_secs(2))
        );
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        h.insert(reqwest::header::RETRY_AFTER, date.parse().unwrap());
        let d = next_delay(&mut s, Some(&h), 30_000).unwrap();
        assert!(
            d > Duration::from_secs(27) && d <= Duration::from_secs(30),
            "{d:?}"
        );
    }

    #[test]
    fn backoff_grows_is_capped_and_runs_out() {
        let mut s = schedule(500, 4_000, 9);
        for attempt in 1..10 {
            let d = next_delay(&mut s, None, 4_000).unwrap();
            let cap = (500u64 << (attempt - 1)).min(4_000);
            assert!(
                d >= Duration::from_millis(cap / 2) && d <= Duration::from_millis(cap),
                "{attempt}: {d:?}"
            );
        }
        assert_eq!(next_delay(&mut s, None, 4_000), None, "no retries left");
    }

    #[test]
    fn rate_limits_and_server_errors_are_retried() {
        assert!(retryable(StatusCode::TOO_MANY_REQUESTS));
        assert!(retryable(StatusCode::BAD_GATEWAY));
        assert!(!retryable(StatusCode::BAD_REQUEST));
        assert!(!retryable(StatusCode::UNAUTHORIZED));
    }
}
