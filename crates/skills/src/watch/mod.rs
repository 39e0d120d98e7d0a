//! Keeps the catalog fresh when files change on disk (debounced).
//!
//! The skills folder is watched with inotify for changes only ([`tree`]): a scan opens
//! every folder and file of the catalog, and with tens of thousands of skills even
//! filtered-out open events would cost more than the rescan itself and could overflow the
//! kernel's queue. Changes (writes, creations, removals, renames outside hidden folders)
//! are gathered until they settle, and only the skills they touch are read again.

mod tree;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use crate::Catalog;

/// Stops watching when dropped.
pub struct WatchGuard {
    _tree: tree::TreeWatch,
}

impl std::fmt::Debug for WatchGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WatchGuard")
    }
}

/// Watches the catalog's skills directory recursively and refreshes the skills whose files
/// changed once changes settle for `debounce`. Reads (including the scan's own) and changes
/// only inside hidden entries (staging areas, `.history`) are not reported, so a refresh
/// never triggers another. Symbolic links are not followed: a linked folder inside the
/// skills directory is watched where it really is.
pub fn watch(catalog: Arc<Catalog>, debounce: Duration) -> std::io::Result<WatchGuard> {
    let (tx, rx) = std::sync::mpsc::channel::<PathBuf>();
    let tree = tree::start(catalog.skills_dir(), tx)?;
    // Ends when the tree watch (and with it the sender) is gone.
    std::thread::Builder::new()
        .name("skills-watch".into())
        .spawn(move || settle_and_refresh(&rx, debounce, &catalog))?;
    Ok(WatchGuard { _tree: tree })
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

#[cfg(test)]
mod tests;
