//! Importing skills from Git: preview what a repository holds, install the chosen skills as
//! custom skills through the archive pipeline with their origin recorded, and bring imported
//! skills up to a newer commit of their origin.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

use antler_protocol::skills::{
    ImportCandidate, ImportResult, InstallFinding, SkillCategory, SkillOrigin,
};
use antler_skills::archive::{self, ArchiveLimits};
use antler_skills::import::{
    self as git, Checkout, FindOptions, ImportError, ImportLimits, Source, parse_source,
};
use antler_skills::install::InstallError;
use tokio::sync::Semaphore;

use super::{SkillOpError, SkillsService, require_admin};
use crate::identity::Caller;

/// Imports running at once (each holds a fetched repository on disk).
const CONCURRENT_IMPORTS: usize = 2;

/// Bounds and scratch space of imports.
#[derive(Debug, Clone)]
pub struct ImportSettings {
    limits: ImportLimits,
    /// Folders of the server an admin may import `file://` repositories from (none: the
    /// API refuses `file://`).
    file_roots: Vec<PathBuf>,
    archive: ArchiveLimits,
    scratch: PathBuf,
    gate: Arc<Semaphore>,
}

impl ImportSettings {
    /// Fetches bounded by `limits`, skills by the archive `archive` limits, fetched into
    /// `scratch`.
    pub fn new(limits: ImportLimits, archive: ArchiveLimits, scratch: PathBuf) -> Self {
        ImportSettings {
            limits,
            file_roots: Vec::new(),
            archive,
            scratch,
            gate: Arc::new(Semaphore::new(CONCURRENT_IMPORTS)),
        }
    }

    /// Allows API imports of `file://` repositories inside `roots`.
    pub fn with_file_roots(mut self, roots: Vec<PathBuf>) -> Self {
        self.file_roots = roots;
        self
    }
}

/// What to do with a repository.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Branch, tag or commit; the default branch when absent.
    pub git_ref: Option<String>,
    /// Skills to install, by name or folder path; none (and not `all`) previews.
    pub skills: Vec<String>,
    /// Install every installable skill.
    pub all: bool,
    /// Also search dot-folders.
    pub include_hidden: bool,
    /// Replace installed custom skills of the same names.
    pub overwrite: bool,
    /// Enable what is installed.
    pub enable: bool,
}

/// How bringing one imported skill up to date went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateOutcome {
    /// A newer commit was installed.
    Updated {
        /// The commit installed before.
        from: Option<String>,
        /// The commit installed now.
        to: Option<String>,
    },
    /// The origin has nothing newer.
    UpToDate,
    /// The skill was not changed; why.
    Failed(String),
}

/// One skill's update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateReport {
    /// The custom skill.
    pub name: String,
    /// Where it comes from (URL without credentials).
    pub url: String,
    /// What happened.
    pub outcome: UpdateOutcome,
}

/// An installed custom skill that came from a repository.
struct Imported {
    name: String,
    origin: SkillOrigin,
    enabled: bool,
}

/// A skill of a fetched repository, inspected. Its archive is packed again when it is
/// installed: keeping one open file per skill would run a collection of hundreds out of
/// file descriptors.
struct Prepared {
    candidate: ImportCandidate,
    /// Its folder in the checkout.
    dir: PathBuf,
    /// The folder it is packed under.
    top: String,
}

/// A fetched repository with every skill in it prepared.
struct Fetched {
    _checkout: Checkout,
    commit: Option<String>,
    skills: Vec<Prepared>,
    hidden_skipped: Vec<String>,
    truncated: bool,
}

impl SkillsService {
    /// Previews or imports skills from the repository at `url` as shared custom skills
    /// (admins only).
    pub async fn import_as(
        &self,
        caller: &Caller,
        url: &str,
        options: ImportOptions,
    ) -> Result<ImportResult, SkillOpError> {
        require_admin(caller)?;
        let source = parse_source(url, false)?;
        // The command line may read the server's disk; the API only inside allowed roots.
        git::check_file_roots(&source, &self.imports.file_roots)?;
        self.import(source, options).await
    }

    /// Previews (no skills chosen) or imports skills from `source` as custom skills. Every
    /// chosen skill is checked — known, installable, not installed unless `overwrite` —
    /// before the first is installed.
    pub async fn import(
        &self,
        source: Source,
        options: ImportOptions,
    ) -> Result<ImportResult, SkillOpError> {
        let fetched = self
            .fetch(&source, options.git_ref.clone(), options.include_hidden)
            .await?;
        let snapshot = self.catalog.snapshot();
        let mut skills = fetched.skills;
        for s in &mut skills {
            s.candidate.exists = snapshot
                .find(&s.candidate.name, Some(SkillCategory::Custom))
                .is_ok();
        }
        select(&mut skills, &options)?;
        let chosen: Vec<&Prepared> = skills.iter().filter(|s| s.candidate.selected).collect();
        let mut names = HashSet::new();
        for s in &chosen {
            if !names.insert(s.candidate.name.as_str()) {
                return Err(SkillOpError::Invalid(format!(
                    "more than one chosen folder holds a skill named '{}'; choose one by its path",
                    s.candidate.name
                )));
            }
            if s.candidate.exists && !options.overwrite {
                return Err(InstallError::Exists(s.candidate.name.clone()).into());
            }
        }
        let now = chrono::Utc::now().to_rfc3339();
        let mut installed = Vec::new();
        for s in chosen {
            let origin = SkillOrigin {
                url: source.display(),
                git_ref: options.git_ref.clone(),
                commit: fetched.commit.clone(),
                path: s.candidate.path.clone(),
                imported_at: now.clone(),
            };
            let file = self.archive(s).await?;
            installed.push(
                self.install_recorded(file, options.overwrite, options.enable, Some(origin))
                    .await?,
            );
        }
        if !installed.is_empty() {
            tracing::info!(url = %source.display(), commit = ?fetched.commit, count = installed.len(), "skills imported");
        }
        Ok(ImportResult {
            url: source.display(),
            git_ref: options.git_ref,
            commit: fetched.commit,
            skills: skills.into_iter().map(|s| s.candidate).collect(),
            hidden_skipped: fetched.hidden_skipped,
            truncated: fetched.truncated,
            installed,
        })
    }

    /// Brings imported custom skills (all of them, or those in `names`) up to the newest
    /// commit of the ref they were imported from. One fetch per repository.
    pub async fn update_imported(
        &self,
        names: &[String],
    ) -> Result<Vec<UpdateReport>, SkillOpError> {
        let snapshot = self.catalog.snapshot();
        let mut by_origin: BTreeMap<(String, Option<String>), Vec<Imported>> = BTreeMap::new();
        let mut reports = Vec::new();
        let wanted: Vec<String> = if names.is_empty() {
            snapshot
                .list
                .skills
                .iter()
                .filter(|s| s.category == SkillCategory::Custom)
                .map(|s| s.name.clone())
                .collect()
        } else {
            names.to_vec()
        };
        for name in wanted {
            let (skill, _) = snapshot.find(&name, Some(SkillCategory::Custom))?;
            let enabled = skill.enabled;
            match self.installer.origin(&name) {
                Some(origin) => by_origin
                    .entry((origin.url.clone(), origin.git_ref.clone()))
                    .or_default()
                    .push(Imported {
                        name,
                        origin,
                        enabled,
                    }),
                None if !names.is_empty() => reports.push(UpdateReport {
                    name,
                    url: String::new(),
                    outcome: UpdateOutcome::Failed("it was not imported from Git".into()),
                }),
                None => {}
            }
        }
        for ((url, git_ref), skills) in by_origin {
            let fetched = match parse_source(&url, true) {
                Ok(source) => self.fetch(&source, git_ref.clone(), true).await,
                Err(e) => Err(e.into()),
            };
            for Imported {
                name,
                origin,
                enabled,
            } in skills
            {
                let outcome = match &fetched {
                    Err(e) => UpdateOutcome::Failed(e.to_string()),
                    Ok(f) => self.update_one(f, &name, origin, enabled).await,
                };
                reports.push(UpdateReport {
                    name,
                    url: url.clone(),
                    outcome,
                });
            }
        }
        Ok(reports)
    }

    async fn update_one(
        &self,
        fetched: &Fetched,
        name: &str,
        origin: SkillOrigin,
        enabled: bool,
    ) -> UpdateOutcome {
        if origin.commit.is_some() && origin.commit == fetched.commit {
            return UpdateOutcome::UpToDate;
        }
        let Some(found) = fetched
            .skills
            .iter()
            .find(|s| s.candidate.path == origin.path)
        else {
            return UpdateOutcome::Failed(format!(
                "the repository no longer holds a skill at '{}'",
                origin.path
            ));
        };
        if found.candidate.name != name {
            return UpdateOutcome::Failed(format!(
                "the skill at '{}' is now named '{}'",
                origin.path, found.candidate.name
            ));
        }
        if !found.candidate.installable {
            return UpdateOutcome::Failed(refusal(&found.candidate.findings));
        }
        let from = origin.commit.clone();
        let origin = SkillOrigin {
            commit: fetched.commit.clone(),
            imported_at: chrono::Utc::now().to_rfc3339(),
            ..origin
        };
        let file = match self.archive(found).await {
            Ok(f) => f,
            Err(e) => return UpdateOutcome::Failed(e.to_string()),
        };
        match self
            .install_recorded(file, true, enabled, Some(origin))
            .await
        {
            Ok(_) => UpdateOutcome::Updated {
                from,
                to: fetched.commit.clone(),
            },
            Err(e) => UpdateOutcome::Failed(e.to_string()),
        }
    }

    /// The `.skill` archive of an inspected skill, to install.
    async fn archive(&self, skill: &Prepared) -> Result<File, SkillOpError> {
        let (dir, top, limits, scratch) = (
            skill.dir.clone(),
            skill.top.clone(),
            self.imports.archive,
            self.imports.scratch.clone(),
        );
        let packed = tokio::task::spawn_blocking(move || git::pack(&dir, &top, &limits, &scratch))
            .await?
            .map_err(InstallError::Io)?;
        Ok(packed.file)
    }

    /// Fetches `source` and prepares every skill in it (one import at a time per permit).
    async fn fetch(
        &self,
        source: &Source,
        git_ref: Option<String>,
        include_hidden: bool,
    ) -> Result<Fetched, SkillOpError> {
        let _permit = self
            .imports
            .gate
            .acquire()
            .await
            .map_err(|e| SkillOpError::Internal(e.to_string()))?;
        let settings = self.imports.clone();
        let source = source.clone();
        Ok(tokio::task::spawn_blocking(move || {
            prepare(&source, git_ref.as_deref(), include_hidden, &settings)
        })
        .await??)
    }
}

/// Fetches, finds and packs (blocking).
fn prepare(
    source: &Source,
    git_ref: Option<&str>,
    include_hidden: bool,
    settings: &ImportSettings,
) -> Result<Fetched, ImportError> {
    let checkout = git::fetch(source, git_ref, &settings.limits, &settings.scratch)?;
    let search = git::find(
        &checkout.root,
        &FindOptions {
            include_hidden,
            ..Default::default()
        },
        &git::repository_name(source),
    );
    let mut skills = Vec::with_capacity(search.skills.len());
    for found in search.skills {
        let top = archive_folder(&found.name);
        let packed = git::pack(&found.dir, &top, &settings.archive, &settings.scratch)?;
        let inspection = archive::inspect(&packed.file, &settings.archive)
            .map_err(|e| ImportError::Io(std::io::Error::other(e.to_string())))?;
        let name = inspection.name().map_or(found.name.clone(), str::to_owned);
        let in_repo = |path: &str| {
            let rest = path.strip_prefix(&format!("{top}/")).unwrap_or(path);
            match (found.path.as_str(), rest) {
                (dir, "") => dir.to_string(),
                ("", rest) => rest.to_string(),
                (dir, rest) => format!("{dir}/{rest}"),
            }
        };
        let findings: Vec<InstallFinding> = packed
            .findings
            .into_iter()
            .chain(inspection.findings)
            .map(|f| InstallFinding {
                path: in_repo(&f.path),
                ..f
            })
            .collect();
        skills.push(Prepared {
            dir: found.dir,
            top,
            candidate: ImportCandidate {
                name,
                path: found.path,
                description: found.description,
                installable: findings.is_empty(),
                findings,
                warnings: inspection.warnings,
                exists: false,
                selected: false,
            },
        });
    }
    Ok(Fetched {
        commit: checkout.commit.clone(),
        _checkout: checkout,
        skills,
        hidden_skipped: search.hidden_skipped,
        truncated: search.truncated,
    })
}

/// The folder a skill is packed under: its name when that is a plain path segment.
fn archive_folder(name: &str) -> String {
    let plain = !name.is_empty()
        && name.len() <= 200
        && !name.starts_with('.')
        && !name.chars().any(|c| c.is_control() || "/\\:".contains(c));
    if plain {
        name.to_string()
    } else {
        "skill".to_string()
    }
}

/// Marks the chosen skills; a name or path that matches nothing, or a chosen skill that
/// would be refused, fails the whole import.
fn select(skills: &mut [Prepared], options: &ImportOptions) -> Result<(), SkillOpError> {
    if options.all {
        for s in skills.iter_mut() {
            s.candidate.selected = s.candidate.installable;
        }
    }
    let mut unknown = Vec::new();
    for wanted in &options.skills {
        let wanted = wanted.trim().trim_matches('/');
        let mut hit = false;
        for s in skills.iter_mut() {
            if s.candidate.path == wanted || s.candidate.name == wanted {
                if !s.candidate.installable {
                    let findings = s.candidate.findings.clone();
                    return Err(InstallError::Refused {
                        too_large: findings.iter().any(|f| archive::is_size_rule(&f.rule)),
                        findings,
                    }
                    .into());
                }
                s.candidate.selected = true;
                hit = true;
            }
        }
        if !hit {
            unknown.push(wanted.to_string());
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let mut available: Vec<String> = skills
        .iter()
        .take(30)
        .map(|s| s.candidate.name.clone())
        .collect();
    if skills.len() > available.len() {
        available.push(format!("… ({} more)", skills.len() - available.len()));
    }
    Err(SkillOpError::UnknownImport { unknown, available })
}

fn refusal(findings: &[InstallFinding]) -> String {
    let listed: Vec<String> = findings
        .iter()
        .take(3)
        .map(|f| format!("[{}] {}: {}", f.rule, f.path, f.message))
        .collect();
    format!("refused: {}", listed.join("; "))
}
