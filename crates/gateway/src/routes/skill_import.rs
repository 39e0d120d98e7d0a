//! Importing skills from Git repositories (admins).

use antler_app::ImportOptions;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::skills::{ImportRequest, ImportResult};
use axum::Json;
use axum::extract::State;

use crate::error::ApiResult;
use crate::extract::ApiJson;
use crate::state::{AppState, Identity};

/// Previews or imports skills from a Git repository as shared custom skills. Without
/// `skills` or `all` nothing is installed: the answer lists every skill found, whether it
/// would install (`installable`, `findings`) and whether one of that name exists. Pass the
/// previewed `commit` as `ref` to install exactly what was previewed. Each installed skill
/// records its origin, so `antler skill update` can bring it to a newer commit.
#[utoipa::path(
    post,
    path = "/api/skills/import",
    tag = "skills",
    request_body = ImportRequest,
    responses(
        (status = 200, description = "What the repository holds and what was installed", body = ImportResult),
        (status = 400, description = "Unsupported URL or ref, a chosen skill unknown (`details.available`) or refused (`details.findings`)", body = ErrorEnvelope),
        (status = 403, description = "Not an admin, or another site's page sent the request", body = ErrorEnvelope),
        (status = 409, description = "A chosen skill is installed already (pass overwrite) or being installed", body = ErrorEnvelope),
        (status = 413, description = "The repository or a chosen skill exceeds a size limit", body = ErrorEnvelope),
        (status = 422, description = "Invalid body, or git could not fetch the repository or ref (its message is included)", body = ErrorEnvelope),
        (status = 503, description = "git is not installed on the server", body = ErrorEnvelope),
        (status = 504, description = "Fetching took longer than the time limit", body = ErrorEnvelope),
    )
)]
pub async fn import_skills(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<ImportRequest>,
) -> ApiResult<Json<ImportResult>> {
    let options = ImportOptions {
        git_ref: body.git_ref,
        skills: body.skills,
        all: body.all,
        include_hidden: body.include_hidden,
        overwrite: body.overwrite,
        enable: body.enable,
    };
    Ok(Json(
        app.skills.import_as(&caller, &body.url, options).await?,
    ))
}
