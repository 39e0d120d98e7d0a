//! `web_search` providers, each answering in its own documented shape, normalised to
//! [`SearchHit`]s. A provider's failures become errors the model can read; the latest one is
//! kept for the admin's health view.

use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::Value;

use super::config::{SearchConfig, SearchProvider};

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// The page.
    pub url: String,
    /// What the provider quotes of it.
    pub snippet: String,
    /// When it was published, as the provider says it.
    pub published: Option<String>,
}

/// How recent results must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TimeRange {
    /// The last day.
    Day,
    /// The last week.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

impl TimeRange {
    fn word(self) -> &'static str {
        match self {
            TimeRange::Day => "day",
            TimeRange::Week => "week",
            TimeRange::Month => "month",
            TimeRange::Year => "year",
        }
    }

    fn letter(self) -> &'static str {
        &self.word()[..1]
    }
}

/// Searches with the configured provider.
pub struct Searcher {
    cfg: SearchConfig,
    key: Option<String>,
    client: reqwest::Client,
    last_error: Mutex<Option<(SystemTime, String)>>,
}

/// How long a provider failure stays on the health view.
const WARN_FOR: Duration = Duration::from_secs(15 * 60);

impl Searcher {
    /// A searcher for `cfg`, its key read from `key` (the provider's variable's value).
    pub fn new(cfg: SearchConfig, key: Option<String>) -> Result<Searcher, String> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(cfg.timeout_secs.max(1)))
            .user_agent(concat!(
                "Antler/",
                env!("CARGO_PKG_VERSION"),
                " (web_search)"
            ))
            .build()
            .map_err(|e| format!("the search client could not be set up: {e}"))?;
        Ok(Searcher {
            key: key.filter(|k| !k.trim().is_empty()),
            cfg,
            client,
            last_error: Mutex::new(None),
        })
    }

    /// Its settings.
    pub fn config(&self) -> &SearchConfig {
        &self.cfg
    }

    /// What an admin should fix before searches can work, if anything.
    pub fn setup_problem(&self) -> Option<String> {
        let p = self.cfg.provider;
        if let Some(var) = p.key_variable()
            && self.key.is_none()
        {
            return Some(format!(
                "web search: web.search.provider is {} but {var} is not set; web_search fails until it is",
                p.as_str()
            ));
        }
        if p == SearchProvider::Searxng && self.base().is_none() {
            return Some(
                "web search: web.search.provider is searxng but web.search.base_url is not set"
                    .into(),
            );
        }
        None
    }

    /// The setup problem, or the latest failure of the last 15 minutes.
    pub fn warning(&self) -> Option<String> {
        self.setup_problem().or_else(|| {
            let last = self.last_error.lock().unwrap_or_else(|p| p.into_inner());
            last.as_ref()
                .filter(|(at, _)| at.elapsed().unwrap_or_default() < WARN_FOR)
                .map(|(at, e)| {
                    format!(
                        "web search ({}) failed at {}: {e}",
                        self.cfg.provider.as_str(),
                        httpdate::fmt_http_date(*at)
                    )
                })
        })
    }

    fn base(&self) -> Option<&str> {
        self.cfg
            .base_url
            .as_deref()
            .map(|b| b.trim().trim_end_matches('/'))
            .filter(|b| !b.is_empty())
    }

    /// Searches; `Err` is for the model.
    pub async fn search(
        &self,
        query: &str,
        max: usize,
        range: Option<TimeRange>,
    ) -> Result<Vec<SearchHit>, String> {
        if let Some(problem) = self.setup_problem() {
            return Err(format!(
                "web search is not available: {}. Tell the person; an admin must fix the configuration.",
                problem.trim_start_matches("web search: ")
            ));
        }
        let result = self.ask(query, max, range).await;
        if let Err(e) = &result {
            tracing::warn!(provider = self.cfg.provider.as_str(), error = %e, "web search failed");
            *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) =
                Some((SystemTime::now(), e.clone()));
        }
        result.map(|mut hits| {
            hits.retain(|h| h.url.starts_with("http://") || h.url.starts_with("https://"));
            hits.truncate(max);
            hits
        })
    }

    async fn ask(
        &self,
        query: &str,
        max: usize,
        range: Option<TimeRange>,
    ) -> Result<Vec<SearchHit>, String> {
        let key = self.key.as_deref().unwrap_or_default();
        let request = match self.cfg.provider {
            SearchProvider::None => return Err("no search provider is configured".into()),
            SearchProvider::Searxng => {
                let mut q = vec![("q", query.to_string()), ("format", "json".into())];
                if let Some(r) = range {
                    q.push(("time_range", r.word().into()));
                }
                self.client
                    .get(format!("{}/search", self.base().unwrap_or_default()))
                    .query(&q)
            }
            SearchProvider::Tavily => {
                let mut body = serde_json::json!({
                    "query": query, "max_results": max, "search_depth": "basic",
                });
                if let Some(r) = range {
                    body["time_range"] = r.word().into();
                }
                self.client
                    .post(format!(
                        "{}/search",
                        self.base().unwrap_or("https://api.tavily.com")
                    ))
                    .bearer_auth(key)
                    .json(&body)
            }
            SearchProvider::Brave => {
                let mut q = vec![("q", query.to_string()), ("count", max.min(20).to_string())];
                if let Some(r) = range {
                    q.push(("freshness", format!("p{}", r.letter())));
                }
                self.client
                    .get(format!(
                        "{}/res/v1/web/search",
                        self.base().unwrap_or("https://api.search.brave.com")
                    ))
                    .header("X-Subscription-Token", key)
                    .header("Accept", "application/json")
                    .query(&q)
            }
            SearchProvider::Duckduckgo => {
                let mut form = vec![("q", query.to_string())];
                if let Some(r) = range {
                    form.push(("df", r.letter().into()));
                }
                self.client
                    .post(format!(
                        "{}/html/",
                        self.base().unwrap_or("https://html.duckduckgo.com")
                    ))
                    .form(&form)
            }
        };
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                format!(
                    "the search provider did not answer within {}s",
                    self.cfg.timeout_secs
                )
            } else {
                "the search provider could not be reached".to_string()
            }
        })?;
        let status = response.status();
        if !status.is_success() {
            return Err(refusal(self.cfg.provider, status));
        }
        let text = response
            .text()
            .await
            .map_err(|_| "the search provider's answer could not be read".to_string())?;
        match self.cfg.provider {
            SearchProvider::Duckduckgo => Ok(duckduckgo(&text)),
            provider => serde_json::from_str::<Value>(&text)
                .map_err(|_| "the search provider's answer is not JSON".to_string())
                .map(|v| from_json(provider, &v)),
        }
    }
}

fn refusal(provider: SearchProvider, status: StatusCode) -> String {
    let code = status.as_u16();
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => format!(
            "the search provider refused the request (HTTP {code}): {}",
            provider
                .key_variable()
                .map_or("it does not allow this server".to_string(), |v| format!(
                    "check {v}"
                ))
        ),
        StatusCode::TOO_MANY_REQUESTS => format!(
            "the search provider's rate limit was reached (HTTP {code}); wait a minute before searching again"
        ),
        _ => format!("the search provider failed (HTTP {code})"),
    }
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Results of the JSON providers, each in its documented shape.
fn from_json(provider: SearchProvider, v: &Value) -> Vec<SearchHit> {
    let (list, snippet, published): (&Value, &str, &[&str]) = match provider {
        SearchProvider::Searxng => (&v["results"], "content", &["publishedDate"]),
        SearchProvider::Tavily => (&v["results"], "content", &["published_date"]),
        SearchProvider::Brave => (&v["web"]["results"], "description", &["page_age", "age"]),
        _ => return Vec::new(),
    };
    list.as_array()
        .into_iter()
        .flatten()
        .map(|r| SearchHit {
            title: text_of(r, "title"),
            url: text_of(r, "url"),
            snippet: strip_tags(&text_of(r, snippet)),
            published: published
                .iter()
                .map(|k| text_of(r, k))
                .find(|p| !p.is_empty()),
        })
        .filter(|h| !h.url.is_empty())
        .collect()
}

/// Results of DuckDuckGo's HTML page (its links go through a redirect holding the target).
fn duckduckgo(html: &str) -> Vec<SearchHit> {
    let doc = dom_query::Document::from(html);
    let mut hits = Vec::new();
    for result in doc.select(".result").iter() {
        if result.has_class("result--ad") {
            continue;
        }
        let link = result.select("a.result__a");
        let href = link.attr("href").map(|h| h.to_string()).unwrap_or_default();
        let url = target_of(&href);
        if url.is_empty() {
            continue;
        }
        hits.push(SearchHit {
            title: link.text().split_whitespace().collect::<Vec<_>>().join(" "),
            url,
            snippet: result
                .select(".result__snippet")
                .text()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            published: None,
        });
    }
    hits
}

/// The page a DuckDuckGo result link leads to (`//duckduckgo.com/l/?uddg=<url>`).
fn target_of(href: &str) -> String {
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        href.to_string()
    };
    let Ok(url) = url::Url::parse(&absolute) else {
        return String::new();
    };
    if url.path() == "/l/"
        && let Some((_, target)) = url.query_pairs().find(|(k, _)| k == "uddg")
    {
        return target.into_owned();
    }
    absolute
}

/// Providers mark matches with `<b>` and the like.
fn strip_tags(s: &str) -> String {
    if !s.contains('<') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut inside = false;
    for c in s.chars() {
        match c {
            '<' => inside = true,
            '>' if inside => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_provider_shape_is_normalised() {
        let searx = json!({"query": "q", "results": [
            {"url": "https://a.example/", "title": "A", "content": "about <b>a</b>", "publishedDate": "2026-01-02T00:00:00"},
            {"url": "", "title": "no url"}]});
        let hits = from_json(SearchProvider::Searxng, &searx);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].snippet, "about a");
        assert_eq!(hits[0].published.as_deref(), Some("2026-01-02T00:00:00"));
        let tavily = json!({"query": "q", "results": [
            {"title": "T", "url": "https://t.example/", "content": "tc", "score": 0.9}]});
        assert_eq!(from_json(SearchProvider::Tavily, &tavily)[0].snippet, "tc");
        let brave = json!({"type": "search", "web": {"results": [
            {"title": "B", "url": "https://b.example/", "description": "bd", "age": "2 days ago"}]}});
        let b = &from_json(SearchProvider::Brave, &brave)[0];
        assert_eq!(
            (b.title.as_str(), b.published.as_deref()),
            ("B", Some("2 days ago"))
        );
    }

    #[test]
    fn duckduckgo_links_are_unwrapped_and_ads_skipped() {
        let html = r#"<div class="result results_links result--ad"><a class="result__a" href="https://ad.example/">Ad</a></div>
            <div class="result results_links"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.rust-lang.org%2F&amp;rut=x">Rust  Programming</a></h2>
            <a class="result__snippet">A language <b>empowering</b> everyone.</a></div>"#;
        let hits = duckduckgo(html);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].url, "https://www.rust-lang.org/");
        assert_eq!(hits[0].title, "Rust Programming");
        assert_eq!(hits[0].snippet, "A language empowering everyone.");
    }
}
