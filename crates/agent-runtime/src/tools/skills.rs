//! `search_skills`: ranked search over the enabled skills' names and descriptions, for a
//! catalog too big to list in the prompt. Ranking is BM25 (k1 = 1.2, b = 0.75) over
//! lower-cased words, the name counted twice so a skill named for the request ranks first.

use std::collections::HashMap;

use antler_protocol::skills::Skill;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ToolContext, ToolError, ToolOutput, TypedTool, args};

/// Finds skills that are not listed in the prompt.
pub(crate) struct SearchSkills;

/// `search_skills` arguments.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct SearchSkillsArgs {
    /// Words describing the task (for example "merge pdf files").
    query: String,
    /// Most results (default 8, at most 25).
    #[serde(default, deserialize_with = "args::opt_u64")]
    #[schemars(with = "Option<u64>")]
    limit: Option<u64>,
}

const DEFAULT_LIMIT: usize = 8;
const MAX_LIMIT: usize = 25;
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lower-cased runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words of a skill as searched: its name twice, then its description.
fn document(skill: &Skill) -> Vec<String> {
    let name = words(&skill.name);
    let mut doc = name.clone();
    doc.extend(name);
    doc.extend(words(&skill.description));
    doc
}

/// The skills best matching `query`, best first, with their scores (only those matching
/// at least one word).
pub(crate) fn rank<'a>(skills: &[&'a Skill], query: &str, limit: usize) -> Vec<(&'a Skill, f64)> {
    let terms: Vec<String> = {
        let mut t = words(query);
        t.sort();
        t.dedup();
        t
    };
    if terms.is_empty() || skills.is_empty() {
        return Vec::new();
    }
    let docs: Vec<Vec<String>> = skills.iter().map(|s| document(s)).collect();
    let n = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let mut containing: HashMap<&str, usize> = HashMap::new();
    for doc in &docs {
        let mut seen: Vec<&str> = doc.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            if terms.iter().any(|t| t == w) {
                *containing.entry(w).or_default() += 1;
            }
        }
    }
    let mut scored: Vec<(&Skill, f64)> = skills
        .iter()
        .zip(&docs)
        .filter_map(|(skill, doc)| {
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
            (score > 0.0).then_some((*skill, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    scored.truncate(limit);
    scored
}

#[async_trait]
impl TypedTool for SearchSkills {
    type Args = SearchSkillsArgs;
    const NAME: &'static str = "search_skills";
    const DESCRIPTION: &'static str = "Search the enabled skills that the system prompt does not list, by words describing \
         the task. Returns the best matches with their descriptions and the location of their \
         SKILL.md, which you then read with read_file.";

    async fn run(
        &self,
        a: SearchSkillsArgs,
        ctx: &ToolContext<'_>,
    ) -> Result<ToolOutput, ToolError> {
        let limit = a
            .limit
            .map_or(DEFAULT_LIMIT, |l| usize::try_from(l).unwrap_or(MAX_LIMIT))
            .clamp(1, MAX_LIMIT);
        if words(&a.query).is_empty() {
            return Err(ToolError::Model("query has no words to search for".into()));
        }
        let skills: Vec<&Skill> = ctx.skills.prompt_skills().collect();
        let found = rank(&skills, &a.query, limit);
        if found.is_empty() {
            return Ok(ToolOutput::text(format!(
                "no enabled skill matches '{}'; try other words",
                a.query
            )));
        }
        let text = found
            .iter()
            .map(|(s, _)| format!("{}: {}\n  location: {}", s.name, s.description, s.location))
            .collect::<Vec<_>>()
            .join("\n");
        Ok(ToolOutput::text(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use antler_protocol::skills::SkillCategory;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            license: None,
            compatibility: None,
            metadata: Default::default(),
            allowed_tools: Vec::new(),
            category: SkillCategory::Public,
            relative_path: name.into(),
            enabled: true,
            editable: false,
            shadowed: false,
            location: format!("/mnt/skills/public/{name}/SKILL.md"),
            warnings: Vec::new(),
            warning_details: Vec::new(),
            disable_model_invocation: false,
            user_invocable: true,
            argument_hint: None,
        }
    }

    #[test]
    fn ranks_rare_words_and_names_above_common_ones() {
        let skills = [
            skill("pdf-merge", "Merge PDF files into one document."),
            skill("docx", "Edit Word documents and files."),
            skill("files-report", "Report on the files in a folder."),
            skill("zebra", "Care for zebras."),
        ];
        let refs: Vec<&Skill> = skills.iter().collect();
        let found = rank(&refs, "merge these PDF files", 3);
        assert_eq!(found[0].0.name, "pdf-merge");
        assert!(found.len() <= 3);
        let found = rank(&refs, "FILES", 10);
        assert_eq!(found[0].0.name, "files-report", "the name counts more");
        assert!(rank(&refs, "nothing like it", 5).is_empty());
        assert!(rank(&refs, "  !!  ", 5).is_empty());
    }
}
