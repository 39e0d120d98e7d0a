//! Finding skills on disk: `<skills dir>/{public,custom}/…/SKILL.md`.
//!
//! A directory holding `SKILL.md` is one skill and is not descended further; other directories
//! are namespaces. Hidden entries are skipped, symlinks are followed only when they resolve
//! inside the skills directory, every directory is visited at most once (so cycles end), and
//! both depth and the number of directories are bounded.

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use antler_protocol::paths::SKILLS_ROOT;
use antler_protocol::skills::{Skill, SkillCategory, SkillLoadError};

use rayon::prelude::*;

use crate::SKILL_FILE;
use crate::validate::{
    Mode, Severity, error_summary, inspect_frontmatter, warning_details, warnings,
};

/// Bounds on a scan so a hostile or accidental tree cannot stall the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLimits {
    /// Deepest level (below the category directory) where a skill may sit.
    pub max_depth: usize,
    /// Directories read per category before the scan stops with a warning.
    pub max_dirs: usize,
    /// Largest `SKILL.md` accepted, in bytes.
    pub max_skill_file_bytes: u64,
}

impl Default for ScanLimits {
    fn default() -> Self {
        ScanLimits {
            max_depth: 6,
            max_dirs: 2_000,
            max_skill_file_bytes: 1024 * 1024,
        }
    }
}

/// A skill that loaded, with everything the listing and the prompt need (not its body).
///
/// Its fields as listed are read through [`std::ops::Deref`] (`loaded.name`).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The skill as listed while enabled and not shadowed. A snapshot lists this very value
    /// for every skill in that state, so a catalog holds one copy of each skill's fields and
    /// publishing a fresh scan copies none.
    pub listed: Arc<Skill>,
    /// The skill directory on the host (resolved).
    pub dir: PathBuf,
    /// Unique to this reading of the skill: a skill read again (its files may have changed)
    /// gets a new one, one carried over unchanged keeps it.
    pub load_id: u64,
}

impl std::ops::Deref for LoadedSkill {
    type Target = Skill;

    fn deref(&self) -> &Skill {
        &self.listed
    }
}

/// The next [`LoadedSkill::load_id`] (never 0, which means "unknown").
fn next_load_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl LoadedSkill {
    /// The container path of its `SKILL.md`.
    pub fn location(&self) -> String {
        self.listed.location.clone()
    }
}

/// The container path of the `SKILL.md` of the skill at `<category>/<relative_path>`.
fn location(category: SkillCategory, relative_path: &str) -> String {
    format!("{SKILLS_ROOT}/{category}/{relative_path}/{SKILL_FILE}")
}

/// The result of scanning the skills directory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// Loaded skills, sorted by category then name (shared between scans that keep them).
    pub skills: Vec<std::sync::Arc<LoadedSkill>>,
    /// Skills or directories that were skipped, and why.
    pub errors: Vec<SkillLoadError>,
}

/// Scans `<skills_dir>/public` and `<skills_dir>/custom`. Never fails: problems become
/// entries in [`Scan::errors`].
pub fn scan(skills_dir: &Path, limits: &ScanLimits) -> Scan {
    scan_categories(skills_dir, &SkillCategory::SHARED, limits)
}

/// Scans `<skills_dir>/<category>` for each of `categories` (a person's directory holds
/// only `user/`).
pub fn scan_categories(
    skills_dir: &Path,
    categories: &[SkillCategory],
    limits: &ScanLimits,
) -> Scan {
    let mut out = Scan::default();
    let Ok(root) = skills_dir.canonicalize() else {
        return out;
    };
    for &category in categories {
        let cat_dir = root.join(category.as_str());
        let Ok(cat_dir) = cat_dir.canonicalize() else {
            continue;
        };
        if !cat_dir.starts_with(&root) || !cat_dir.is_dir() {
            out.errors.push(error(
                category.as_str(),
                "category directory resolves outside the skills directory; ignored",
            ));
            continue;
        }
        let mut walk = Walker::new(&root, category, limits).run(cat_dir);
        out.errors.extend(walk.errors);
        let mut names: HashMap<String, String> = HashMap::new();
        // Reading and parsing dominate a large scan: done on every core, merged in order.
        let loaded: Vec<_> = walk
            .candidates
            .into_par_iter()
            .map(|(rel, dir)| {
                let result = load(category, &rel, &dir, limits);
                (rel, dir, result)
            })
            .collect();
        for (rel, dir, result) in loaded {
            let aliases = walk.aliases.remove(&dir).unwrap_or_default();
            match result {
                Ok(mut skill) => {
                    for alias in aliases {
                        // Judged by the path it was found at first; the others are links.
                        let message = format!(
                            "also reached as {category}/{alias} (a symlink or alias); listed once, as {category}/{rel}"
                        );
                        let listed = Arc::make_mut(&mut skill.listed);
                        listed.warnings.push(message.clone());
                        listed
                            .warning_details
                            .push(antler_protocol::skills::SkillWarning {
                                code: "reached-twice".into(),
                                message,
                            });
                    }
                    if let Some(first) = names.get(&skill.name) {
                        out.errors.push(error(
                            &format!("{category}/{rel}/{SKILL_FILE}"),
                            &format!(
                                "duplicate skill name '{}': already loaded from {category}/{first}; this one is ignored",
                                skill.name
                            ),
                        ));
                        continue;
                    }
                    names.insert(skill.name.clone(), rel.clone());
                    out.skills.push(std::sync::Arc::new(skill));
                }
                Err(e) => out.errors.push(e),
            }
        }
    }
    out.skills
        .sort_by(|a, b| (a.category, &a.name).cmp(&(b.category, &b.name)));
    out.errors.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn error(path: &str, message: &str) -> SkillLoadError {
    SkillLoadError {
        path: path.to_string(),
        message: message.to_string(),
    }
}

/// Depth-first walk of one category collecting skill directories.
struct Walker<'a> {
    root: &'a Path,
    category: SkillCategory,
    limits: &'a ScanLimits,
    visited: HashSet<PathBuf>,
    candidates: Vec<(String, PathBuf)>,
    /// Other paths (relative to the category) that reach a skill directory already found,
    /// by its resolved directory: the skill is listed once, with a warning naming them.
    aliases: HashMap<PathBuf, Vec<String>>,
    errors: Vec<SkillLoadError>,
}

impl<'a> Walker<'a> {
    fn new(root: &'a Path, category: SkillCategory, limits: &'a ScanLimits) -> Self {
        Walker {
            root,
            category,
            limits,
            visited: HashSet::new(),
            candidates: Vec::new(),
            aliases: HashMap::new(),
            errors: Vec::new(),
        }
    }

    fn run(mut self, cat_dir: PathBuf) -> Self {
        self.visited.insert(cat_dir.clone());
        // (resolved directory, logical relative path, depth)
        let mut stack = vec![(cat_dir, String::new(), 0usize)];
        let mut dirs_read = 0usize;
        while let Some((dir, rel, depth)) = stack.pop() {
            dirs_read += 1;
            if dirs_read > self.limits.max_dirs {
                let message = format!(
                    "scan stopped after {} directories in {}/; skills beyond that are not loaded",
                    self.limits.max_dirs, self.category
                );
                tracing::warn!(category = %self.category, limit = self.limits.max_dirs, "skill scan limit reached");
                self.errors.push(error(self.category.as_str(), &message));
                break;
            }
            let mut children = self.children(&dir, &rel, depth);
            // Reverse so the stack pops in name order.
            children.reverse();
            stack.extend(children);
        }
        self.candidates.sort();
        self
    }

    /// Reads one directory: records skill directories, returns namespaces to descend.
    fn children(&mut self, dir: &Path, rel: &str, depth: usize) -> Vec<(PathBuf, String, usize)> {
        let Ok(read) = std::fs::read_dir(dir) else {
            self.errors
                .push(error(&self.display(rel), "directory could not be read"));
            return Vec::new();
        };
        let mut entries: Vec<_> = read.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut namespaces = Vec::new();
        for entry in entries {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let target = if file_type.is_symlink() {
                match entry.path().canonicalize() {
                    Ok(t) if !t.starts_with(self.root) => {
                        self.errors.push(error(
                            &self.display(&child_rel),
                            "symlink points outside the skills directory; ignored",
                        ));
                        continue;
                    }
                    Ok(t) if t.is_dir() => t,
                    Ok(_) => continue,
                    Err(_) => {
                        self.errors
                            .push(error(&self.display(&child_rel), "broken symlink; ignored"));
                        continue;
                    }
                }
            } else if file_type.is_dir() {
                dir.join(&name)
            } else {
                continue;
            };
            if !self.visited.insert(target.clone()) {
                if self.candidates.iter().any(|(_, dir)| *dir == target) {
                    self.aliases.entry(target).or_default().push(child_rel);
                } else if file_type.is_symlink() {
                    self.errors.push(error(
                        &self.display(&child_rel),
                        "symlink leads to a directory already scanned (cycle or alias); ignored",
                    ));
                }
                continue;
            }
            let skill_file = target.join(SKILL_FILE);
            if let Ok(meta) = skill_file.symlink_metadata() {
                // `target` is resolved and inside the root: a regular file in it is too, and
                // only a link needs resolving (a `realpath` per skill is most of a scan's
                // system calls).
                let inside = meta.is_file()
                    || (meta.is_symlink()
                        && skill_file
                            .canonicalize()
                            .is_ok_and(|f| f.starts_with(self.root) && f.is_file()));
                if inside {
                    self.candidates.push((child_rel, target));
                } else {
                    self.errors.push(error(
                        &format!("{}/{SKILL_FILE}", self.display(&child_rel)),
                        "SKILL.md is not a regular file inside the skills directory; ignored",
                    ));
                }
            } else if depth + 1 < self.limits.max_depth {
                namespaces.push((target, child_rel, depth + 1));
            }
        }
        namespaces
    }

    fn display(&self, rel: &str) -> String {
        if rel.is_empty() {
            self.category.as_str().to_string()
        } else {
            format!("{}/{rel}", self.category)
        }
    }
}

fn load(
    category: SkillCategory,
    rel: &str,
    dir: &Path,
    limits: &ScanLimits,
) -> Result<LoadedSkill, SkillLoadError> {
    let display = || format!("{category}/{rel}/{SKILL_FILE}");
    let unreadable = || error(&display(), "SKILL.md could not be read");
    let mut file = std::fs::File::open(dir.join(SKILL_FILE)).map_err(|_| unreadable())?;
    let size = file.metadata().map_err(|_| unreadable())?.len();
    if size > limits.max_skill_file_bytes {
        return Err(error(
            &display(),
            &format!(
                "SKILL.md is {size} bytes; at most {} allowed",
                limits.max_skill_file_bytes
            ),
        ));
    }
    // Read into a buffer each scanning thread keeps: a scan of thousands of skills does not
    // leave thousands of freed file-sized holes in the heap.
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        let limit = limits.max_skill_file_bytes;
        std::io::Read::take(&mut file, limit.saturating_add(1))
            .read_to_end(buffer)
            .map_err(|_| unreadable())?;
        if buffer.len() as u64 > limit {
            return Err(error(
                &display(),
                &format!("SKILL.md is larger than {limit} bytes"),
            ));
        }
        let text =
            std::str::from_utf8(buffer).map_err(|_| error(&display(), "SKILL.md is not UTF-8"))?;
        let dir_name = rel.rsplit('/').next();
        let (fm, findings) = inspect_frontmatter(text, dir_name, Mode::Lenient)
            .map_err(|finding| error(&display(), &finding.message))?;
        if findings.iter().any(|f| f.severity == Severity::Error) {
            return Err(error(&display(), &error_summary(&findings)));
        }
        // Large enough buffers are not kept for the next file.
        if buffer.capacity() > 64 * 1024 {
            *buffer = Vec::new();
        }
        Ok(LoadedSkill {
            listed: Arc::new(Skill {
                name: fm.name.unwrap_or_default(),
                description: fm.description.unwrap_or_default(),
                license: fm.license,
                compatibility: fm.compatibility,
                metadata: fm.metadata.into(),
                allowed_tools: fm.allowed_tools,
                category,
                relative_path: rel.to_string(),
                enabled: true,
                editable: category != SkillCategory::Public,
                shadowed: false,
                location: location(category, rel),
                warnings: warnings(&findings),
                warning_details: warning_details(&findings),
                disable_model_invocation: fm.disable_model_invocation,
                user_invocable: fm.user_invocable,
                argument_hint: fm.argument_hint,
            }),
            dir: dir.to_path_buf(),
            load_id: next_load_id(),
        })
    })
}

/// Reads the one skill at `<skills_dir>/<category>/<rel>`: `None` when there is no
/// `SKILL.md` there (it was removed), else the skill or why it does not load. The directory
/// must resolve inside the skills directory, as in a scan.
pub fn load_one(
    skills_dir: &Path,
    category: SkillCategory,
    rel: &str,
    limits: &ScanLimits,
) -> Option<Result<LoadedSkill, SkillLoadError>> {
    let root = skills_dir.canonicalize().ok()?;
    let dir = root.join(category.as_str()).join(rel).canonicalize().ok()?;
    let file = dir.join(SKILL_FILE).canonicalize().ok()?;
    if !dir.starts_with(&root) || !file.starts_with(&root) || !file.is_file() {
        return None;
    }
    Some(load(category, rel, &dir, limits))
}

#[cfg(test)]
pub(crate) mod tests;
