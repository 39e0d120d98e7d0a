//! The read-only projection of enabled skills that sandboxes mount at `/mnt/skills`:
//! `<view>/{public,custom}/<relative path>/…`.
//!
//! Only enabled skills are copied in, so a disabled skill's files are not there to read, by
//! `cat` or by the file tools. The view directory itself never changes identity (containers
//! bind-mount it); each skill inside is replaced atomically (`RENAME_EXCHANGE` of a fresh copy)
//! or removed by renaming it away first, so a reader sees the old or the new version.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use antler_protocol::skills::SkillCategory;
use rustix::fs::{CWD, RenameFlags, renameat_with};

mod walk;

/// A skill that should be visible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectedSkill {
    /// Its category.
    pub category: SkillCategory,
    /// Its directory below the category (`team/report`).
    pub relative_path: String,
    /// The skill directory on the host.
    pub source: PathBuf,
    /// The catalog's id for this reading of the skill (the skills crate's `load_id`): while
    /// it stays the same the files are taken as unchanged and not fingerprinted again;
    /// 0 means unknown (always checked).
    pub load_id: u64,
}

impl ProjectedSkill {
    /// The same, borrowed.
    pub fn as_ref(&self) -> SkillRef<'_> {
        SkillRef {
            category: self.category,
            relative_path: &self.relative_path,
            source: &self.source,
            load_id: self.load_id,
        }
    }
}

/// A skill that should be visible, borrowed from the catalog snapshot that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillRef<'a> {
    /// Its category.
    pub category: SkillCategory,
    /// Its directory below the category (`team/report`).
    pub relative_path: &'a str,
    /// The skill directory on the host.
    pub source: &'a Path,
    /// The catalog's `load_id` for this reading (see [`ProjectedSkill::load_id`]).
    pub load_id: u64,
}

/// What a sync changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Skills copied in for the first time.
    pub added: usize,
    /// Skills whose files changed and were replaced.
    pub updated: usize,
    /// Skills taken out.
    pub removed: usize,
}

/// The projection directory and what is in it.
#[derive(Debug)]
pub struct SkillsView {
    root: PathBuf,
    staging: PathBuf,
    /// What is in the view.
    projected: Mutex<Projection>,
}

/// The projected skills by category and relative path.
#[derive(Debug, Default)]
struct Projection {
    skills: HashMap<SkillCategory, HashMap<String, Projected>>,
    /// Counts syncs; a skill not marked with the current one is no longer wanted.
    epoch: u64,
}

impl Projection {
    fn insert(&mut self, skill: SkillRef<'_>, entry: Projected) {
        self.skills
            .entry(skill.category)
            .or_default()
            .insert(skill.relative_path.to_string(), entry);
    }
}

/// One projected skill.
#[derive(Debug, Clone, Copy)]
struct Projected {
    /// The reading it was copied from.
    load_id: u64,
    /// Fingerprint of its files then.
    print: u64,
    /// The last sync that wanted it.
    seen: u64,
}

/// Where a skill sits in the view: `<category>/<relative path>`.
fn view_key(category: SkillCategory, relative_path: &str) -> String {
    format!("{category}/{relative_path}")
}

/// Files copied per skill at most (a skill is instructions and a few scripts).
const MAX_FILES: usize = 10_000;

impl SkillsView {
    /// Prepares an empty view at `root` (its previous content is discarded).
    pub fn open(root: &Path) -> io::Result<Self> {
        // Beside the root; `with_extension` would map `web.1` and `web.2` to one directory.
        let mut staging = root.as_os_str().to_os_string();
        staging.push(".staging");
        let staging = PathBuf::from(staging);
        for &category in SkillCategory::ALL {
            let dir = root.join(category.as_str());
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            std::fs::create_dir_all(&dir)?;
        }
        if staging.exists() {
            std::fs::remove_dir_all(&staging)?;
        }
        std::fs::create_dir_all(&staging)?;
        Ok(SkillsView {
            root: root.to_path_buf(),
            staging,
            projected: Mutex::new(Projection::default()),
        })
    }

    /// The directory sandboxes mount at `/mnt/skills`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Deletes the view and its staging directory (a view no sandbox will use again).
    pub fn discard(&self) {
        let _ = std::fs::remove_dir_all(&self.root);
        let _ = std::fs::remove_dir_all(&self.staging);
    }

    /// Makes the view hold exactly `wanted` (blocking). Unchanged skills are left alone.
    /// Removals come first and one skill that cannot be copied does not stop the others;
    /// the first error is returned after everything else was done.
    pub fn sync(&self, wanted: &[ProjectedSkill]) -> io::Result<SyncReport> {
        self.sync_refs(wanted.iter().map(ProjectedSkill::as_ref))
    }

    /// [`SkillsView::sync`] from borrowed skills. With 10,000 skills and one change this
    /// allocates nothing for the others: each is one lookup by category and path.
    pub fn sync_refs<'a>(
        &self,
        wanted: impl IntoIterator<Item = SkillRef<'a>>,
    ) -> io::Result<SyncReport> {
        let mut projection = self
            .projected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        projection.epoch += 1;
        let epoch = projection.epoch;
        let mut report = SyncReport::default();
        let mut first_error = None;
        // Skills whose files may differ from the copy, with the copy's fingerprint if any.
        let mut todo: Vec<(SkillRef<'a>, Option<u64>)> = Vec::new();
        for skill in wanted {
            let known = projection
                .skills
                .get_mut(&skill.category)
                .and_then(|m| m.get_mut(skill.relative_path));
            match known {
                // A toggle or another skill's install leaves this one's reading, and so its
                // files, as they were: no need to walk them again.
                Some(p) if p.load_id != 0 && p.load_id == skill.load_id => p.seen = epoch,
                Some(p) => {
                    p.seen = epoch;
                    todo.push((skill, Some(p.print)));
                }
                None => todo.push((skill, None)),
            }
        }
        let mut gone = Vec::new();
        for (category, skills) in &projection.skills {
            for (path, p) in skills {
                if p.seen != epoch {
                    gone.push((*category, path.clone()));
                }
            }
        }
        for (category, path) in gone {
            match self.remove(&view_key(category, &path)) {
                Ok(()) => {
                    if let Some(m) = projection.skills.get_mut(&category) {
                        m.remove(&path);
                    }
                    report.removed += 1;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        for (skill, known) in todo {
            let key = view_key(skill.category, skill.relative_path);
            let placed = match known {
                // A skill new to the view is fingerprinted on the walk that copies it.
                None => self
                    .place(&key, skill.source)
                    .map(|print| (print, &mut report.added)),
                Some(existing) => {
                    let print = fingerprint(skill.source);
                    if existing == print {
                        projection.insert(
                            skill,
                            Projected {
                                load_id: skill.load_id,
                                print,
                                seen: epoch,
                            },
                        );
                        continue;
                    }
                    self.place(&key, skill.source)
                        .map(|print| (print, &mut report.updated))
                }
            };
            match placed {
                Ok((print, change)) => {
                    *change += 1;
                    projection.insert(
                        skill,
                        Projected {
                            load_id: skill.load_id,
                            print,
                            seen: epoch,
                        },
                    );
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(report), Err)
    }

    /// Copies `source` into place under `key`, replacing any previous copy atomically;
    /// answers the fingerprint of what was copied.
    fn place(&self, key: &str, source: &Path) -> io::Result<u64> {
        let fresh = self.staging.join(uuid::Uuid::new_v4().to_string());
        let print = match copy_tree(source, &fresh) {
            Ok(print) => print,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&fresh);
                return Err(e);
            }
        };
        let target = self.root.join(key);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match renameat_with(CWD, &fresh, CWD, &target, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(print),
            Err(e) if e == rustix::io::Errno::EXIST || e == rustix::io::Errno::NOTEMPTY => {
                renameat_with(CWD, &fresh, CWD, &target, RenameFlags::EXCHANGE)?;
                std::fs::remove_dir_all(&fresh)?;
                Ok(print)
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&fresh);
                Err(e.into())
            }
        }
    }

    /// Takes a skill out: renamed away first (readers see it vanish at once), then deleted.
    fn remove(&self, key: &str) -> io::Result<()> {
        let target = self.root.join(key);
        let trash = self.staging.join(uuid::Uuid::new_v4().to_string());
        match std::fs::rename(&target, &trash) {
            Ok(()) => std::fs::remove_dir_all(&trash)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        // Tidy empty namespace directories left behind (never the category directories).
        let mut dir = target.parent().map(Path::to_path_buf);
        while let Some(d) = dir {
            if d.parent() == Some(self.root.as_path()) || !d.starts_with(&self.root) {
                break;
            }
            if std::fs::remove_dir(&d).is_err() {
                break;
            }
            dir = d.parent().map(Path::to_path_buf);
        }
        Ok(())
    }
}

/// Changes when any file under `dir` is added, removed, resized or touched.
fn fingerprint(dir: &Path) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let root = walk::walk(dir, MAX_FILES, &mut |entry| {
        entry.rel.hash(&mut hasher);
        walk::hash_stat(entry.stat, &mut hasher);
        Ok(())
    });
    if let Ok(root) = root {
        walk::hash_stat(&root, &mut hasher);
    }
    hasher.finish()
}

/// Recreates directories and links regular files (copies them when a link cannot be made, as
/// across filesystems): a large skill is projected without copying its bytes, and sandboxes
/// mount the view read-only. Symlinks are not projected, so a skill cannot point the sandbox
/// at host files. Answers the [`fingerprint`] of what it copied, taken on the same walk.
fn copy_tree(source: &Path, dest: &Path) -> io::Result<u64> {
    std::fs::create_dir_all(dest)?;
    let target = rustix::fs::openat(
        rustix::fs::CWD,
        dest,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let root = walk::walk(source, MAX_FILES, &mut |entry| {
        entry.rel.hash(&mut hasher);
        walk::hash_stat(entry.stat, &mut hasher);
        let rel = entry.rel_path();
        match entry.kind() {
            rustix::fs::FileType::Directory => {
                match rustix::fs::mkdirat(&target, rel, rustix::fs::Mode::from_raw_mode(0o777)) {
                    Ok(()) => Ok(()),
                    Err(e) if e == rustix::io::Errno::EXIST => Ok(()),
                    Err(e) => Err(e.into()),
                }
            }
            rustix::fs::FileType::RegularFile => {
                let linked = rustix::fs::linkat(
                    entry.parent,
                    entry.name,
                    &target,
                    rel,
                    rustix::fs::AtFlags::empty(),
                );
                if linked.is_err() {
                    std::fs::copy(walk::joined(source, entry), dest.join(rel))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    })?;
    walk::hash_stat(&root, &mut hasher);
    Ok(hasher.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(root: &Path, rel: &str, body: &str) -> PathBuf {
        let dir = root.join(rel);
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(dir.join("SKILL.md"), body).unwrap();
        std::fs::write(dir.join("scripts/run.sh"), "echo hi").unwrap();
        dir
    }

    #[test]
    fn projects_exactly_the_wanted_skills_and_follows_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("skills");
        let a = skill(&src, "public/a", "A1");
        let b = skill(&src, "custom/team/b", "B1");
        std::os::unix::fs::symlink("/etc/passwd", b.join("leak")).unwrap();
        let view = SkillsView::open(&tmp.path().join("view")).unwrap();
        let want = |items: &[(&SkillCategory, &str, &PathBuf)]| -> Vec<ProjectedSkill> {
            items
                .iter()
                .map(|(c, r, s)| ProjectedSkill {
                    category: **c,
                    relative_path: r.to_string(),
                    source: (*s).clone(),
                    load_id: 0,
                })
                .collect()
        };
        let both = want(&[
            (&SkillCategory::Public, "a", &a),
            (&SkillCategory::Custom, "team/b", &b),
        ]);
        assert_eq!(
            view.sync(&both).unwrap(),
            SyncReport {
                added: 2,
                ..Default::default()
            }
        );
        let root = view.root();
        assert_eq!(
            std::fs::read_to_string(root.join("public/a/SKILL.md")).unwrap(),
            "A1"
        );
        assert!(root.join("custom/team/b/scripts/run.sh").is_file());
        assert!(
            !root.join("custom/team/b/leak").exists(),
            "symlinks are not projected"
        );
        assert_eq!(
            view.sync(&both).unwrap(),
            SyncReport::default(),
            "nothing changed"
        );

        std::fs::write(a.join("SKILL.md"), "A2 longer").unwrap();
        assert_eq!(view.sync(&both).unwrap().updated, 1);
        assert_eq!(
            std::fs::read_to_string(root.join("public/a/SKILL.md")).unwrap(),
            "A2 longer"
        );

        let only_a = want(&[(&SkillCategory::Public, "a", &a)]);
        assert_eq!(view.sync(&only_a).unwrap().removed, 1);
        assert!(
            !root.join("custom/team").exists(),
            "empty namespaces are tidied"
        );
        assert!(root.join("custom").is_dir());
        assert_eq!(
            std::fs::read_dir(tmp.path().join("view.staging"))
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn a_skill_deleted_before_it_is_projected_fails_as_not_found() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("skills");
        let gone = skill(&src, "custom/gone", "G");
        std::fs::remove_dir_all(&gone).unwrap();
        let view = SkillsView::open(&tmp.path().join("view")).unwrap();
        let wanted = [ProjectedSkill {
            category: SkillCategory::Custom,
            relative_path: "gone".into(),
            source: gone,
            load_id: 0,
        }];
        // The catalog follower expects this kind for a skill deleted meanwhile (its delete
        // syncs again) and logs anything else as an error.
        let error = view.sync(&wanted).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
    }
}
