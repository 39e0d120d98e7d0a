//! The OpenAPI document is part of the API: any change must be deliberate.
//!
//! Run `UPDATE_SNAPSHOTS=1 cargo test -p antler-gateway --test openapi_snapshot` (or
//! `make snapshots`) to accept a change, then review the diff of `snapshots/openapi.json`.

use std::path::Path;

#[test]
fn openapi_document_matches_the_snapshot() {
    let doc = antler_gateway::openapi();
    let actual = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    let path = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("tests/snapshots/openapi.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "the OpenAPI document changed; review and accept with UPDATE_SNAPSHOTS=1 (see {})",
        path.display()
    );
}

#[test]
fn every_operation_documents_its_responses() {
    let doc = serde_json::to_value(antler_gateway::openapi()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let responses = op["responses"].as_object().unwrap();
            assert!(!responses.is_empty(), "{method} {path}");
            for (status, response) in responses {
                if status.starts_with('4') || status.starts_with('5') {
                    let schema = &response["content"]["application/json"]["schema"]["$ref"];
                    assert_eq!(
                        schema, "#/components/schemas/ErrorEnvelope",
                        "{method} {path} {status} must use the error envelope"
                    );
                }
            }
        }
    }
}

#[test]
fn operation_ids_are_unique_verb_noun_names() {
    let doc = antler_gateway::openapi();
    let mut seen = std::collections::BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap_or_default().to_string();
            let words: Vec<&str> = id.split('_').collect();
            assert!(
                words.len() >= 2
                    && words
                        .iter()
                        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
                "{method} {path}: operation id {id:?} is not verb_noun"
            );
            if let Some(other) = seen.insert(id.clone(), format!("{method} {path}")) {
                panic!("operation id {id:?} is used by {other} and {method} {path}");
            }
        }
    }
}
