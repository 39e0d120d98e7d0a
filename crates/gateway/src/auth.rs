//! Who is calling: the fail-closed gate every `/api` route except a few public ones passes,
//! the CSRF check of cookie-authenticated unsafe requests, and the session cookies.
//!
//! Credentials, in order: `Authorization: Bearer <token>`, `X-Api-Key: <token>` (what the
//! LangGraph SDKs send given an `api_key`), the `antler_session` cookie. A credential that is
//! present but unknown, expired or revoked is a 401, never ignored.

use std::net::{IpAddr, SocketAddr};

use antler_app::{Authenticated, Caller};
use antler_protocol::auth::AuthMode;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;
use crate::state::AppState;

/// The session cookie (HttpOnly).
pub const SESSION_COOKIE: &str = "antler_session";
/// The CSRF cookie (readable by the page, echoed in [`CSRF_HEADER`]).
pub const CSRF_COOKIE: &str = "antler_csrf";
/// The header unsafe cookie-authenticated requests carry.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// Paths anyone may call: health, the API's documentation and the sign-in bootstrap.
/// Everything else under `/api`, and `/metrics`, needs a credential (the rest is the static
/// web UI).
pub const PUBLIC_PATHS: &[&str] = &[
    "/health",
    "/api/ok",
    "/api/info",
    "/api/openapi.json",
    "/api/auth/status",
    "/api/auth/setup",
    "/api/auth/login",
];

/// Whether `path` is served without a credential.
pub fn is_public(path: &str) -> bool {
    PUBLIC_PATHS.contains(&path)
        || path == "/api/docs"
        || path.starts_with("/api/docs/")
        || !(path == "/api" || path.starts_with("/api/") || path == "/metrics")
}

/// The resolved caller of a request, in its extensions (an extractor: 401 without one).
#[derive(Debug, Clone)]
pub struct Authed {
    /// Who.
    pub caller: Caller,
    /// The digest of the session cookie, for cookie-authenticated requests.
    pub session_hash: Option<String>,
    /// The session's CSRF token, for cookie-authenticated requests.
    pub csrf_token: Option<String>,
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Authed {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _state: &S,
    ) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Authed>()
            .cloned()
            .ok_or_else(|| unauthenticated("sign in first"))
    }
}

/// 401 in the envelope, with the challenge programs expect.
pub(crate) fn unauthenticated(message: &str) -> Response {
    let mut response =
        AppError::new(StatusCode::UNAUTHORIZED, "unauthenticated", message).into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"antler\""),
    );
    response
}

/// A credential the request carries, by kind.
enum Credential {
    Token(String),
    Session(String),
}

fn credential(headers: &HeaderMap) -> Result<Option<Credential>, &'static str> {
    if let Some(value) = headers.get(header::AUTHORIZATION) {
        let value = value
            .to_str()
            .map_err(|_| "the Authorization header is not text")?;
        let (scheme, token) = value.trim().split_once(' ').unwrap_or((value, ""));
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err("the Authorization header must be `Bearer <token>`");
        }
        return Ok(Some(Credential::Token(token.trim().to_string())));
    }
    if let Some(value) = headers.get("x-api-key") {
        let value = value
            .to_str()
            .map_err(|_| "the X-Api-Key header is not text")?;
        return Ok(Some(Credential::Token(value.trim().to_string())));
    }
    Ok(cookie(headers, SESSION_COOKIE).map(Credential::Session))
}

/// The value of cookie `name`.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Equal strings, compared in time independent of where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Resolves the caller, refusing protected requests without a valid credential (401) and
/// cookie-authenticated unsafe requests without the session's CSRF token (403).
pub async fn authenticate(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    if state.accounts.mode() == AuthMode::None {
        request.extensions_mut().insert(Authed {
            caller: Caller::local(),
            session_hash: None,
            csrf_token: None,
        });
        return next.run(request).await;
    }
    if is_public(request.uri().path()) {
        return next.run(request).await;
    }
    let found = match credential(request.headers()) {
        Ok(Some(found)) => found,
        Ok(None) => {
            return unauthenticated(
                "sign in, or send a token as `Authorization: Bearer <token>` or `X-Api-Key`",
            );
        }
        Err(problem) => return unauthenticated(problem),
    };
    let resolved = match &found {
        Credential::Token(secret) => state.accounts.token(secret).await,
        Credential::Session(secret) => state.accounts.session(secret).await,
    };
    let authed = match resolved {
        Ok(Some(Authenticated::Token { caller })) => Authed {
            caller,
            session_hash: None,
            csrf_token: None,
        },
        Ok(Some(Authenticated::Session {
            caller,
            csrf_token,
            session_hash,
        })) => Authed {
            caller,
            session_hash: Some(session_hash),
            csrf_token: Some(csrf_token),
        },
        Ok(None) => {
            return unauthenticated("the credential is not valid (unknown, expired or revoked)");
        }
        Err(e) => return AppError::from(e).into_response(),
    };
    let unsafe_method = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if unsafe_method && let Some(expected) = &authed.csrf_token {
        let sent = request
            .headers()
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !same_secret(sent, expected) {
            return AppError::new(
                StatusCode::FORBIDDEN,
                "csrf_token_invalid",
                "this request needs the session's CSRF token in the X-CSRF-Token header (from the sign-in answer or the antler_csrf cookie)",
            )
            .into_response();
        }
    }
    request.extensions_mut().insert(authed);
    next.run(request).await
}

/// The peer's address, and whether it is a trusted proxy (whose forwarding headers count).
fn peer(state: &AppState, parts: &axum::http::request::Parts) -> Option<(IpAddr, bool)> {
    let ip = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())?;
    Some((ip, state.accounts.config().trusted_proxies.contains(&ip)))
}

/// The client's address: the peer, or, when the peer is a trusted proxy, the last address
/// in `X-Forwarded-For` that is not one.
pub(crate) fn client_ip(state: &AppState, parts: &axum::http::request::Parts) -> Option<IpAddr> {
    let (ip, proxy) = peer(state, parts)?;
    if !proxy {
        return Some(ip);
    }
    let trusted = &state.accounts.config().trusted_proxies;
    let forwarded: Vec<IpAddr> = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|ip| ip.trim().parse().ok())
        .collect();
    Some(
        forwarded
            .into_iter()
            .rev()
            .find(|ip| !trusted.contains(ip))
            .unwrap_or(ip),
    )
}

/// Whether cookies must be `Secure`: configured, or the request came over HTTPS (as a
/// trusted proxy says).
fn secure(state: &AppState, parts: &axum::http::request::Parts) -> bool {
    state.accounts.config().secure_cookies
        || peer(state, parts).is_some_and(|(_, proxy)| proxy)
            && parts
                .headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

/// `Set-Cookie` values for a session (`None`: clearing both).
pub(crate) fn session_cookies(
    state: &AppState,
    parts: &axum::http::request::Parts,
    session: Option<(&str, &str, i64)>,
) -> [HeaderValue; 2] {
    let secure = if secure(state, parts) { "; Secure" } else { "" };
    let (secret, csrf, max_age) = session.unwrap_or(("", "", 0));
    let session = format!(
        "{SESSION_COOKIE}={secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    );
    let csrf = format!("{CSRF_COOKIE}={csrf}; Path=/; SameSite=Lax; Max-Age={max_age}{secure}");
    // Both are hex secrets and fixed text, so always valid header values.
    [session, csrf].map(|c| HeaderValue::from_str(&c).unwrap_or(HeaderValue::from_static("")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_health_docs_bootstrap_and_the_web_ui_are_public() {
        for path in [
            "/health",
            "/api/openapi.json",
            "/api/docs/",
            "/api/auth/login",
            "/",
            "/settings",
            "/assets/app.js",
        ] {
            assert!(is_public(path), "{path}");
        }
        for path in [
            "/api",
            "/api/threads",
            "/api/skills",
            "/api/auth/me",
            "/api/auth/tokens",
            "/api/docsx",
            "/api/users",
        ] {
            assert!(!is_public(path), "{path}");
        }
    }

    #[test]
    fn cookies_are_found_by_exact_name() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("x_antler_session=no; antler_session=yes; other=1"),
        );
        assert_eq!(cookie(&h, SESSION_COOKIE).as_deref(), Some("yes"));
        assert_eq!(cookie(&h, CSRF_COOKIE), None);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
        assert!(!same_secret("", "a"));
    }
}
