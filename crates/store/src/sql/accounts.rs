//! Accounts, sessions, tokens and the first-run setup.

use antler_protocol::auth::Role;
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::wire::Wire;
use super::{Db, Engine, on};
use crate::StoreError;
use crate::accounts::{
    AccountRepo, SessionRecord, SetupOutcome, TokenRecord, UserRecord, UserUpdate,
};

pub(crate) struct SqlAccounts(pub(crate) Db);

const USER_COLUMNS: &str = "u.user_id, u.email, u.password_hash, u.role, u.disabled, u.created_at";

#[derive(sqlx::FromRow)]
struct UserRow {
    user_id: String,
    email: String,
    password_hash: String,
    role: Wire<Role>,
    disabled: bool,
    created_at: DateTime<Utc>,
}

impl From<UserRow> for UserRecord {
    fn from(r: UserRow) -> Self {
        UserRecord {
            user_id: r.user_id,
            email: r.email,
            password_hash: r.password_hash,
            role: r.role.0,
            disabled: r.disabled,
            created_at: r.created_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct SessionRow {
    #[sqlx(flatten)]
    user: UserRow,
    csrf_token: String,
    expires_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct TokenRow {
    token_id: String,
    user_id: String,
    name: String,
    created_at: DateTime<Utc>,
    expires_at: Option<DateTime<Utc>>,
}

impl From<TokenRow> for TokenRecord {
    fn from(r: TokenRow) -> Self {
        TokenRecord {
            token_id: r.token_id,
            user_id: r.user_id,
            name: r.name,
            created_at: r.created_at,
            expires_at: r.expires_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct TokenWithUserRow {
    #[sqlx(flatten)]
    user: UserRow,
    token_id: String,
    name: String,
    token_created_at: DateTime<Utc>,
    expires_at: Option<DateTime<Utc>>,
}

/// A unique-constraint failure becomes `Conflict` with `message`.
fn unique(e: sqlx::Error, message: &str) -> StoreError {
    if e.as_database_error()
        .is_some_and(|d| d.is_unique_violation())
    {
        StoreError::Conflict(message.to_string())
    } else {
        e.into()
    }
}

impl SqlAccounts {
    /// The account whose `column` (a fixed column name, never input) equals `value`.
    async fn user_where(
        &self,
        column: &'static str,
        value: &str,
    ) -> Result<Option<UserRecord>, StoreError> {
        let row: Option<UserRow> = on!(&self.0, p => sqlx::query_as(&format!(
            "SELECT {USER_COLUMNS} FROM users u WHERE u.{column} = $1"
        ))
        .bind(value)
        .fetch_optional(p)
        .await?);
        Ok(row.map(Into::into))
    }
}

const COUNT_ADMINS: &str = "SELECT COUNT(*) FROM users WHERE role = 'admin'";

const INSERT_USER: &str = "INSERT INTO users (user_id, email, password_hash, role, disabled, \
     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)";

#[async_trait]
impl AccountRepo for SqlAccounts {
    async fn create_user(&self, user: &UserRecord) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(INSERT_USER)
                .bind(&user.user_id)
                .bind(&user.email)
                .bind(&user.password_hash)
                .bind(Wire(user.role))
                .bind(user.disabled)
                .bind(p.time(user.created_at))
                .execute(p)
                .await
                .map_err(|e| unique(e, "an account with this email already exists"))?;
        });
        Ok(())
    }

    async fn create_first_admin(
        &self,
        setup_token_hash: &str,
        issued_after: DateTime<Utc>,
        user: &UserRecord,
    ) -> Result<SetupOutcome, StoreError> {
        on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            let admins: i64 = sqlx::query_scalar(COUNT_ADMINS)
                .fetch_one(&mut *tx)
                .await?;
            if admins > 0 {
                return Ok(SetupOutcome::AdminExists);
            }
            let known: Option<String> = sqlx::query_scalar(
                "SELECT token_hash FROM setup_tokens WHERE token_hash = $1 AND created_at > $2",
            )
            .bind(setup_token_hash)
            .bind(p.time(issued_after))
            .fetch_optional(&mut *tx)
            .await?;
            if known.is_none() {
                return Ok(SetupOutcome::BadToken);
            }
            // The single row of account_setup: a concurrent setup that got this far
            // (another replica's token) fails here instead of adding a second first admin.
            let claimed = sqlx::query(
                "INSERT INTO account_setup (id, user_id, created_at) VALUES (1, $1, $2)",
            )
            .bind(&user.user_id)
            .bind(p.time(user.created_at))
            .execute(&mut *tx)
            .await;
            if let Err(e) = claimed {
                if e.as_database_error().is_some_and(|d| d.is_unique_violation()) {
                    return Ok(SetupOutcome::AdminExists);
                }
                return Err(e.into());
            }
            sqlx::query(INSERT_USER)
                .bind(&user.user_id)
                .bind(&user.email)
                .bind(&user.password_hash)
                .bind(Wire(user.role))
                .bind(user.disabled)
                .bind(p.time(user.created_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| unique(e, "an account with this email already exists"))?;
            sqlx::query("DELETE FROM setup_tokens").execute(&mut *tx).await?;
            tx.commit().await?;
        });
        Ok(SetupOutcome::Created)
    }

    async fn add_setup_token(
        &self,
        token_hash: &str,
        forget_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM setup_tokens WHERE created_at <= $1")
                .bind(p.time(forget_before))
                .execute(p)
                .await?;
            sqlx::query("INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, $2)")
                .bind(token_hash)
                .bind(p.time(Utc::now()))
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn admin_exists(&self) -> Result<bool, StoreError> {
        let n: i64 = on!(&self.0, p => sqlx::query_scalar(
            COUNT_ADMINS,
        )
        .fetch_one(p)
        .await?);
        Ok(n > 0)
    }

    async fn first_admin(&self) -> Result<Option<UserRecord>, StoreError> {
        let row: Option<UserRow> = on!(&self.0, p => sqlx::query_as(&format!(
            "SELECT {USER_COLUMNS} FROM users u WHERE u.role = 'admin' \
             ORDER BY u.created_at, u.user_id LIMIT 1"
        ))
        .fetch_optional(p)
        .await?);
        Ok(row.map(Into::into))
    }

    async fn user_by_email(&self, email: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where("email", email).await
    }

    async fn user(&self, user_id: &str) -> Result<Option<UserRecord>, StoreError> {
        self.user_where("user_id", user_id).await
    }

    async fn users(&self) -> Result<Vec<UserRecord>, StoreError> {
        let rows: Vec<UserRow> = on!(&self.0, p => sqlx::query_as(&format!(
            "SELECT {USER_COLUMNS} FROM users u ORDER BY u.created_at, u.user_id"
        ))
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn update_user(&self, user_id: &str, update: &UserUpdate) -> Result<bool, StoreError> {
        let changed = on!(&self.0, p => sqlx::query(
            "UPDATE users SET disabled = COALESCE($2, disabled), role = COALESCE($3, role), \
             password_hash = COALESCE($4, password_hash), updated_at = $5 WHERE user_id = $1",
        )
        .bind(user_id)
        .bind(update.disabled)
        .bind(update.role.map(Wire))
        .bind(update.password_hash.as_deref())
        .bind(p.time(Utc::now()))
        .execute(p)
        .await?
        .rows_affected());
        Ok(changed > 0)
    }

    async fn create_session(
        &self,
        session_hash: &str,
        user_id: &str,
        csrf_token: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO sessions (session_hash, user_id, csrf_token, created_at, expires_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(session_hash)
            .bind(user_id)
            .bind(csrf_token)
            .bind(p.time(Utc::now()))
            .bind(p.time(expires_at))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn session(&self, session_hash: &str) -> Result<Option<SessionRecord>, StoreError> {
        let row: Option<SessionRow> = on!(&self.0, p => sqlx::query_as(&format!(
            "SELECT {USER_COLUMNS}, s.csrf_token, s.expires_at FROM sessions s \
             JOIN users u ON u.user_id = s.user_id WHERE s.session_hash = $1"
        ))
        .bind(session_hash)
        .fetch_optional(p)
        .await?);
        Ok(row.map(|r| SessionRecord {
            user: r.user.into(),
            csrf_token: r.csrf_token,
            expires_at: r.expires_at,
        }))
    }

    async fn delete_session(&self, session_hash: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM sessions WHERE session_hash = $1")
                .bind(session_hash)
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn delete_expired_sessions(&self, now: DateTime<Utc>) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM sessions WHERE expires_at <= $1")
                .bind(p.time(now))
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn delete_sessions_of(
        &self,
        user_id: &str,
        keep: Option<&str>,
    ) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND session_hash <> $2")
                .bind(user_id)
                .bind(keep.unwrap_or(""))
                .execute(p)
                .await?;
        });
        Ok(())
    }

    async fn create_token(&self, token: &TokenRecord, token_hash: &str) -> Result<(), StoreError> {
        on!(&self.0, p => {
            sqlx::query(
                "INSERT INTO api_tokens (token_id, user_id, name, token_hash, created_at, expires_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&token.token_id)
            .bind(&token.user_id)
            .bind(&token.name)
            .bind(token_hash)
            .bind(p.time(token.created_at))
            .bind(token.expires_at.map(|t| p.time(t)))
            .execute(p)
            .await?;
        });
        Ok(())
    }

    async fn token(
        &self,
        token_hash: &str,
    ) -> Result<Option<(UserRecord, TokenRecord)>, StoreError> {
        let row: Option<TokenWithUserRow> = on!(&self.0, p => sqlx::query_as(&format!(
            "SELECT {USER_COLUMNS}, t.token_id, t.name, t.created_at AS token_created_at, \
             t.expires_at FROM api_tokens t JOIN users u ON u.user_id = t.user_id \
             WHERE t.token_hash = $1"
        ))
        .bind(token_hash)
        .fetch_optional(p)
        .await?);
        Ok(row.map(|r| {
            let token = TokenRecord {
                token_id: r.token_id,
                user_id: r.user.user_id.clone(),
                name: r.name,
                created_at: r.token_created_at,
                expires_at: r.expires_at,
            };
            (r.user.into(), token)
        }))
    }

    async fn tokens_of(&self, user_id: &str) -> Result<Vec<TokenRecord>, StoreError> {
        let rows: Vec<TokenRow> = on!(&self.0, p => sqlx::query_as(
            "SELECT token_id, user_id, name, created_at, expires_at FROM api_tokens \
             WHERE user_id = $1 ORDER BY created_at DESC, token_id",
        )
        .bind(user_id)
        .fetch_all(p)
        .await?);
        Ok(rows.into_iter().map(Into::into).collect())
    }

    async fn delete_token(&self, user_id: &str, token_id: &str) -> Result<bool, StoreError> {
        let n = on!(&self.0, p => sqlx::query(
            "DELETE FROM api_tokens WHERE user_id = $1 AND token_id = $2",
        )
        .bind(user_id)
        .bind(token_id)
        .execute(p)
        .await?
        .rows_affected());
        Ok(n > 0)
    }

    async fn adopt(&self, from: &str, to: &str) -> Result<u64, StoreError> {
        let moved = on!(&self.0, p => {
            let mut tx = p.begin_write().await?;
            // Through the threads (indexed by owner), so a start-up with nothing to adopt
            // does not scan every run; a run's owner is its thread's.
            sqlx::query(
                "UPDATE runs SET owner = $2 WHERE thread_id IN \
                 (SELECT thread_id FROM threads WHERE owner = $1)",
            )
            .bind(from)
            .bind(to)
            .execute(&mut *tx)
            .await?;
            let moved = sqlx::query("UPDATE threads SET owner = $2 WHERE owner = $1")
                .bind(from)
                .bind(to)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            // Schedules start runs as their owner: they follow the threads.
            sqlx::query("UPDATE crons SET owner = $2 WHERE owner = $1")
                .bind(from)
                .bind(to)
                .execute(&mut *tx)
                .await?;
            // What those runs used counts as the new owner's (reports and daily limits).
            sqlx::query("UPDATE model_usage SET owner = $2 WHERE owner = $1")
                .bind(from)
                .bind(to)
                .execute(&mut *tx)
                .await?;
            // Stored items too, except where the new owner has one under the same name.
            sqlx::query(
                "UPDATE store_items SET owner = $2 WHERE owner = $1 AND NOT EXISTS \
                 (SELECT 1 FROM store_items t WHERE t.owner = $2 \
                 AND t.namespace = store_items.namespace AND t.key = store_items.key)",
            )
            .bind(from)
            .bind(to)
            .execute(&mut *tx)
            .await?;
            // Feedback follows the runs, and preferences their person (unless the new owner
            // has set some).
            sqlx::query("UPDATE run_feedback SET owner = $2 WHERE owner = $1")
                .bind(from)
                .bind(to)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "UPDATE user_preferences SET owner = $2 WHERE owner = $1 AND NOT EXISTS \
                 (SELECT 1 FROM user_preferences t WHERE t.owner = $2)",
            )
            .bind(from)
            .bind(to)
            .execute(&mut *tx)
            .await?;
            // Personal skill states follow their skills (one the new owner already has a
            // state for keeps it).
            sqlx::query(
                "UPDATE personal_skill_states SET owner = $2 WHERE owner = $1 AND name NOT IN \
                 (SELECT name FROM personal_skill_states WHERE owner = $2)",
            )
            .bind(from)
            .bind(to)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            moved
        });
        Ok(moved)
    }
}
