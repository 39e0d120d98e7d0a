//! The OpenAPI document: metadata here, paths from the handlers' annotations, and the rules
//! every operation shares added in one place ([`complete`]), so the document states exactly
//! what the server enforces: the id formats the extractors check, the error statuses that
//! the extractors and limits answer for every operation of a kind, the field constraints
//! the services check ([`constraints`]) and the links between operations ([`links`]).

use antler_protocol::paths::MAX_THREAD_ID_LEN;
use serde_json::{Map, Value, json};
use utoipa::OpenApi;

use crate::routes::artifacts;

mod constraints;
mod langgraph;
mod links;
mod run_request;

/// Top-level OpenAPI metadata; paths are added by the router.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Antler API",
        description = "Skills-driven agent backend: skills catalog and management, threads, \
                       agent runs (LangGraph Agent Server compatible) and their files.",
        license(name = "Apache-2.0")
    ),
    tags(
        (name = "system", description = "Health and documentation"),
        (name = "auth", description = "First-run setup, sign-in, sessions and personal access tokens"),
        (name = "users", description = "Accounts (admins only)"),
        (name = "skills", description = "List, inspect, enable, disable, install and delete skills"),
        (name = "threads", description = "Conversation threads"),
        (name = "assistants", description = "Assistants: custom agents with their own instructions, model, skills and tools (LangGraph Agent Server compatible)"),
        (name = "memory", description = "What the agent remembers about the caller across conversations"),
        (name = "store", description = "LangGraph's long-term store: the caller's JSON documents under namespaces, searchable (LangGraph Agent Server compatible)"),
        (name = "mcp", description = "Model Context Protocol servers whose tools the agent may call"),
        (name = "usage", description = "What model calls used and cost per day, model and person, and daily limits"),
        (name = "admin", description = "The runs console (admins only): every person's runs with what they used, and each run's timeline of model calls, tool calls and subagents"),
        (name = "secrets", description = "Named secrets admins give to skills and agents (values never shown)"),
        (name = "crons", description = "Runs started on a schedule (LangGraph Agent Server compatible); a cron that was due while every server was down runs once when one is back, then follows its schedule from then"),
        (name = "runs", description = "Agent runs (LangGraph Agent Server compatible) and thread state"),
        (name = "uploads", description = "Files people add to a thread"),
        (name = "artifacts", description = "Every file of a thread, and a look inside .skill archives"),
    ),
    // Wildcard routes are registered on the axum router directly (see `router`).
    paths(artifacts::get_artifact),
    // The run stream's event payloads (SSE, so no route references them) for typed clients.
    components(schemas(
        antler_protocol::error::ErrorEnvelope,
        antler_protocol::stream::RunMetadata,
        antler_protocol::stream::MessageMetadata,
        antler_protocol::stream::CustomEvent,
        antler_protocol::stream::RunFailure,
        antler_protocol::messages::AiMessageChunk,
        antler_protocol::runs::CancelAction,
        antler_protocol::files::PreviewFormat,
        antler_protocol::stream::TaskArtifact,
        antler_protocol::stream::TaskStatus,
        antler_protocol::memory::FactCategory,
        // Reached only as `ServerConfigView`'s type parameter, which the derive does not
        // collect.
        antler_protocol::mcp::HiddenValue,
    ))
)]
pub(crate) struct ApiDoc;

/// A thread id as the extractors accept it.
pub const THREAD_ID_PATTERN: &str = "^[A-Za-z0-9_-]+$";
/// A skill name as skills load with it (the specification's `^[a-z0-9]+(-[a-z0-9]+)*$`, or
/// another name without path separators or control characters, not blank).
pub const SKILL_NAME_PATTERN: &str =
    r"^[^/\\\x00-\x1f\x7f-\x9f]*[^/\\\s\x00-\x1f\x7f-\x9f][^/\\\x00-\x1f\x7f-\x9f]*$";

/// The document as JSON, with what every operation of a kind shares added: the path
/// parameters' formats, and the error answers of the JSON body, query and path extractors
/// and of the request limits. (JSON because utoipa's own types do not read back every
/// schema they write.)
pub fn complete(doc: &utoipa::openapi::OpenApi) -> Value {
    let mut value = serde_json::to_value(doc).unwrap_or(Value::Null);
    if let Some(paths) = value.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut() {
            let Some(item) = item.as_object_mut() else {
                continue;
            };
            for (method, operation) in item.iter_mut() {
                if let Some(operation) = operation.as_object_mut() {
                    complete_operation(method, operation);
                }
            }
        }
        for (path, item) in paths.iter_mut() {
            if crate::auth::is_public(path) {
                continue;
            }
            for operation in item
                .as_object_mut()
                .into_iter()
                .flat_map(|i| i.values_mut())
            {
                if let Some(operation) = operation.as_object_mut() {
                    require_credentials(operation);
                }
            }
        }
        links::add_links(paths);
    }
    constraints::constrain(&mut value);
    if let Some(root) = value.as_object_mut() {
        let components = root.entry("components").or_insert_with(|| json!({}));
        if let Some(components) = components.as_object_mut() {
            components.insert(
                "securitySchemes".into(),
                json!({
                    "bearer": {"type": "http", "scheme": "bearer",
                               "description": "A personal access token (POST /api/auth/tokens)"},
                    "apiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key",
                               "description": "A personal access token, as the LangGraph SDKs send it"},
                    "session": {"type": "apiKey", "in": "cookie", "name": crate::auth::SESSION_COOKIE,
                                "description": "The browser session of POST /api/auth/login; unsafe requests also send X-CSRF-Token"},
                }),
            );
        }
    }
    value
}

/// A protected operation: the credentials it accepts, and the 401 without one.
fn require_credentials(op: &mut Map<String, Value>) {
    op.insert(
        "security".into(),
        json!([{"bearer": []}, {"apiKey": []}, {"session": []}]),
    );
    if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
        responses.entry("401").or_insert_with(|| {
            error_response("No credential, or one that is unknown, expired or revoked")
        });
    }
}

fn complete_operation(method: &str, op: &mut Map<String, Value>) {
    let mut errors: Vec<(&str, &str)> = vec![
        ("414", "The request URI is too long"),
        (
            "421",
            "The Host is not one this server answers for (http.allowed_hosts)",
        ),
        ("431", "Too many or too large headers"),
    ];
    if !matches!(method, "get" | "head" | "options") {
        errors.push((
            "403",
            "Sent by another site's page (Origin or Referer not allowed), or with a session cookie but without its X-CSRF-Token",
        ));
    }
    let json_body = op
        .get("requestBody")
        .and_then(|b| b.get("content"))
        .and_then(|c| c.get("application/json"))
        .is_some();
    if json_body {
        errors.extend([
            ("400", "The body is not valid JSON"),
            ("413", "The body is too large"),
            ("415", "The body is not application/json"),
            (
                "422",
                "JSON of the wrong shape (not an object, a missing or invalid field)",
            ),
        ]);
    }
    // A thread stream's event ids name their run (`<run_id>:<seq>`); a run's are numbers.
    let thread_stream = op.get("operationId").and_then(Value::as_str) == Some("join_thread_stream");
    if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
        for param in params.iter_mut().filter_map(Value::as_object_mut) {
            let name = param.get("name").and_then(Value::as_str).unwrap_or("");
            let place = param.get("in").and_then(Value::as_str).unwrap_or("");
            match (place, name) {
                ("path", "thread_id") => {
                    param.insert(
                        "schema".into(),
                        json!({"type": "string", "pattern": THREAD_ID_PATTERN,
                               "minLength": 1, "maxLength": MAX_THREAD_ID_LEN}),
                    );
                    errors.push(("422", "Invalid thread id"));
                }
                ("path", "id") => {
                    param.insert("schema".into(), json!({"type": "string", "format": "uuid"}));
                    errors.push(("422", "Invalid id"));
                }
                ("path", "run_id") => {
                    param.insert("schema".into(), json!({"type": "string", "format": "uuid"}));
                    errors.push(("422", "Invalid run id"));
                }
                ("path", "name") => {
                    param.insert(
                        "schema".into(),
                        json!({"type": "string", "pattern": SKILL_NAME_PATTERN,
                               "minLength": 1,
                               "maxLength": antler_app::skills::MAX_USABLE_NAME_LEN}),
                    );
                    errors.push(("400", "Invalid skill name"));
                }
                ("header", "Last-Event-ID") => {
                    param.insert(
                        "schema".into(),
                        json!({"type": "string", "pattern": if thread_stream {
                            crate::routes::thread_stream::EVENT_ID_PATTERN
                        } else {
                            "^ *[0-9]* *$"
                        }}),
                    );
                    errors.push(("400", "Last-Event-ID is not an event id"));
                }
                ("query", _) => errors.push(("400", "Invalid query parameter")),
                _ => {}
            }
        }
    }
    let responses = op
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    let Some(responses) = responses else {
        return;
    };
    for (status, description) in errors {
        responses
            .entry(status)
            .or_insert_with(|| error_response(description));
    }
    // Every error answer is the envelope, documented or added here.
    for (status, response) in responses.iter_mut() {
        let is_error = status.starts_with('4') || status.starts_with('5');
        if is_error
            && response.get("content").is_none()
            && let Some(r) = response.as_object_mut()
        {
            r.insert("content".into(), envelope_content());
        }
    }
}

fn envelope_content() -> Value {
    json!({"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}})
}

fn error_response(description: &str) -> Value {
    json!({"description": description, "content": envelope_content()})
}
