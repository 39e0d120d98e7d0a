//! The catalog: the last scan merged with enabled state, served from memory.
//!
//! Requests never touch the filesystem: they read an immutable [`Snapshot`] (with the listing
//! already serialised). Rescans (watcher, reload) and state changes build a new snapshot and
//! swap it in atomically; subscribers are told the new version.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use antler_protocol::skills::{Skill, SkillCategory, SkillList};
use arc_swap::ArcSwap;
use bytes::Bytes;
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::discovery::{LoadedSkill, Scan, ScanLimits, scan_categories};
use crate::prompt::{self, PromptSkill};

/// Enabled state keyed by (category, name); a missing key means enabled.
pub type States = HashMap<(SkillCategory, String), bool>;

/// Why a lookup by name failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FindError {
    /// No skill of that name (in that category).
    #[error("no skill named '{0}'")]
    NotFound(String),
    /// The name exists in more than one category (listed) and none was given.
    #[error("skill '{0}' exists in more than one category ({cats}); say which", cats = names(.1))]
    Ambiguous(String, Vec<SkillCategory>),
}

/// Categories as a comma-separated list (`public, custom`).
pub fn names(categories: &[SkillCategory]) -> String {
    categories
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An immutable view of the catalog at one version.
#[derive(Debug)]
pub struct Snapshot {
    /// Increases with every change.
    pub version: u64,
    /// The listing as served by `GET /api/skills`.
    pub list: SkillList,
    /// `list` serialised as JSON, built on first use: a change (a toggle) does not pay for
    /// serialising a large catalog, the first listing of the version does, once.
    json: OnceLock<Bytes>,
    /// Strong ETag of `json`, quoted.
    etag: OnceLock<String>,
    /// `json` gzip-compressed, built on first use (browsers always accept gzip, and the
    /// listing of a large catalog is otherwise bound by bytes on the wire).
    gzip: OnceLock<Bytes>,
    /// The prompt section and the budget it was rendered for: every run of a version asks
    /// for the same one, so it is rendered (and any over-budget warning logged) once.
    prompt: OnceLock<(usize, Arc<str>, bool)>,
    scan: Arc<Scan>,
}

impl Snapshot {
    /// The snapshot of `scan` with `states`. Entries of `previous` for the same reading of a
    /// skill (load id) in the same state are shared, not copied: a toggle of one skill in a
    /// catalog of thousands allocates one entry.
    fn build(version: u64, scan: Arc<Scan>, states: &States, previous: Option<&Snapshot>) -> Self {
        let states: HashMap<(SkillCategory, &str), bool> = states
            .iter()
            .map(|((category, name), enabled)| ((*category, name.as_str()), *enabled))
            .collect();
        let enabled =
            |cat: SkillCategory, name: &str| states.get(&(cat, name)).copied().unwrap_or(true);
        let enabled_custom: HashSet<&str> = scan
            .skills
            .iter()
            .filter(|s| s.category == SkillCategory::Custom && enabled(s.category, &s.name))
            .map(|s| s.name.as_str())
            .collect();
        let reusable: HashMap<u64, &Arc<Skill>> = previous
            .map(|p| {
                p.list
                    .skills
                    .iter()
                    .zip(p.scan.skills.iter())
                    .map(|(s, l)| (l.load_id, s))
                    .collect()
            })
            .unwrap_or_default();
        let skills: Vec<Arc<Skill>> = scan
            .skills
            .iter()
            .map(|s| {
                let on = enabled(s.category, &s.name);
                let shadowed =
                    s.category == SkillCategory::Public && enabled_custom.contains(s.name.as_str());
                match reusable.get(&s.load_id) {
                    Some(old) if old.enabled == on && old.shadowed == shadowed => Arc::clone(old),
                    _ => Arc::new(Skill {
                        name: s.name.clone(),
                        description: s.description.clone(),
                        license: s.license.clone(),
                        compatibility: s.compatibility.clone(),
                        metadata: s.metadata.clone(),
                        allowed_tools: s.allowed_tools.clone(),
                        category: s.category,
                        relative_path: s.relative_path.clone(),
                        enabled: on,
                        editable: s.category != SkillCategory::Public,
                        shadowed,
                        location: s.location(),
                        warnings: s.warnings.clone(),
                        warning_details: s.warning_details.clone(),
                        disable_model_invocation: s.disable_model_invocation,
                        user_invocable: s.user_invocable,
                        argument_hint: s.argument_hint.clone(),
                    }),
                }
            })
            .collect();
        let list = SkillList {
            skills,
            errors: scan.errors.clone(),
        };
        Self::from_parts(version, list, scan)
    }

    fn from_parts(version: u64, list: SkillList, scan: Arc<Scan>) -> Self {
        Snapshot {
            version,
            list,
            json: OnceLock::new(),
            etag: OnceLock::new(),
            gzip: OnceLock::new(),
            prompt: OnceLock::new(),
            scan,
        }
    }

    /// The listing serialised as JSON (built once per snapshot).
    pub fn json(&self) -> &Bytes {
        // Serialising plain data structures cannot fail; an empty body would still be valid.
        self.json
            .get_or_init(|| Bytes::from(serde_json::to_vec(&self.list).unwrap_or_default()))
    }

    /// Strong ETag of [`Snapshot::json`], quoted: the same listing gets the same tag, on
    /// every replica.
    pub fn etag(&self) -> &str {
        self.etag.get_or_init(|| {
            let digest = Sha256::digest(self.json());
            format!("\"{}\"", hex::encode(&digest[..16]))
        })
    }

    /// Every listed skill with what was loaded for it, in listing order.
    pub fn entries(&self) -> impl Iterator<Item = (&Skill, &LoadedSkill)> {
        self.list
            .skills
            .iter()
            .zip(self.scan.skills.iter())
            .map(|(s, l)| (&**s, &**l))
    }

    /// What one person sees: the shared catalog with their personal skills (a catalog of
    /// category `user`) added after it. An enabled personal skill hides shared skills of the
    /// same name from the agent (they are listed as shadowed). The version is the shared one.
    pub fn overlay(shared: &Snapshot, personal: &Snapshot) -> Self {
        let mine: HashSet<&str> = personal
            .list
            .skills
            .iter()
            .filter(|s| s.enabled)
            .map(|s| s.name.as_str())
            .collect();
        let mut list = shared.list.clone();
        for skill in &mut list.skills {
            if !skill.shadowed && mine.contains(skill.name.as_str()) {
                Arc::make_mut(skill).shadowed = true;
            }
        }
        list.skills.extend(personal.list.skills.iter().cloned());
        list.errors.extend(personal.list.errors.iter().cloned());
        let mut scan = Scan {
            skills: Vec::with_capacity(list.skills.len()),
            errors: list.errors.clone(),
        };
        scan.skills.extend(shared.scan.skills.iter().cloned());
        scan.skills.extend(personal.scan.skills.iter().cloned());
        Self::from_parts(shared.version, list, Arc::new(scan))
    }

    /// The listing JSON compressed with gzip, computed once per snapshot.
    pub fn json_gzip(&self) -> &Bytes {
        self.gzip.get_or_init(|| {
            let json = self.json();
            let mut encoder = flate2::write::GzEncoder::new(
                Vec::with_capacity(json.len() / 8),
                flate2::Compression::new(6),
            );
            // Writing into a Vec cannot fail.
            let _ = encoder.write_all(json);
            Bytes::from(encoder.finish().unwrap_or_default())
        })
    }

    /// Finds a skill by name, optionally restricted to a category.
    pub fn find(
        &self,
        name: &str,
        category: Option<SkillCategory>,
    ) -> Result<(&Skill, &LoadedSkill), FindError> {
        let mut hits = self
            .entries()
            .filter(|(s, _)| s.name == name && category.is_none_or(|c| c == s.category));
        let first = hits
            .next()
            .ok_or_else(|| FindError::NotFound(name.to_string()))?;
        if let Some(second) = hits.next() {
            let mut categories = vec![first.0.category, second.0.category];
            categories.extend(hits.map(|(s, _)| s.category));
            return Err(FindError::Ambiguous(name.to_string(), categories));
        }
        Ok(first)
    }

    /// The skills the agent sees: enabled, not shadowed, and not kept for slash commands
    /// only.
    pub fn prompt_skills(&self) -> impl Iterator<Item = &Skill> {
        self.list
            .skills
            .iter()
            .map(|s| &**s)
            .filter(|s| s.enabled && !s.shadowed && !s.disable_model_invocation)
    }

    /// The skill `/name` activates: enabled, not shadowed, offered as a slash command.
    pub fn slash_command(&self, name: &str) -> Option<(&Skill, &LoadedSkill)> {
        self.entries()
            .find(|(s, _)| s.name == name && s.enabled && !s.shadowed && s.user_invocable)
    }

    /// The `<skill_system>` section for the system prompt, within `budget` characters.
    pub fn prompt_section(&self, budget: usize) -> Arc<str> {
        self.prompt(budget).0
    }

    /// The section, and whether it lists every skill the agent sees (otherwise the agent
    /// needs `search_skills` to find the rest).
    pub fn prompt(&self, budget: usize) -> (Arc<str>, bool) {
        match self.prompt.get() {
            Some((b, section, complete)) if *b == budget => (section.clone(), *complete),
            Some(_) => self.render_prompt(budget),
            None => {
                let (_, section, complete) = self.prompt.get_or_init(|| {
                    let (section, complete) = self.render_prompt(budget);
                    (budget, section, complete)
                });
                (section.clone(), *complete)
            }
        }
    }

    /// Like [`Snapshot::prompt`], with the skills named in `recent` (most recently used
    /// first) listed before the others when not all of them fit: what a person used lately
    /// stays in view in a catalog too big for the prompt.
    pub fn prompt_with_recent(&self, budget: usize, recent: &[String]) -> (Arc<str>, bool) {
        let (section, complete) = self.prompt(budget);
        if complete || recent.is_empty() {
            return (section, complete);
        }
        let rank = |name: &str| recent.iter().position(|r| r == name);
        let mut skills: Vec<&Skill> = self.prompt_skills().collect();
        // Stable: the rest keeps its order (category, then name).
        skills.sort_by_key(|s| rank(&s.name).unwrap_or(usize::MAX));
        let (section, complete) = prompt::render_within(&prompt_view(&skills), budget);
        (section.into(), complete)
    }

    fn render_prompt(&self, budget: usize) -> (Arc<str>, bool) {
        let skills: Vec<&Skill> = self.prompt_skills().collect();
        let (section, complete) = prompt::render_within(&prompt_view(&skills), budget);
        (section.into(), complete)
    }
}

/// What the prompt shows of each skill.
fn prompt_view<'a>(skills: &[&'a Skill]) -> Vec<PromptSkill<'a>> {
    skills
        .iter()
        .map(|s| PromptSkill {
            name: &s.name,
            description: &s.description,
            location: &s.location,
        })
        .collect()
}

struct Inner {
    scan: Arc<Scan>,
    states: States,
    version: u64,
}

/// The skills catalog: owns the current snapshot and rebuilds it on change.
pub struct Catalog {
    skills_dir: PathBuf,
    categories: &'static [SkillCategory],
    limits: ScanLimits,
    scan_lock: Mutex<()>,
    inner: Mutex<Inner>,
    current: ArcSwap<Snapshot>,
    changes: watch::Sender<u64>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("skills_dir", &self.skills_dir)
            .field("version", &self.current.load().version)
            .finish()
    }
}

impl Catalog {
    /// Scans `skills_dir` (blocking) and merges `states`.
    pub fn load(skills_dir: &Path, limits: ScanLimits, states: States) -> Self {
        Self::load_categories(skills_dir, &SkillCategory::SHARED, limits, states)
    }

    /// A person's catalog: `<dir>/user/…` (blocking), with `states` keyed by category `user`.
    pub fn load_personal(dir: &Path, limits: ScanLimits, states: States) -> Self {
        Self::load_categories(dir, &[SkillCategory::User], limits, states)
    }

    fn load_categories(
        skills_dir: &Path,
        categories: &'static [SkillCategory],
        limits: ScanLimits,
        states: States,
    ) -> Self {
        let scan = Arc::new(scan_categories(skills_dir, categories, &limits));
        let snapshot = Snapshot::build(1, scan.clone(), &states, None);
        let (changes, _) = watch::channel(1);
        Catalog {
            skills_dir: skills_dir.to_path_buf(),
            categories,
            limits,
            scan_lock: Mutex::new(()),
            inner: Mutex::new(Inner {
                scan,
                states,
                version: 1,
            }),
            current: ArcSwap::from_pointee(snapshot),
            changes,
        }
    }

    /// The skills directory this catalog scans.
    pub fn skills_dir(&self) -> &Path {
        &self.skills_dir
    }

    /// The current snapshot; cheap, never blocks on a rescan.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// Receives the version number after every change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Rescans the filesystem (blocking; call from a blocking context) and publishes the result.
    pub fn rescan(&self) -> Arc<Snapshot> {
        let _one_scan_at_a_time = lock(&self.scan_lock);
        let fresh = Arc::new(scan_categories(
            &self.skills_dir,
            self.categories,
            &self.limits,
        ));
        self.update(|inner| inner.scan = fresh)
    }

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
        let category =
            SkillCategory::parse(parts.next()??).filter(|c| self.categories.contains(c))?;
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
        let category_changed = self.categories.iter().any(|c| {
            let dir = root.join(c.as_str());
            dir.exists() && newer(&dir)
        });
        if category_changed {
            return true;
        }
        let snapshot = self.snapshot();
        let mut seen: HashSet<PathBuf> = HashSet::new();
        for (_, loaded) in snapshot.entries() {
            if newer(&loaded.dir) || newer(&loaded.dir.join(crate::SKILL_FILE)) {
                return true;
            }
            // The namespaces above it, each once.
            let mut parent = loaded.dir.parent();
            while let Some(dir) = parent {
                if dir == root || !dir.starts_with(&root) || !seen.insert(dir.to_path_buf()) {
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

    /// Replaces every enabled state (for example after reading them from the database).
    pub fn replace_states(&self, states: States) -> Arc<Snapshot> {
        self.update(|inner| inner.states = states)
    }

    /// Records one skill's state.
    pub fn set_enabled(&self, category: SkillCategory, name: &str, enabled: bool) -> Arc<Snapshot> {
        self.update(|inner| {
            inner.states.insert((category, name.to_string()), enabled);
        })
    }

    /// Forgets one skill's state (it goes back to the default, enabled, if it reappears).
    pub fn forget_state(&self, category: SkillCategory, name: &str) -> Arc<Snapshot> {
        self.update(|inner| {
            inner.states.remove(&(category, name.to_string()));
        })
    }

    fn update(&self, change: impl FnOnce(&mut Inner)) -> Arc<Snapshot> {
        let mut inner = lock(&self.inner);
        change(&mut inner);
        inner.version += 1;
        let previous = self.current.load();
        let snapshot = Arc::new(Snapshot::build(
            inner.version,
            inner.scan.clone(),
            &inner.states,
            Some(&previous),
        ));
        self.current.store(snapshot.clone());
        self.changes.send_replace(inner.version);
        snapshot
    }
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

/// A poisoned lock only means another thread panicked mid-update; the data is still whole
/// because every update replaces values rather than mutating them in place.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::tests::write_skill;

    fn catalog(setup: impl FnOnce(&Path)) -> (tempfile::TempDir, Catalog) {
        let tmp = tempfile::tempdir().unwrap();
        setup(tmp.path());
        let c = Catalog::load(tmp.path(), ScanLimits::default(), States::new());
        (tmp, c)
    }

    #[test]
    fn skills_are_enabled_by_default_and_state_is_keyed_by_category_and_name() {
        let (_tmp, c) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "public pdf");
            write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
        });
        let snap = c.snapshot();
        assert!(snap.list.skills.iter().all(|s| s.enabled));
        let snap = c.set_enabled(SkillCategory::Public, "pdf", false);
        let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
        let custom = snap.find("pdf", Some(SkillCategory::Custom)).unwrap().0;
        assert!(!public.enabled);
        assert!(custom.enabled, "the custom skill keeps its own state");
        assert!(snap.version > 1);
    }

    #[test]
    fn an_enabled_custom_skill_shadows_the_public_one_of_the_same_name() {
        let (_tmp, c) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "public pdf");
            write_skill(&p.join("public/csv"), "csv", "csv");
            write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
        });
        let snap = c.snapshot();
        let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
        assert!(public.shadowed);
        let seen: Vec<_> = snap.prompt_skills().map(|s| s.location.as_str()).collect();
        assert_eq!(
            seen,
            [
                "/mnt/skills/public/csv/SKILL.md",
                "/mnt/skills/custom/pdf/SKILL.md"
            ]
        );
        // Disabling the custom one brings the public one back without touching its state.
        let snap = c.set_enabled(SkillCategory::Custom, "pdf", false);
        let public = snap.find("pdf", Some(SkillCategory::Public)).unwrap().0;
        assert!(!public.shadowed && public.enabled);
        assert!(
            snap.prompt_section(8000)
                .contains("/mnt/skills/public/pdf/SKILL.md")
        );
    }

    #[test]
    fn a_personal_skill_is_laid_over_the_shared_ones_and_shadows_them_while_enabled() {
        let (_tmp, shared) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "public pdf");
            write_skill(&p.join("custom/pdf"), "pdf", "custom pdf");
            write_skill(&p.join("public/csv"), "csv", "csv");
        });
        let mine_dir = tempfile::tempdir().unwrap();
        write_skill(&mine_dir.path().join("user/pdf"), "pdf", "my pdf");
        write_skill(&mine_dir.path().join("user/diary"), "diary", "my diary");
        let mine = Catalog::load_personal(mine_dir.path(), ScanLimits::default(), States::new());
        let seen = Snapshot::overlay(&shared.snapshot(), &mine.snapshot());
        let (skill, loaded) = seen.find("diary", None).unwrap();
        assert_eq!(skill.category, SkillCategory::User);
        assert_eq!(skill.location, "/mnt/skills/user/diary/SKILL.md");
        assert!(skill.editable && loaded.dir.ends_with("user/diary"));
        let offered: Vec<_> = seen.prompt_skills().map(|s| s.location.as_str()).collect();
        assert_eq!(
            offered,
            [
                "/mnt/skills/public/csv/SKILL.md",
                "/mnt/skills/user/diary/SKILL.md",
                "/mnt/skills/user/pdf/SKILL.md"
            ]
        );
        assert_eq!(
            seen.find("pdf", None).unwrap_err(),
            FindError::Ambiguous(
                "pdf".into(),
                vec![
                    SkillCategory::Public,
                    SkillCategory::Custom,
                    SkillCategory::User
                ]
            )
        );
        // Disabled, it hides nothing: the custom one is offered again.
        let mine = mine.set_enabled(SkillCategory::User, "pdf", false);
        let seen = Snapshot::overlay(&shared.snapshot(), &mine);
        assert!(
            seen.prompt_section(8000)
                .contains("/mnt/skills/custom/pdf/SKILL.md")
        );
        assert!(!shared.snapshot().json().windows(5).any(|w| w == b"diary"));
    }

    #[test]
    fn one_skill_is_read_again_alone_and_the_others_keep_their_reading() {
        let (tmp, c) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "pdf");
            write_skill(&p.join("custom/team/report"), "report", "report");
        });
        let before = c.snapshot();
        let pdf = before.find("pdf", None).unwrap().1.load_id;
        write_skill(&tmp.path().join("custom/new"), "new", "fresh");
        let after = c.refresh_skill(SkillCategory::Custom, "new");
        assert_eq!(after.list.skills.len(), 3);
        assert_eq!(after.find("new", None).unwrap().0.description, "fresh");
        assert_eq!(after.find("pdf", None).unwrap().1.load_id, pdf, "untouched");
        let names: Vec<_> = after.list.skills.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["pdf", "new", "report"], "category then name order");
        // A changed file: the watcher's paths lead to its skill only.
        write_skill(&tmp.path().join("custom/team/report"), "report", "edited");
        let changed = c.refresh_paths(&[tmp.path().join("custom/team/report/SKILL.md")]);
        let (report, loaded) = changed.find("report", None).unwrap();
        assert_eq!(report.description, "edited");
        assert_ne!(
            loaded.load_id,
            after.find("report", None).unwrap().1.load_id
        );
        assert_eq!(changed.find("pdf", None).unwrap().1.load_id, pdf);
        // Removed, and broken: gone from the list, the breakage reported.
        std::fs::remove_dir_all(tmp.path().join("custom/new")).unwrap();
        let gone = c.refresh_paths(&[tmp.path().join("custom/new")]);
        assert!(gone.find("new", None).is_err());
        let version = gone.version;
        let again = c.refresh_paths(&[tmp.path().join("custom/new")]);
        assert_eq!(
            again.version, version,
            "a path already gone changes nothing"
        );
        std::fs::write(
            tmp.path().join("custom/team/report/SKILL.md"),
            "no frontmatter",
        )
        .unwrap();
        let broken = c.refresh_skill(SkillCategory::Custom, "team/report");
        assert!(broken.find("report", None).is_err());
        assert_eq!(broken.list.errors.len(), 1, "{:?}", broken.list.errors);
        // A name taken by another skill: the full scan decides, as at start.
        write_skill(&tmp.path().join("custom/pdf2"), "pdf", "another pdf");
        c.refresh_skill(SkillCategory::Custom, "pdf2");
        write_skill(&tmp.path().join("custom/pdf3"), "pdf", "a third pdf");
        let clash = c.refresh_skill(SkillCategory::Custom, "pdf3");
        assert_eq!(
            clash.list,
            Catalog::load(tmp.path(), ScanLimits::default(), States::new())
                .snapshot()
                .list
        );
    }

    #[test]
    fn changes_after_a_moment_are_noticed_by_their_folders_and_files() {
        let (tmp, c) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "pdf");
            write_skill(&p.join("custom/team/report"), "report", "report");
        });
        std::thread::sleep(std::time::Duration::from_millis(20));
        // File times come from a coarse clock: each change waits a little after `since`.
        let pause = || std::thread::sleep(std::time::Duration::from_millis(30));
        let since = std::time::SystemTime::now();
        assert!(!c.changed_since(since));
        pause();
        write_skill(
            &tmp.path().join("custom/team/report"),
            "report",
            "edited in place",
        );
        assert!(c.changed_since(since), "a SKILL.md edited");
        let since = std::time::SystemTime::now();
        pause();
        std::fs::create_dir(tmp.path().join("custom/team/new")).unwrap();
        assert!(c.changed_since(since), "a folder added in a namespace");
    }

    #[test]
    fn find_needs_a_category_when_a_name_is_in_both() {
        let (_tmp, c) = catalog(|p| {
            write_skill(&p.join("public/pdf"), "pdf", "p");
            write_skill(&p.join("custom/pdf"), "pdf", "c");
        });
        let snap = c.snapshot();
        assert_eq!(
            snap.find("pdf", None).unwrap_err(),
            FindError::Ambiguous(
                "pdf".into(),
                vec![SkillCategory::Public, SkillCategory::Custom]
            )
        );
        assert_eq!(
            snap.find("nope", None).unwrap_err(),
            FindError::NotFound("nope".into())
        );
    }

    #[test]
    fn rescan_picks_up_new_skills_and_notifies_subscribers() {
        let (tmp, c) = catalog(|_| {});
        let mut rx = c.subscribe();
        assert!(c.snapshot().list.skills.is_empty());
        write_skill(&tmp.path().join("custom/new"), "new", "n");
        let snap = c.rescan();
        assert_eq!(snap.list.skills.len(), 1);
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), snap.version);
    }

    #[test]
    fn the_serialised_listing_and_etag_follow_the_state() {
        let (_tmp, c) = catalog(|p| write_skill(&p.join("public/a"), "a", "d"));
        let before = c.snapshot();
        let parsed: SkillList = serde_json::from_slice(before.json()).unwrap();
        assert_eq!(parsed, before.list);
        let after = c.set_enabled(SkillCategory::Public, "a", false);
        assert_ne!(before.etag(), after.etag());
        let mut unzipped = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&after.json_gzip()[..]),
            &mut unzipped,
        )
        .unwrap();
        assert_eq!(unzipped, &after.json()[..]);
    }
}
