//! Reading a skill's body and file list on demand (never cached: bodies can be large).

use std::path::Path;

use antler_protocol::skills::SkillFile;

use crate::{SKILL_FILE, frontmatter};

/// Most files listed for one skill; the rest are left out.
pub const MAX_LISTED_FILES: usize = 2_000;

/// Reads the markdown body (without frontmatter) of the skill in `dir`.
pub fn read_body(dir: &Path) -> std::io::Result<String> {
    let text = std::fs::read_to_string(dir.join(SKILL_FILE))?;
    Ok(frontmatter::split(&text)
        .map(|(_, body)| body)
        .unwrap_or(text))
}

/// Lists every regular file under `dir` (relative `/`-separated paths, sorted). Symlinks are
/// not followed, so a skill cannot expose files outside itself through this listing.
pub fn list_files(dir: &Path) -> Vec<SkillFile> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, rel)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in read.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push((entry.path(), child));
            } else if ft.is_file() {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                out.push(SkillFile { path: child, size });
                if out.len() >= MAX_LISTED_FILES {
                    stack.clear();
                    break;
                }
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_nested_files_and_reads_the_body() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("scripts")).unwrap();
        std::fs::write(tmp.path().join("SKILL.md"), "---\nname: a\n---\nHello\n").unwrap();
        std::fs::write(tmp.path().join("scripts/run.py"), "print(1)\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", tmp.path().join("leak")).unwrap();
        let files = list_files(tmp.path());
        let paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "scripts/run.py"]);
        assert_eq!(files[1].size, 9);
        assert_eq!(read_body(tmp.path()).unwrap(), "Hello\n");
    }
}
