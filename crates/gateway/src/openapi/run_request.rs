//! The schemas of a run request's `input` and `command` (the messages a run may be given)
//! and of a stateless run, as the run services check them; merged in by `constraints`.

use antler_protocol::validation::NOT_BLANK_PATTERN;
use serde_json::{Value, json};

/// The kinds of the person's messages in a run's input.
const HUMAN: [&str; 2] = ["human", "user"];
/// The kinds of the AI's messages in a run's input.
const AI: [&str; 2] = ["ai", "assistant"];

/// A run's `input`: `null`, or an object whose `messages` (one message or a list) are
/// [`run_input_message`]s; other keys are ignored.
pub(super) fn run_input() -> Value {
    let message = json!({"$ref": "#/components/schemas/RunInputMessage"});
    json!({
        "type": Value::Null,
        "anyOf": [
            {"type": "null"},
            {"type": "object", "properties": {"messages": {"anyOf": [
                {"type": "null"},
                message,
                {"type": "array", "items": message},
            ]}}},
        ],
    })
}

/// One message of a run's input. Its kind is `type`, or `role` when there is no `type`; the
/// person's must say something (an array of content blocks is checked block by block, a
/// tool result names its call, and whether that call was made depends on the thread).
pub(super) fn run_input_message() -> Value {
    let said = json!({"anyOf": [
        {"type": "string", "pattern": NOT_BLANK_PATTERN},
        {"type": ["number", "boolean", "object", "array"]},
    ]});
    let call = json!({"type": "string", "minLength": 1});
    let mut kinds = Vec::new();
    for key in ["type", "role"] {
        // `role` counts only without `type`.
        let only = |mut schema: Value| {
            if key == "role"
                && let Some(s) = schema.as_object_mut()
            {
                s.insert("not".into(), json!({"required": ["type"]}));
            }
            schema
        };
        kinds.push(only(json!({
            "required": [key, "content"],
            "properties": {key: {"enum": HUMAN}, "content": said},
        })));
        kinds.push(only(json!({
            "required": [key],
            "properties": {key: {"enum": AI}},
        })));
        kinds.push(only(json!({
            "required": [key, "tool_call_id"],
            "properties": {key: {"const": "tool"}, "tool_call_id": call},
        })));
    }
    json!({
        "description": "A message of a run's input: the person's (`human` or `user`, with \
                        content that is not blank), the AI's (`ai` or `assistant`, with its \
                        `tool_calls`) or a tool's result (`tool`, with the `tool_call_id` of a \
                        call in the conversation). The kind is `type`, or `role` without \
                        `type`; LangChain and OpenAI shapes both work.",
        "type": "object",
        "anyOf": kinds,
        "examples": [{"role": "user", "content": "Summarise the attached report."}],
    })
}

/// A run's `command`: `null`, or `{"resume": …}` answering the thread's question (text
/// that is not blank, or any other JSON value, sent as JSON text).
pub(super) fn run_command() -> Value {
    json!({
        "type": Value::Null,
        "anyOf": [
            {"type": "null"},
            {"type": "object", "required": ["resume"], "properties": {"resume": {"anyOf": [
                {"type": "string", "pattern": NOT_BLANK_PATTERN},
                {"type": ["number", "boolean", "object", "array"]},
            ]}}},
        ],
    })
}

/// The body of a stateless run: a run's, on a thread that is new, so with messages to answer
/// and without a checkpoint id to continue from or a question to resume.
pub(super) fn stateless_run(run: Option<&Value>) -> Option<Value> {
    let mut schema = run?.clone();
    let object = schema.as_object_mut()?;
    object.insert(
        "description".into(),
        json!(
            "`POST /api/runs…` body: a run on a new thread, deleted when the run has ended \
               unless `on_completion` is `keep`."
        ),
    );
    let required = object.get_mut("required")?.as_array_mut()?;
    required.push(json!("input"));
    let properties = object.get_mut("properties")?.as_object_mut()?;
    // A new thread has no message to answer again and no question to resume: the run needs
    // messages, and can take no command.
    let message = json!({"$ref": "#/components/schemas/RunInputMessage"});
    properties.insert(
        "input".into(),
        json!({
            "description": "`{\"messages\": [...]}`: the messages the run answers (at least one).",
            "type": "object",
            "required": ["messages"],
            "properties": {"messages": {"anyOf": [
                message,
                {"type": "array", "minItems": 1, "items": message},
            ]}},
        }),
    );
    // (`checkpoint` stays: an object that names no checkpoint is taken, and ignored.)
    for field in ["command", "checkpoint_id"] {
        properties.insert(
            field.into(),
            json!({"type": "null", "description": "Not for stateless runs: their thread is new."}),
        );
    }
    Some(schema)
}
