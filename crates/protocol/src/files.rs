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
