//! The configuration as the API shows it: variables and headers are never shown, only which
//! variables they name and whether they hold text of their own.

use std::collections::BTreeMap;

pub use antler_protocol::mcp::{HiddenValue, McpConfigView, ServerConfigView};

use crate::ServerConfig;
use crate::env::{has_literal, variables};

/// `value` as the API shows it.
pub fn hidden(value: &str) -> HiddenValue {
    HiddenValue {
        variables: variables(value),
        literal: has_literal(value),
    }
}

/// `servers` as the API shows them.
pub fn config_view(servers: &BTreeMap<String, ServerConfig>) -> McpConfigView {
    McpConfigView {
        servers: servers
            .iter()
            .map(|(name, server)| (name.clone(), server.map_values(|v| hidden(v))))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_show_only_the_variables_they_name() {
        let server = ServerConfig {
            command: Some("npx".into()),
            env: [("TOKEN".to_string(), "Bearer ${GH_TOKEN}".to_string())].into(),
            headers: [("X-Key".to_string(), "$KEY".to_string())].into(),
            ..ServerConfig::default()
        };
        let view = config_view(&[("gh".to_string(), server)].into());
        let json = serde_json::to_string(&view).unwrap();
        assert!(!json.contains("Bearer"), "{json}");
        let gh = &view.servers["gh"];
        assert_eq!(
            gh.env["TOKEN"],
            HiddenValue {
                variables: vec!["GH_TOKEN".into()],
                literal: true
            }
        );
        assert_eq!(
            gh.headers["X-Key"],
            HiddenValue {
                variables: vec!["KEY".into()],
                literal: false
            }
        );
        assert_eq!(gh.command.as_deref(), Some("npx"));
    }
}
