//! OpenAPI links: which answer's ids feed which operations (the thread, run, assistant, fact,
//! skill, upload and checkpoint a request created), so clients — and the API fuzzer's stateful
//! phase — can follow them. Only ids every `200` answer has: an import that installs nothing
//! has no skill to link to, a new thread's state no checkpoint, an empty server list no
//! server.

use serde_json::{Map, Value, json};

/// The operations that start a run (each takes an `assistant_id` in its body).
const STARTS_RUN: [&str; 6] = [
    "create_run",
    "stream_run",
    "wait_run",
    "create_stateless",
    "stream_stateless",
    "wait_stateless",
];

/// Adds every link to the `200` answers of `paths`.
pub(super) fn add_links(paths: &mut Map<String, Value>) {
    let (takes_thread, takes_run) = id_takers(paths);
    let thread = json!({"thread_id": "$response.body#/thread_id"});
    let mut links_of: Vec<(&str, Map<String, Value>)> = vec![
        (
            "create_thread",
            takes_thread
                .iter()
                .map(String::as_str)
                .chain(["create_run"])
                .map(|id| link(id, thread.clone(), None))
                .collect(),
        ),
        (
            "create_run",
            takes_run
                .iter()
                .map(|(id, in_thread)| {
                    // The console reads a run by its id alone.
                    let ids = if *in_thread {
                        json!({"thread_id": "$response.body#/thread_id",
                               "run_id": "$response.body#/run_id"})
                    } else {
                        json!({"run_id": "$response.body#/run_id"})
                    };
                    link(id, ids, None)
                })
                .collect(),
        ),
        (
            "create_assistant",
            STARTS_RUN
                .iter()
                .map(|id| {
                    // Merged into the generated body: the run uses the new assistant.
                    let body = json!({"assistant_id": "$response.body#/assistant_id"});
                    link(id, json!({}), Some(body))
                })
                .chain(takers(paths, "{assistant_id}").iter().map(|id| {
                    link(
                        id,
                        json!({"assistant_id": "$response.body#/assistant_id"}),
                        None,
                    )
                }))
                .collect(),
        ),
        (
            "upload_files",
            [link(
                "delete_upload",
                json!({"thread_id": "$request.path.thread_id",
                       "filename": "$response.body#/files/0/filename"}),
                None,
            )]
            .into_iter()
            .collect(),
        ),
    ];
    // A fact's correction is a new fact (with a new id).
    for makes_fact in ["add_fact", "update_fact"] {
        let fact = json!({"fact_id": "$response.body#/fact_id"});
        let links = takers(paths, "{fact_id}")
            .iter()
            .map(|id| link(id, fact.clone(), None))
            .collect();
        links_of.push((makes_fact, links));
    }
    for installs in ["upload_skill", "install_skill"] {
        links_of.push((installs, skill_links("$response.body#/skill")));
    }
    links_of.push(("update_state", checkpoint_links()));
    for (operation, links) in links_of {
        if let Some(ok) = operation_mut(paths, operation)
            .and_then(|op| op.get_mut("responses"))
            .and_then(|r| r.get_mut("200"))
            .and_then(Value::as_object_mut)
        {
            ok.insert("links".into(), Value::Object(links));
        }
    }
}

/// The operations that take a thread id (but do not create a run in it: `create_run` is
/// linked on its own) and those that take a run id (with whether they take its thread's).
fn id_takers(paths: &Map<String, Value>) -> (Vec<String>, Vec<(String, bool)>) {
    let mut takes_thread = Vec::new();
    let mut takes_run = Vec::new();
    for (path, item) in paths {
        for (method, op) in item.as_object().into_iter().flatten() {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                continue;
            };
            if path.contains("{run_id}") {
                takes_run.push((id.to_string(), path.contains("{thread_id}")));
            } else if path.contains("{thread_id}") && !(method == "post" && path.ends_with("/runs"))
            {
                takes_thread.push(id.to_string());
            }
        }
    }
    (takes_thread, takes_run)
}

/// The operations whose path has the parameter `segment` (e.g. `{fact_id}`).
fn takers(paths: &Map<String, Value>, segment: &str) -> Vec<String> {
    paths
        .iter()
        .filter(|(path, _)| path.contains(segment))
        .flat_map(|(_, item)| item.as_object().into_iter().flatten())
        .filter_map(|(_, op)| op.get("operationId").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// One link, named after its target operation.
fn link(operation: &str, parameters: Value, body: Option<Value>) -> (String, Value) {
    let mut link = json!({"operationId": operation, "parameters": parameters});
    if let (Some(body), Some(link)) = (body, link.as_object_mut()) {
        link.insert("requestBody".into(), body);
    }
    (operation.to_string(), link)
}

/// From an answer holding a skill (at `skill`, a runtime expression) to what reads, toggles
/// and deletes it.
fn skill_links(skill: &str) -> Map<String, Value> {
    let name = format!("{skill}/name");
    let category = format!("{skill}/category");
    [
        link(
            "get_skill",
            json!({"name": name, "category": category}),
            None,
        ),
        link(
            "set_skill",
            json!({"name": name}),
            Some(json!({"category": category})),
        ),
        link(
            "delete_skill",
            json!({"name": name, "category": category}),
            None,
        ),
    ]
    .into_iter()
    .collect()
}

/// From a new checkpoint (`update_state`) to the operations that read a checkpoint. (A
/// thread's state has none before its first message: no link from there.)
fn checkpoint_links() -> Map<String, Value> {
    let thread = "$response.body#/checkpoint/thread_id";
    let checkpoint = "$response.body#/checkpoint/checkpoint_id";
    [
        link(
            "get_state_at",
            json!({"thread_id": thread, "checkpoint_id": checkpoint}),
            None,
        ),
        link(
            "post_state_at",
            json!({"thread_id": thread}),
            Some(json!({"checkpoint": checkpoint})),
        ),
    ]
    .into_iter()
    .collect()
}

/// The operation with `operation_id`.
fn operation_mut<'a>(
    paths: &'a mut Map<String, Value>,
    operation_id: &str,
) -> Option<&'a mut Map<String, Value>> {
    paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|item| item.values_mut())
        .filter_map(Value::as_object_mut)
        .find(|op| op.get("operationId").and_then(Value::as_str) == Some(operation_id))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    /// A link to an operation that does not exist, or from an answer that does not have the
    /// field it reads, would be a dead end for clients.
    #[test]
    fn links_name_operations_and_fields_that_exist() {
        let doc = crate::openapi();
        let mut ids = std::collections::HashMap::new();
        for item in doc["paths"].as_object().into_iter().flatten().map(|i| i.1) {
            for op in item.as_object().into_iter().flatten().map(|o| o.1) {
                ids.insert(
                    op["operationId"].as_str().unwrap_or_default().to_string(),
                    op,
                );
            }
        }
        let mut count = 0;
        for (source, op) in &ids {
            let ok = &op["responses"]["200"];
            for (name, link) in ok["links"].as_object().into_iter().flatten() {
                count += 1;
                let target = link["operationId"].as_str().unwrap_or_default();
                assert!(ids.contains_key(target), "{source} links to {target}");
                assert_eq!(name, target);
                let mut expressions: Vec<&Value> = link["parameters"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|p| p.1)
                    .collect();
                expressions.extend(
                    link["requestBody"]
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|b| b.1),
                );
                for expression in expressions {
                    let expression = expression.as_str().unwrap_or_default();
                    if let Some(pointer) = expression.strip_prefix("$response.body#") {
                        let schema = response_schema(&doc, ok);
                        assert!(
                            pointer_has_schema(&doc, &schema, pointer),
                            "{source} → {target}: the answer has no {pointer}"
                        );
                    } else {
                        let parameter = expression.strip_prefix("$request.path.");
                        assert!(parameter.is_some(), "{source} → {target}: {expression}");
                    }
                }
            }
        }
        assert!(count >= 20, "{count} links");
    }

    fn response_schema(doc: &Value, ok: &Value) -> Value {
        resolve(doc, &ok["content"]["application/json"]["schema"])
    }

    fn resolve(doc: &Value, schema: &Value) -> Value {
        match schema["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => resolve(doc, doc.pointer(pointer).unwrap_or(&Value::Null)),
            None => schema.clone(),
        }
    }

    /// Whether the schema describes something at the JSON pointer (array items by index).
    fn pointer_has_schema(doc: &Value, schema: &Value, pointer: &str) -> bool {
        let mut current = schema.clone();
        for token in pointer.split('/').skip(1) {
            let next = if token.parse::<usize>().is_ok() {
                current["items"].clone()
            } else {
                // A nullable reference is `oneOf: [null, {$ref}]`.
                let property = &current["properties"][token];
                property["oneOf"]
                    .as_array()
                    .and_then(|variants| variants.iter().find(|v| v["$ref"].is_string()))
                    .unwrap_or(property)
                    .clone()
            };
            current = resolve(doc, &next);
            if current.is_null() {
                return false;
            }
        }
        true
    }
}
