//! Documents the agent can read: an uploaded PDF, Word, PowerPoint, Excel, CSV, HTML or EPUB
//! file gets a Markdown version beside it (`report.pdf` → `report.pdf.md`), made inside the
//! thread's own sandbox by `markitdown` (the full image has it), never parsed in the server.
//!
//! Where each conversion stands is a small JSON file per upload under the thread's root,
//! outside what the agent sees: it survives a restart, and one left `pending` by a crash is
//! reported as interrupted once it is older than a conversion may take.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError};
use std::time::{Duration, SystemTime};

use antler_protocol::files::{Conversion, ConversionStatus};
use antler_protocol::paths::USER_DATA_ROOT;
use antler_sandbox::{FileAccess, SandboxProvider, ThreadDirs, UserDataDir, beneath};

use super::job::{self, JobError, quote};

/// Extensions converted (lower case).
const CONVERTIBLE: &[&str] = &[
    "pdf", "docx", "pptx", "xlsx", "xls", "csv", "html", "htm", "epub",
];

/// Longest a conversion may run.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Largest Markdown version kept; the rest is cut with a note (the original stays whole).
const MAX_MARKDOWN_BYTES: u64 = 8 * 1024 * 1024;

/// Whether `name` is a document that gets a Markdown version.
pub fn convertible(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && CONVERTIBLE.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// The Markdown version's file name.
pub fn markdown_name(name: &str) -> String {
    format!("{name}.md")
}

/// Converts uploads in their thread's sandbox.
#[derive(Clone)]
pub struct Converter {
    provider: Arc<dyn SandboxProvider>,
    /// How files the server rewrites stay usable by the sandbox user.
    access: FileAccess,
    /// One conversion at a time per thread (its sandbox has one CPU), in upload order.
    queues: Arc<std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>>,
}

impl std::fmt::Debug for Converter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Converter")
            .field("provider", &self.provider.kind())
            .finish()
    }
}

impl Converter {
    /// Converts with `provider`'s sandboxes (Docker only: the local provider runs no tools).
    pub fn new(provider: Arc<dyn SandboxProvider>) -> Self {
        Converter {
            access: provider.file_access(),
            provider,
            queues: Arc::default(),
        }
    }

    /// The sandboxes it converts in.
    pub(crate) fn provider(&self) -> &Arc<dyn SandboxProvider> {
        &self.provider
    }

    /// Marks each convertible file of `names` pending and converts them one after another
    /// in the background, after the thread's earlier uploads (a sandbox runs one thread's
    /// work; several large documents at once would only compete for its CPU).
    pub(crate) fn start(&self, dirs: &ThreadDirs, thread_id: &str, owner: &str, names: &[String]) {
        let names: Vec<String> = names.iter().filter(|n| convertible(n)).cloned().collect();
        if names.is_empty() {
            return;
        }
        if self.provider.kind() != "docker" {
            for name in &names {
                record(
                    dirs,
                    name,
                    &Conversion {
                        status: ConversionStatus::Skipped,
                        virtual_path: None,
                        error: Some(
                            "documents are converted in the Docker sandbox, which this server does not use".into(),
                        ),
                    },
                );
            }
            return;
        }
        for name in &names {
            record(dirs, name, &pending());
        }
        let this = self.clone();
        let dirs = dirs.clone();
        let (thread_id, owner) = (thread_id.to_string(), owner.to_string());
        let queue = {
            let mut queues = this.queues.lock().unwrap_or_else(PoisonError::into_inner);
            queues.entry(thread_id.clone()).or_default().clone()
        };
        tokio::spawn(async move {
            let turn = queue.lock().await;
            for name in names {
                let outcome = this.convert(&dirs, &thread_id, &owner, &name).await;
                if let Some(error) = &outcome.error {
                    tracing::info!(thread.id = %thread_id, file = %name, %error, "document not converted");
                }
                record(&dirs, &name, &outcome);
            }
            drop(turn);
            // The queue goes with the last batch that held it.
            let mut queues = this.queues.lock().unwrap_or_else(PoisonError::into_inner);
            if Arc::strong_count(&queue) == 2 {
                queues.remove(&thread_id);
            }
        });
    }

    async fn convert(
        &self,
        dirs: &ThreadDirs,
        thread_id: &str,
        owner: &str,
        name: &str,
    ) -> Conversion {
        let failed = |error: String| Conversion {
            status: ConversionStatus::Failed,
            virtual_path: None,
            error: Some(error),
        };
        let md = markdown_name(name);
        let part = format!(".{md}.part");
        let command = format!(
            "cd {USER_DATA_ROOT}/uploads || exit 1\n\
             command -v markitdown >/dev/null 2>&1 || {{ echo 'this sandbox image has no markitdown (antler-sandbox:full has it)' >&2; exit 127; }}\n\
             markitdown ./{} > {part} && mv -f {part} {md_q} || {{ status=$?; rm -f {part}; exit $status; }}",
            quote(name),
            part = quote(&part),
            md_q = quote(&md),
        );
        match job::run(
            self.provider.as_ref(),
            thread_id,
            owner,
            command,
            TIME_LIMIT,
        )
        .await
        {
            Ok(()) => {}
            Err(e @ JobError::Failed(_)) => return failed(format!("could not convert it: {e}")),
            Err(e) => return failed(e.to_string()),
        }
        if let Err(e) = cap(&dirs.dir(UserDataDir::Uploads), &md, self.access).await {
            return failed(format!("the Markdown version could not be kept: {e}"));
        }
        Conversion {
            status: ConversionStatus::Done,
            virtual_path: Some(format!("{USER_DATA_ROOT}/uploads/{md}")),
            error: None,
        }
    }
}

fn pending() -> Conversion {
    Conversion {
        status: ConversionStatus::Pending,
        virtual_path: None,
        error: None,
    }
}

/// Cuts an over-long Markdown version, saying so at its end. The file is the sandbox's to
/// change at will, so it is opened beneath the uploads folder: a link there cannot lead the
/// server to cut a file of its own.
async fn cap(uploads: &Path, md: &str, access: FileAccess) -> std::io::Result<()> {
    let (uploads, md) = (uploads.to_path_buf(), PathBuf::from(md));
    tokio::task::spawn_blocking(move || {
        use std::io::{Read as _, Write as _};
        let file = beneath::open(&uploads, &md).map_err(std::io::Error::other)?;
        let size = file.metadata()?.len();
        if size <= MAX_MARKDOWN_BYTES {
            return Ok(());
        }
        let mut kept = Vec::new();
        file.take(MAX_MARKDOWN_BYTES).read_to_end(&mut kept)?;
        let mut out = beneath::create(&uploads, &md, false, access).map_err(std::io::Error::other)?;
        out.write_all(&kept)?;
        write!(
            out,
            "\n\n[cut: the Markdown version is {size} bytes; the first {MAX_MARKDOWN_BYTES} are kept. Read the original for the rest.]\n"
        )
    })
    .await
    .map_err(std::io::Error::other)?
}

fn status_path(dirs: &ThreadDirs, name: &str) -> PathBuf {
    dirs.thread_root()
        .join("conversions")
        .join(format!("{name}.json"))
}

/// Writes where a conversion stands (replacing the previous state at once).
fn record(dirs: &ThreadDirs, name: &str, conversion: &Conversion) {
    let path = status_path(dirs, name);
    let write = || -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(dirs.thread_root());
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer(&mut file, conversion)?;
        file.persist(&path).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(error) = write() {
        tracing::warn!(%error, file = name, "conversion state not recorded");
    }
}

/// Where the conversion of upload `name` stands; `None` for files that are not converted
/// (or were uploaded before conversions existed).
pub(crate) fn status(dirs: &ThreadDirs, name: &str) -> Option<Conversion> {
    let path = status_path(dirs, name);
    let text = std::fs::read(&path).ok()?;
    let found: Conversion = serde_json::from_slice(&text).ok()?;
    if found.status == ConversionStatus::Pending {
        // Pending for longer than any conversion runs: the server stopped during it.
        let age = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .unwrap_or_default();
        if age > TIME_LIMIT + Duration::from_secs(60) {
            return Some(Conversion {
                status: ConversionStatus::Failed,
                virtual_path: None,
                error: Some(
                    "the conversion was interrupted (the server stopped); upload the file again"
                        .into(),
                ),
            });
        }
    }
    Some(found)
}

/// Forgets upload `name`'s conversion and removes its Markdown version.
pub(crate) fn forget(dirs: &ThreadDirs, name: &str) {
    if !convertible(name) {
        return;
    }
    let _ = std::fs::remove_file(status_path(dirs, name));
    let md = dirs.dir(UserDataDir::Uploads).join(markdown_name(name));
    let _ = std::fs::remove_file(md);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_are_convertible_other_files_are_not() {
        for name in [
            "report.pdf",
            "a.DOCX",
            "deck.pptx",
            "t.xlsx",
            "old.xls",
            "d.csv",
            "p.html",
            "p.htm",
            "b.epub",
        ] {
            assert!(convertible(name), "{name}");
        }
        for name in [
            "notes.md",
            "pdf",
            ".pdf",
            "a.pdf.md",
            "img.png",
            "x.txt",
            "archive.zip",
        ] {
            assert!(!convertible(name), "{name}");
        }
        assert_eq!(markdown_name("report.pdf"), "report.pdf.md");
    }

    #[test]
    fn states_are_kept_and_a_stale_pending_one_reads_as_interrupted() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = ThreadDirs::new(tmp.path(), "o", "t");
        dirs.create().unwrap();
        assert_eq!(status(&dirs, "a.pdf"), None);
        record(&dirs, "a.pdf", &pending());
        assert_eq!(
            status(&dirs, "a.pdf").unwrap().status,
            ConversionStatus::Pending
        );
        let old = SystemTime::now() - TIME_LIMIT - Duration::from_secs(120);
        std::fs::File::options()
            .write(true)
            .open(status_path(&dirs, "a.pdf"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let stale = status(&dirs, "a.pdf").unwrap();
        assert_eq!(stale.status, ConversionStatus::Failed);
        assert!(stale.error.unwrap().contains("interrupted"));
        std::fs::write(dirs.dir(UserDataDir::Uploads).join("a.pdf.md"), "x").unwrap();
        forget(&dirs, "a.pdf");
        assert_eq!(status(&dirs, "a.pdf"), None);
        assert!(!dirs.dir(UserDataDir::Uploads).join("a.pdf.md").exists());
    }

    #[tokio::test]
    async fn an_over_long_version_is_cut_with_a_note() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("big.md");
        std::fs::write(&path, vec![b'x'; MAX_MARKDOWN_BYTES as usize + 10]).unwrap();
        cap(tmp.path(), "big.md", FileAccess::Same).await.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("Read the original for the rest.]\n"));
        assert!(text.len() < MAX_MARKDOWN_BYTES as usize + 200);

        // A link the sandbox put in its place leads nowhere outside the uploads folder.
        let uploads = tmp.path().join("uploads");
        std::fs::create_dir(&uploads).unwrap();
        let outside = tmp.path().join("server-file");
        std::fs::write(&outside, vec![b'y'; MAX_MARKDOWN_BYTES as usize + 10]).unwrap();
        std::os::unix::fs::symlink(&outside, uploads.join("link.md")).unwrap();
        assert!(cap(&uploads, "link.md", FileAccess::Same).await.is_err());
        assert_eq!(
            std::fs::metadata(&outside).unwrap().len(),
            MAX_MARKDOWN_BYTES + 10
        );
    }
}
