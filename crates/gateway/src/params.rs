//! Typed path and query parameters that validate before any storage is touched.

use antler_protocol::skills::SkillCategory;
use serde::{Deserialize, Deserializer, de::Error as _};
use utoipa::{IntoParams, ToSchema};

/// A skill name as skills may load with it: the specification's names, and names real
/// collections use outside it (`Claude Code Guide`, percent-encoded in the path), but never
/// one with a path separator or a control character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillName(String);

impl SkillName {
    /// The validated name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for SkillName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        antler_app::skills::check_usable_name(&raw).map_err(|why| {
            // A hostile name can be long: quote only its start.
            let shown: String = raw.chars().take(80).collect();
            let more = if shown.len() < raw.len() { "…" } else { "" };
            D::Error::custom(format!("invalid skill name {shown:?}{more}: {why}"))
        })?;
        Ok(SkillName(raw))
    }
}

/// `?category=public|custom`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, ToSchema)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct CategoryQuery {
    /// Restrict to one category (needed when the name exists in more than one).
    pub category: Option<SkillCategory>,
}

/// The raw value of the path parameter `name` (empty when absent).
async fn path_param<S: Send + Sync>(
    parts: &mut axum::http::request::Parts,
    state: &S,
    name: &str,
) -> Result<String, crate::error::AppError> {
    use axum::extract::FromRequestParts;
    let params = axum::extract::RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|e| {
            // Undecodable bytes (`%FF`) are the client's; anything else is ours.
            if e.status().is_client_error() {
                crate::error::AppError::new(e.status(), "invalid_path", e.body_text())
            } else {
                crate::error::AppError::internal(anyhow::anyhow!(e.body_text()))
            }
        })?;
    Ok(params
        .iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
        .unwrap_or_default())
}

/// A thread id from the path (`^[A-Za-z0-9_-]{1,64}$`); anything else is refused with 422.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadId(pub String);

/// Checks a thread id (422 `invalid_thread_id` naming what is wrong).
pub fn check_thread_id(id: &str) -> Result<(), crate::error::AppError> {
    Ok(antler_app::threads::check_id(id)?)
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ThreadId {
    type Rejection = crate::error::AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let id = path_param(parts, state, "thread_id").await?;
        check_thread_id(&id)?;
        Ok(ThreadId(id))
    }
}

/// An account or token id from the path (`{id}`, a UUID); anything else is refused with 422.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordId(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for RecordId {
    type Rejection = crate::error::AppError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let id = path_param(parts, state, "id").await?;
        match uuid::Uuid::parse_str(&id) {
            Ok(uuid) => Ok(RecordId(uuid.hyphenated().to_string())),
            Err(_) => Err(crate::error::AppError::new(
                axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_id",
                "the id must be a UUID",
            )),
        }
    }
}

/// A boolean query parameter: `true`/`false` as the LangGraph SDKs send it (`1`/`0` from the
/// JS SDK's join stream). An empty value is not a boolean and is refused, which the multi-key
/// query decoder would otherwise read as a missing value.
pub fn query_flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match String::deserialize(d)?.as_str() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        other => Err(D::Error::custom(format!(
            "expected true, false, 1 or 0, not {:?}",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

/// [`query_flag`] for a parameter that may be left out (`#[serde(default)]` covers that).
pub fn optional_query_flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    query_flag(d).map(Some)
}
