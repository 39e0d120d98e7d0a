//! Watching a directory tree with inotify: one watch per visible folder, added as folders
//! appear. Only changes are asked for — never opens or reads — so the server's own scans
//! and the sandbox view's walks of 10,000 skills cause no events at all, and cannot flood
//! the kernel's queue into a needless full rescan.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

/// What a folder watch reports: its entries created, deleted, written, renamed or changed
/// in mode, and the folder itself going away.
fn mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

/// A running tree watch; stops its thread when dropped.
pub(super) struct TreeWatch {
    watches: Watches,
    root: WatchDescriptor,
    stop: Arc<AtomicBool>,
}

impl Drop for TreeWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Removing a watch queues an IN_IGNORED event, which wakes the reading thread.
        let _ = self.watches.remove(self.root.clone());
    }
}

/// The folders being watched.
struct Tree {
    root: PathBuf,
    watches: Watches,
    /// Each watched folder, relative to `root` (empty for the root): with 10,000 skills
    /// there are twice as many folders, and their full paths were most of the watcher's
    /// memory.
    dirs: HashMap<WatchDescriptor, Box<Path>>,
    /// Set once the kernel refused a watch (its per-user limit), so it is said once.
    limit_hit: bool,
}

impl Tree {
    /// Watches `dir` and every visible folder below it (symbolic links are not followed).
    fn add_all(&mut self, dir: &Path) {
        let walk = walkdir::WalkDir::new(dir)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !hidden(e.file_name()));
        for entry in walk.flatten() {
            if entry.file_type().is_dir() {
                self.add(entry.path());
            }
        }
    }

    fn add(&mut self, dir: &Path) {
        // The skills directory itself may be a link (to a volume); nothing below it is
        // followed.
        let mask = if dir == self.root {
            mask() - WatchMask::DONT_FOLLOW
        } else {
            mask()
        };
        match self.watches.add(dir, mask) {
            Ok(wd) => {
                let relative = dir.strip_prefix(&self.root).unwrap_or(dir);
                self.dirs.insert(wd, relative.into());
            }
            // The kernel's per-user limit: said once, the rest is known from it.
            Err(error) if error.raw_os_error() == Some(enospc()) => {
                if !self.limit_hit {
                    self.limit_hit = true;
                    tracing::warn!(%error, path = %dir.display(), "cannot watch more skill folders (raise fs.inotify.max_user_watches); changes below them need POST /api/skills/reload");
                }
            }
            // Gone or replaced already (a short-lived folder): its parent reports that.
            Err(error) => {
                tracing::debug!(%error, path = %dir.display(), "skill folder not watched");
            }
        }
    }
}

/// Starts watching `root` recursively; every changed visible path is sent to `tx` (the root
/// itself when events were lost and only a full rescan is safe).
pub(super) fn start(root: &Path, tx: Sender<PathBuf>) -> io::Result<TreeWatch> {
    let inotify = Inotify::init()?;
    let watches = inotify.watches();
    let mut tree = Tree {
        root: root.to_path_buf(),
        watches: watches.clone(),
        dirs: HashMap::new(),
        limit_hit: false,
    };
    let root_wd = tree.watches.add(root, mask() - WatchMask::DONT_FOLLOW)?;
    tree.dirs.insert(root_wd.clone(), Path::new("").into());
    tree.add_all(root);
    let stop = Arc::new(AtomicBool::new(false));
    let stopping = stop.clone();
    std::thread::Builder::new()
        .name("skills-inotify".into())
        .spawn(move || read_events(inotify, tree, &tx, &stopping))?;
    Ok(TreeWatch {
        watches,
        root: root_wd,
        stop,
    })
}

fn read_events(mut inotify: Inotify, mut tree: Tree, tx: &Sender<PathBuf>, stop: &AtomicBool) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let events = match inotify.read_events_blocking(&mut buffer) {
            Ok(events) => events,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => {
                tracing::warn!(%error, "skills watcher stopped reading events");
                return;
            }
        };
        let mut changed = Vec::new();
        let mut new_dirs = Vec::new();
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                changed.push(tree.root.clone());
                continue;
            }
            if event.mask.contains(EventMask::IGNORED) {
                tree.dirs.remove(&event.wd);
                continue;
            }
            let Some(dir) = tree.dirs.get(&event.wd) else {
                continue;
            };
            let dir = match dir.as_os_str().is_empty() {
                true => tree.root.clone(),
                false => tree.root.join(dir),
            };
            let path = match event.name {
                Some(name) if hidden(name) => continue,
                Some(name) => dir.join(name),
                None => dir,
            };
            if event.mask.contains(EventMask::ISDIR)
                && event
                    .mask
                    .intersects(EventMask::CREATE | EventMask::MOVED_TO)
            {
                new_dirs.push(path.clone());
            }
            changed.push(path);
        }
        if stop.load(Ordering::SeqCst) {
            return;
        }
        // Watched before the refresh reads them: a file written meanwhile is reported too.
        for dir in new_dirs {
            tree.add_all(&dir);
        }
        for path in changed {
            if tx.send(path).is_err() {
                return;
            }
        }
    }
}

/// `ENOSPC`: what `inotify_add_watch` answers at the per-user watch limit.
fn enospc() -> i32 {
    rustix::io::Errno::NOSPC.raw_os_error()
}

/// Dot-entries: staging areas, `.history`, editors' swap files, VCS folders.
fn hidden(name: &OsStr) -> bool {
    name.to_str().is_some_and(|s| s.starts_with('.'))
}
