//! Each person's preferences.

use async_trait::async_trait;
use chrono::Utc;

use super::{Db, Engine, on};
use crate::StoreError;
use crate::preferences::{PreferenceRepo, Preferences};

pub(crate) struct SqlPreferences(pub(crate) Db);

#[async_trait]
impl PreferenceRepo for SqlPreferences {
    async fn get(&self, owner: &str) -> Result<Preferences, StoreError> {
        let row: Option<(bool,)> = on!(&self.0, p => sqlx::query_as(
            "SELECT suggestions FROM user_preferences WHERE owner = $1",
        )
        .bind(owner)
        .fetch_optional(p)
        .await?);
        Ok(
            row.map_or_else(Preferences::default, |(suggestions,)| Preferences {
                suggestions,
            }),
        )
    }

    async fn set(&self, owner: &str, preferences: Preferences) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO user_preferences (owner, suggestions, updated_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (owner) DO UPDATE SET suggestions = excluded.suggestions, \
                 updated_at = excluded.updated_at",
            )
            .bind(owner)
            .bind(preferences.suggestions)
            .bind(p.time(Utc::now()))
            .execute(p)
            .await?;
        });
        Ok(())
    }
}
