//! `/api/admin/runs`: the admin runs console. Every person's runs, filtered and paged, with
//! what each used; one run as a timeline of its model calls, tool calls and subagents.

use antler_app::console::{ConsoleError, ConsoleParams};
use antler_protocol::console::{ConsoleRunDetail, ConsoleRunList};
use antler_protocol::error::ErrorEnvelope;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::{ApiResult, AppError};
use crate::extract::{ApiListQuery, ApiPath};
use crate::state::{Admin, AppState};

impl From<ConsoleError> for AppError {
    fn from(e: ConsoleError) -> Self {
        match e {
            ConsoleError::Invalid(m) => {
                AppError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_query", m)
            }
            ConsoleError::Forbidden(m) => AppError::new(StatusCode::FORBIDDEN, "admin_required", m),
            e @ ConsoleError::InvalidRunId(_) => AppError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_run_id",
                e.to_string(),
            ),
            e @ ConsoleError::NotFound(_) => AppError::not_found(e.to_string()),
            ConsoleError::Store(e) => e.into(),
        }
    }
}

/// The query of `GET /api/admin/runs`. Every parameter is optional, and an empty value is
/// as if it were left out, as in every query of the API. The patterns are the service's
/// (`antler_app::console`), which a test below keeps in step.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ConsoleQuery {
    /// Only this person's runs: an account's id, or `local` when accounts are off.
    #[param(
        pattern = "^(local|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$"
    )]
    user: Option<String>,
    /// Only this agent's runs: an assistant's id (`agent` or `lead_agent` name the built-in
    /// one).
    assistant_id: Option<String>,
    /// Only runs in this status.
    #[param(pattern = "^(pending|running|success|error|timeout|interrupted)?$")]
    status: Option<String>,
    /// Runs created at or after this time: an RFC 3339 time, or a UTC day (`YYYY-MM-DD`,
    /// from its start).
    #[param(
        pattern = "^(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)|[0-9]{4}-(0[13578]|1[02])-31|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?$"
    )]
    from: Option<String>,
    /// Runs created before this time (an RFC 3339 time, excluded), or up to the end of a UTC
    /// day (`YYYY-MM-DD`, included).
    #[param(
        pattern = "^(([0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|[0-9]{4}-(0[13-9]|1[0-2])-(29|30)|[0-9]{4}-(0[13578]|1[02])-31|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[048]|[2468][048]|[13579][26])00)-02-29)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?$"
    )]
    to: Option<String>,
    /// `true`: subagents' runs too; default `false`, the runs people started.
    #[param(pattern = "^(true|false)?$")]
    subagents: Option<String>,
    /// Only runs with feedback: rated `up`, `down`, or either (`any`).
    #[param(pattern = "^(up|down|any)?$")]
    feedback: Option<String>,
    /// Page size, 1 to 200; default 50.
    #[param(pattern = "^([1-9]|[1-9][0-9]|1[0-9][0-9]|200)?$")]
    limit: Option<String>,
    /// Runs to skip, 0 to 999999999; default 0.
    #[param(pattern = "^(0|[1-9][0-9]{0,8})?$")]
    offset: Option<String>,
}

/// Every person's runs, newest first, with what each used and how many match (admins only).
#[utoipa::path(
    get,
    path = "/api/admin/runs",
    tag = "admin",
    params(ConsoleQuery),
    responses(
        (status = 200, description = "A page of runs and how many match the filters", body = ConsoleRunList),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 422, description = "A bad filter, limit or offset (the message names it)", body = ErrorEnvelope),
    )
)]
pub async fn list_console_runs(
    State(app): State<AppState>,
    Admin(admin): Admin,
    ApiListQuery(q): ApiListQuery<ConsoleQuery>,
) -> ApiResult<Json<ConsoleRunList>> {
    let params = ConsoleParams {
        user: q.user,
        assistant_id: q.assistant_id,
        status: q.status,
        from: q.from,
        to: q.to,
        subagents: q.subagents,
        feedback: q.feedback,
        limit: q.limit,
        offset: q.offset,
    };
    Ok(Json(app.console.list(&admin, &params).await?))
}

/// `{run_id}` of a run in the console.
#[derive(Debug, Deserialize)]
pub struct ConsoleRunPath {
    /// The run.
    run_id: String,
}

/// One run with its timeline, and its subagents' runs with theirs (admins only).
#[utoipa::path(
    get,
    path = "/api/admin/runs/{run_id}",
    tag = "admin",
    params(("run_id" = String, Path, description = "Run id")),
    responses(
        (status = 200, description = "The run, its steps and its subagents' runs", body = ConsoleRunDetail),
        (status = 403, description = "Not an admin", body = ErrorEnvelope),
        (status = 404, description = "No such run", body = ErrorEnvelope),
    )
)]
pub async fn get_console_run(
    State(app): State<AppState>,
    Admin(admin): Admin,
    ApiPath(path): ApiPath<ConsoleRunPath>,
) -> ApiResult<Json<ConsoleRunDetail>> {
    Ok(Json(app.console.get(&admin, &path.run_id).await?))
}

#[cfg(test)]
mod tests {
    use antler_app::console::{
        BOOL_PATTERN, FEEDBACK_PATTERN, LIMIT_PATTERN, OFFSET_PATTERN, STATUS_PATTERN,
        TIME_PATTERN, USER_PATTERN,
    };

    #[test]
    fn the_document_publishes_the_patterns_the_service_checks() {
        let doc = crate::router::openapi();
        let params = doc["paths"]["/api/admin/runs"]["get"]["parameters"]
            .as_array()
            .unwrap();
        let pattern = |name: &str| {
            params
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("no parameter {name}"))["schema"]["pattern"]
                .as_str()
                .map(str::to_string)
        };
        for (name, expected) in [
            ("user", USER_PATTERN),
            ("status", STATUS_PATTERN),
            ("from", TIME_PATTERN),
            ("to", TIME_PATTERN),
            ("subagents", BOOL_PATTERN),
            ("feedback", FEEDBACK_PATTERN),
            ("limit", LIMIT_PATTERN),
            ("offset", OFFSET_PATTERN),
        ] {
            assert_eq!(pattern(name).as_deref(), Some(expected), "{name}");
        }
        assert_eq!(pattern("assistant_id"), None);
    }
}
