//! What the services check in the fields of LangGraph's routes (the store, crons, thread
//! searches and states, bulk cancel and prune), published from the constants the checks
//! use, and the answers `select` cuts down (a selected object has only the fields named).

use antler_app::run_batch::{MAX_BATCH, MAX_RUNS_AT_ONCE};
use antler_app::thread_select::{STATE_FIELDS, THREAD_FIELDS};
use antler_app::threads::MAX_SEARCH_LIMIT;
use antler_protocol::crons::CRON_FIELDS;
use antler_protocol::store_items::{
    MAX_INDEX_FIELDS, MAX_KEY_CHARS, MAX_LABEL_CHARS, MAX_NAMESPACE_DEPTH, MAX_OFFSET, MAX_PAGE,
    MAX_QUERY_CHARS, MAX_TTL_MINUTES,
};
use serde_json::{Map, Value, json};

use super::THREAD_ID_PATTERN;

/// A namespace label: not empty, without `.` (labels are stored joined by it) or control
/// characters.
const LABEL_PATTERN: &str = r"^[^.\x00-\x1F\x7F-\x9F]+$";

/// A store key: not empty, without NUL.
const KEY_PATTERN: &str = r"^[^\x00]+$";

/// A field path an item indexes: `a.b`, `tags[*]`, `items[0].name`.
const INDEX_PATH_PATTERN: &str =
    r"^[^.\[]+(\[(\*|[0-9]{1,9})\])*(\.[^.\[]+(\[(\*|[0-9]{1,9})\])*)*$";

/// A UUID in any form the run routes take: simple, hyphenated, braced or a URN.
fn uuid_pattern() -> String {
    let hyphenated = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
    format!(r"^(?:[0-9a-fA-F]{{32}}|(?:urn:uuid:)?{hyphenated}|\{{{hyphenated}\}})$")
}

/// A namespace in a query: its labels joined by `.`.
fn dotted_namespace_pattern() -> String {
    let label = format!(r"[^.\x00-\x1F\x7F-\x9F]{{1,{MAX_LABEL_CHARS}}}");
    format!(r"^{label}(\.{label}){{0,{}}}$", MAX_NAMESPACE_DEPTH - 1)
}

/// A field of a thread state `select` may name: a whole field, or `values.<key>`.
fn state_field_pattern() -> String {
    format!(r"^({}|values\.[\s\S]+)$", STATE_FIELDS.join("|"))
}

/// A namespace's labels (`at_least` of them).
fn labels(at_least: usize) -> Value {
    json!({
        "minItems": at_least,
        "maxItems": MAX_NAMESPACE_DEPTH,
        "items": {"type": "string", "pattern": LABEL_PATTERN, "maxLength": MAX_LABEL_CHARS},
    })
}

/// A page of at most [`MAX_PAGE`] entries.
fn page() -> Value {
    json!({"minimum": 1, "maximum": MAX_PAGE})
}

/// A thread state `select`.
fn state_select() -> Value {
    json!({"items": {"type": "string", "pattern": state_field_pattern()}})
}

/// Nodes a run stops before or after: `"*"` (every one) or their names.
fn interrupt_nodes() -> Value {
    json!({
        "type": Value::Null,
        "anyOf": [
            {"type": "null"},
            {"const": "*"},
            {"type": "array", "items": {"type": "string"}},
        ],
    })
}

/// (component schema, property, constraints).
pub(super) fn field_constraints() -> Vec<(&'static str, &'static str, Value)> {
    let thread_ids = json!({
        "maxItems": MAX_SEARCH_LIMIT,
        "items": {"type": "string", "pattern": THREAD_ID_PATTERN, "minLength": 1, "maxLength": 64},
    });
    let key = json!({"pattern": KEY_PATTERN, "maxLength": MAX_KEY_CHARS});
    vec![
        // The store (checked in crates/app/src/items).
        ("PutItem", "namespace", labels(1)),
        ("PutItem", "key", key.clone()),
        (
            "PutItem",
            "index",
            json!({
                "type": Value::Null,
                "anyOf": [
                    {"type": "null"},
                    {"const": false},
                    {"type": "array", "maxItems": MAX_INDEX_FIELDS,
                     "items": {"type": "string", "pattern": INDEX_PATH_PATTERN, "maxLength": 256}},
                ],
            }),
        ),
        (
            "PutItem",
            "ttl",
            json!({"exclusiveMinimum": 0, "maximum": MAX_TTL_MINUTES}),
        ),
        ("DeleteItem", "namespace", labels(1)),
        ("DeleteItem", "key", key),
        ("SearchItems", "namespace_prefix", labels(0)),
        ("SearchItems", "limit", page()),
        ("SearchItems", "offset", json!({ "maximum": MAX_OFFSET })),
        (
            "SearchItems",
            "query",
            json!({ "maxLength": MAX_QUERY_CHARS }),
        ),
        ("ListNamespaces", "prefix", labels(0)),
        ("ListNamespaces", "suffix", labels(0)),
        (
            "ListNamespaces",
            "max_depth",
            json!({"minimum": 1, "maximum": MAX_NAMESPACE_DEPTH}),
        ),
        ("ListNamespaces", "limit", page()),
        ("ListNamespaces", "offset", json!({ "maximum": MAX_OFFSET })),
        // Crons (checked in crates/app/src/crons).
        ("CronCreate", "interrupt_before", interrupt_nodes()),
        ("CronCreate", "interrupt_after", interrupt_nodes()),
        ("CronPatch", "interrupt_before", interrupt_nodes()),
        ("CronPatch", "interrupt_after", interrupt_nodes()),
        ("CronSearch", "limit", page()),
        (
            "CronSearch",
            "select",
            json!({"items": {"type": "string", "enum": CRON_FIELDS}}),
        ),
        // Threads and their states (checked in crates/app/src/thread_select.rs).
        (
            "SearchThreads",
            "select",
            json!({"items": {"type": "string", "enum": THREAD_FIELDS}}),
        ),
        (
            "SearchThreads",
            "extract",
            json!({
                "maxProperties": antler_app::thread_select::MAX_EXTRACT_PATHS,
                "additionalProperties": {
                    "type": "string",
                    "pattern": antler_app::thread_select::extract_path_pattern(),
                },
            }),
        ),
        ("HistoryRequest", "select", state_select()),
        ("StateAtCheckpoint", "select", state_select()),
        ("PruneThreads", "thread_ids", thread_ids),
        // Bulk cancel (checked in crates/app/src/run_batch.rs).
        (
            "CancelRuns",
            "thread_id",
            json!({"pattern": THREAD_ID_PATTERN, "minLength": 1, "maxLength": 64}),
        ),
        (
            "CancelRuns",
            "run_ids",
            json!({"maxItems": MAX_RUNS_AT_ONCE, "items": {"type": "string", "pattern": uuid_pattern()}}),
        ),
    ]
}

/// (path, method, parameter name, constraints).
pub(super) fn parameter_constraints() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    vec![
        (
            "/api/store/items",
            "get",
            "namespace",
            json!({"schema": {"pattern": dotted_namespace_pattern()}}),
        ),
        (
            "/api/store/items",
            "get",
            "key",
            json!({"schema": {"pattern": KEY_PATTERN, "maxLength": MAX_KEY_CHARS}}),
        ),
        (
            "/api/threads/{thread_id}/state",
            "get",
            "select",
            json!({ "schema": state_select() }),
        ),
        (
            "/api/threads/{thread_id}/state/{checkpoint_id}",
            "get",
            "select",
            json!({ "schema": state_select() }),
        ),
        // Read as a `u32` (larger pages are cut to the largest), not an `int32`.
        (
            "/api/threads/{thread_id}/history",
            "get",
            "limit",
            json!({"schema": {"format": Value::Null, "maximum": u32::MAX}}),
        ),
    ]
}

/// Whole-schema constraints: a bulk cancel names a thread, or a status without run ids.
pub(super) fn schema_constraints(schemas: &mut Map<String, Value>) {
    if let Some(cancel) = schemas.get_mut("CancelRuns").and_then(Value::as_object_mut) {
        cancel.insert(
            "anyOf".into(),
            json!([
                {"required": ["thread_id"], "properties": {"thread_id": {"type": "string"}, "status": {"type": "null"}}},
                {"required": ["status"], "properties": {"status": {"not": {"type": "null"}}, "run_ids": {"type": "null"}}},
            ]),
        );
    }
}

/// A batch of runs holds 1 to [`MAX_BATCH`] of them, each on a thread id as the run routes
/// take it (or none).
pub(super) fn request_bodies(doc: &mut Value) {
    if let Some(Value::Object(thread)) =
        doc.pointer_mut("/components/schemas/RunBatchItem/allOf/1/properties/thread_id")
    {
        thread.insert("pattern".into(), json!(THREAD_ID_PATTERN));
        thread.insert("minLength".into(), json!(1));
        thread.insert("maxLength".into(), json!(64));
    }
    if let Some(Value::Object(batch)) = doc
        .pointer_mut("/paths/~1api~1runs~1batch/post/requestBody/content/application~1json/schema")
    {
        batch.insert("minItems".into(), json!(1));
        batch.insert("maxItems".into(), json!(MAX_BATCH));
    }
}

/// (path, method, whether the answer is a list, the schema of a whole object, the schema of
/// a selected one).
const SELECTED: [(&str, &str, bool, &str, &str); 6] = [
    (
        "/api/threads/search",
        "post",
        true,
        "Thread",
        "SelectedThread",
    ),
    (
        "/api/threads/{thread_id}/state",
        "get",
        false,
        "ThreadState",
        "SelectedThreadState",
    ),
    (
        "/api/threads/{thread_id}/state/{checkpoint_id}",
        "get",
        false,
        "ThreadState",
        "SelectedThreadState",
    ),
    (
        "/api/threads/{thread_id}/state/checkpoint",
        "post",
        false,
        "ThreadState",
        "SelectedThreadState",
    ),
    (
        "/api/threads/{thread_id}/history",
        "post",
        true,
        "ThreadState",
        "SelectedThreadState",
    ),
    (
        "/api/runs/crons/search",
        "post",
        true,
        "Cron",
        "SelectedCron",
    ),
];

/// Answers that `select` cuts down: their objects have no required field (they have the
/// ones selected, or all of them without `select`; a thread search's `extracted` is an
/// extra property, which the schemas allow).
pub(super) fn selected_answers(doc: &mut Value) {
    for (path, method, list, whole, selected) in SELECTED {
        let Some(schema) = doc
            .pointer(&format!("/components/schemas/{whole}"))
            .cloned()
        else {
            continue;
        };
        let mut partial = schema;
        if let Some(object) = partial.as_object_mut() {
            object.remove("required");
            object.insert(
                "description".into(),
                json!(format!(
                    "A {whole} with only the fields `select` names (all of them without it)."
                )),
            );
        }
        if let Some(schemas) = doc
            .pointer_mut("/components/schemas")
            .and_then(Value::as_object_mut)
        {
            schemas.insert(selected.into(), partial);
        }
        let pointer = format!(
            "/paths/{}/{method}/responses/200/content/application~1json/schema",
            path.replace('~', "~0").replace('/', "~1")
        );
        if let Some(answer) = doc.pointer_mut(&pointer) {
            let one = json!({"$ref": format!("#/components/schemas/{selected}")});
            *answer = if list {
                json!({"type": "array", "items": one})
            } else {
                one
            };
        }
    }
}
