//! Tools in the order the model is shown them, called by name: the built-in ones (one
//! registry for the server), and a run's (a copy of those plus the run's own tools).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::{Value, json};

use super::{
    Phase, Tool, ToolContext, ToolError, ToolOutput, bash, clarify, files, present, search, skills,
    todos, view_image,
};

/// Tools by name, with their definitions for the model request built once (shared: a
/// run's registry and each model request hold them without copying).
#[derive(Clone)]
pub struct ToolRegistry {
    entries: Vec<(Arc<dyn Tool>, Arc<Value>)>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|(t, _)| t.name()))
            .finish()
    }
}

impl ToolRegistry {
    /// No tools.
    pub fn empty() -> Self {
        ToolRegistry {
            entries: Vec::new(),
        }
    }

    /// The built-in sandbox tools, in a stable order.
    pub fn builtin() -> Self {
        let mut registry = ToolRegistry::empty();
        let tools: [Arc<dyn Tool>; 12] = [
            Arc::new(bash::Bash),
            Arc::new(files::Ls),
            Arc::new(files::ReadFile),
            Arc::new(files::WriteFile),
            Arc::new(files::StrReplace),
            Arc::new(search::Glob),
            Arc::new(search::Grep),
            Arc::new(present::PresentFiles),
            Arc::new(view_image::ViewImage),
            Arc::new(clarify::AskClarification),
            Arc::new(skills::SearchSkills),
            Arc::new(todos::WriteTodos),
        ];
        for tool in tools {
            registry.entries.push(definition(tool));
        }
        registry
    }

    /// Adds a tool; a name already taken is refused (the first registration wins).
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), String> {
        if self.get(tool.name()).is_some() {
            return Err(format!(
                "a tool named '{}' is already registered",
                tool.name()
            ));
        }
        self.entries.push(definition(tool));
        Ok(())
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.entries
            .iter()
            .map(|(t, _)| t)
            .find(|t| t.name() == name)
    }

    /// The tools' names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(t, _)| t.name()).collect()
    }

    /// Every tool's definition (`tools` of Chat Completions), in order.
    pub fn definitions(&self) -> Vec<Value> {
        self.entries.iter().map(|(_, d)| Value::clone(d)).collect()
    }

    /// The definitions for the next model request: tools [listed](Tool::listed) now whose
    /// names `offered` accepts, in order.
    pub fn listed_definitions(&self, offered: impl Fn(&str) -> bool) -> Vec<Arc<Value>> {
        self.entries
            .iter()
            .filter(|(t, _)| t.listed() && offered(t.name()))
            .map(|(_, d)| Arc::clone(d))
            .collect()
    }

    /// When calls of the tool `name` run (an unknown name: with the others, to fail there).
    pub fn phase(&self, name: &str) -> Phase {
        self.get(name).map_or(Phase::Concurrent, |t| t.phase())
    }

    /// Runs one call. An unknown tool, bad arguments or a failure the model can act on are
    /// `ToolError::Model`; a tool that panics is `ToolError::Fatal` (the run ends, the server
    /// does not).
    pub async fn call(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext<'_>,
    ) -> Result<ToolOutput, ToolError> {
        let Some(tool) = self.get(name) else {
            return Err(ToolError::Model(format!(
                "unknown tool '{name}'; use one of the listed tools"
            )));
        };
        let result = AssertUnwindSafe(tool.call(args, ctx))
            .catch_unwind()
            .await
            .unwrap_or_else(|_| {
                tracing::error!(tool = name, "a tool panicked");
                Err(ToolError::Fatal(format!(
                    "the tool '{name}' failed unexpectedly; the run was stopped"
                )))
            });
        // Output over the limit is fitted by the caller (`AgentRun::fit`), which keeps it whole
        // in a file for the agent.
        result
    }
}

/// A tool with its Chat Completions definition. Every tool also takes a short description
/// of why it is called (shown in the UI), except one that forwards its arguments (they go
/// to another program as they are), and one whose own `description` argument says it.
fn definition(tool: Arc<dyn Tool>) -> (Arc<dyn Tool>, Arc<Value>) {
    let mut parameters = tool.parameters();
    if !parameters.is_object() {
        parameters = json!({"type": "object", "properties": {}});
    }
    if let Some(properties) = parameters
        .as_object_mut()
        .filter(|_| !tool.forwards_arguments())
        .map(|p| p.entry("properties").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
    {
        properties.entry("description").or_insert_with(|| {
            json!({
                "type": "string",
                "description": "One short sentence saying what this call is for (shown to the person)."
            })
        });
    }
    let definition = json!({
        "type": "function",
        "function": {
            "name": tool.name(),
            "description": tool.description(),
            "parameters": parameters,
        }
    });
    (tool, Arc::new(definition))
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use async_trait::async_trait;
    use serde_json::{Value, json};

    use super::*;
    use crate::config::AgentConfig;
    use crate::tools::{SandboxHandle, ToolContext};

    /// The definitions the model is given are part of the product: any change must show in
    /// review (`UPDATE_SNAPSHOTS=1` accepts one). Every kind of tool is in it.
    #[test]
    fn tool_definitions_match_the_snapshot() {
        let actual =
            serde_json::to_string_pretty(&crate::agent::every_kind_of_tool().definitions())
                .expect("definitions serialise")
                + "\n";
        let path = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap())
            .join("tests/fixtures/tool-definitions.json");
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(&path, &actual).expect("snapshot written");
            return;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            expected == actual,
            "the tool definitions changed; review and accept with UPDATE_SNAPSHOTS=1 ({})",
            path.display()
        );
    }

    #[test]
    fn every_definition_is_a_plain_object_schema_with_the_description_argument() {
        for d in crate::agent::every_kind_of_tool().definitions() {
            let params = &d["function"]["parameters"];
            assert_eq!(params["type"], "object", "{d}");
            // An MCP tool's arguments go to its server as they are.
            let forwarded = d["function"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("mcp__"));
            assert_eq!(
                params["properties"]["description"].is_object(),
                !forwarded,
                "{d}"
            );
            let text = params.to_string();
            for banned in ["$schema", "$defs", "\"null\"", "uint"] {
                assert!(!text.contains(banned), "{banned} in {d}");
            }
        }
    }

    struct Boom;

    #[async_trait]
    impl Tool for Boom {
        fn name(&self) -> &str {
            "boom"
        }
        fn description(&self) -> &str {
            "Always breaks."
        }
        fn parameters(&self) -> Value {
            json!({"type": "object", "properties": {}})
        }
        async fn call(
            &self,
            _args: Value,
            _ctx: &ToolContext<'_>,
        ) -> Result<ToolOutput, ToolError> {
            panic!("a bug in a tool");
        }
    }

    fn context_parts() -> (SandboxHandle, Arc<antler_skills::Snapshot>, AgentConfig) {
        let dir = std::env::temp_dir().join(format!("antler-registry-{}", std::process::id()));
        let provider = Arc::new(antler_sandbox::local::LocalProvider::new(
            &dir,
            &dir.join("view"),
            false,
            1024,
        ));
        let catalog = antler_skills::Catalog::load(
            &dir.join("skills"),
            antler_skills::ScanLimits::default(),
            Default::default(),
        );
        (
            SandboxHandle::new(provider, "t"),
            catalog.snapshot(),
            AgentConfig::default(),
        )
    }

    #[tokio::test]
    async fn calls_report_unknown_tools_bad_arguments_and_panics_clearly() {
        let mut registry = ToolRegistry::builtin();
        registry.register(Arc::new(Boom)).expect("a new name");
        assert!(
            registry.register(Arc::new(Boom)).is_err(),
            "names are unique"
        );
        let (sandbox, skills, cfg) = context_parts();
        let cancel = tokio_util::sync::CancellationToken::new();
        let ctx = ToolContext {
            sandbox: &sandbox,
            skills: &skills,
            cfg: &cfg,
            cancel: &cancel,
            call_id: "call-1",
            events: None,
            memory: None,
            delegate: None,
        };
        let unknown = registry.call("nope", json!({}), &ctx).await;
        assert!(
            matches!(&unknown, Err(ToolError::Model(m)) if m.contains("unknown tool 'nope'")),
            "{unknown:?}"
        );
        let missing = registry.call("bash", json!({}), &ctx).await;
        assert!(
            matches!(&missing, Err(ToolError::Model(m)) if m.contains("command")),
            "the missing argument is named: {missing:?}"
        );
        let wrong = registry.call("read_file", json!({"path": 7}), &ctx).await;
        assert!(
            matches!(&wrong, Err(ToolError::Model(m)) if m.contains("'path'")),
            "{wrong:?}"
        );
        let broke = registry.call("boom", json!({}), &ctx).await;
        assert!(
            matches!(&broke, Err(ToolError::Fatal(m)) if m.contains("boom")),
            "a panicking tool ends the run, not the server: {broke:?}"
        );
    }

    #[tokio::test]
    async fn lenient_arguments_are_taken_as_meant() {
        let registry = ToolRegistry::builtin();
        let (sandbox, skills, cfg) = context_parts();
        let cancel = tokio_util::sync::CancellationToken::new();
        let ctx = ToolContext {
            sandbox: &sandbox,
            skills: &skills,
            cfg: &cfg,
            cancel: &cancel,
            call_id: "call-1",
            events: None,
            memory: None,
            delegate: None,
        };
        // Clarifications need no sandbox: the argument forms alone are checked.
        let out = registry
            .call(
                "ask_clarification",
                json!({"question": "Which?", "clarification_type": "", "options": ["a"], "extra": 1}),
                &ctx,
            )
            .await
            .expect("extra properties are ignored, an empty type is the default");
        assert_eq!(
            out.artifact.expect("artifact")["clarification_type"],
            "missing_info"
        );
        for args in [
            json!({"command": "true", "timeout_secs": "5"}),
            json!({"command": "true", "timeout_secs": 5.0}),
            json!({"command": "true", "timeout_secs": ""}),
        ] {
            // The local provider refuses commands: the arguments parsed, the call got that far.
            let result = registry.call("bash", args.clone(), &ctx).await;
            assert!(
                matches!(&result, Err(ToolError::Model(m)) if !m.contains("not valid")),
                "{args}: {result:?}"
            );
        }
        let bad = registry
            .call(
                "bash",
                json!({"command": "true", "timeout_secs": "soon"}),
                &ctx,
            )
            .await;
        assert!(
            matches!(&bad, Err(ToolError::Model(m)) if m.contains("timeout_secs")),
            "{bad:?}"
        );
    }
}
