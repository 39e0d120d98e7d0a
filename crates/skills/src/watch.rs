//! Keeps the catalog fresh when files change on disk (debounced).
//!
//! Events are filtered where notify delivers them: a scan opens every folder and file of the
//! catalog, and with tens of thousands of skills the open events of one rescan would cost a
//! general-purpose debouncer more than the rescan itself. What remains (writes, creations,
//! removals, renames outside hidden folders) is gathered until the changes settle, and only
//! the skills they touch are read again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use crate::Catalog;

/// Stops watching when dropped.
pub struct WatchGuard {
    _watcher: RecommendedWatcher,
}

impl std::fmt::Debug for WatchGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchGuard")
    }
}

/// Watches the catalog's skills directory recursively and refreshes the skills whose files
/// changed once changes settle for `debounce`. Reads (including the scan's own) and changes
/// only inside hidden entries (staging areas, `.history`) are ignored, so a refresh never
/// triggers another.
pub fn watch(catalog: Arc<Catalog>, debounce: Duration) -> notify::Result<WatchGuard> {
    let root = catalog.skills_dir().to_path_buf();
    let filter_root = root.clone();
    let (tx, rx) = std::sync::mpsc::channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
        match result {
            // Events were lost (the kernel queue overflowed): only a full rescan is safe.
            Ok(event) if event.need_rescan() => {
                let _ = tx.send(filter_root.clone());
            }
            Ok(event) if !event.kind.is_access() => {
                for path in event.paths {
                    if visible(&filter_root, &path) {
                        let _ = tx.send(path);
                    }
                }
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "skills watcher error"),
        }
    })?;
    watcher.watch(&root, RecursiveMode::Recursive)?;
    // Ends when the watcher (and with it the sender) is dropped.
    std::thread::Builder::new()
        .name("skills-watch".into())
        .spawn(move || settle_and_refresh(&rx, debounce, &catalog))
        .map_err(|e| notify::Error::generic(&e.to_string()))?;
    Ok(WatchGuard { _watcher: watcher })
}

/// Gathers changed paths until none arrives for `quiet`, then refreshes what they touch.
fn settle_and_refresh(rx: &Receiver<PathBuf>, quiet: Duration, catalog: &Catalog) {
    // Changes that never pause (a long copy) are applied at least this often.
    let longest = (quiet * 10).max(Duration::from_secs(2));
    while let Ok(first) = rx.recv() {
        let started = std::time::Instant::now();
        let mut paths = BTreeSet::from([first]);
        while started.elapsed() < longest {
            match rx.recv_timeout(quiet) {
                Ok(path) => {
                    paths.insert(path);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        let paths: Vec<PathBuf> = paths.into_iter().collect();
        let snapshot = catalog.refresh_paths(&paths);
        tracing::info!(
            version = snapshot.version,
            skills = snapshot.list.skills.len(),
            changed = paths.len(),
            "skills changed on disk; catalog refreshed"
        );
    }
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
