//! Finding the skills in a fetched tree: every directory holding `SKILL.md`, nested as deep
//! as collections nest them, not descending into a skill (its files are its own), skipping
//! `.git` and — unless asked — other dot-folders such as `.curated/`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::SKILL_FILE;
use crate::validate::{Mode, inspect};

/// Bounds on a search, so a huge or hostile repository cannot stall it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FindOptions {
    /// Also look inside dot-folders (`.curated/`, `.experimental/`).
    pub include_hidden: bool,
    /// Deepest directory level searched below the root.
    pub max_depth: usize,
    /// Directories read before the search stops.
    pub max_dirs: usize,
    /// Largest `SKILL.md` read, in bytes.
    pub max_skill_file_bytes: u64,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            include_hidden: false,
            max_depth: 8,
            max_dirs: 20_000,
            max_skill_file_bytes: 1024 * 1024,
        }
    }
}

/// A skill found in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Its directory relative to the root, `/`-separated (`""` when the root is the skill).
    pub path: String,
    /// Its directory on disk.
    pub dir: PathBuf,
    /// Frontmatter `name`, else the directory's name.
    pub name: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
}

/// What a search found, and what it skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    /// The skills, ordered by path.
    pub skills: Vec<Found>,
    /// Hidden folders that were not searched (name them to the person).
    pub hidden_skipped: Vec<String>,
    /// True when a bound stopped the search early.
    pub truncated: bool,
}

/// Searches `root` for skills. `fallback_name` names a skill at the root whose `SKILL.md`
/// has no usable name (the repository's name).
pub fn find(root: &Path, options: &FindOptions, fallback_name: &str) -> Search {
    let mut out = Search::default();
    let mut dirs_read = 0usize;
    let mut stack = vec![(root.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, rel, depth)) = stack.pop() {
        if dirs_read >= options.max_dirs {
            out.truncated = true;
            break;
        }
        dirs_read += 1;
        let skill_file = dir.join(SKILL_FILE);
        if skill_file
            .symlink_metadata()
            .is_ok_and(|m| m.is_file() || m.file_type().is_symlink())
        {
            let dir_name = rel.rsplit('/').next().filter(|n| !n.is_empty());
            out.skills.push(read_found(
                &dir,
                &rel,
                dir_name.unwrap_or(fallback_name),
                options,
            ));
            continue;
        }
        if depth >= options.max_depth {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut children = Vec::new();
        for entry in entries.flatten() {
            // Symlinked folders are not followed: they lead outside the tree or to a skill
            // that is listed under its real path anyway.
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let child_rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if name == ".git" {
                continue;
            }
            if name.starts_with('.') && !options.include_hidden {
                out.hidden_skipped.push(child_rel);
                continue;
            }
            children.push((entry.path(), child_rel, depth + 1));
        }
        children.sort_by(|a, b| b.1.cmp(&a.1));
        stack.extend(children);
    }
    out.skills.sort_by(|a, b| a.path.cmp(&b.path));
    out.hidden_skipped.sort();
    out
}

fn read_found(dir: &Path, rel: &str, dir_name: &str, options: &FindOptions) -> Found {
    let mut text = String::new();
    let path = dir.join(SKILL_FILE);
    // A linked SKILL.md could point anywhere on the server: it is not read (and packing
    // keeps it a link, which the install refuses).
    let regular = path.symlink_metadata().is_ok_and(|m| m.is_file());
    let readable = regular
        && std::fs::File::open(&path)
            .and_then(|f| {
                f.take(options.max_skill_file_bytes)
                    .read_to_string(&mut text)
            })
            .is_ok();
    let parsed = readable
        .then(|| inspect(&text, Some(dir_name), Mode::Reference).parsed)
        .flatten();
    let frontmatter = parsed.map(|p| p.frontmatter);
    Found {
        path: rel.to_string(),
        dir: dir.to_path_buf(),
        name: frontmatter
            .as_ref()
            .and_then(|f| f.name.clone())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| dir_name.to_string()),
        description: frontmatter.and_then(|f| f.description),
    }
}
