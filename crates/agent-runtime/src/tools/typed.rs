//! Built-in tools as typed handlers: arguments parsed into a type whose JSON Schema is what
//! the model is given.

use async_trait::async_trait;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{Tool, ToolContext, ToolError, ToolOutput};

/// A tool whose arguments are `Self::Args`. Every `TypedTool` is a [`Tool`].
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments (unknown properties are ignored).
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What it does, for the model.
    const DESCRIPTION: &'static str;
    /// Runs one call.
    async fn run(&self, args: Self::Args, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }

    fn description(&self) -> &str {
        T::DESCRIPTION
    }

    fn parameters(&self) -> Value {
        schema_of::<T::Args>()
    }

    async fn call(&self, args: Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let args = parse_args::<T::Args>(T::NAME, args)?;
        self.run(args, ctx).await
    }
}

/// The arguments of a call to `tool` as `A`, or an error naming the argument at fault.
pub(crate) fn parse_args<A: DeserializeOwned>(tool: &str, args: Value) -> Result<A, ToolError> {
    serde_path_to_error::deserialize::<_, A>(args).map_err(|e| {
        let at = e.path().to_string();
        let place = if at == "." {
            String::new()
        } else {
            format!(" (argument '{at}')")
        };
        ToolError::Model(format!(
            "the arguments of {tool} are not valid: {}{place}",
            e.inner()
        ))
    })
}

/// The JSON Schema of `A` as chat-completions APIs take it: inline, no `$schema` or titles,
/// optional fields plain (not `[type, null]`), no Rust-specific integer formats.
pub(crate) fn schema_of<A: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let mut schema = settings.into_generator().root_schema_for::<A>().to_value();
    tidy(&mut schema);
    // The arguments type's own doc comment is for readers of the code, not the model.
    if let Some(root) = schema.as_object_mut() {
        root.remove("description");
    }
    schema
}

fn tidy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("title");
            map.remove("default");
            map.remove("$schema");
            if let Some(Value::String(format)) = map.get("format")
                && format.starts_with("uint")
            {
                map.remove("format");
            }
            unnull(map);
            for child in map.values_mut() {
                tidy(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// `"type": ["string", "null"]` → `"type": "string"`.
fn unnull(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
        }
    }
}
