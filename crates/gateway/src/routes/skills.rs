//! `/api/skills`: list, details, toggle, reload.

use antler_app::skills::Snapshot;
use antler_protocol::error::ErrorEnvelope;
use antler_protocol::skills::{SetSkillEnabled, Skill, SkillDetail, SkillList};
use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiResult;
use crate::extract::{ApiJson, ApiPath, ApiQuery};
use crate::params::{CategoryQuery, SkillName};
use crate::state::{Admin, AppState, Identity};

/// Every skill the caller sees with its state (the shared ones and their own personal
/// ones, category `user`), plus skills that failed to load.
///
/// Served from memory with an `ETag`; `If-None-Match` answers 304; gzip when accepted.
#[utoipa::path(
    get,
    path = "/api/skills",
    tag = "skills",
    responses(
        (status = 200, description = "Skills sorted by category then name", body = SkillList,
            headers(("ETag" = String, description = "Changes whenever the listing changes"))),
        (status = 304, description = "The listing matches If-None-Match"),
    )
)]
pub async fn list_skills(
    State(app): State<AppState>,
    Identity(caller): Identity,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let snapshot = app.skills.snapshot_for(&caller).await?;
    let gzip = accepts_gzip(&headers);
    // Compared with the tag of the representation this client gets (gzip has its own).
    let tag = etag(&snapshot, gzip);
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| crate::files::etag::matches(v, &tag));
    if fresh {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [
                (header::ETAG, tag),
                (header::VARY, "accept-encoding".into()),
            ],
        )
            .into_response());
    }
    Ok(listing_response(&snapshot, gzip))
}

/// One skill with its `SKILL.md` body and file list.
#[utoipa::path(
    get,
    path = "/api/skills/{name}",
    tag = "skills",
    params(("name" = String, Path, description = "Skill name"), CategoryQuery),
    responses(
        (status = 200, description = "The skill", body = SkillDetail),
        (status = 400, description = "Invalid name or category", body = ErrorEnvelope),
        (status = 404, description = "No such skill", body = ErrorEnvelope),
        (status = 409, description = "The name exists in more than one category; pass ?category=", body = ErrorEnvelope),
    )
)]
pub async fn get_skill(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(name): ApiPath<SkillName>,
    ApiQuery(query): ApiQuery<CategoryQuery>,
) -> ApiResult<Json<SkillDetail>> {
    Ok(Json(
        app.skills
            .detail(&caller, name.as_str(), query.category)
            .await?,
    ))
}

/// Enables or disables a skill: a shared one (admins; stored per category and name) or one
/// of the caller's personal skills (category `user`).
#[utoipa::path(
    put,
    path = "/api/skills/{name}",
    tag = "skills",
    params(("name" = String, Path, description = "Skill name")),
    request_body = SetSkillEnabled,
    responses(
        (status = 403, description = "A shared skill and the caller is not an admin, or another site's page sent the request", body = ErrorEnvelope),
        (status = 200, description = "The updated skill", body = Skill),
        (status = 400, description = "Invalid name or malformed JSON", body = ErrorEnvelope),
        (status = 404, description = "No such skill", body = ErrorEnvelope),
        (status = 409, description = "The name exists in more than one category; give `category`", body = ErrorEnvelope),
        (status = 413, description = "Body too large", body = ErrorEnvelope),
        (status = 415, description = "Body is not JSON", body = ErrorEnvelope),
        (status = 422, description = "JSON of the wrong shape", body = ErrorEnvelope),
    )
)]
pub async fn set_skill(
    State(app): State<AppState>,
    Identity(caller): Identity,
    ApiPath(name): ApiPath<SkillName>,
    ApiJson(body): ApiJson<SetSkillEnabled>,
) -> ApiResult<Json<Skill>> {
    Ok(Json(
        app.skills
            .set_enabled(&caller, name.as_str(), body.category, body.enabled)
            .await?,
    ))
}

/// Rescans the skills directory and re-reads states; answers the fresh listing.
#[utoipa::path(
    post,
    path = "/api/skills/reload",
    tag = "skills",
    responses(
        (status = 403, description = "The caller is not an admin (shared skills are managed by admins), or another site's page sent the request", body = ErrorEnvelope),
        (status = 200, description = "The fresh listing", body = SkillList),
        (status = 500, description = "The database could not be read", body = ErrorEnvelope),
    )
)]
pub async fn reload_skills(
    State(app): State<AppState>,
    Admin(_admin): Admin,
) -> ApiResult<Response> {
    let snapshot = app.skills.reload().await?;
    Ok(listing_response(&snapshot, false))
}

fn listing_response(snapshot: &Snapshot, gzip: bool) -> Response {
    let headers = [
        (header::CONTENT_TYPE, "application/json"),
        (header::CACHE_CONTROL, "no-cache"),
        (header::VARY, "accept-encoding"),
    ];
    let tag = [(header::ETAG, etag(snapshot, gzip))];
    if gzip {
        let encoding = [(header::CONTENT_ENCODING, "gzip")];
        (
            headers,
            tag,
            encoding,
            Body::from(snapshot.json_gzip().clone()),
        )
            .into_response()
    } else {
        (headers, tag, Body::from(snapshot.json().clone())).into_response()
    }
}

/// Each representation has its own entity tag (RFC 9110 §8.8.3).
fn etag(snapshot: &Snapshot, gzip: bool) -> String {
    if gzip {
        format!("{}-gzip\"", snapshot.etag().trim_end_matches('"'))
    } else {
        snapshot.etag().to_string()
    }
}

/// True when `Accept-Encoding` lists gzip (or `*`) without `q=0`.
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let refused = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &'static str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(value));
        h
    }

    #[test]
    fn gzip_is_used_only_when_accepted() {
        assert!(accepts_gzip(&headers("gzip, deflate, br")));
        assert!(accepts_gzip(&headers("br;q=1.0, GZIP;q=0.5")));
        assert!(accepts_gzip(&headers("*")));
        assert!(!accepts_gzip(&headers("gzip;q=0, br")));
        assert!(!accepts_gzip(&headers("br, identity")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }
}
