//! The parts of an assistant request checked one by one: ids, names, descriptions,
//! metadata, the graph, and the settings only admins may change.

use antler_protocol::assistants::{AgentSettings, GRAPH_ID};
use serde_json::{Map, Value, json};

use super::{AssistantError, MAX_METADATA_BYTES};
use crate::Caller;

/// Settings only admins may set or change: the sandbox image (it decides what runs the
/// agent's commands), its network policy, its web tools and the secrets it gets. Anyone may keep what an
/// admin set.
pub(super) fn admin_only(
    caller: &Caller,
    before: Option<&AgentSettings>,
    after: &AgentSettings,
) -> Result<(), AssistantError> {
    if caller.is_admin() {
        return Ok(());
    }
    if before.and_then(|b| b.sandbox_image.as_ref()) != after.sandbox_image.as_ref() {
        return Err(AssistantError::Forbidden(
            "only admins may set context.sandbox_image".into(),
        ));
    }
    if before.and_then(|b| b.sandbox_network.as_ref()) != after.sandbox_network.as_ref() {
        return Err(AssistantError::Forbidden(
            "only admins may set context.sandbox_network".into(),
        ));
    }
    if before.and_then(|b| b.web.as_ref()) != after.web.as_ref() {
        return Err(AssistantError::Forbidden(
            "only admins may set context.web".into(),
        ));
    }
    if before.and_then(|b| b.secrets.as_ref()) != after.secrets.as_ref() {
        return Err(AssistantError::Forbidden(
            "only admins may set context.secrets".into(),
        ));
    }
    Ok(())
}

pub(super) fn built_in_fixed() -> AssistantError {
    AssistantError::Conflict("the built-in assistant cannot be changed or deleted".into())
}

pub(super) fn check_graph(graph_id: &str) -> Result<(), AssistantError> {
    if graph_id == GRAPH_ID || graph_id == "lead_agent" {
        return Ok(());
    }
    let shown: String = graph_id.chars().take(80).collect();
    Err(AssistantError::Invalid(format!(
        "no graph '{shown}': the only graph is '{GRAPH_ID}'"
    )))
}

/// A UUID in its one stored spelling (lower-case, hyphenated); anything else as given.
pub(super) fn canonical(id: &str) -> String {
    uuid::Uuid::parse_str(id).map_or_else(|_| id.to_string(), |u| u.to_string())
}

pub(super) fn uuid_of(id: &str) -> Result<String, AssistantError> {
    uuid::Uuid::parse_str(id)
        .map(|u| u.to_string())
        .map_err(|_| {
            let shown: String = id.chars().take(80).collect();
            AssistantError::Invalid(format!("assistant_id '{shown}' is not a UUID"))
        })
}

pub(super) fn object_or_empty(what: &str, value: Option<Value>) -> Result<Value, AssistantError> {
    match value {
        None | Some(Value::Null) => Ok(json!({})),
        Some(v @ Value::Object(_)) => Ok(v),
        Some(_) => Err(AssistantError::Invalid(format!("{what} must be an object"))),
    }
}

pub(super) fn name_of(name: Option<&str>) -> Result<String, AssistantError> {
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or("Untitled");
    if name.chars().count() > 200 || name.chars().any(char::is_control) {
        return Err(AssistantError::Invalid(
            "name must be at most 200 characters without control characters".into(),
        ));
    }
    Ok(name.to_string())
}

pub(super) fn description_of(
    description: Option<String>,
) -> Result<Option<String>, AssistantError> {
    match description {
        Some(d) if d.chars().count() > 2000 => Err(AssistantError::Invalid(
            "description must be at most 2000 characters".into(),
        )),
        Some(d) if d.trim().is_empty() => Ok(None),
        other => Ok(other),
    }
}

/// Metadata within [`MAX_METADATA_BYTES`].
pub(super) fn metadata_of(
    metadata: Map<String, Value>,
) -> Result<Map<String, Value>, AssistantError> {
    let size = serde_json::to_string(&metadata).map_or(usize::MAX, |s| s.len());
    if size > MAX_METADATA_BYTES {
        return Err(AssistantError::Invalid(format!(
            "metadata is {size} bytes as JSON; at most {MAX_METADATA_BYTES}"
        )));
    }
    Ok(metadata)
}
