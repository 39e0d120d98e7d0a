//! The first admin: the setup URL's token, the administrator from the environment, and
//! the adoption of single-user data.

use super::*;

/// How long a printed setup URL works (a restart prints a new one).
const SETUP_TOKEN_LIFETIME: chrono::Duration = chrono::Duration::hours(24);

impl AccountsService {
    /// A one-time setup token when no admin exists (`None` otherwise, or without accounts).
    pub async fn prepare_setup(&self) -> Result<Option<String>, AccountError> {
        if self.config.mode != AuthMode::Password || self.store.accounts.admin_exists().await? {
            return Ok(None);
        }
        let token = random_secret();
        self.store
            .accounts
            .add_setup_token(&digest(&token), Utc::now() - SETUP_TOKEN_LIFETIME)
            .await?;
        Ok(Some(token))
    }

    /// Creates the first admin with a setup token.
    pub async fn setup(
        &self,
        token: &str,
        email: &str,
        password: &str,
    ) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        check_password(password)?;
        if self.store.accounts.admin_exists().await? {
            return Err(AccountError::SetupDone);
        }
        let user = new_record(email, hashed(password.to_string()).await?, Role::Admin);
        match self
            .store
            .accounts
            .create_first_admin(&digest(token), Utc::now() - SETUP_TOKEN_LIFETIME, &user)
            .await?
        {
            SetupOutcome::Created => {
                tracing::info!(user.id = %user.user_id, "first admin created with the setup URL");
                self.adopt_local_data().await?;
                Ok(user)
            }
            SetupOutcome::AdminExists => Err(AccountError::SetupDone),
            SetupOutcome::BadToken => Err(AccountError::BadSetupToken),
        }
    }

    /// `ANTLER_ADMIN_EMAIL` + `ANTLER_ADMIN_PASSWORD`: creates that admin unless an account
    /// with the email exists (its password is then left alone). True when it was created.
    pub async fn ensure_admin(&self, email: &str, password: &str) -> Result<bool, AccountError> {
        let normalised = normalise_email(email)?;
        if self
            .store
            .accounts
            .user_by_email(&normalised)
            .await?
            .is_some()
        {
            return Ok(false);
        }
        match self.create_user(email, password, Role::Admin).await {
            Ok(_) => Ok(true),
            // Another replica created it at the same moment.
            Err(AccountError::EmailTaken) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Gives the threads, runs and personal skills of `auth.mode: none` (owner `local`) to
    /// the first admin, and answers the admin's id. Thread files stay (they are found by
    /// thread id whoever owns them); personal skill folders move. Idempotent; a no-op
    /// without an admin.
    pub async fn adopt_local_data(&self) -> Result<Option<String>, AccountError> {
        if self.config.mode != AuthMode::Password {
            return Ok(None);
        }
        let Some(admin) = self.store.accounts.first_admin().await? else {
            return Ok(None);
        };
        let moved = self
            .store
            .accounts
            .adopt(LOCAL_OWNER, &admin.user_id)
            .await?;
        if moved > 0 {
            tracing::info!(threads = moved, user.id = %admin.user_id, "single-user threads adopted by the first admin");
        }
        if let Some(users) = self.users_dir.clone() {
            let to = admin.user_id.clone();
            let skills = tokio::task::spawn_blocking(move || {
                crate::skills::adopt_personal_files(&users, LOCAL_OWNER, &to)
            })
            .await
            .map_err(|e| AccountError::Internal(e.into()))?
            .map_err(|e| {
                AccountError::Internal(anyhow::anyhow!("personal skills could not be adopted: {e}"))
            })?;
            if skills > 0 {
                tracing::info!(skills, user.id = %admin.user_id, "single-user personal skills adopted by the first admin");
            }
        }
        Ok(Some(admin.user_id))
    }
}
