//! The tools as the model sees them (JSON schemas in the request).

use serde_json::{Value, json};

fn tool(name: &str, description: &str, mut properties: Value, required: &[&str]) -> Value {
    // Every tool also takes a short description of why it is called (shown in the UI).
    properties["description"] = json!({
        "type": "string",
        "description": "One short sentence saying what this call is for (shown to the person)."
    });
    json!({
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        }
    })
}

/// Every tool definition, in a stable order.
pub fn definitions() -> Vec<Value> {
    vec![
        tool(
            "bash",
            "Run a bash command in the sandbox (working directory /mnt/user-data/workspace). \
             Returns stdout, stderr and the exit code. Long output is shortened in the middle.",
            json!({
                "command": {"type": "string", "description": "The command."},
                "timeout_secs": {"type": "integer", "description": "Kill it after this many seconds (default 300)."}
            }),
            &["command"],
        ),
        tool(
            "ls",
            "List a directory (two levels by default).",
            json!({
                "path": {"type": "string", "description": "Absolute path, e.g. /mnt/user-data/workspace."},
                "depth": {"type": "integer", "description": "Levels to list (1-5)."}
            }),
            &["path"],
        ),
        tool(
            "read_file",
            "Read a text file, optionally only lines start_line..end_line (1-based, inclusive). \
             Use it to read a skill's SKILL.md before following it.",
            json!({
                "path": {"type": "string", "description": "Absolute path."},
                "start_line": {"type": "integer"},
                "end_line": {"type": "integer"}
            }),
            &["path"],
        ),
        tool(
            "write_file",
            "Write a text file (parent directories are created). Set append to add to the end.",
            json!({
                "path": {"type": "string", "description": "Absolute path under /mnt/user-data."},
                "content": {"type": "string"},
                "append": {"type": "boolean"}
            }),
            &["path", "content"],
        ),
        tool(
            "str_replace",
            "Replace exact text in a file. Fails when old_str is absent, or appears more than once \
             unless replace_all is true.",
            json!({
                "path": {"type": "string"},
                "old_str": {"type": "string"},
                "new_str": {"type": "string"},
                "replace_all": {"type": "boolean"}
            }),
            &["path", "old_str", "new_str"],
        ),
        tool(
            "glob",
            "Find files by glob pattern (e.g. **/*.py) under a directory.",
            json!({
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "Directory to search (default /mnt/user-data/workspace)."}
            }),
            &["pattern"],
        ),
        tool(
            "grep",
            "Search file contents with a regular expression (or literal text).",
            json!({
                "pattern": {"type": "string"},
                "path": {"type": "string", "description": "File or directory (default /mnt/user-data/workspace)."},
                "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.md."},
                "literal": {"type": "boolean"},
                "case_sensitive": {"type": "boolean"}
            }),
            &["pattern"],
        ),
        tool(
            "present_files",
            "Show finished files to the person (they can open and download them). Paths must be \
             under /mnt/user-data/outputs.",
            json!({
                "filepaths": {"type": "array", "items": {"type": "string"}}
            }),
            &["filepaths"],
        ),
        tool(
            "ask_clarification",
            "Ask the person one question and stop until they answer. Use only when the request \
             cannot be done well without the answer.",
            json!({
                "question": {"type": "string"},
                "clarification_type": {
                    "type": "string",
                    "enum": ["missing_info", "ambiguous_requirement", "approach_choice", "risk_confirmation", "suggestion"]
                },
                "context": {"type": "string"},
                "options": {"type": "array", "items": {"type": "string"}}
            }),
            &["question", "clarification_type"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_schema_and_the_description_argument() {
        let defs = definitions();
        let names: Vec<&str> = defs
            .iter()
            .map(|d| d["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "bash",
                "ls",
                "read_file",
                "write_file",
                "str_replace",
                "glob",
                "grep",
                "present_files",
                "ask_clarification"
            ]
        );
        for d in &defs {
            assert!(d["function"]["parameters"]["properties"]["description"].is_object());
        }
    }
}
