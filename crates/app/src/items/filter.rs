//! A search's `filter` as LangGraph writes it: `{"key": value}` is equality, `{"key":
//! {"$gt": 3}}` a comparison; read into conditions the repository runs in SQL.

use antler_protocol::store_items::MAX_CONDITIONS;
use antler_store::items::{Condition, Op};
use serde_json::Value;

use super::ItemError;

/// The operators, by their names.
const OPERATORS: [(&str, Op); 6] = [
    ("$eq", Op::Eq),
    ("$ne", Op::Ne),
    ("$gt", Op::Gt),
    ("$gte", Op::Gte),
    ("$lt", Op::Lt),
    ("$lte", Op::Lte),
];

/// The conditions of a filter (null or absent: none).
pub(super) fn conditions(filter: Option<&Value>) -> Result<Vec<Condition>, ItemError> {
    let map = match filter {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(invalid("filter must be a JSON object")),
    };
    // PostgreSQL refuses NUL in text and JSON; refused here, before any query.
    if serde_json::to_string(map).is_ok_and(|text| text.contains("\\u0000")) {
        return Err(invalid("filter must not contain the NUL character"));
    }
    let mut out = Vec::new();
    for (key, value) in map {
        match value {
            Value::Object(ops) if ops.keys().any(|k| k.starts_with('$')) => {
                for (name, operand) in ops {
                    let Some((_, op)) = OPERATORS.iter().find(|(n, _)| n == name) else {
                        return Err(invalid(format!(
                            "unknown filter operator '{}' for '{}' (expected $eq, $ne, $gt, $gte, $lt or $lte)",
                            clip(name),
                            clip(key)
                        )));
                    };
                    let ordering = !matches!(op, Op::Eq | Op::Ne);
                    if ordering && !matches!(operand, Value::Number(_) | Value::String(_)) {
                        return Err(invalid(format!(
                            "filter operator '{name}' for '{}' compares a number or a string",
                            clip(key)
                        )));
                    }
                    out.push(Condition {
                        key: key.clone(),
                        op: *op,
                        value: operand.clone(),
                    });
                }
            }
            other => out.push(Condition {
                key: key.clone(),
                op: Op::Eq,
                value: other.clone(),
            }),
        }
    }
    if out.len() > MAX_CONDITIONS {
        return Err(invalid(format!(
            "filter has {} conditions; at most {MAX_CONDITIONS} are allowed",
            out.len()
        )));
    }
    Ok(out)
}

fn invalid(message: impl Into<String>) -> ItemError {
    ItemError::Invalid(message.into())
}

/// A name from the request, cut short for an error message.
fn clip(text: &str) -> String {
    text.chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_values_are_equality_and_dollar_keys_are_operators() {
        let found = conditions(Some(
            &json!({"kind": "note", "score": {"$gt": 3, "$lte": 9}, "tags": {"a": 1}}),
        ))
        .unwrap();
        let ops: Vec<(String, Op)> = found.iter().map(|c| (c.key.clone(), c.op)).collect();
        assert_eq!(
            ops,
            [
                ("kind".to_string(), Op::Eq),
                ("score".to_string(), Op::Gt),
                ("score".to_string(), Op::Lte),
                ("tags".to_string(), Op::Eq),
            ]
        );
    }

    #[test]
    fn unknown_operators_and_unordered_operands_are_refused() {
        assert!(conditions(Some(&json!({"a": {"$regex": "x"}}))).is_err());
        assert!(conditions(Some(&json!({"a": {"$gt": [1]}}))).is_err());
        assert!(conditions(Some(&json!([1]))).is_err());
        assert!(conditions(Some(&json!({"a": "x\u{0}"}))).is_err());
        assert!(conditions(None).unwrap().is_empty());
    }
}
