//! Skills: `SKILL.md` parsing and validation (Agent Skills specification), discovery under
//! `<skills dir>/{public,custom}`, the cached catalog merged with enabled state, the file
//! watcher that keeps it fresh, and the system-prompt section rendered from it.

pub mod archive;
pub mod catalog;
pub mod discovery;
pub mod files;
pub mod frontmatter;
pub mod import;
pub mod install;
pub mod name;
pub mod prompt;
pub mod validate;
pub mod watch;

pub use catalog::{Catalog, FindError, Snapshot};
pub use discovery::{LoadedSkill, Scan, ScanLimits};
pub use frontmatter::{Frontmatter, ParsedSkillFile};
pub use validate::{Finding, Mode, Severity};

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";
