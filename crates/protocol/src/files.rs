//! Uploads and artifacts of a thread.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A file in a thread's uploads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UploadedFile {
    /// The stored (sanitised) file name.
    #[schema(example = "data.csv")]
    pub filename: String,
    /// Size in bytes.
    pub size: u64,
    /// Where the agent sees it.
    #[schema(example = "/mnt/user-data/uploads/data.csv")]
    pub virtual_path: String,
    /// Where the browser downloads it.
    #[schema(example = "/api/threads/t1/artifacts/mnt/user-data/uploads/data.csv")]
    pub artifact_url: String,
    /// RFC 3339 modification time.
    pub modified_at: String,
    /// Its Markdown version, for documents the sandbox converts (PDF, Word, PowerPoint,
    /// Excel, CSV, HTML, EPUB); absent for other files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<Conversion>,
}

crate::wire_enum::wire_enum! {
    /// Where a document's conversion to Markdown stands.
    pub enum ConversionStatus {
        /// Running (or waiting for the sandbox).
        Pending = "pending",
        /// The Markdown version is beside it.
        Done = "done",
        /// It could not be converted; `error` says why (the original is kept).
        Failed = "failed",
        /// Not tried: no Docker sandbox to convert in.
        Skipped = "skipped",
    }
}

crate::wire_enum::wire_enum! {
    /// What a file is previewed as (`?preview=` of an artifact).
    pub enum PreviewFormat {
        /// PDF.
        Pdf = "pdf",
    }
}

/// A document's Markdown version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Conversion {
    /// Where it stands.
    pub status: ConversionStatus,
    /// Where the agent reads it, once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "/mnt/user-data/uploads/report.pdf.md")]
    pub virtual_path: Option<String>,
    /// Why it failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `POST /api/threads/{thread_id}/uploads` and `GET …/uploads` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UploadList {
    /// The files.
    pub files: Vec<UploadedFile>,
}

/// `GET /api/threads/{thread_id}/uploads/limits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct UploadLimits {
    /// Most files in one request.
    pub max_files: usize,
    /// Largest single file, in bytes.
    pub max_file_bytes: u64,
    /// Largest request, in bytes.
    pub max_request_bytes: u64,
}

/// One file under a thread's `/mnt/user-data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Artifact {
    /// Container path.
    #[schema(example = "/mnt/user-data/outputs/report.md")]
    pub virtual_path: String,
    /// Size in bytes.
    pub size: u64,
    /// RFC 3339 modification time.
    pub modified_at: String,
    /// MIME type guessed from the extension.
    #[schema(example = "text/markdown")]
    pub content_type: String,
    /// Where the browser fetches it.
    pub artifact_url: String,
}

/// `GET /api/threads/{thread_id}/artifacts`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ArtifactList {
    /// Every file, sorted by path.
    pub artifacts: Vec<Artifact>,
    /// True when the listing stopped at its cap.
    pub truncated: bool,
}
