//! Who may reach the API from a browser: a `Host` allow-list against DNS rebinding (a
//! hostile name resolved to this server), and for unsafe methods an `Origin` (or `Referer`)
//! check, so another site's page cannot make the browser act here (`fetch` in `no-cors`
//! mode needs no preflight for multipart or empty bodies). Programs send no `Origin` and
//! pass; CORS headers go to configured origins only.

use std::net::IpAddr;
use std::sync::Arc;

use antler_app::config::{HttpConfig, origin_of};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::error::AppError;

/// The hosts and origins a server accepts, from `http.*`.
#[derive(Debug, Clone)]
pub struct OriginPolicy {
    any_host: bool,
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl OriginPolicy {
    /// The policy of `http`.
    pub fn new(http: &HttpConfig) -> Arc<Self> {
        Arc::new(OriginPolicy {
            any_host: http.allowed_hosts.iter().any(|h| h == "*"),
            hosts: http
                .allowed_hosts
                .iter()
                .map(|h| h.to_ascii_lowercase())
                .collect(),
            // As browsers send them (`https://ui.example`, no trailing slash).
            origins: http
                .cors
                .allowed_origins
                .iter()
                .filter_map(|o| origin_of(o))
                .collect(),
        })
    }

    /// Whether a request naming `host` (the `Host` header, port included) is served: IP
    /// addresses (rebinding needs a name), `localhost` and its subdomains, configured names.
    fn serves_host(&self, host: &str) -> bool {
        if self.any_host {
            return true;
        }
        let name = host_name(host).to_ascii_lowercase();
        name.parse::<IpAddr>().is_ok()
            || name == "localhost"
            || name.ends_with(".localhost")
            || self.hosts.contains(&name)
    }

    /// Whether a page of `origin` may send unsafe requests to a server reached as `host`:
    /// the origin the request itself named (its scheme with the `Host` header, default ports
    /// normalised by the URL parser), or a configured one.
    fn allows_origin(&self, origin: &str, host: Option<&str>) -> bool {
        let Some(origin) = origin_of(origin) else {
            return false;
        };
        let scheme = origin.split("://").next().unwrap_or_default();
        let own = host.and_then(|host| origin_of(&format!("{scheme}://{host}")));
        own.as_deref() == Some(origin.as_str()) || self.origins.contains(&origin)
    }

    /// The CORS layer: headers for the configured origins only, credentials included.
    pub fn cors(&self) -> Option<CorsLayer> {
        if self.origins.is_empty() {
            return None;
        }
        let origins: Vec<HeaderValue> = self
            .origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o).ok())
            .collect();
        Some(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(origins))
                .allow_credentials(true)
                .allow_methods([
                    Method::GET,
                    Method::POST,
                    Method::PUT,
                    Method::PATCH,
                    Method::DELETE,
                ])
                .allow_headers([
                    header::CONTENT_TYPE,
                    header::AUTHORIZATION,
                    HeaderName::from_static("x-api-key"),
                    HeaderName::from_static("x-csrf-token"),
                    HeaderName::from_static("last-event-id"),
                ])
                .expose_headers([
                    header::CONTENT_LOCATION,
                    header::LOCATION,
                    HeaderName::from_static("x-pagination-total"),
                ]),
        )
    }
}

/// `host[:port]` without the port (IPv6 literals keep their brackets off).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    host.rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(name, _)| name)
}

/// Where a browser says the request comes from: `Origin`, else the origin of `Referer`.
fn claimed_origin(headers: &HeaderMap) -> Option<String> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        return Some(origin.to_str().unwrap_or("null").to_string());
    }
    let referer = headers.get(header::REFERER)?.to_str().ok()?;
    Some(origin_of(referer).unwrap_or_else(|| "null".into()))
}

/// Refuses requests for hosts this server does not serve (421) and unsafe requests from
/// other sites' pages (403), in the error envelope.
pub async fn guard(policy: Arc<OriginPolicy>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_string()));
    if let Some(host) = host.as_deref().filter(|h| !policy.serves_host(h)) {
        return AppError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "unknown_host",
            format!(
                "this server does not answer for host '{}' (add it to http.allowed_hosts)",
                host_name(host).chars().take(100).collect::<String>()
            ),
        )
        .into_response();
    }
    let unsafe_method = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    if unsafe_method
        && let Some(origin) = claimed_origin(request.headers())
        && !policy.allows_origin(&origin, host.as_deref())
    {
        return AppError::new(
            StatusCode::FORBIDDEN,
            "cross_origin_refused",
            format!(
                "requests from the page at '{}' are refused (add its origin to http.cors.allowed_origins)",
                origin.chars().take(100).collect::<String>()
            ),
        )
        .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(hosts: &[&str], origins: &[&str]) -> Arc<OriginPolicy> {
        OriginPolicy::new(&HttpConfig {
            allowed_hosts: hosts.iter().map(|s| s.to_string()).collect(),
            cors: antler_app::config::CorsConfig {
                allowed_origins: origins.iter().map(|s| s.to_string()).collect(),
            },
            ..HttpConfig::default()
        })
    }

    #[test]
    fn addresses_localhost_and_configured_names_are_served() {
        let p = policy(&["antler.example.com"], &[]);
        for host in [
            "127.0.0.1:8000",
            "10.1.2.3",
            "[::1]:8000",
            "localhost:3000",
            "app.localhost",
            "ANTLER.example.com:443",
        ] {
            assert!(p.serves_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "antler.example.com.evil.example:8000",
            "localhost.evil",
        ] {
            assert!(!p.serves_host(host), "{host}");
        }
        assert!(policy(&["*"], &[]).serves_host("anything.example"));
    }

    #[test]
    fn only_the_servers_own_and_configured_origins_may_send_unsafe_requests() {
        let p = policy(&[], &["https://ui.example.com/"]);
        let host = Some("127.0.0.1:8000");
        assert!(p.allows_origin("http://127.0.0.1:8000", host));
        assert!(p.allows_origin("https://ui.example.com", host));
        assert!(p.allows_origin("http://localhost", Some("localhost:80")));
        assert!(p.allows_origin("https://[::1]", Some("[::1]:443")));
        assert!(!p.allows_origin("http://localhost", Some("localhost:443")));
        for origin in [
            "http://127.0.0.1:9000",
            "http://evil.example",
            "null",
            "https://ui.example.com.evil",
        ] {
            assert!(!p.allows_origin(origin, host), "{origin}");
        }
        assert!(!p.allows_origin("http://127.0.0.1:8000", None));
    }
}
