//! Enabled state of skills, keyed by (category, name); personal skills by (owner, name).

use antler_protocol::skills::SkillCategory;
use async_trait::async_trait;

use crate::StoreError;

/// One stored state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillState {
    /// The skill's category.
    pub category: SkillCategory,
    /// The skill's name.
    pub name: String,
    /// Whether it is enabled.
    pub enabled: bool,
}

/// Reads and writes skill states.
#[async_trait]
pub trait SkillStateRepo: Send + Sync + 'static {
    /// Every stored state (skills without a row are enabled).
    async fn list(&self) -> Result<Vec<SkillState>, StoreError>;
    /// Stores one state, replacing any previous one.
    async fn set(
        &self,
        category: SkillCategory,
        name: &str,
        enabled: bool,
    ) -> Result<(), StoreError>;
    /// Forgets a state (for example when a custom skill is deleted).
    async fn remove(&self, category: SkillCategory, name: &str) -> Result<(), StoreError>;
    /// The stored states of `owner`'s personal skills, as (name, enabled).
    async fn list_personal(&self, owner: &str) -> Result<Vec<(String, bool)>, StoreError>;
    /// Stores the state of one of `owner`'s personal skills.
    async fn set_personal(&self, owner: &str, name: &str, enabled: bool) -> Result<(), StoreError>;
    /// Forgets the state of one of `owner`'s personal skills.
    async fn remove_personal(&self, owner: &str, name: &str) -> Result<(), StoreError>;
}
