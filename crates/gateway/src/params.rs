//! Typed path and query parameters that validate before any storage is touched.

use antler_protocol::skills::SkillCategory;
use serde::{Deserialize, Deserializer, de::Error as _};
use utoipa::{IntoParams, ToSchema};

/// A skill name that satisfies the Agent Skills naming rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillName(String);

impl SkillName {
    /// The validated name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for SkillName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(d)?;
        antler_skills::name::check_name(&raw)
            .map_err(|why| D::Error::custom(format!("invalid skill name {raw:?}: {why}")))?;
        Ok(SkillName(raw))
    }
}

/// `?category=public|custom`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams, ToSchema)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct CategoryQuery {
    /// Restrict to one category (needed when the name exists in both).
    pub category: Option<SkillCategory>,
}
