//! Office files (Word, Excel, PowerPoint, OpenDocument) previewed as PDF: converted by
//! LibreOffice in the thread's own sandbox (never in the server), cached per content hash
//! under the thread's root, outside what the agent sees.

use std::path::{Path, PathBuf};
use std::time::Duration;

use antler_protocol::paths::USER_DATA_ROOT;
use antler_sandbox::{SandboxProvider, ThreadDirs, UserDataDir};

use super::job::{self, JobError, quote};

use super::{FilesService, beneath};

/// Extensions previewed as PDF (lower case).
const OFFICE: &[&str] = &[
    "docx", "doc", "odt", "rtf", "xlsx", "xls", "ods", "pptx", "ppt", "odp",
];

/// Longest a conversion may run.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Why there is no preview.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// Not an office file.
    #[error("previews as PDF are made for Word, Excel, PowerPoint and OpenDocument files")]
    NotOffice,
    /// No sandbox that can convert.
    #[error("{0}")]
    Unavailable(String),
    /// The conversion failed.
    #[error("{0}")]
    Failed(String),
}

/// Whether `name` is previewed as PDF.
pub fn is_office(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && OFFICE.contains(&ext.to_ascii_lowercase().as_str())
    })
}

impl FilesService {
    /// The PDF rendering of the office file at `virtual_path` (a file under
    /// `/mnt/user-data` whose content hash is `hash`), made now or earlier.
    pub async fn office_preview(
        &self,
        dirs: &ThreadDirs,
        thread_id: &str,
        owner: &str,
        virtual_path: &str,
        hash: &str,
    ) -> Result<PathBuf, PreviewError> {
        let name = virtual_path.rsplit('/').next().unwrap_or_default();
        if !is_office(name) {
            return Err(PreviewError::NotOffice);
        }
        let safe_hash: String = hash.chars().filter(char::is_ascii_hexdigit).collect();
        let cached = dirs
            .thread_root()
            .join("previews")
            .join(format!("{safe_hash}.pdf"));
        if tokio::fs::metadata(&cached).await.is_ok() {
            return Ok(cached);
        }
        let provider = match &self.converter {
            Some(c) if c.provider().kind() == "docker" => c.provider().clone(),
            _ => {
                return Err(PreviewError::Unavailable(
                    "previews are made in the Docker sandbox, which this server does not use"
                        .into(),
                ));
            }
        };
        // Its own folder per request: two previews of one file at once never share output.
        let scratch = scratch_name();
        let in_sandbox = format!("{USER_DATA_ROOT}/workspace/{scratch}");
        convert(
            provider.as_ref(),
            thread_id,
            owner,
            virtual_path,
            &in_sandbox,
        )
        .await?;
        let workspace = dirs.dir(UserDataDir::Workspace);
        let made = PathBuf::from(&scratch).join(pdf_name(name));
        let keep = cached.clone();
        let result = tokio::task::spawn_blocking(move || keep_copy(&workspace, &made, &keep))
            .await
            .map_err(|e| PreviewError::Failed(e.to_string()))?;
        let _ = tokio::fs::remove_dir_all(dirs.dir(UserDataDir::Workspace).join(&scratch)).await;
        result?;
        Ok(cached)
    }
}

/// Largest PDF rendering kept.
const MAX_PDF_BYTES: u64 = 200 * 1024 * 1024;

/// Copies the rendering at `made` (relative to the workspace, which the sandbox can change
/// at will) into the cache. Opened beneath the workspace: a link the agent put there cannot
/// make the server read, or later serve, a file of its own.
fn keep_copy(workspace: &Path, made: &Path, cached: &Path) -> Result<(), PreviewError> {
    let failed =
        |e: &dyn std::fmt::Display| PreviewError::Failed(format!("the PDF could not be kept: {e}"));
    let mut source = beneath::open(workspace, made).map_err(|e| failed(&e))?;
    let meta = source.metadata().map_err(|e| failed(&e))?;
    if !meta.is_file() || meta.len() > MAX_PDF_BYTES {
        return Err(failed(&"not a file of at most 200 MiB"));
    }
    let dir = cached.parent().ok_or_else(|| failed(&"no cache folder"))?;
    std::fs::create_dir_all(dir).map_err(|e| failed(&e))?;
    let mut copy = tempfile::NamedTempFile::new_in(dir).map_err(|e| failed(&e))?;
    std::io::copy(
        &mut std::io::Read::take(&mut source, MAX_PDF_BYTES),
        &mut copy,
    )
    .map_err(|e| failed(&e))?;
    copy.persist(cached).map_err(|e| failed(&e.error))?;
    Ok(())
}

/// Where LibreOffice writes, in the workspace (hidden; removed right after).
fn scratch_name() -> String {
    format!(".antler-preview-{}", uuid::Uuid::new_v4().simple())
}

/// LibreOffice's output name: the input's stem with `.pdf`.
fn pdf_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    format!("{stem}.pdf")
}

/// Runs LibreOffice on `virtual_path` in the thread's sandbox, writing into `out` (a
/// container path).
async fn convert(
    provider: &dyn SandboxProvider,
    thread_id: &str,
    owner: &str,
    virtual_path: &str,
    out: &str,
) -> Result<(), PreviewError> {
    let name = virtual_path.rsplit('/').next().unwrap_or_default();
    // Its own LibreOffice profile: two previews at once in one sandbox must not share one.
    let command = format!(
        "command -v soffice >/dev/null 2>&1 || {{ echo 'this sandbox image has no LibreOffice (antler-sandbox:full has it)' >&2; exit 127; }}\n\
         out={out}; profile=$(mktemp -d /tmp/lo-XXXXXX)\n\
         mkdir -p \"$out\" && cd /tmp && soffice -env:UserInstallation=file://$profile --headless --norestore --convert-to pdf --outdir \"$out\" {src} >/dev/null; status=$?\n\
         rm -rf \"$profile\"\n\
         [ $status -eq 0 ] && [ -s \"$out\"/{pdf} ] || {{ echo 'LibreOffice could not convert it' >&2; exit 1; }}",
        out = quote(out),
        src = quote(virtual_path),
        pdf = quote(&pdf_name(name)),
    );
    job::run(provider, thread_id, owner, command, TIME_LIMIT)
        .await
        .map_err(|e| match e {
            JobError::NoSandbox(_) => PreviewError::Unavailable(e.to_string()),
            _ => PreviewError::Failed(e.to_string()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn office_files_are_previewed() {
        for name in ["a.docx", "b.XLSX", "c.pptx", "d.odt", "e.doc", "f.rtf"] {
            assert!(is_office(name), "{name}");
        }
        for name in ["a.pdf", "docx", ".docx", "a.docx.md", "a.txt"] {
            assert!(!is_office(name), "{name}");
        }
        assert_eq!(pdf_name("deck.final.pptx"), "deck.final.pdf");
    }

    #[test]
    fn only_a_rendering_inside_the_workspace_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let workspace = tmp.path().join("workspace");
        std::fs::create_dir_all(workspace.join(".antler-preview-a")).unwrap();
        std::fs::write(workspace.join(".antler-preview-a/plan.pdf"), "%PDF-1.4 x").unwrap();
        let cached = tmp.path().join("previews/h.pdf");
        keep_copy(&workspace, Path::new(".antler-preview-a/plan.pdf"), &cached).unwrap();
        assert_eq!(std::fs::read_to_string(&cached).unwrap(), "%PDF-1.4 x");

        // The sandbox swapped in links to a server file: neither the file nor the folder is
        // followed out, and nothing is cached.
        let secret = tmp.path().join("server-secret");
        std::fs::write(&secret, "private").unwrap();
        std::os::unix::fs::symlink(&secret, workspace.join(".antler-preview-a/deck.pdf")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), workspace.join(".antler-preview-b")).unwrap();
        let other = tmp.path().join("previews/g.pdf");
        for made in [
            ".antler-preview-a/deck.pdf",
            ".antler-preview-b/server-secret",
        ] {
            assert!(
                keep_copy(&workspace, Path::new(made), &other).is_err(),
                "{made}"
            );
        }
        assert!(!other.exists());
    }
}
