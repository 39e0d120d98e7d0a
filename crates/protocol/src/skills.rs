//! Skill listing, details and state changes (`/api/skills`).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

crate::wire_enum::wire_enum! {
    /// Where a skill comes from. Enabled state is keyed by (category, name); for `user`,
    /// also by the owner.
    pub enum SkillCategory {
        /// Built in, shipped with the server, read-only.
        Public = "public",
        /// Installed by an admin for everyone; editable and deletable.
        Custom = "custom",
        /// A personal skill: installed by one person, offered only to their runs and
        /// mounted only in their sandboxes.
        User = "user",
    }
}

impl SkillCategory {
    /// The categories everyone shares (the server's skills directory).
    pub const SHARED: [SkillCategory; 2] = [SkillCategory::Public, SkillCategory::Custom];
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
    #[schema(value_type = BTreeMap<String, String>)]
    pub metadata: SkillMetadata,
    /// The frontmatter `allowed-tools`, split into names.
    pub allowed_tools: Vec<String>,
    /// `public`, `custom` or `user` (the caller's personal skill).
    pub category: SkillCategory,
    /// Directory of the skill relative to its category root, `/`-separated (`parent/child`).
    #[schema(example = "skill-creator")]
    pub relative_path: String,
    /// Whether the agent may use it.
    pub enabled: bool,
    /// Whether its files may be replaced or deleted (custom and personal skills).
    pub editable: bool,
    /// True for a skill hidden from the agent by an enabled skill of the same name in a later
    /// category (personal over custom over public).
    pub shadowed: bool,
    /// Where the agent finds it inside the sandbox.
    #[schema(example = "/mnt/skills/public/skill-creator/SKILL.md")]
    pub location: String,
    /// Problems that did not stop the skill from loading.
    pub warnings: Vec<String>,
    /// Left out of the agent's catalog (`disable-model-invocation: true`): only a slash
    /// command activates it.
    #[serde(default)]
    pub disable_model_invocation: bool,
    /// Offered as a slash command, `/name arguments` (`user-invocable`, default true).
    #[serde(default = "yes")]
    pub user_invocable: bool,
    /// What to type after the slash command (`argument-hint`).
    #[serde(default)]
    pub argument_hint: Option<String>,
    /// The same problems with a machine-readable code each (`name-format`,
    /// `name-dir-mismatch`, `unknown-key`, `metadata-value-not-string`, `field-not-string`…).
    pub warning_details: Vec<SkillWarning>,
}

/// A skill's `metadata`: text keys to text values, sorted by key, kept as one compact list (a
/// catalog holds thousands; a tree map spends a node of room for eleven entries on each).
/// Serialised as a JSON object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillMetadata(Arc<[(Box<str>, Box<str>)]>);

impl SkillMetadata {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .binary_search_by(|(k, _)| (**k).cmp(key))
            .ok()
            .map(|i| &*self.0[i].1)
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True without entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<BTreeMap<String, String>> for SkillMetadata {
    fn from(map: BTreeMap<String, String>) -> Self {
        SkillMetadata(
            map.into_iter()
                .map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str()))
                .collect(),
        )
    }
}

impl Serialize for SkillMetadata {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for SkillMetadata {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, String>::deserialize(deserializer).map(SkillMetadata::from)
    }
}

/// A deviation from the Agent Skills specification that did not stop a skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SkillWarning {
    /// The kind of deviation.
    #[schema(example = "name-format")]
    pub code: String,
    /// What was found and what was done with it.
    pub message: String,
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
    // Shared between catalog versions: a toggle copies one entry, not the catalog.
    #[schema(value_type = Vec<Skill>)]
    pub skills: Vec<std::sync::Arc<Skill>>,
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
    /// Which skill when the name exists in more than one category.
    #[serde(default)]
    pub category: Option<SkillCategory>,
}

/// One problem that refuses an archive (or, in a preview, would refuse it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct InstallFinding {
    /// Stable rule id such as `unsafe-path`, `symlink`, `native-executable`, `name-format`.
    #[schema(example = "unsafe-path")]
    pub rule: String,
    /// The archive entry (or `SKILL.md`) concerned; empty for the archive as a whole.
    #[schema(example = "../evil.sh")]
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
}

/// A member of a `.skill` archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ArchiveEntry {
    /// Path inside the archive.
    #[schema(example = "my-skill/SKILL.md")]
    pub path: String,
    /// Declared uncompressed size in bytes.
    pub size: u64,
    /// Compressed size in bytes.
    pub compressed_size: u64,
}

/// What an archive's `SKILL.md` says and whether the archive would install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArchiveSkill {
    /// Frontmatter `name`, when readable.
    pub name: Option<String>,
    /// Frontmatter `description`, when readable.
    pub description: Option<String>,
    /// Frontmatter `license`.
    pub license: Option<String>,
    /// Frontmatter `compatibility`.
    pub compatibility: Option<String>,
    /// Frontmatter `metadata`.
    pub metadata: BTreeMap<String, String>,
    /// Frontmatter `allowed-tools`.
    pub allowed_tools: Vec<String>,
    /// The skill root inside the archive (`""` or `name/`).
    pub root: String,
    /// True when installing would succeed (no findings).
    pub valid: bool,
    /// Every problem that would refuse the install.
    pub findings: Vec<InstallFinding>,
    /// Problems that would not refuse it (dropped entries, unknown keys).
    pub warnings: Vec<String>,
}

/// The member list of a `.skill` archive plus its validation result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ArchivePreview {
    /// Every entry, in archive order.
    pub entries: Vec<ArchiveEntry>,
    /// The parsed skill and the validation result.
    pub skill: ArchiveSkill,
}

/// `POST /api/skills/install` body: install a `.skill` file from a thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallFromThread {
    /// The thread holding the archive.
    #[schema(pattern = "^[A-Za-z0-9_-]+$", min_length = 1, max_length = 64)]
    pub thread_id: String,
    /// Virtual path of the archive, e.g. `/mnt/user-data/outputs/my-skill.skill`.
    #[schema(
        example = "/mnt/user-data/outputs/my-skill.skill",
        pattern = "^/mnt/user-data/[^/]"
    )]
    pub path: String,
    /// Replace an installed custom skill of the same name (the old one is kept in history).
    #[serde(default)]
    pub overwrite: bool,
    /// Enable the skill after installing (default true).
    #[serde(default = "yes")]
    pub enable: bool,
    /// Where to install: `custom` (shared with everyone; admins only) or `user` (a personal
    /// skill of the caller). Defaults to `custom` for admins and `user` for everyone else.
    #[serde(default)]
    pub category: Option<SkillCategory>,
}

fn yes() -> bool {
    true
}

/// The answer to a successful install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct InstallResult {
    /// The installed skill as listed.
    pub skill: Skill,
    /// Whether an existing custom skill was replaced.
    pub replaced: bool,
    /// Non-fatal problems (dropped entries, unknown frontmatter keys).
    pub warnings: Vec<String>,
}

/// Where an imported skill came from: recorded in the skill's history at import, read by
/// `antler skill update` to fetch a newer commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SkillOrigin {
    /// The repository URL without credentials (or a local directory).
    pub url: String,
    /// The branch, tag or commit asked for; the default branch when absent.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The commit installed; absent for a plain directory.
    #[serde(default)]
    pub commit: Option<String>,
    /// The skill's folder inside the repository (`""` at its root).
    pub path: String,
    /// When it was imported (RFC 3339).
    pub imported_at: String,
}

/// `POST /api/skills/import` body. Without `skills` or `all` nothing is installed: the
/// answer previews what the repository holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The repository: `https://`, `http://`, `ssh://`, `git://`, `file://` or
    /// `user@host:path`.
    #[schema(
        example = "https://github.com/example/skills.git",
        min_length = 1,
        max_length = 2048
    )]
    pub url: String,
    /// Branch, tag or commit (full or abbreviated); the default branch when absent.
    #[serde(rename = "ref", default)]
    #[schema(pattern = "^[A-Za-z0-9._/+@-]+$", max_length = 255)]
    pub git_ref: Option<String>,
    /// Skills to install, by name or by folder path in the repository.
    #[serde(default)]
    pub skills: Vec<String>,
    /// Install every installable skill found.
    #[serde(default)]
    pub all: bool,
    /// Also search dot-folders such as `.curated/`.
    #[serde(default)]
    pub include_hidden: bool,
    /// Replace installed custom skills of the same names (old versions go to history).
    #[serde(default)]
    pub overwrite: bool,
    /// Enable the installed skills (default true).
    #[serde(default = "yes")]
    pub enable: bool,
}

/// A skill found in an imported repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ImportCandidate {
    /// Frontmatter `name` (the folder's name when it has none).
    pub name: String,
    /// Its folder in the repository (`""` at the root).
    pub path: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// True when it would install (no findings).
    pub installable: bool,
    /// Every problem that refuses it (symlinks, oversized files, invalid `SKILL.md`).
    pub findings: Vec<InstallFinding>,
    /// Problems that would not refuse it.
    pub warnings: Vec<String>,
    /// A custom skill of this name is installed already (installing needs `overwrite`).
    pub exists: bool,
    /// Chosen by the request (`skills` or `all`).
    pub selected: bool,
}

/// What an import found and, unless it was a preview, installed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ImportResult {
    /// The repository URL without credentials.
    pub url: String,
    /// The ref asked for.
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The commit looked at (pass it as `ref` to install exactly what was previewed).
    pub commit: Option<String>,
    /// Every skill found, ordered by path.
    pub skills: Vec<ImportCandidate>,
    /// Dot-folders not searched (set `include_hidden` to search them).
    pub hidden_skipped: Vec<String>,
    /// True when a search bound stopped early (some skills may be missing).
    pub truncated: bool,
    /// What was installed, in order (empty for a preview).
    pub installed: Vec<InstallResult>,
}
