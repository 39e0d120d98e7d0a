use antler_protocol::skills::SkillCategory;
use async_trait::async_trait;
use sqlx::{PgPool, Row};

use crate::StoreError;
use crate::skill_states::{SkillState, SkillStateRepo};

pub(crate) struct PgSkillStates {
    pub(crate) pool: PgPool,
}

#[async_trait]
impl SkillStateRepo for PgSkillStates {
    async fn list(&self) -> Result<Vec<SkillState>, StoreError> {
        let rows = sqlx::query("SELECT category, name, enabled FROM skill_states")
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter()
            .map(|row| {
                let category: String = row.try_get("category")?;
                Ok(SkillState {
                    category: SkillCategory::parse(&category)
                        .ok_or_else(|| StoreError::Corrupt(format!("category '{category}'")))?,
                    name: row.try_get("name")?,
                    enabled: row.try_get("enabled")?,
                })
            })
            .collect()
    }

    async fn set(
        &self,
        category: SkillCategory,
        name: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO skill_states (category, name, enabled, updated_at) VALUES ($1, $2, $3, now()) \
             ON CONFLICT (category, name) DO UPDATE SET enabled = excluded.enabled, updated_at = now()",
        )
        .bind(category.as_str())
        .bind(name)
        .bind(enabled)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn remove(&self, category: SkillCategory, name: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM skill_states WHERE category = $1 AND name = $2")
            .bind(category.as_str())
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
