//! What the services check in request fields, published in the schemas from the constants
//! the checks use (`antler_protocol::validation`, the file-name and container-path rules):
//! utoipa's attributes take literals only, so the constraints are merged in here. A value the
//! document allows passes those checks; one it forbids is refused with the error envelope.

use antler_protocol::validation::{
    CONTROL_OR_SPACE, EMAIL_PATTERN, MAX_EMAIL_CHARS, MAX_FACT_CHARS, MAX_IMPORTED_FACTS,
    MAX_PASSWORD_CHARS, MAX_TOKEN_DAYS, MAX_TOKEN_NAME_CHARS, MIN_PASSWORD_CHARS,
    NOT_BLANK_PATTERN, TOKEN_NAME_PATTERN, WHITE_SPACE,
};
use serde_json::{Map, Value, json};

use antler_app::files::names::{MAX_NAME_BYTES, PLAIN_FILE_NAME_PATTERN};
use antler_app::secrets;

use super::run_request::{run_command, run_input, run_input_message, stateless_run};

/// A container path under `/mnt/user-data` as the artifact route takes it (without the
/// leading `/`): segments that are not empty, `.` or `..`, without `\`, NUL or `%` (a
/// segment still percent-encoded after one decode is refused), and an optional trailing `/`
/// (the member list of a `.skill` archive). A segment may be 255 bytes long; 63 characters
/// of at most 4 bytes each is what a pattern can promise.
const ARTIFACT_PATH_PATTERN: &str = concat!(
    r"^mnt/user-data(?:/(?:[^/\\\x00%.][^/\\\x00%]{0,62}",
    r"|\.[^/\\\x00%.][^/\\\x00%]{0,61}|\.\.[^/\\\x00%]{1,61}))*/?$"
);

/// Control characters (`char::is_control`), as the inside of a character class.
const CONTROLS: &str = r"\x00-\x1F\x7F-\x9F";

/// The graphs an assistant may configure (one, under two names).
const GRAPHS: [&str; 2] = ["agent", "lead_agent"];

/// Merges the constraints into the component schemas and the parameters of `doc`.
pub(super) fn constrain(doc: &mut Value) {
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        // The multipart forms: the server refuses a part it does not know, and a part is text
        // (an optional field is left out, never null).
        for form in ["ArchiveForm", "ArchivePreviewForm", "UploadForm"] {
            if let Some(form) = schemas.get_mut(form).and_then(Value::as_object_mut) {
                form.insert("additionalProperties".into(), Value::Bool(false));
                for field in form
                    .get_mut("properties")
                    .and_then(Value::as_object_mut)
                    .into_iter()
                    .flat_map(|p| p.values_mut())
                {
                    if field["type"] == json!(["string", "null"]) {
                        field["type"] = json!("string");
                    }
                }
            }
        }
        for (schema, field, constraint) in field_constraints() {
            if let Some(property) = schemas
                .get_mut(schema)
                .and_then(|s| s.get_mut("properties"))
                .and_then(|p| p.get_mut(field))
                .and_then(Value::as_object_mut)
            {
                merge(property, constraint);
            }
        }
        super::langgraph::schema_constraints(schemas);
        schemas.insert("RunInputMessage".into(), run_input_message());
        if let Some(stateless) = stateless_run(schemas.get("RunCreate")) {
            schemas.insert("StatelessRunCreate".into(), stateless);
        }
    }
    for path in ["/api/runs", "/api/runs/stream", "/api/runs/wait"] {
        if let Some(schema) = doc.pointer_mut(&format!(
            "/paths/{}/post/requestBody/content/application~1json/schema",
            path.replace('/', "~1")
        )) {
            *schema = json!({"$ref": "#/components/schemas/StatelessRunCreate"});
        }
    }
    super::langgraph::selected_answers(doc);
    super::langgraph::request_bodies(doc);
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for (path, method, name, constraint) in parameter_constraints() {
            let parameter = paths
                .get_mut(path)
                .and_then(|item| item.get_mut(method))
                .and_then(|op| op.get_mut("parameters"))
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object_mut)
                .find(|p| p.get("name").and_then(Value::as_str) == Some(name));
            if let Some(parameter) = parameter {
                merge(parameter, constraint);
            }
        }
    }
}

/// An assistant's name: no control character once the white space around it is trimmed.
fn assistant_name_pattern() -> String {
    format!(
        "^[{WHITE_SPACE}]*(?:[^{CONTROL_OR_SPACE}](?:[^{CONTROLS}]*[^{CONTROL_OR_SPACE}])?)?[{WHITE_SPACE}]*$"
    )
}

/// `constraint`'s keys into `target`: objects merge key by key (a parameter's `schema`), a
/// `null` removes the key.
fn merge(target: &mut Map<String, Value>, constraint: Value) {
    let Value::Object(constraint) = constraint else {
        return;
    };
    for (key, value) in constraint {
        match (target.get_mut(&key), value) {
            // What the constraint replaces (a `type` or `$ref` its `anyOf` restates).
            (_, Value::Null) => {
                target.remove(&key);
            }
            (Some(Value::Object(inner)), Value::Object(more)) => {
                merge(inner, Value::Object(more));
            }
            (_, value) => {
                target.insert(key, value);
            }
        }
    }
}

/// (component schema, property, constraints).
fn field_constraints() -> Vec<(&'static str, &'static str, Value)> {
    let email = json!({"pattern": EMAIL_PATTERN, "maxLength": MAX_EMAIL_CHARS});
    let password = json!({"minLength": MIN_PASSWORD_CHARS, "maxLength": MAX_PASSWORD_CHARS});
    let fact = json!({"pattern": NOT_BLANK_PATTERN, "maxLength": MAX_FACT_CHARS});
    let confidence = json!({"minimum": 0, "maximum": 1});
    let summary = json!({ "maxLength": MAX_FACT_CHARS });
    let assistant_name = json!({ "pattern": assistant_name_pattern() });
    vec![
        ("SetupRequest", "email", email.clone()),
        ("SetupRequest", "password", password.clone()),
        ("NewUser", "email", email),
        ("NewUser", "password", password.clone()),
        ("UserPatch", "password", password.clone()),
        ("PasswordChange", "new", password),
        (
            "TokenRequest",
            "name",
            json!({"pattern": TOKEN_NAME_PATTERN, "maxLength": MAX_TOKEN_NAME_CHARS}),
        ),
        (
            "TokenRequest",
            "expires_in_days",
            json!({"minimum": 1, "maximum": MAX_TOKEN_DAYS}),
        ),
        ("FactCreate", "content", fact.clone()),
        ("FactCreate", "confidence", confidence.clone()),
        ("FactPatch", "content", fact),
        ("FactPatch", "confidence", confidence),
        ("MemorySettingsBody", "summary", summary.clone()),
        ("MemoryExport", "summary", summary),
        (
            "MemoryExport",
            "facts",
            json!({ "maxItems": MAX_IMPORTED_FACTS }),
        ),
        // Assistants (checked in crates/app/src/assistants).
        ("AssistantCreate", "graph_id", json!({"enum": GRAPHS})),
        ("AssistantCreate", "assistant_id", json!({"format": "uuid"})),
        ("AssistantCreate", "name", assistant_name.clone()),
        ("AssistantCreate", "description", json!({"maxLength": 2000})),
        (
            "AssistantPatch",
            "graph_id",
            json!({"enum": [GRAPHS[0], GRAPHS[1], null]}),
        ),
        ("AssistantPatch", "name", assistant_name),
        ("AssistantPatch", "description", json!({"maxLength": 2000})),
        ("RunCreate", "input", run_input()),
        ("RunCreate", "command", run_command()),
        ("StateAtCheckpoint", "checkpoint", named_checkpoint()),
        // (`before` naming none is ignored; `checkpoint` must name one.)
        ("HistoryRequest", "checkpoint", nullable(named_checkpoint())),
        // Secrets (checked in crates/app/src/secrets).
        (
            "SecretPut",
            "value",
            json!({"minLength": secrets::MIN_VALUE, "maxLength": secrets::MAX_VALUE, "pattern": "^[^\\x00]*$"}),
        ),
        (
            "SecretPut",
            "description",
            json!({"maxLength": secrets::MAX_DESCRIPTION}),
        ),
        ("SecretPut", "agents", secret_grants()),
        ("SecretPut", "skills", secret_grants()),
    ]
    .into_iter()
    .chain(super::langgraph::field_constraints())
    .collect()
}

/// A secret's agents or skills: names without control characters, not blank.
fn secret_grants() -> Value {
    let name = format!("^[^{CONTROLS}]*[^\\s{CONTROLS}][^{CONTROLS}]*$");
    json!({
        "maxItems": secrets::MAX_GRANTS,
        "items": {"type": "string", "minLength": 1, "maxLength": secrets::MAX_GRANT_CHARS, "pattern": name},
    })
}

/// (path, method, parameter name, constraints).
fn parameter_constraints() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    vec![
        (
            "/api/memory",
            "delete",
            "confirm",
            json!({"required": true, "schema": {"enum": [true]}}),
        ),
        (
            "/api/threads/{thread_id}/uploads/{filename}",
            "delete",
            "filename",
            json!({"schema": {"pattern": PLAIN_FILE_NAME_PATTERN, "maxLength": MAX_NAME_BYTES}}),
        ),
        (
            "/api/threads/{thread_id}/artifacts/{path}",
            "get",
            "path",
            json!({"schema": {"pattern": ARTIFACT_PATH_PATTERN}}),
        ),
        (
            "/api/secrets/{name}",
            "put",
            "name",
            json!({"schema": {"pattern": secrets::NAME_PATTERN}}),
        ),
        (
            "/api/secrets/{name}",
            "delete",
            "name",
            json!({"schema": {"pattern": secrets::NAME_PATTERN}}),
        ),
    ]
    .into_iter()
    .chain(super::langgraph::parameter_constraints())
    .collect()
}

/// `schema` or `null`, for an optional field (whose `oneOf` of `null` and a `$ref` the
/// `anyOf` replaces).
fn nullable(mut schema: Value) -> Value {
    if let Some(any) = schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        any.insert(0, json!({"type": "null"}));
    }
    if let Some(object) = schema.as_object_mut() {
        object.insert("oneOf".into(), Value::Null);
    }
    schema
}

/// A checkpoint that must be named: its id, `{checkpoint_id}`, or (without `checkpoint_id`)
/// `{configurable: {checkpoint_id}}`.
fn named_checkpoint() -> Value {
    let id = json!({"type": "string"});
    json!({
        "$ref": Value::Null,
        "anyOf": [
            id,
            {"type": "object", "required": ["checkpoint_id"], "properties": {"checkpoint_id": id}},
            {"type": "object", "not": {"required": ["checkpoint_id"]}, "required": ["configurable"],
             "properties": {"configurable": {"type": "object", "required": ["checkpoint_id"],
                                             "properties": {"checkpoint_id": id}}}},
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use antler_app::files::VirtualPath;

    /// A constraint for a schema, field or parameter the document does not have would be
    /// dropped without a word.
    #[test]
    fn every_constraint_lands_in_the_document() {
        let doc = crate::openapi();
        for (schema, field, constraint) in field_constraints() {
            let property = &doc["components"]["schemas"][schema]["properties"][field];
            // A `null` constraint removes the key.
            for (key, value) in constraint.as_object().into_iter().flatten() {
                assert_eq!(&property[key], value, "{schema}.{field}: {key}");
            }
        }
        for (path, method, name, constraint) in parameter_constraints() {
            let parameter = doc["paths"][path][method]["parameters"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["name"] == name))
                .unwrap_or_else(|| panic!("{method} {path} has no parameter {name}"));
            for (key, value) in constraint["schema"].as_object().into_iter().flatten() {
                assert_eq!(&parameter["schema"][key], value, "{method} {path} {name}");
            }
        }
        let schemas = &doc["components"]["schemas"];
        assert_eq!(schemas["RunInputMessage"]["type"], "object");
        for form in ["ArchiveForm", "ArchivePreviewForm", "UploadForm"] {
            assert_eq!(schemas[form]["additionalProperties"], false, "{form}");
        }
        assert_eq!(
            schemas["ArchiveForm"]["properties"]["overwrite"]["type"],
            "string"
        );
    }

    /// The name pattern holds what the assistants service takes: no control character once
    /// trimmed (its 200-character limit counts the trimmed name, so it is not in the pattern).
    #[test]
    fn the_assistant_name_pattern_is_what_the_service_takes() {
        let pattern = regex::Regex::new(&assistant_name_pattern()).unwrap();
        for c in (0..0x3100).filter_map(char::from_u32) {
            for name in [
                c.to_string(),
                format!("a{c}"),
                format!("{c}a"),
                format!("a{c}b"),
                format!(" {c} "),
                format!("\t{c}b\n"),
            ] {
                let taken = !name.trim().chars().any(char::is_control);
                assert_eq!(pattern.is_match(&name), taken, "{name:?}");
            }
        }
    }

    /// The artifact path pattern holds what the artifact route takes (without `%`, which it
    /// leaves out rather than spell the encoded separators it refuses).
    #[test]
    fn the_artifact_path_pattern_is_what_the_route_takes() {
        let pattern = regex::Regex::new(ARTIFACT_PATH_PATTERN).unwrap();
        let segments = [
            "outputs", "a.md", ".", "..", "...", ".a", "..a", "a..", "a\\b", "a\0b", "", " ", "é",
        ];
        let mut paths = vec![
            "mnt/user-data".to_string(),
            "mnt/user-data/".to_string(),
            "mnt/user-datax".to_string(),
            "mnt/user".to_string(),
            "mnt/skills/public".to_string(),
            "/mnt/user-data".to_string(),
        ];
        for a in segments {
            paths.push(format!("mnt/user-data/{a}"));
            paths.push(format!("mnt/user-data/{a}/"));
            for b in segments {
                paths.push(format!("mnt/user-data/{a}/{b}"));
            }
        }
        for path in &paths {
            // The parser reads `…//` as the root itself, a directory the route refuses.
            if path == "mnt/user-data//" {
                continue;
            }
            let taken = VirtualPath::parse_user_data(&format!("/{path}")).is_ok();
            assert_eq!(pattern.is_match(path), taken, "{path:?}");
        }
        // Length: what the pattern allows the route takes (63 four-byte characters are 252
        // bytes); a segment over 255 bytes is refused by both.
        for (segment, allowed) in [
            ("😀".repeat(63), true),
            (format!(".{}", "😀".repeat(62)), true),
            ("😀".repeat(64), false),
            ("a".repeat(256), false),
        ] {
            let path = format!("mnt/user-data/{segment}");
            assert_eq!(pattern.is_match(&path), allowed, "{path}");
            if allowed {
                assert!(VirtualPath::parse_user_data(&format!("/{path}")).is_ok());
            }
        }
        assert!(
            VirtualPath::parse_user_data(&format!("/mnt/user-data/{}", "a".repeat(256))).is_err()
        );
    }
}
