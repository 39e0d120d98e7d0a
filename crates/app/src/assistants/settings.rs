//! A custom agent's settings: read from an assistant's `context` (over its
//! `config.configurable`) and checked against what this server has.

use antler_protocol::assistants::AgentSettings;
use serde::Deserialize as _;
use serde_json::Value;

/// Longest system-prompt addition, in characters.
pub(super) const MAX_INSTRUCTIONS: usize = 20_000;
/// Most skills or tools one agent may list.
const MAX_NAMES: usize = 500;

/// What the settings are checked against.
#[derive(Debug, Clone)]
pub struct Known {
    /// Configured model names.
    pub models: Vec<String>,
    /// Tool names.
    pub tools: Vec<String>,
}

/// The settings of `config` and `context` (context wins), keys other than the settings'
/// left to the client; an error names what is wrong.
pub(crate) fn read(config: &Value, context: &Value) -> Result<AgentSettings, String> {
    let mut settings = AgentSettings::default();
    // Context first: each setting comes from the first source that has it.
    for (name, source) in [
        ("context", Some(context)),
        ("config.configurable", config.get("configurable")),
    ] {
        match source {
            Some(v @ Value::Object(_)) => {
                let read = AgentSettings::deserialize(v).map_err(|e| format!("{name}: {e}"))?;
                settings = settings.or(read);
            }
            None | Some(Value::Null) => {}
            Some(_) => return Err("context and config.configurable must be objects".into()),
        }
    }
    Ok(settings)
}

/// Checks settings against the server's models and tools.
pub(super) fn check(settings: &AgentSettings, known: &Known) -> Result<(), String> {
    if let Some(prompt) = &settings.system_prompt {
        let chars = prompt.chars().count();
        if chars > MAX_INSTRUCTIONS {
            return Err(format!(
                "context.system_prompt has {chars} characters; at most {MAX_INSTRUCTIONS} are allowed"
            ));
        }
    }
    if let Some(model) = &settings.model_name
        && !known.models.iter().any(|m| m == model)
    {
        return Err(format!(
            "context.model_name: no model named '{}' is configured (configured: {})",
            shown(model),
            known.models.join(", ")
        ));
    }
    if let Some(skills) = &settings.skills {
        check_names("skills", skills)?;
    }
    if let Some(image) = &settings.sandbox_image {
        check_image(image)?;
    }
    if let Some(secrets) = &settings.secrets {
        if secrets.len() > crate::secrets::MAX_GRANTS {
            return Err(format!(
                "context.secrets: at most {} names",
                crate::secrets::MAX_GRANTS
            ));
        }
        if let Some(bad) = secrets.iter().find(|s| !crate::secrets::is_secret_name(s)) {
            return Err(format!(
                "context.secrets: '{}' is not a secret name (letters, digits and _, not starting with a digit)",
                shown(bad)
            ));
        }
    }
    if let Some(network) = &settings.sandbox_network {
        let mode = network
            .mode
            .unwrap_or(antler_protocol::egress::NetworkMode::Allowlist);
        let entries = network.allowed_domains.as_deref().unwrap_or_default();
        if entries.len() > 200 {
            return Err("context.sandbox_network.allowed_domains: at most 200 entries".into());
        }
        antler_sandbox::egress::Rules::parse(mode, entries).map_err(|(i, m)| {
            format!(
                "context.sandbox_network.allowed_domains[{i}]: {}",
                shown(&m)
            )
        })?;
    }
    if let Some(web) = &settings.web {
        for (key, list) in [
            ("allowed_domains", &web.allowed_domains),
            ("blocked_domains", &web.blocked_domains),
        ] {
            let entries = list.as_deref().unwrap_or_default();
            if entries.len() > 200 {
                return Err(format!("context.web.{key}: at most 200 entries"));
            }
        }
        let server = antler_agent_runtime::tools::web::WebPolicy::new(&Default::default())
            .map_err(|e| shown(&e))?;
        server.narrowed(web).map_err(|e| shown(&e))?;
    }
    if let Some(types) = &settings.subagent_types {
        check_subagent_types(types)?;
    }
    if let Some(tools) = &settings.tools {
        check_names("tools", tools)?;
        // MCP tools come and go with their servers: their names are not checked here.
        if let Some(unknown) = tools.iter().find(|t| {
            !t.starts_with("mcp__")
                && !t.starts_with("memory_")
                && t.as_str() != "tool_search"
                && t.as_str() != "task"
                && !known.tools.contains(t)
        }) {
            return Err(format!(
                "context.tools: there is no tool named '{}' (tools: {})",
                shown(unknown),
                known.tools.join(", ")
            ));
        }
    }
    Ok(())
}

/// An image reference as Docker takes it (`name[:tag][@digest]`, with a registry): no
/// spaces, no option-like leading dash, at most 255 characters.
fn check_image(image: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-/:@".contains(c);
    if image.is_empty()
        || image.len() > 255
        || image.starts_with(['-', '.', '/', ':', '@'])
        || !image.chars().all(allowed)
    {
        return Err(format!(
            "context.sandbox_image '{}' is not an image reference (name[:tag], letters, digits and ._-/:@, at most 255 characters)",
            shown(image)
        ));
    }
    Ok(())
}

fn check_subagent_types(types: &[antler_protocol::assistants::SubagentType]) -> Result<(), String> {
    if types.len() > 20 {
        return Err(format!(
            "context.subagent_types lists {} types; at most 20 are allowed",
            types.len()
        ));
    }
    for (i, t) in types.iter().enumerate() {
        let at = format!("context.subagent_types[{i}]");
        if t.name.trim().is_empty()
            || t.name.chars().count() > 64
            || t.name.chars().any(char::is_control)
        {
            return Err(format!("{at}.name must be 1 to 64 characters"));
        }
        if t.description.trim().is_empty() || t.description.chars().count() > 2000 {
            return Err(format!("{at}.description must be 1 to 2,000 characters"));
        }
        if t.system_prompt.chars().count() > MAX_INSTRUCTIONS {
            return Err(format!(
                "{at}.system_prompt has more than {MAX_INSTRUCTIONS} characters"
            ));
        }
        if let Some(tools) = &t.tools {
            check_names("subagent_types[].tools", tools)?;
        }
    }
    Ok(())
}

fn check_names(what: &str, names: &[String]) -> Result<(), String> {
    if names.len() > MAX_NAMES {
        return Err(format!(
            "context.{what} lists {} names; at most {MAX_NAMES} are allowed",
            names.len()
        ));
    }
    if let Some(bad) = names
        .iter()
        .find(|n| n.trim().is_empty() || n.chars().count() > 128 || n.chars().any(char::is_control))
    {
        return Err(format!("context.{what}: '{}' is not a name", shown(bad)));
    }
    Ok(())
}

/// A value as shown in an error: at most 80 characters.
fn shown(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn known() -> Known {
        Known {
            models: vec!["fast".into()],
            tools: vec!["bash".into(), "ls".into()],
        }
    }

    #[test]
    fn context_wins_over_configurable_and_other_keys_are_left_alone() {
        let settings = read(
            &json!({"configurable": {"model_name": "fast", "system_prompt": "old"}}),
            &json!({"system_prompt": "new", "ui_color": "red"}),
        )
        .unwrap();
        assert_eq!(settings.system_prompt.as_deref(), Some("new"));
        assert_eq!(settings.model_name.as_deref(), Some("fast"));
        check(&settings, &known()).unwrap();
    }

    #[test]
    fn wrong_settings_are_named() {
        let bad = |context: Value| read(&json!({}), &context).and_then(|s| check(&s, &known()));
        assert!(
            bad(json!({"model_name": "slow"}))
                .unwrap_err()
                .contains("fast")
        );
        assert!(
            bad(json!({"tools": ["rm"]}))
                .unwrap_err()
                .contains("bash, ls")
        );
        assert!(bad(json!({"skills": "pdf"})).is_err());
        assert!(bad(json!({"skills": [""]})).is_err());
        assert!(bad(json!({"system_prompt": "x".repeat(MAX_INSTRUCTIONS + 1)})).is_err());
        for image in ["", "-v /:/host", "a b", "x\n", ":tag", &"a".repeat(256)] {
            assert!(
                bad(json!({ "sandbox_image": image }))
                    .unwrap_err()
                    .contains("not an image reference"),
                "{image:?}"
            );
        }
        for image in [
            "antler-sandbox:full",
            "ghcr.io/acme/sandbox:2.1",
            "acme/sandbox@sha256:0123abcd",
            "localhost:5000/x",
        ] {
            assert!(bad(json!({ "sandbox_image": image })).is_ok(), "{image}");
        }
        assert!(bad(json!([1])).is_err());
        bad(json!({"skills": ["pdf"], "tools": ["ls"]})).unwrap();
    }
}
