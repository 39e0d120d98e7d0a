//! Reading an archive's directory and deciding what would be installed.

use std::io::{Read, Seek};

use antler_protocol::skills::{ArchiveEntry, InstallFinding};

use super::{ArchiveLimits, MAX_FINDINGS, finding};
use crate::validate::{self, Mode, Severity};
use crate::{SKILL_FILE, frontmatter::ParsedSkillFile};

/// A member that will be written, relative to the skill root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEntry {
    /// Index in the archive.
    pub index: usize,
    /// Destination relative to the installed skill directory (`/`-separated, validated).
    pub dest: String,
    /// Directory entry.
    pub is_dir: bool,
    /// Whether the archive marks it executable (scripts keep their `x` bit).
    pub executable: bool,
    /// Declared size.
    pub size: u64,
}

/// Everything learned about an archive without extracting it.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// Every entry, in archive order.
    pub entries: Vec<ArchiveEntry>,
    /// The skill root inside the archive: `""` or `"<dir>/"`.
    pub root: String,
    /// The parsed `SKILL.md`, when present and parseable.
    pub skill: Option<ParsedSkillFile>,
    /// Problems that refuse the archive.
    pub findings: Vec<InstallFinding>,
    /// Problems that do not (dropped entries, unknown frontmatter keys).
    pub warnings: Vec<String>,
    /// What extraction writes.
    pub plan: Vec<PlannedEntry>,
}

impl Inspection {
    /// True when the archive may be installed.
    pub fn is_installable(&self) -> bool {
        self.findings.is_empty()
    }

    /// The frontmatter name, when valid.
    pub fn name(&self) -> Option<&str> {
        self.skill.as_ref()?.frontmatter.name.as_deref()
    }

    /// True when a size limit (rather than content) refused the archive.
    pub fn refused_for_size(&self) -> bool {
        self.findings.iter().any(|f| is_size_rule(&f.rule))
    }

    fn push(&mut self, f: InstallFinding) {
        if self.findings.len() < MAX_FINDINGS {
            self.findings.push(f);
        } else if self.findings.len() == MAX_FINDINGS {
            self.findings.push(finding(
                "too-many-findings",
                "",
                "further problems not listed",
            ));
        }
    }
}

/// Rules whose refusal means "too large" (HTTP 413) rather than "invalid" (400).
pub fn is_size_rule(rule: &str) -> bool {
    matches!(
        rule,
        "too-many-entries" | "archive-too-large" | "file-too-large" | "compression-ratio"
    )
}

/// Why the bytes are not an archive at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a zip archive: {0}")]
pub struct NotAZip(pub String);

const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

/// Inspects a zip archive. Fails only when the bytes are not a readable zip; every other
/// problem becomes a finding.
pub fn inspect<R: Read + Seek>(
    mut reader: R,
    limits: &ArchiveLimits,
) -> Result<Inspection, NotAZip> {
    let declared = super::eocd::declared_entries(&mut reader);
    reader
        .seek(std::io::SeekFrom::Start(0))
        .map_err(|e| NotAZip(e.to_string()))?;
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| NotAZip(e.to_string()))?;
    let mut out = Inspection {
        entries: Vec::new(),
        root: String::new(),
        skill: None,
        findings: Vec::new(),
        warnings: Vec::new(),
        plan: Vec::new(),
    };
    if zip.len() > limits.max_entries {
        out.push(finding(
            "too-many-entries",
            "",
            format!(
                "archive has {} entries; at most {} allowed",
                zip.len(),
                limits.max_entries
            ),
        ));
    }
    if let Some(declared) = declared.filter(|d| *d > zip.len() as u64) {
        out.push(finding(
            "duplicate-entry",
            "",
            format!(
                "the archive lists {declared} entries but only {} distinct paths: a path appears more than once",
                zip.len()
            ),
        ));
    }
    let mut kept: Vec<(usize, String, bool, u32, u64)> = Vec::new();
    let mut declared_total: u64 = 0;
    let mut seen = std::collections::HashSet::new();
    for index in 0..zip.len() {
        let entry = match zip.by_index_raw(index) {
            Ok(e) => e,
            Err(e) => {
                out.push(finding(
                    "unreadable-entry",
                    &format!("#{index}"),
                    e.to_string(),
                ));
                continue;
            }
        };
        let name = entry.name().to_string();
        let size = entry.size();
        let compressed = entry.compressed_size();
        let mode = entry.unix_mode().unwrap_or(0);
        let is_dir = entry.is_dir();
        let encrypted = entry.encrypted();
        drop(entry);
        if out.entries.len() < limits.max_entries {
            out.entries.push(ArchiveEntry {
                path: name.clone(),
                size,
                compressed_size: compressed,
            });
        }
        if let Err(why) = check_name(&name) {
            out.push(finding("unsafe-path", &name, why));
            continue;
        }
        if !seen.insert(name.trim_end_matches('/').to_string()) {
            out.push(finding(
                "duplicate-entry",
                &name,
                "the archive holds this path twice",
            ));
            continue;
        }
        let kind = mode & S_IFMT;
        if kind == S_IFLNK {
            out.push(finding(
                "symlink",
                &name,
                "symbolic links are not allowed in skills",
            ));
            continue;
        }
        if kind != 0 && kind != S_IFREG && kind != S_IFDIR {
            out.push(finding(
                "special-file",
                &name,
                "device files, pipes and sockets are not allowed",
            ));
            continue;
        }
        if encrypted {
            out.push(finding(
                "encrypted",
                &name,
                "encrypted members are not supported",
            ));
            continue;
        }
        if dropped(&name) {
            out.warnings.push(format!(
                "dropped '{name}' (macOS metadata or a top-level dotfile)"
            ));
            continue;
        }
        declared_total = declared_total.saturating_add(size);
        if !is_dir {
            if size > limits.max_file_bytes {
                out.push(finding(
                    "file-too-large",
                    &name,
                    format!("{size} bytes; at most {} per file", limits.max_file_bytes),
                ));
            } else if size > limits.ratio_floor_bytes && size / compressed.max(1) > limits.max_ratio
            {
                out.push(finding(
                    "compression-ratio",
                    &name,
                    format!(
                        "compresses {}:1, a zip bomb's signature (at most {}:1)",
                        size / compressed.max(1),
                        limits.max_ratio
                    ),
                ));
            }
        }
        kept.push((index, name, is_dir, mode, size));
    }
    if declared_total > limits.max_total_bytes {
        out.push(finding(
            "archive-too-large",
            "",
            format!(
                "declares {declared_total} bytes uncompressed; at most {}",
                limits.max_total_bytes
            ),
        ));
    }
    out.root = skill_root(&kept);
    let root = out.root.clone();
    let skill_md_path = format!("{root}{SKILL_FILE}");
    let mut skill_md_index = None;
    for (index, name, is_dir, mode, size) in &kept {
        let Some(rel) = name.strip_prefix(&root) else {
            out.push(finding(
                "outside-root",
                name,
                format!("everything must be inside the skill folder '{root}'"),
            ));
            continue;
        };
        let rel = rel.trim_end_matches('/');
        if rel.is_empty() {
            continue;
        }
        if *name == skill_md_path {
            skill_md_index = Some(*index);
        } else if !is_dir
            && rel.rsplit('/').next() == Some(SKILL_FILE)
            && !(rel.starts_with("evals/") || rel.starts_with("tests/"))
        {
            out.push(finding(
                "nested-skill",
                name,
                "a SKILL.md outside the skill root (only evals/ and tests/ may hold one)",
            ));
            continue;
        }
        if !is_dir && let Some(kind) = native_executable(&mut zip, *index) {
            out.push(finding(
                "native-executable",
                name,
                format!("{kind} executables are not allowed in skills; ship scripts instead"),
            ));
            continue;
        }
        out.plan.push(PlannedEntry {
            index: *index,
            dest: rel.to_string(),
            is_dir: *is_dir,
            executable: mode & 0o111 != 0,
            size: *size,
        });
    }
    match skill_md_index {
        None => out.push(finding(
            "missing-skill-md",
            &skill_md_path,
            "the archive has no SKILL.md at its root or in its single top folder",
        )),
        Some(index) => read_skill_md(&mut zip, index, &skill_md_path, limits, &mut out),
    }
    Ok(out)
}

fn read_skill_md<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    index: usize,
    path: &str,
    limits: &ArchiveLimits,
    out: &mut Inspection,
) {
    let mut bytes = Vec::new();
    let read = zip
        .by_index(index)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            f.take(limits.max_skill_md_bytes + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| e.to_string())
        });
    if let Err(e) = read {
        out.push(finding("unreadable-entry", path, e));
        return;
    }
    if bytes.len() as u64 > limits.max_skill_md_bytes {
        out.push(finding(
            "file-too-large",
            path,
            format!("SKILL.md is over {} bytes", limits.max_skill_md_bytes),
        ));
        return;
    }
    let Ok(text) = String::from_utf8(bytes) else {
        out.push(finding("encoding", path, "SKILL.md is not UTF-8"));
        return;
    };
    let top = out.root.trim_end_matches('/').to_string();
    let inspection = validate::inspect(&text, None, Mode::Strict);
    for f in &inspection.findings {
        match f.severity {
            Severity::Error => out.push(finding(f.rule, path, f.message.clone())),
            Severity::Warning => out.warnings.push(f.message.clone()),
        }
    }
    if let Some(parsed) = &inspection.parsed
        && let Some(name) = parsed.frontmatter.name.as_deref()
        && !top.is_empty()
        && top != name
    {
        out.warnings.push(format!(
            "the archive's folder '{top}' differs from the skill name; it installs as '{name}'"
        ));
    }
    out.skill = inspection.parsed;
}

/// Refuses names that could land outside the destination or mean different things on
/// different systems.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty entry name".into());
    }
    if name.starts_with('/') {
        return Err("absolute path".into());
    }
    if name.contains('\\') {
        return Err("backslash in name".into());
    }
    if name.contains(':') {
        return Err("':' in name (drive letter or stream)".into());
    }
    if name.contains('\0') || name.chars().any(char::is_control) {
        return Err("control character in name".into());
    }
    let trimmed = name.strip_suffix('/').unwrap_or(name);
    for component in trimmed.split('/') {
        match component {
            ".." => return Err("'..' in path".into()),
            "." | "" => return Err("empty or '.' path segment".into()),
            c if c.len() > 255 => return Err("path segment longer than 255 bytes".into()),
            _ => {}
        }
    }
    Ok(())
}

/// macOS resource forks and top-level dotfiles are dropped, not refused.
fn dropped(name: &str) -> bool {
    let mut parts = name.split('/');
    let first = parts.next().unwrap_or("");
    if first == "__MACOSX" {
        return true;
    }
    if first.starts_with('.') {
        return true;
    }
    // A dotfile directly inside a single top folder (`skill/.DS_Store`).
    matches!(parts.next(), Some(second) if second.starts_with('.') && !second.is_empty())
        && name.split('/').filter(|s| !s.is_empty()).count() == 2
}

/// The single top folder when every member sits inside it and the archive root holds no
/// `SKILL.md`; otherwise the archive root.
fn skill_root(kept: &[(usize, String, bool, u32, u64)]) -> String {
    if kept.iter().any(|(_, n, ..)| n == SKILL_FILE) {
        return String::new();
    }
    let mut top: Option<&str> = None;
    for (_, name, is_dir, ..) in kept {
        let (first, rest) = name.split_once('/').unwrap_or((name.as_str(), ""));
        if rest.is_empty() && !is_dir {
            return String::new();
        }
        match top {
            None => top = Some(first),
            Some(t) if t == first => {}
            Some(_) => return String::new(),
        }
    }
    top.map(|t| format!("{t}/")).unwrap_or_default()
}

/// Recognises ELF, PE and Mach-O by their first bytes.
fn native_executable<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    index: usize,
) -> Option<&'static str> {
    let mut head = Vec::with_capacity(4096);
    zip.by_index(index)
        .ok()?
        .take(4096)
        .read_to_end(&mut head)
        .ok()?;
    sniff_executable(&head)
}

pub(crate) fn sniff_executable(head: &[u8]) -> Option<&'static str> {
    match head {
        [0x7f, b'E', b'L', b'F', ..] => Some("ELF"),
        [0xfe, 0xed, 0xfa, 0xce | 0xcf, ..] | [0xce | 0xcf, 0xfa, 0xed, 0xfe, ..] => Some("Mach-O"),
        // Universal Mach-O; Java class files share the magic but carry a version >= 45 where
        // a fat header carries a small architecture count.
        [0xca, 0xfe, 0xba, 0xbe, a, b, c, d, ..] if u32::from_be_bytes([*a, *b, *c, *d]) < 20 => {
            Some("Mach-O")
        }
        [b'M', b'Z', ..] if head.len() >= 0x40 => {
            let offset =
                u32::from_le_bytes([head[0x3c], head[0x3d], head[0x3e], head[0x3f]]) as usize;
            let pe = head.get(offset..offset + 4);
            (pe == Some(b"PE\0\0")).then_some("PE")
        }
        _ => None,
    }
}
