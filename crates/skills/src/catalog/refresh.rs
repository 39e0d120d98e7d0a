//! Re-reading what changed on disk: one skill after an install or delete, the skills a
//! watcher's paths belong to, and whether anything changed since a moment (a full rescan
//! only when a change cannot be judged alone).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use antler_protocol::skills::SkillCategory;

use super::{Catalog, Snapshot, lock};
use crate::discovery::{Scan, ScanLimits, scan_categories};

/// More changed skills than this at once are read by a full scan.
const MAX_SINGLE_REFRESHES: usize = 32;

impl Catalog {
    /// Reads the one skill at `<category>/<relative_path>` again (installed, replaced or
    /// deleted) and publishes the result without touching the others (blocking). Falls back
    /// to a full rescan when the change cannot be judged alone (its name collides with
    /// another skill's, or another path reaches the same folder).
    pub fn refresh_skill(&self, category: SkillCategory, relative_path: &str) -> Arc<Snapshot> {
        let _one_scan_at_a_time = lock(&self.scan_lock);
        let current = lock(&self.inner).scan.clone();
        match patched(
            &current,
            &self.skills_dir,
            category,
            relative_path,
            &self.limits,
        ) {
            Some(fresh) => self.update(|inner| inner.scan = Arc::new(fresh)),
            None => {
                let fresh = Arc::new(scan_categories(
                    &self.skills_dir,
                    self.categories,
                    &self.limits,
                ));
                self.update(|inner| inner.scan = fresh)
            }
        }
    }

    /// After files changed under the given paths: the skills they belong to are read again
    /// one by one; a path that belongs to no single skill (a category or namespace folder)
    /// means a full rescan.
    pub fn refresh_paths(&self, paths: &[PathBuf]) -> Arc<Snapshot> {
        let snapshot = self.snapshot();
        let mut skills = std::collections::BTreeSet::new();
        for path in paths {
            match self.skills_of(&snapshot, path) {
                Some(keys) => skills.extend(keys),
                None => return self.rescan(),
            }
        }
        // Each single refresh publishes a version: a burst (a collection copied in) is one
        // full scan instead.
        if skills.len() > MAX_SINGLE_REFRESHES {
            return self.rescan();
        }
        let mut latest = snapshot;
        for (category, rel) in skills {
            latest = self.refresh_skill(category, &rel);
        }
        latest
    }

    /// The skill folders (category, relative path) a changed path touches: the deepest
    /// folder above it that holds a `SKILL.md` or was a skill; for a path that is gone, the
    /// skills that were at or below it (none: nothing to do, as after a delete). `None` when
    /// only a full scan can tell (a folder outside every skill changed).
    fn skills_of(&self, snapshot: &Snapshot, path: &Path) -> Option<Vec<(SkillCategory, String)>> {
        // Watchers report absolute paths; the directory may have been given relative.
        let canonical = self.skills_dir.canonicalize().ok();
        let rel = path
            .strip_prefix(&self.skills_dir)
            .ok()
            .or_else(|| canonical.as_ref().and_then(|c| path.strip_prefix(c).ok()))?;
        let mut parts = rel.components().map(|c| c.as_os_str().to_str());
        let category = parts
            .next()??
            .parse::<SkillCategory>()
            .ok()
            .filter(|c| self.categories.contains(c))?;
        let below: Vec<&str> = parts.collect::<Option<_>>()?;
        let known = |candidate: &str| {
            snapshot
                .list
                .skills
                .iter()
                .any(|s| s.category == category && s.relative_path == candidate)
        };
        for depth in (1..=below.len()).rev() {
            let candidate = below[..depth].join("/");
            let dir = self.skills_dir.join(category.as_str()).join(&candidate);
            if known(&candidate) || dir.join(crate::SKILL_FILE).exists() {
                return Some(vec![(category, candidate)]);
            }
        }
        if below.is_empty() || path.symlink_metadata().is_ok() {
            return None;
        }
        let gone = below.join("/");
        let nested = format!("{gone}/");
        // A load error reported below it goes too: only a full scan clears those.
        let errors_below = format!("{category}/{nested}");
        if snapshot
            .list
            .errors
            .iter()
            .any(|e| e.path.starts_with(&errors_below))
        {
            return None;
        }
        Some(
            snapshot
                .list
                .skills
                .iter()
                .filter(|s| {
                    s.category == category
                        && (s.relative_path == gone || s.relative_path.starts_with(&nested))
                })
                .map(|s| (category, s.relative_path.clone()))
                .collect(),
        )
    }

    /// Whether anything the current snapshot was read from may have changed at or after
    /// `since`: a category, namespace or skill folder, or a `SKILL.md`, modified then or
    /// gone (folders change when entries are added, removed or renamed in them). Costs a
    /// `stat` per skill, no reading: how a watcher that started late finds out whether it
    /// missed something.
    pub fn changed_since(&self, since: std::time::SystemTime) -> bool {
        let newer = |path: &Path| {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .map_or(true, |t| t >= since)
        };
        let Ok(root) = self.skills_dir.canonicalize() else {
            return true;
        };
        let snapshot = self.snapshot();
        // A category folder's time moves with any entry added or removed, hidden ones (an
        // install's staging) included, or when it was made just before the scan: it counts
        // as a change only when the folders in it are not those the scan found there.
        let category_changed = self.categories.iter().any(|c| {
            let dir = root.join(c.as_str());
            dir.exists() && newer(&dir) && !holds_exactly(&dir, &top_folders(&snapshot, *c))
        });
        if category_changed {
            return true;
        }
        let mut seen: HashSet<PathBuf> = HashSet::new();
        for (_, loaded) in snapshot.entries() {
            if newer(&loaded.dir) || newer(&loaded.dir.join(crate::SKILL_FILE)) {
                return true;
            }
            // The namespaces above it, each once (up to its category folder, judged above).
            let mut parent = loaded.dir.parent();
            while let Some(dir) = parent {
                if dir.parent() == Some(root.as_path())
                    || !dir.starts_with(&root)
                    || !seen.insert(dir.to_path_buf())
                {
                    break;
                }
                if newer(dir) {
                    return true;
                }
                parent = dir.parent();
            }
        }
        false
    }
}

/// The first folder of every skill of `category` in `snapshot` (a skill's own, or its
/// namespace's).
fn top_folders(snapshot: &Snapshot, category: SkillCategory) -> HashSet<String> {
    snapshot
        .entries()
        .filter(|(s, _)| s.category == category)
        .filter_map(|(s, _)| s.relative_path.split('/').next().map(str::to_string))
        .collect()
}

/// Whether the visible entries of `dir` are exactly `names` (an unreadable folder is not).
fn holds_exactly(dir: &Path, names: &HashSet<String>) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut count = 0;
    for entry in entries {
        let Ok(entry) = entry else {
            return false;
        };
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            return false;
        };
        if name.starts_with('.') {
            continue;
        }
        if !names.contains(name) {
            return false;
        }
        count += 1;
    }
    count == names.len()
}

/// `current` with the skill at `<category>/<rel>` read again, or `None` when that cannot be
/// judged without a full scan.
fn patched(
    current: &Scan,
    skills_dir: &Path,
    category: SkillCategory,
    rel: &str,
    limits: &ScanLimits,
) -> Option<Scan> {
    let mut fresh = current.clone();
    let mut gone = None;
    fresh.skills.retain(|s| {
        let this = s.category == category && s.relative_path == rel;
        if this {
            gone = Some(s.name.clone());
        }
        !this
    });
    // A skill that lost a name clash to this one may load now: only a full scan knows.
    if let Some(name) = gone
        && current.errors.iter().any(|e| {
            e.message
                .contains(&format!("duplicate skill name '{name}'"))
        })
    {
        return None;
    }
    let prefix = format!("{category}/{rel}/");
    fresh.errors.retain(|e| !e.path.starts_with(&prefix));
    match crate::discovery::load_one(skills_dir, category, rel, limits) {
        None => {}
        Some(Err(error)) => fresh.errors.push(error),
        Some(Ok(skill)) => {
            let clash = fresh
                .skills
                .iter()
                .any(|s| s.category == category && (s.name == skill.name || s.dir == skill.dir));
            if clash {
                return None;
            }
            let at = fresh
                .skills
                .partition_point(|s| (s.category, &s.name) < (skill.category, &skill.name));
            fresh.skills.insert(at, Arc::new(skill));
        }
    }
    fresh.errors.sort_by(|a, b| a.path.cmp(&b.path));
    Some(fresh)
}
