//! Listing every file under a thread's `/mnt/user-data`.

use std::path::Path;

use antler_protocol::files::Artifact;
use antler_sandbox::ThreadDirs;
use percent_encoding::utf8_percent_encode;

use super::names::PATH_SEGMENT;
use super::serve::content_type;

/// Most files listed; the listing says when it stopped.
pub const MAX_LISTED: usize = 10_000;
/// Deepest directory level listed.
pub const MAX_DEPTH: usize = 32;

/// Walks the thread's user-data without following symlinks; hidden entries are skipped.
pub fn list_artifacts(thread_id: &str, dirs: &ThreadDirs) -> (Vec<Artifact>, bool) {
    let mut out = Vec::new();
    let mut truncated = false;
    let mut stack = vec![(dirs.user_data().to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.filter_map(Result::ok) {
            let name = entry.file_name();
            if name.to_str().is_none_or(|n| n.starts_with('.')) {
                continue;
            }
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            if ft.is_dir() && depth < MAX_DEPTH {
                stack.push((path, depth + 1));
            } else if ft.is_file() {
                if out.len() >= MAX_LISTED {
                    truncated = true;
                    stack.clear();
                    break;
                }
                let Some(virtual_path) = dirs.to_virtual(&path) else {
                    continue;
                };
                let Ok(meta) = entry.metadata() else { continue };
                out.push(Artifact {
                    artifact_url: artifact_url(thread_id, &virtual_path),
                    content_type: content_type(&virtual_path, &sample(&path)),
                    size: meta.len(),
                    modified_at: meta
                        .modified()
                        .map(|t| antler_store::threads::timestamp(t.into()))
                        .unwrap_or_default(),
                    virtual_path,
                });
            }
        }
    }
    out.sort_by(|a, b| a.virtual_path.cmp(&b.virtual_path));
    (out, truncated)
}

/// The first bytes of a file whose extension says nothing about its type.
fn sample(path: &Path) -> Vec<u8> {
    if mime_guess::from_path(path).first().is_some() {
        return Vec::new();
    }
    let mut buf = vec![0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut buf))
        .unwrap_or(0);
    buf.truncate(n);
    buf
}

/// `/api/threads/<id>/artifacts/mnt/user-data/...` with each segment percent-encoded.
pub fn artifact_url(thread_id: &str, virtual_path: &str) -> String {
    let mut url = format!("/api/threads/{thread_id}/artifacts");
    for segment in virtual_path.split('/').filter(|s| !s.is_empty()) {
        url.push('/');
        url.extend(utf8_percent_encode(segment, PATH_SEGMENT));
    }
    url
}
