//! Looking inside a `.skill` archive without installing it: its members and the
//! validation result an install would apply.

use std::fs::File;

use antler_protocol::skills::{ArchivePreview, ArchiveSkill};
use antler_skills::archive::Inspection;

use super::{SkillOpError, SkillsService};

impl SkillsService {
    /// What installing the archive in `file` would find; nothing is installed.
    pub async fn preview(&self, file: File) -> Result<ArchivePreview, SkillOpError> {
        let installer = self.installer.clone();
        let inspection = tokio::task::spawn_blocking(move || installer.inspect(&file)).await??;
        Ok(preview(inspection))
    }
}

/// The preview of an inspected archive.
fn preview(inspection: Inspection) -> ArchivePreview {
    let fm = inspection
        .skill
        .as_ref()
        .map(|s| s.frontmatter.clone())
        .unwrap_or_default();
    ArchivePreview {
        skill: ArchiveSkill {
            name: fm.name,
            description: fm.description,
            license: fm.license,
            compatibility: fm.compatibility,
            metadata: fm.metadata,
            allowed_tools: fm.allowed_tools,
            root: inspection.root.clone(),
            valid: inspection.is_installable(),
            findings: inspection.findings,
            warnings: inspection.warnings,
        },
        entries: inspection.entries,
    }
}
