//! Signing in and out, sessions and tokens as credentials, and passwords.

use super::*;

impl AccountsService {
    /// Signs in: a new session, or why not. `client` is the caller's address (throttled
    /// like the account).
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        client: Option<IpAddr>,
    ) -> Result<NewSession, AccountError> {
        let email = email.trim().to_lowercase();
        let account_key = format!("account:{email}");
        let client_key = client.map(|ip| format!("client:{ip}"));
        let limit = self.config.max_failed_logins;
        let waits = [
            self.throttle.wait(&account_key, limit),
            client_key
                .as_deref()
                .and_then(|k| self.throttle.wait(k, limit.saturating_mul(4))),
        ];
        if let Some(wait) = waits.into_iter().flatten().max() {
            return Err(AccountError::Throttled(wait));
        }
        let user = self.store.accounts.user_by_email(&email).await?;
        // Hash even for unknown accounts, so timing does not tell which emails exist.
        let (known, password) = (
            user.as_ref().map(|u| u.password_hash.clone()),
            password.to_string(),
        );
        let matches = password_work(move || {
            let hash = known.unwrap_or_else(dummy_hash);
            verify_password(&password, &hash)
        })
        .await?;
        let user = match user {
            Some(user) if matches && !user.disabled => user,
            _ => {
                self.throttle.fail(&account_key);
                if let Some(k) = &client_key {
                    self.throttle.fail(k);
                }
                tracing::info!(client = ?client, "failed sign-in");
                return Err(AccountError::BadCredentials);
            }
        };
        self.throttle.clear(&account_key);
        self.new_session(user).await
    }

    /// A new session for `user` (after sign-in, or for the admin the setup just created).
    pub async fn new_session(&self, user: UserRecord) -> Result<NewSession, AccountError> {
        // Sessions nobody signed out of would pile up: each sign-in sweeps the expired ones.
        self.store
            .accounts
            .delete_expired_sessions(Utc::now())
            .await?;
        let secret = random_secret();
        let csrf_token = random_secret();
        let expires_at = Utc::now() + chrono::Duration::days(i64::from(self.config.session_days));
        self.store
            .accounts
            .create_session(&digest(&secret), &user.user_id, &csrf_token, expires_at)
            .await?;
        Ok(NewSession {
            secret,
            csrf_token,
            expires_at,
            user,
        })
    }

    /// The caller of a session cookie; `None` when unknown, expired or disabled.
    pub async fn session(&self, secret: &str) -> Result<Option<Authenticated>, AccountError> {
        let session_hash = digest(secret);
        let key = format!("session:{session_hash}");
        if let Some(found) = self.cache.get(&key) {
            return Ok(Some(found));
        }
        let generation = self.cache.generation();
        let Some(session) = self.store.accounts.session(&session_hash).await? else {
            return Ok(None);
        };
        if session.expires_at <= Utc::now() {
            self.store.accounts.delete_session(&session_hash).await?;
            return Ok(None);
        }
        if session.user.disabled {
            return Ok(None);
        }
        let found = Authenticated::Session {
            caller: Caller::account(&session.user),
            csrf_token: session.csrf_token,
            session_hash,
        };
        self.cache
            .put(generation, key, found.clone(), Some(session.expires_at));
        Ok(Some(found))
    }

    /// The caller of a personal access token; `None` when unknown, expired, revoked or
    /// disabled.
    pub async fn token(&self, secret: &str) -> Result<Option<Authenticated>, AccountError> {
        if !secret.starts_with(secret::TOKEN_PREFIX) {
            return Ok(None);
        }
        let token_hash = digest(secret);
        let key = format!("token:{token_hash}");
        if let Some(found) = self.cache.get(&key) {
            return Ok(Some(found));
        }
        let generation = self.cache.generation();
        let Some((user, token)) = self.store.accounts.token(&token_hash).await? else {
            return Ok(None);
        };
        if user.disabled || token.expires_at.is_some_and(|e| e <= Utc::now()) {
            return Ok(None);
        }
        let found = Authenticated::Token {
            caller: Caller::account(&user),
        };
        self.cache
            .put(generation, key, found.clone(), token.expires_at);
        Ok(Some(found))
    }

    /// Ends a session (by the digest of its cookie).
    pub async fn logout(&self, session_hash: &str) -> Result<(), AccountError> {
        self.store.accounts.delete_session(session_hash).await?;
        self.revoked().await;
        Ok(())
    }

    /// Changes the caller's password; every other session of theirs ends.
    pub async fn change_password(
        &self,
        caller: &Caller,
        current: &str,
        new: &str,
        keep_session: Option<&str>,
    ) -> Result<(), AccountError> {
        let user = self
            .store
            .accounts
            .user(caller.owner())
            .await?
            .ok_or(AccountError::BadCredentials)?;
        check_password(new)?;
        let (hash, current) = (user.password_hash.clone(), current.to_string());
        let matches = password_work(move || verify_password(&current, &hash)).await?;
        if !matches {
            return Err(AccountError::Invalid(
                "the current password is wrong".into(),
            ));
        }
        self.set_password(&user.user_id, new, keep_session).await
    }

    pub(super) async fn set_password(
        &self,
        user_id: &str,
        password: &str,
        keep_session: Option<&str>,
    ) -> Result<(), AccountError> {
        let update = UserUpdate {
            password_hash: Some(hashed(password.to_string()).await?),
            ..UserUpdate::default()
        };
        if !self.store.accounts.update_user(user_id, &update).await? {
            return Err(AccountError::NotFound("no such account".into()));
        }
        self.store
            .accounts
            .delete_sessions_of(user_id, keep_session)
            .await?;
        self.revoked().await;
        Ok(())
    }

    /// Sets a new random password for `email` (the command line's reset); every session
    /// of the account ends. Returns the password.
    pub async fn reset_password(&self, email: &str) -> Result<String, AccountError> {
        let user = self.user_with_email(email).await?;
        let password = secret::generated_password();
        self.set_password(&user.user_id, &password, None).await?;
        Ok(password)
    }
}

/// The hash of a random password, verified against when the account does not exist, so an
/// unknown email costs the same time as a wrong password.
fn dummy_hash() -> String {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY
        .get_or_init(|| hash_password(&random_secret()).unwrap_or_default())
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dummy_hash_is_a_valid_argon2id_hash() {
        let hash = dummy_hash();
        assert!(argon2::password_hash::PasswordHash::new(&hash).is_ok());
        assert!(!verify_password("anything", &hash));
    }
}
