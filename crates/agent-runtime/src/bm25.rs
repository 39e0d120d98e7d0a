//! BM25 ranking of short documents (skills, tools) by a query's words: rare words that a
//! document repeats count most, long documents a little less.

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lower-cased runs of letters and digits (`read_file` is `read`, `file`).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The indexes of the `docs` best matching `query`, best first, with their scores: only
/// documents matching at least one word, at most `limit`. Ties keep document order.
pub fn rank(docs: &[Vec<String>], query: &str, limit: usize) -> Vec<(usize, f64)> {
    let terms: Vec<String> = {
        let mut t = words(query);
        t.sort();
        t.dedup();
        t
    };
    if terms.is_empty() || docs.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let mut containing: HashMap<&str, usize> = HashMap::new();
    for doc in docs {
        let mut seen: Vec<&str> = doc.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            if terms.iter().any(|t| t == w) {
                *containing.entry(w).or_default() += 1;
            }
        }
    }
    let mut scored: Vec<(usize, f64)> = docs
        .iter()
        .enumerate()
        .filter_map(|(i, doc)| {
            let len = doc.len() as f64;
            let score: f64 = terms
                .iter()
                .map(|t| {
                    let tf = doc.iter().filter(|w| *w == t).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = containing.get(t.as_str()).copied().unwrap_or(0) as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / average.max(1.0)))
                })
                .sum();
            (score > 0.0).then_some((i, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(limit);
    scored
}
