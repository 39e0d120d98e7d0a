//! `search_skills`: ranked search over the enabled skills' names and descriptions, for a
//! catalog too big to list in the prompt. Ranking is BM25 (k1 = 1.2, b = 0.75) over
//! lower-cased words, the name counted twice so a skill named for the request ranks first.

use antler_protocol::skills::Skill;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ToolContext, ToolError, ToolOutput, TypedTool, args};
use crate::bm25::words;

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
/// The words of a skill as searched: its name twice, then its description.
fn document(skill: &Skill) -> Vec<String> {
    let name = words(&skill.name);
    let mut doc = name.clone();
    doc.extend(name);
    doc.extend(words(&skill.description));
    doc
}

/// The skills best matching `query`, best first, with their scores (only those matching
/// at least one word); ties by name.
pub(crate) fn rank<'a>(skills: &[&'a Skill], query: &str, limit: usize) -> Vec<(&'a Skill, f64)> {
    let docs: Vec<Vec<String>> = skills.iter().map(|s| document(s)).collect();
    let mut ranked: Vec<(&Skill, f64)> = crate::bm25::rank(&docs, query, docs.len())
        .into_iter()
        .map(|(i, score)| (skills[i], score))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    ranked.truncate(limit);
    ranked
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
