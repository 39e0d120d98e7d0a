//! Skill listing, details and state changes (`/api/skills`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a skill comes from. Enabled state is keyed by (category, name).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SkillCategory {
    /// Built in, shipped with the server, read-only.
    Public,
    /// Installed by people or agents; editable and deletable.
    Custom,
}

impl SkillCategory {
    /// Both categories in listing order.
    pub const ALL: [SkillCategory; 2] = [SkillCategory::Public, SkillCategory::Custom];

    /// The lowercase wire and directory name.
    pub fn as_str(self) -> &'static str {
        match self {
            SkillCategory::Public => "public",
            SkillCategory::Custom => "custom",
        }
    }

    /// Parses the lowercase wire name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "public" => Some(SkillCategory::Public),
            "custom" => Some(SkillCategory::Custom),
            _ => None,
        }
    }
}

impl fmt::Display for SkillCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One skill as listed by `GET /api/skills`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Skill {
    /// The frontmatter `name`.
    #[schema(example = "skill-creator")]
    pub name: String,
    /// The frontmatter `description`.
    pub description: String,
    /// The frontmatter `license`, when given.
    pub license: Option<String>,
    /// The frontmatter `compatibility`, when given.
    pub compatibility: Option<String>,
    /// The frontmatter `metadata` map.
    pub metadata: BTreeMap<String, String>,
    /// The frontmatter `allowed-tools`, split into names.
    pub allowed_tools: Vec<String>,
    /// `public` or `custom`.
    pub category: SkillCategory,
    /// Directory of the skill relative to its category root, `/`-separated (`parent/child`).
    #[schema(example = "skill-creator")]
    pub relative_path: String,
    /// Whether the agent may use it.
    pub enabled: bool,
    /// Whether people may change or delete its files (custom skills only).
    pub editable: bool,
    /// True for a public skill hidden from the agent by an enabled custom skill of the same name.
    pub shadowed: bool,
    /// Where the agent finds it inside the sandbox.
    #[schema(example = "/mnt/skills/public/skill-creator/SKILL.md")]
    pub location: String,
    /// Problems that did not stop the skill from loading.
    pub warnings: Vec<String>,
}

/// A `SKILL.md` (or skill directory) that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SkillLoadError {
    /// Path relative to the skills directory, `/`-separated.
    #[schema(example = "custom/broken/SKILL.md")]
    pub path: String,
    /// Why it was skipped.
    pub message: String,
}

/// `GET /api/skills`: every skill sorted by category then name, plus load errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SkillList {
    /// The loaded skills.
    pub skills: Vec<Skill>,
    /// Skills that failed to load.
    pub errors: Vec<SkillLoadError>,
}

/// A file inside a skill directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SkillFile {
    /// Path relative to the skill directory, `/`-separated.
    #[schema(example = "scripts/package_skill.py")]
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// `GET /api/skills/{name}`: the listing entry plus the body and the file list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SkillDetail {
    /// The listing entry.
    #[serde(flatten)]
    pub skill: Skill,
    /// The markdown after the frontmatter.
    pub body: String,
    /// Every regular file in the skill directory.
    pub files: Vec<SkillFile>,
}

/// `PUT /api/skills/{name}` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSkillEnabled {
    /// The new state.
    pub enabled: bool,
    /// Which skill when the name exists in both categories.
    #[serde(default)]
    pub category: Option<SkillCategory>,
}
