//! The web pages one run searched up or read, numbered once for the whole run (its
//! subagents included) so the answer can cite them as `[n]`; and the pages it read, kept
//! while it runs so paging through one does not download it again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use antler_protocol::web::{SourceKind, WebSource};

/// Most sources one run numbers (later ones are read but not numbered).
const MAX_SOURCES: usize = 500;

/// Most bytes of pages kept for paging.
const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;

/// A page read by the run, as the model reads it.
#[derive(Debug, Clone)]
pub struct KeptPage {
    /// Where it came from after redirects.
    pub final_url: String,
    /// Its title.
    pub title: Option<String>,
    /// Its media type.
    pub media_type: String,
    /// Its text.
    pub text: Arc<str>,
    /// Whether the download was cut at the size limit.
    pub truncated: bool,
    /// Where the whole text was written for the agent, when it was.
    pub file: Option<String>,
}

#[derive(Debug, Default)]
struct Inner {
    sources: Vec<WebSource>,
    pages: HashMap<String, KeptPage>,
    kept_bytes: usize,
}

/// One run's sources and read pages.
#[derive(Debug, Default)]
pub struct RunSources(Mutex<Inner>);

impl RunSources {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Numbers `url` (the number it already has when it was seen before) and answers the
    /// source, or `None` past the run's limit. Reading a searched page makes it a `fetch`
    /// source, and a better title replaces the host.
    pub fn note(&self, url: &str, title: &str, kind: SourceKind) -> Option<WebSource> {
        let mut inner = self.inner();
        if let Some(s) = inner.sources.iter_mut().find(|s| s.url == url) {
            if kind == SourceKind::Fetch {
                s.kind = SourceKind::Fetch;
            }
            if !title.trim().is_empty() && s.title == s.domain {
                s.title = clip(title);
            }
            return Some(s.clone());
        }
        if inner.sources.len() >= MAX_SOURCES {
            return None;
        }
        let domain = url::Url::parse(url)
            .ok()
            .and_then(|u| {
                u.host_str()
                    .map(|h| h.trim_start_matches("www.").to_string())
            })
            .unwrap_or_default();
        let source = WebSource {
            index: u32::try_from(inner.sources.len() + 1).unwrap_or(u32::MAX),
            url: url.to_string(),
            title: if title.trim().is_empty() {
                domain.clone()
            } else {
                clip(title)
            },
            domain,
            kind,
        };
        inner.sources.push(source.clone());
        Some(source)
    }

    /// Every source so far, in number order.
    pub fn list(&self) -> Vec<WebSource> {
        self.inner().sources.clone()
    }

    /// How many sources are numbered.
    pub fn len(&self) -> usize {
        self.inner().sources.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sources numbered after the first `count`.
    pub fn since(&self, count: usize) -> Vec<WebSource> {
        self.inner()
            .sources
            .get(count..)
            .unwrap_or_default()
            .to_vec()
    }

    /// A page read earlier in the run.
    pub fn page(&self, url: &str) -> Option<KeptPage> {
        self.inner().pages.get(url).cloned()
    }

    /// Keeps a page read now (while the run's pages fit their budget).
    pub fn keep(&self, url: &str, page: KeptPage) {
        let mut inner = self.inner();
        let size = page.text.len();
        if inner.kept_bytes + size <= MAX_KEPT_BYTES && !inner.pages.contains_key(url) {
            inner.kept_bytes += size;
            inner.pages.insert(url.to_string(), page);
        }
    }
}

fn clip(title: &str) -> String {
    let t = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() <= 200 {
        return t;
    }
    let mut cut: String = t.chars().take(199).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_keeps_its_number_and_is_upgraded_when_read() {
        let s = RunSources::default();
        let a = s
            .note("https://www.a.example/x", "", SourceKind::Search)
            .unwrap();
        assert_eq!(
            (a.index, a.title.as_str(), a.domain.as_str()),
            (1, "a.example", "a.example")
        );
        let b = s
            .note("https://b.example/", "B", SourceKind::Search)
            .unwrap();
        assert_eq!(b.index, 2);
        let again = s
            .note("https://www.a.example/x", "The A page", SourceKind::Fetch)
            .unwrap();
        assert_eq!(again.index, 1);
        assert_eq!(again.kind, SourceKind::Fetch);
        assert_eq!(again.title, "The A page");
        assert_eq!(s.list().len(), 2);
    }
}
