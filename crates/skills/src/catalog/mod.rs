//! The catalog: the last scan merged with enabled state, served from memory.
//!
//! Requests never touch the filesystem: they read an immutable [`Snapshot`] (with the listing
//! already serialised). Rescans (watcher, reload) and state changes build a new snapshot and
//! swap it in atomically; subscribers are told the new version. Re-reading single skills
//! after a change on disk is in [`refresh`].

mod refresh;

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
        // A toggle keeps the scan: its entries line up with the previous snapshot's by
        // position, and no index of 10,000 entries needs building.
        let aligned = previous.filter(|p| Arc::ptr_eq(&p.scan, &scan));
        // Otherwise the previous entries by reading, built only when a skill is disabled or
        // shadowed (the others are listed as loaded).
        let mut reusable: Option<HashMap<u64, &Arc<Skill>>> = None;
        let skills: Vec<Arc<Skill>> = scan
            .skills
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let on = enabled(s.category, &s.name);
                let shadowed =
                    s.category == SkillCategory::Public && enabled_custom.contains(s.name.as_str());
                if on && !shadowed {
                    return Arc::clone(&s.listed);
                }
                let old = match (aligned, previous) {
                    (Some(p), _) => p.list.skills.get(i),
                    (None, Some(p)) => reusable
                        .get_or_insert_with(|| {
                            p.list
                                .skills
                                .iter()
                                .zip(p.scan.skills.iter())
                                .map(|(s, l)| (l.load_id, s))
                                .collect()
                        })
                        .get(&s.load_id)
                        .copied(),
                    (None, None) => None,
                };
                match old {
                    Some(old) if old.enabled == on && old.shadowed == shadowed => Arc::clone(old),
                    _ => {
                        let mut skill = Skill::clone(&s.listed);
                        skill.enabled = on;
                        skill.shadowed = shadowed;
                        Arc::new(skill)
                    }
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

    /// Only the skills named in `names` (a custom agent's subset): the others do not exist
    /// for its runs (prompt, search, slash commands). Entries are shared, not copied.
    pub fn only(&self, names: &HashSet<String>) -> Self {
        let (skills, loaded): (Vec<_>, Vec<_>) = self
            .list
            .skills
            .iter()
            .zip(self.scan.skills.iter())
            .filter(|(s, _)| names.contains(&s.name))
            .map(|(s, l)| (s.clone(), l.clone()))
            .unzip();
        let list = SkillList {
            skills,
            errors: Vec::new(),
        };
        let scan = Scan {
            skills: loaded,
            errors: Vec::new(),
        };
        Self::from_parts(self.version, list, Arc::new(scan))
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

/// A poisoned lock only means another thread panicked mid-update; the data is still whole
/// because every update replaces values rather than mutating them in place.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
