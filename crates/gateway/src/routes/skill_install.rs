//! Installing skills from `.skill` archives (from a thread or uploaded) and deleting custom
//! skills. Both install routes share one pipeline (`App::install_archive`).

use antler_app::files::VirtualPath;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::skills::{ArchivePreview, InstallFromThread, InstallResult, SkillCategory};
use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::files::multipart::{field_text, field_to_temp, multipart_error};
use crate::params::{CategoryQuery, SkillName, check_thread_id};
use crate::state::{AppState, Identity};

/// Installs a `.skill` file that is in a thread (for example one the agent produced): as a
/// shared custom skill (admins) or as a personal skill of the caller (`category: user`).
#[utoipa::path(
    post,
    path = "/api/skills/install",
    tag = "skills",
    request_body = InstallFromThread,
    responses(
        (status = 403, description = "A shared install by a non-admin, or another site's page sent the request", body = ErrorEnvelope),
        (status = 200, description = "Installed", body = InstallResult),
        (status = 400, description = "Not a zip, refused (`details.findings` lists every problem), or category public", body = ErrorEnvelope),
        (status = 403, description = "The path resolves outside the thread's files", body = ErrorEnvelope),
        (status = 404, description = "No such thread or file", body = ErrorEnvelope),
        (status = 409, description = "Already installed (pass overwrite) or an install of that name is running", body = ErrorEnvelope),
        (status = 413, description = "The archive exceeds a size limit", body = ErrorEnvelope),
        (status = 422, description = "Invalid body or thread id", body = ErrorEnvelope),
    )
)]
pub async fn install_skill(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiJson(body): ApiJson<InstallFromThread>,
) -> ApiResult<Json<InstallResult>> {
    check_thread_id(&body.thread_id)?;
    let category = app.skills.install_target(&caller, body.category)?;
    let path = VirtualPath::parse_user_data(&body.path)
        .map_err(|e| AppError::new(StatusCode::BAD_REQUEST, "invalid_path", e.to_string()))?;
    let dirs = app.threads.existing_dirs(&caller, &body.thread_id).await?;
    let file =
        tokio::task::spawn_blocking(move || crate::files::open_beneath(dirs.user_data(), &path))
            .await??;
    if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Err(AppError::bad_request("the path is not a regular file"));
    }
    Ok(Json(
        app.skills
            .install_as(&caller, file, body.overwrite, body.enable, Some(category))
            .await?,
    ))
}

/// Installs an uploaded `.skill` archive (multipart: `file`, optional `overwrite`, `enable`,
/// `category`): shared (`custom`, admins) or personal (`user`); by default `custom` for
/// admins and `user` for everyone else.
#[utoipa::path(
    post,
    path = "/api/skills/upload",
    tag = "skills",
    request_body(content = ArchiveForm, content_type = "multipart/form-data", description = "The archive and the install options"),
    responses(
        (status = 403, description = "A shared install by a non-admin, or another site's page sent the request", body = ErrorEnvelope),
        (status = 200, description = "Installed", body = InstallResult),
        (status = 400, description = "No file, bad option, not a zip, or refused (`details.findings`)", body = ErrorEnvelope),
        (status = 409, description = "Already installed (pass overwrite) or an install of that name is running", body = ErrorEnvelope),
        (status = 413, description = "The archive exceeds a size limit", body = ErrorEnvelope),
        (status = 415, description = "Not multipart/form-data", body = ErrorEnvelope),
    )
)]
pub async fn upload_skill(
    State(app): State<AppState>,
    Identity(caller): Identity,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<InstallResult>> {
    let form = read_archive_form(&app, multipart).await?;
    let file = form.archive.reopen().map_err(AppError::internal)?;
    // The temporary file is removed when `form` drops, after the install has read it.
    let result = app
        .skills
        .install_as(&caller, file, form.overwrite, form.enable, form.category)
        .await?;
    drop(form);
    Ok(Json(result))
}

/// Looks inside an uploaded `.skill` archive without installing it: its members and the
/// validation result an install would apply.
#[utoipa::path(
    post,
    path = "/api/skills/preview",
    tag = "skills",
    request_body(content = ArchivePreviewForm, content_type = "multipart/form-data", description = "The archive"),
    responses(
        (status = 200, description = "Members and validation result (`skill.valid`, `skill.findings`)", body = ArchivePreview),
        (status = 400, description = "No file, or not a zip archive", body = ErrorEnvelope),
        (status = 413, description = "The archive is larger than the upload limit", body = ErrorEnvelope),
        (status = 415, description = "Not multipart/form-data", body = ErrorEnvelope),
    )
)]
pub async fn preview_skill(
    State(app): State<AppState>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<Json<ArchivePreview>> {
    let form = read_archive_form(&app, multipart).await?;
    let file = form.archive.reopen().map_err(AppError::internal)?;
    Ok(Json(app.skills.preview(file).await?))
}

/// The form of `POST /api/skills/upload` (documentation only: parts are streamed).
#[derive(utoipa::ToSchema)]
#[expect(
    dead_code,
    reason = "describes the multipart form in the OpenAPI document"
)]
struct ArchiveForm {
    /// The `.skill` archive (a zip).
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// Replace an installed custom skill of the same name: `true` or `false` (also
    /// `1`/`0`, `on`/`off`, `yes`/`no`; default false).
    #[schema(pattern = "^(true|false|1|0|on|off|yes|no)?$")]
    overwrite: Option<String>,
    /// Enable it after installing (same values; default true).
    #[schema(pattern = "^(true|false|1|0|on|off|yes|no)?$")]
    enable: Option<String>,
    /// `custom` (shared; admins only) or `user` (personal); default `custom` for admins,
    /// `user` for everyone else.
    #[schema(pattern = "^(custom|user)?$")]
    category: Option<String>,
}

/// The form of `POST /api/skills/preview` (documentation only).
#[derive(utoipa::ToSchema)]
#[expect(
    dead_code,
    reason = "describes the multipart form in the OpenAPI document"
)]
struct ArchivePreviewForm {
    /// The `.skill` archive (a zip).
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// An uploaded archive and the install options sent with it.
struct ReceivedArchive {
    archive: tempfile::NamedTempFile,
    overwrite: bool,
    enable: bool,
    category: Option<SkillCategory>,
}

async fn read_archive_form(
    app: &AppState,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<ReceivedArchive, AppError> {
    let mut multipart = multipart?;
    let limit = app.config.skills.install.max_upload_bytes;
    let mut archive: Option<tempfile::NamedTempFile> = None;
    let (mut overwrite, mut enable, mut category) = (false, true, None);
    while let Some(mut field) = multipart
        .next_field()
        .await
        .map_err(|e| multipart_error(&e, None, limit))?
    {
        match field.name().unwrap_or("") {
            "file" => {
                let (temp, _) = field_to_temp(
                    &mut field,
                    app.files.scratch(),
                    "skill-upload-",
                    "file",
                    limit,
                    |size, chunk| {
                        if size + chunk as u64 > limit {
                            return Err(AppError::new(
                                StatusCode::PAYLOAD_TOO_LARGE,
                                "payload_too_large",
                                format!("the archive is larger than the limit of {limit} bytes"),
                            ));
                        }
                        Ok(())
                    },
                )
                .await?;
                archive = Some(temp);
            }
            "overwrite" => overwrite = flag("overwrite", &field_text(field, limit).await?)?,
            "enable" => enable = flag("enable", &field_text(field, limit).await?)?,
            "category" => category = install_category(&field_text(field, limit).await?)?,
            other => {
                return Err(AppError::bad_request(format!(
                    "unexpected form field {other:?}; expected file, overwrite, enable, category"
                )));
            }
        }
    }
    let archive = archive
        .ok_or_else(|| AppError::bad_request("no archive: send it in the form field 'file'"))?;
    Ok(ReceivedArchive {
        archive,
        overwrite,
        enable,
        category,
    })
}

/// The `category` form field: empty for the default. `public` parses, and the install
/// refuses it with the reason.
// Exact values, as the form's schema gives them: a padded ` true` is refused, not guessed at.
fn install_category(value: &str) -> Result<Option<SkillCategory>, AppError> {
    match value {
        "" => Ok(None),
        other => other
            .parse()
            .map(Some)
            .map_err(|e| AppError::bad_request(format!("category: {e}"))),
    }
}

fn flag(name: &str, value: &str) -> Result<bool, AppError> {
    match value {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" | "" => Ok(false),
        other => Err(AppError::bad_request(format!(
            "{name} must be true or false, not {other:?}"
        ))),
    }
}

/// Deletes a custom skill (admins) or one of the caller's personal skills (the files move
/// to history; public skills are read-only).
#[utoipa::path(
    delete,
    path = "/api/skills/{name}",
    tag = "skills",
    params(("name" = String, Path, description = "Skill name"), CategoryQuery),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "Invalid name or category", body = ErrorEnvelope),
        (status = 403, description = "A public skill, a custom one and the caller is not an admin, or another site's page sent the request", body = ErrorEnvelope),
        (status = 404, description = "No such custom or personal skill", body = ErrorEnvelope),
        (status = 409, description = "The name is both custom and personal (pass ?category=), or an install of that name is running", body = ErrorEnvelope),
    )
)]
pub async fn delete_skill(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(name): ApiPath<SkillName>,
    ApiQuery(query): ApiQuery<CategoryQuery>,
) -> ApiResult<StatusCode> {
    app.skills
        .delete_as(&caller, name.as_str(), query.category)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_category_field_is_a_skill_category_or_empty_for_the_default() {
        assert_eq!(install_category("").unwrap(), None);
        assert_eq!(install_category("user").unwrap(), Some(SkillCategory::User));
        // Padding is not in the form's schema: refused rather than guessed at.
        assert!(install_category(" user ").is_err());
        assert_eq!(
            install_category("custom").unwrap(),
            Some(SkillCategory::Custom)
        );
        // Parsed like every category; the install refuses it, saying why.
        assert_eq!(
            install_category("public").unwrap(),
            Some(SkillCategory::Public)
        );
        let error = install_category("secret").unwrap_err();
        assert_eq!(
            (error.status(), error.code()),
            (StatusCode::BAD_REQUEST, "invalid_request")
        );
        assert!(
            error.message().contains("\"secret\""),
            "{}",
            error.message()
        );
    }

    #[test]
    fn flags_take_the_documented_values_exactly() {
        for (value, want) in [
            ("true", true),
            ("on", true),
            ("1", true),
            ("", false),
            ("no", false),
        ] {
            assert_eq!(flag("overwrite", value).unwrap(), want, "{value:?}");
        }
        for value in [" true", "true\n", "TRUE", "2"] {
            let error = flag("overwrite", value).unwrap_err();
            assert_eq!(error.status(), StatusCode::BAD_REQUEST, "{value:?}");
        }
    }
}
