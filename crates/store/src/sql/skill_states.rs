//! Enabled state of skills.

use antler_protocol::skills::SkillCategory;
use async_trait::async_trait;
use chrono::Utc;

use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::skill_states::{SkillState, SkillStateRepo};

pub(crate) struct SqlSkillStates(pub(crate) Db);

#[async_trait]
impl SkillStateRepo for SqlSkillStates {
    async fn list(&self) -> Result<Vec<SkillState>, StoreError> {
        let rows: Vec<(Wire<SkillCategory>, String, bool)> = on!(&self.0, p => sqlx::query_as(
            "SELECT category, name, enabled FROM skill_states",
        )
        .fetch_all(p)
        .await?);
        Ok(rows
            .into_iter()
            .map(|(category, name, enabled)| SkillState {
                category: category.0,
                name,
                enabled,
            })
            .collect())
    }

    async fn set(
        &self,
        category: SkillCategory,
        name: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO skill_states (category, name, enabled, updated_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (category, name) DO UPDATE SET enabled = excluded.enabled, \
                 updated_at = excluded.updated_at",
            )
            .bind(Wire(category))
            .bind(name)
            .bind(enabled)
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn remove(&self, category: SkillCategory, name: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM skill_states WHERE category = $1 AND name = $2")
                .bind(Wire(category))
                .bind(name)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn list_personal(&self, owner: &str) -> Result<Vec<(String, bool)>, StoreError> {
        Ok(on!(&self.0, p => sqlx::query_as(
            "SELECT name, enabled FROM personal_skill_states WHERE owner = $1",
        )
        .bind(owner)
        .fetch_all(p)
        .await?))
    }

    async fn set_personal(&self, owner: &str, name: &str, enabled: bool) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO personal_skill_states (owner, name, enabled, updated_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (owner, name) DO UPDATE SET \
                 enabled = excluded.enabled, updated_at = excluded.updated_at",
            )
            .bind(owner)
            .bind(name)
            .bind(enabled)
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn remove_personal(&self, owner: &str, name: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM personal_skill_states WHERE owner = $1 AND name = $2")
                .bind(owner)
                .bind(name)
                .execute(p)
                .await?;
        });
        Ok(())
    }
}
