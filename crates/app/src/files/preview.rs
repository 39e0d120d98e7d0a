//! Office files (Word, Excel, PowerPoint, OpenDocument) previewed as PDF: converted by
//! LibreOffice in the thread's own sandbox (never in the server), cached per content hash
//! under the thread's root, outside what the agent sees.

use std::path::PathBuf;
use std::time::Duration;

use antler_protocol::paths::USER_DATA_ROOT;
use antler_sandbox::{SandboxProvider, ThreadDirs, UserDataDir};

use super::job::{self, JobError, quote};

use super::FilesService;

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
        let scratch = format!("{USER_DATA_ROOT}/workspace/{}", scratch_name(&safe_hash));
        convert(provider.as_ref(), thread_id, owner, virtual_path, &scratch).await?;
        let made = dirs
            .dir(UserDataDir::Workspace)
            .join(scratch_name(&safe_hash))
            .join(pdf_name(name));
        let result = async {
            tokio::fs::create_dir_all(cached.parent().unwrap_or(dirs.thread_root())).await?;
            tokio::fs::rename(&made, &cached).await
        }
        .await;
        let _ = tokio::fs::remove_dir_all(
            dirs.dir(UserDataDir::Workspace)
                .join(scratch_name(&safe_hash)),
        )
        .await;
        result.map_err(|e| PreviewError::Failed(format!("the PDF could not be kept: {e}")))?;
        Ok(cached)
    }
}

/// Where LibreOffice writes, in the workspace (hidden; removed right after).
fn scratch_name(hash: &str) -> String {
    format!(".antler-preview-{}", hash.get(..16).unwrap_or(hash))
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
}
