//! BM25 ranking of short documents (skills, tools, remembered facts) by a query's words:
//! rare words that a document repeats count most, long documents a little less. One
//! implementation for every search, so that they all rank alike.

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

/// Documents' words, indexed for ranking: built once, searched many times (a person's
/// facts are searched at every run start).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// For each word, the documents holding it and how often.
    postings: HashMap<String, Vec<(u32, u32)>>,
    /// Each document's length in words.
    lengths: Vec<u32>,
    /// The average length, at least 1 (an empty collection or documents without words
    /// must not divide by zero).
    average: f64,
}

impl Index {
    /// Indexes `docs`, each given as its words (see [`words`]); a document's position is
    /// the index search results name it by.
    pub fn new<D: AsRef<[String]>>(docs: impl IntoIterator<Item = D>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, doc) in docs.into_iter().enumerate() {
            let doc = doc.as_ref();
            lengths.push(u32::try_from(doc.len()).unwrap_or(u32::MAX));
            let mut counts: HashMap<&str, u32> = HashMap::new();
            for w in doc {
                *counts.entry(w).or_default() += 1;
            }
            let at = u32::try_from(i).unwrap_or(u32::MAX);
            for (w, tf) in counts {
                postings.entry(w.to_string()).or_default().push((at, tf));
            }
        }
        let average = if lengths.is_empty() {
            1.0
        } else {
            lengths.iter().map(|l| f64::from(*l)).sum::<f64>() / lengths.len() as f64
        };
        Index {
            postings,
            lengths,
            average: average.max(1.0),
        }
    }

    /// The documents matching at least one of `query`'s words that `keep` allows (by
    /// position), best first, with their scores; at most `limit`. Ties keep document order.
    pub fn search(
        &self,
        query: &str,
        keep: impl Fn(usize) -> bool,
        limit: usize,
    ) -> Vec<(usize, f64)> {
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let n = self.lengths.len() as f64;
        // Terms are added in one order for every document, so equal documents get equal
        // scores to the last bit and ties fall back to document order.
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let tf = f64::from(tf);
                let len = f64::from(self.lengths[doc as usize]);
                *scores.entry(doc).or_default() +=
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / self.average));
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores
            .into_iter()
            .map(|(doc, score)| (doc as usize, score))
            .filter(|(i, _)| keep(*i))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

/// The indexes of the `docs` best matching `query`, best first, with their scores: only
/// documents matching at least one word, at most `limit`. Ties keep document order. For
/// documents searched once; [`Index`] keeps them for many searches.
pub fn rank(docs: &[Vec<String>], query: &str, limit: usize) -> Vec<(usize, f64)> {
    Index::new(docs).search(query, |_| true, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(texts: &[&str]) -> Vec<Vec<String>> {
        texts.iter().map(|t| words(t)).collect()
    }

    #[test]
    fn words_are_lower_cased_runs_of_letters_and_digits() {
        assert_eq!(words("read_file(Path2)  x"), ["read", "file", "path2", "x"]);
        assert!(words(" _-.").is_empty());
    }

    #[test]
    fn scores_follow_the_bm25_formula() {
        // Two documents of 2 and 4 words (average 3); "tea" is in one of them.
        let docs = docs(&["tea bread", "bread bread sourdough bakes"]);
        let ranked = rank(&docs, "tea", 10);
        let idf = ((2.0 - 1.0 + 0.5) / (1.0 + 0.5) + 1.0_f64).ln();
        let expected = idf * (K1 + 1.0) / (1.0 + K1 * (1.0 - B + B * 2.0 / 3.0));
        assert_eq!(ranked.len(), 1);
        assert_eq!(ranked[0].0, 0);
        assert!((ranked[0].1 - expected).abs() < 1e-12, "{ranked:?}");
    }

    #[test]
    fn rare_and_repeated_words_rank_first_and_ties_keep_order() {
        let docs = docs(&[
            "bread and tea",
            "sourdough bread",
            "bread bread",
            "nothing here",
            "sourdough bread",
        ]);
        let ranked: Vec<usize> = rank(&docs, "Sourdough BREAD sourdough", 10)
            .into_iter()
            .map(|(i, _)| i)
            .collect();
        // The rare word wins, equal documents keep their order, unmatched ones are left out.
        assert_eq!(ranked, [1, 4, 2, 0]);
        assert_eq!(rank(&docs, "sourdough bread", 1).len(), 1);
        assert!(rank(&docs, "", 10).is_empty());
        assert!(rank(&docs, "coffee", 10).is_empty());
        assert!(rank(&[], "bread", 10).is_empty());
    }

    #[test]
    fn search_leaves_out_what_keep_refuses_without_changing_scores() {
        let docs = docs(&["sourdough bread", "bread", "sourdough"]);
        let index = Index::new(&docs);
        let all = index.search("sourdough bread", |_| true, 10);
        let some = index.search("sourdough bread", |i| i != 0, 10);
        assert_eq!(all.len(), 3);
        assert_eq!(some, all[1..]);
    }
}
