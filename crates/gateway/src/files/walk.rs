//! Listing every file under a thread's `/mnt/user-data`.

use std::ops::ControlFlow;

use antler_app::files::walk::{Entry, walk};
use antler_app::files::{ThreadDirs, artifact_url, timestamp};
use antler_protocol::files::Artifact;
use antler_protocol::paths::USER_DATA_ROOT;

use super::serve::content_type;

/// Most files listed; the listing says when it stopped.
pub const MAX_LISTED: usize = 10_000;
/// Deepest directory level listed.
pub const MAX_DEPTH: usize = 32;

/// Walks the thread's user-data by directory descriptor (the sandbox can swap a directory
/// for a symlink at any moment: nothing outside is ever listed or read); hidden entries
/// are skipped.
pub fn list_artifacts(thread_id: &str, dirs: &ThreadDirs) -> (Vec<Artifact>, bool) {
    let mut out = Vec::new();
    let mut truncated = false;
    let Ok(root) = std::fs::File::open(dirs.user_data()) else {
        return (out, truncated);
    };
    walk(&root, MAX_DEPTH, &mut |entry| {
        let hidden = entry
            .rel
            .iter()
            .any(|c| c.to_str().is_none_or(|c| c.starts_with('.')));
        if hidden || !entry.is_file {
            return ControlFlow::Continue(());
        }
        if out.len() >= MAX_LISTED {
            truncated = true;
            return ControlFlow::Break(());
        }
        let virtual_path = format!("{USER_DATA_ROOT}/{}", entry.rel.to_string_lossy());
        out.push(Artifact {
            artifact_url: artifact_url(thread_id, &virtual_path),
            content_type: content_type(&virtual_path, &sample(entry)),
            size: entry.size,
            modified_at: entry
                .modified
                .map(|t| timestamp(t.into()))
                .unwrap_or_default(),
            virtual_path,
        });
        ControlFlow::Continue(())
    });
    out.sort_by(|a, b| a.virtual_path.cmp(&b.virtual_path));
    (out, truncated)
}

/// The first bytes of a file whose extension says nothing about its type.
fn sample(entry: &Entry<'_>) -> Vec<u8> {
    if mime_guess::from_path(entry.rel).first().is_some() {
        return Vec::new();
    }
    let mut buf = vec![0u8; 512];
    let n = entry
        .open_file()
        .and_then(|mut f| std::io::Read::read(&mut f, &mut buf))
        .unwrap_or(0);
    buf.truncate(n);
    buf
}
