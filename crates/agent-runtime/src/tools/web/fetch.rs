//! Downloading a URL for `web_fetch`: each hop's host is resolved once, every address is
//! checked, and the connection goes to those checked addresses only (no second lookup, so
//! no DNS-rebinding window); redirects are followed by hand and each one checked again.
//! Environment proxies are ignored: a proxy would resolve the name itself.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{
    ACCEPT, ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, LOCATION, USER_AGENT,
};
use url::Url;

use super::config::FetchConfig;
use super::policy::WebPolicy;

/// Turns a host name into addresses (the system resolver, or a test's own).
#[async_trait]
pub trait Lookup: Send + Sync {
    /// Every address of `host`.
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>>;
}

/// The system resolver.
#[derive(Debug, Default)]
pub struct SystemLookup;

#[async_trait]
impl Lookup for SystemLookup {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0))
            .await?
            .map(|a| a.ip())
            .collect())
    }
}

/// Refuses every name it is asked for: a client only reaches the addresses given to it.
struct NoLookup;

impl reqwest::dns::Resolve for NoLookup {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move { Err(format!("{host} was not checked before the connection").into()) })
    }
}

/// A downloaded response.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// Where it came from after redirects.
    pub url: Url,
    /// The media type, lower case, without parameters (empty when the server sent none).
    pub media_type: String,
    /// The `charset` parameter of its content type.
    pub charset: Option<String>,
    /// The body (at most `web.fetch.max_bytes`).
    pub body: Vec<u8>,
    /// Whether the body was cut at the limit.
    pub truncated: bool,
}

/// Fetches URLs under a [`WebPolicy`].
pub struct Fetcher {
    cfg: FetchConfig,
    lookup: Arc<dyn Lookup>,
}

impl Fetcher {
    /// A fetcher resolving names with `lookup`.
    pub fn new(cfg: FetchConfig, lookup: Arc<dyn Lookup>) -> Self {
        Fetcher { cfg, lookup }
    }

    /// The limits it fetches with.
    pub fn config(&self) -> &FetchConfig {
        &self.cfg
    }

    /// Downloads `url`, following at most `web.fetch.max_redirects` redirects, within
    /// `web.fetch.timeout_secs`. `Err` is for the model: what was refused or failed, and why.
    pub async fn fetch(&self, url: &str, policy: &WebPolicy) -> Result<Fetched, String> {
        let limit = Duration::from_secs(self.cfg.timeout_secs.max(1));
        tokio::time::timeout(limit, self.follow(url, policy))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the page did not arrive within {}s (web.fetch.timeout_secs)",
                    limit.as_secs()
                ))
            })
    }

    async fn follow(&self, url: &str, policy: &WebPolicy) -> Result<Fetched, String> {
        let mut url = Url::parse(url.trim()).map_err(|e| format!("not a valid URL: {e}"))?;
        let mut hops = 0u8;
        loop {
            policy.check_url(&url)?;
            let response = self.request(&url, policy).await?;
            let status = response.status();
            if status.is_redirection()
                && let Some(location) = response.headers().get(LOCATION)
            {
                if hops >= self.cfg.max_redirects {
                    return Err(format!(
                        "more than {} redirects (web.fetch.max_redirects); the last one was to {}",
                        self.cfg.max_redirects,
                        String::from_utf8_lossy(location.as_bytes())
                    ));
                }
                let location = location
                    .to_str()
                    .map_err(|_| "a redirect with an unreadable Location header".to_string())?;
                url = url
                    .join(location)
                    .map_err(|e| format!("a redirect to an invalid URL ({location}): {e}"))?;
                hops += 1;
                continue;
            }
            if !status.is_success() {
                let reason = status.canonical_reason().unwrap_or("");
                return Err(format!("{url} answered HTTP {} {reason}", status.as_u16()));
            }
            return self.read(url, response).await;
        }
    }

    /// One request to the checked addresses of `url`'s host.
    async fn request(&self, url: &Url, policy: &WebPolicy) -> Result<reqwest::Response, String> {
        let host = url.host_str().unwrap_or_default().to_string();
        let port = url.port_or_known_default().unwrap_or(80);
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(self.cfg.connect_timeout_secs.max(1)))
            .dns_resolver(Arc::new(NoLookup));
        if bare.parse::<IpAddr>().is_err() {
            let found = self
                .lookup
                .lookup(bare)
                .await
                .map_err(|e| format!("{bare} could not be resolved: {e}"))?;
            let addrs = policy.check_addrs(bare, &found)?;
            let pinned: Vec<SocketAddr> =
                addrs.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
            builder = builder.resolve_to_addrs(bare, &pinned);
        }
        let client = builder
            .build()
            .map_err(|e| format!("the HTTP client could not be set up: {e}"))?;
        client
            .get(url.clone())
            .header(USER_AGENT, concat!("Antler/", env!("CARGO_PKG_VERSION"), " (web_fetch)"))
            .header(
                ACCEPT,
                "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.9,application/pdf;q=0.8,*/*;q=0.5",
            )
            // gzip only, decoded here under the same size limit (a small body must not
            // unpack into gigabytes).
            .header(ACCEPT_ENCODING, "gzip")
            .send()
            .await
            .map_err(|e| describe(&e, url))
    }

    async fn read(&self, url: Url, mut response: reqwest::Response) -> Result<Fetched, String> {
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let mut parts = content_type.split(';').map(str::trim);
        let media_type = parts.next().unwrap_or_default().to_string();
        let charset = parts
            .filter_map(|p| p.strip_prefix("charset="))
            .map(|c| c.trim_matches('"').to_string())
            .next();
        let encoding = response
            .headers()
            .get(CONTENT_ENCODING)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("identity")
            .trim()
            .to_ascii_lowercase();
        if !matches!(encoding.as_str(), "identity" | "" | "gzip" | "x-gzip") {
            return Err(format!(
                "{url} was sent with content encoding {encoding}, which web_fetch does not read"
            ));
        }
        let max = usize::try_from(self.cfg.max_bytes).unwrap_or(usize::MAX);
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e, &url))? {
            let room = max - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        if encoding.ends_with("gzip") {
            let (unpacked, cut) = gunzip(&body, max, truncated)
                .map_err(|e| format!("{url} sent a gzip body that could not be read ({e})"))?;
            body = unpacked;
            truncated |= cut;
        }
        Ok(Fetched {
            url,
            media_type,
            charset,
            body,
            truncated,
        })
    }
}

/// `data` gunzipped, at most `max` bytes of it (and whether there was more); `partial`
/// data (cut at the download limit) gives what it holds.
fn gunzip(data: &[u8], max: usize, partial: bool) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read as _;
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    let mut decoder = flate2::read::MultiGzDecoder::new(data).take(limit);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match decoder.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) if partial && !out.is_empty() => break,
            Err(e) => return Err(e),
        }
    }
    let cut = out.len() > max;
    out.truncate(max);
    Ok((out, cut))
}

/// What went wrong with a request, without the client's internals.
fn describe(e: &reqwest::Error, url: &Url) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not be reached"
    } else if e.is_decode() || e.is_body() {
        "sent a body that could not be read"
    } else {
        "failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if cause.is_empty() {
        format!("the request to {url} {what}")
    } else {
        format!("the request to {url} {what} ({cause})")
    }
}
