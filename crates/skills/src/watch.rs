//! Keeps the catalog fresh when files change on disk (debounced).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::Catalog;

/// Stops watching when dropped.
pub struct WatchGuard {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
}

impl std::fmt::Debug for WatchGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchGuard")
    }
}

/// Watches the catalog's skills directory recursively and refreshes the skills whose files
/// changed once changes settle for `debounce`. Reads (including the scan's own) and changes only inside hidden entries
/// (staging areas, `.history`) are ignored, so a rescan never triggers another.
pub fn watch(catalog: Arc<Catalog>, debounce: Duration) -> notify::Result<WatchGuard> {
    let root = catalog.skills_dir().to_path_buf();
    let handler_root = root.clone();
    let mut debouncer =
        new_debouncer(
            debounce,
            None,
            move |result: DebounceEventResult| match result {
                Ok(events) => {
                    let paths: Vec<std::path::PathBuf> = events
                        .iter()
                        .filter(|e| !e.event.kind.is_access())
                        .flat_map(|e| e.event.paths.iter())
                        .filter(|p| visible(&handler_root, p))
                        .cloned()
                        .collect();
                    if !paths.is_empty() {
                        // Only the skills the changed files belong to are read again.
                        let snapshot = catalog.refresh_paths(&paths);
                        tracing::info!(
                            version = snapshot.version,
                            skills = snapshot.list.skills.len(),
                            changed = paths.len(),
                            "skills changed on disk; catalog refreshed"
                        );
                    }
                }
                Err(errors) => {
                    for error in errors {
                        tracing::warn!(%error, "skills watcher error");
                    }
                }
            },
        )?;
    debouncer.watch(&root, RecursiveMode::Recursive)?;
    Ok(WatchGuard {
        _debouncer: debouncer,
    })
}

/// True when no component below `root` is hidden.
fn visible(root: &Path, path: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    !rel.components().any(|c| {
        c.as_os_str()
            .to_str()
            .is_some_and(|s| s.starts_with('.') && s != "." && s != "..")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_paths_do_not_trigger_rescans() {
        let root = Path::new("/skills");
        assert!(visible(root, Path::new("/skills/custom/new/SKILL.md")));
        assert!(!visible(
            root,
            Path::new("/skills/custom/.staging-1/SKILL.md")
        ));
        assert!(!visible(
            root,
            Path::new("/skills/custom/.history/a/1/SKILL.md")
        ));
    }

    #[test]
    fn a_skill_copied_in_by_hand_appears_without_a_reload() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("custom")).unwrap();
        let catalog = Arc::new(Catalog::load(
            tmp.path(),
            crate::ScanLimits::default(),
            Default::default(),
        ));
        let _guard = watch(catalog.clone(), Duration::from_millis(100)).unwrap();
        let mut rx = catalog.subscribe();
        crate::discovery::tests::write_skill(&tmp.path().join("custom/by-hand"), "by-hand", "d");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            tokio::time::timeout(Duration::from_secs(10), async {
                while catalog.snapshot().list.skills.is_empty() {
                    rx.changed().await.unwrap();
                }
            })
            .await
            .unwrap();
        });
        assert_eq!(catalog.snapshot().list.skills[0].name, "by-hand");
    }
}
