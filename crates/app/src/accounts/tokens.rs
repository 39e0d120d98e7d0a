//! Personal access tokens: made, listed and revoked by their owner.

use super::*;
use antler_protocol::validation::MAX_TOKEN_DAYS;

impl AccountsService {
    /// Creates a personal access token for the caller.
    pub async fn create_token(
        &self,
        caller: &Caller,
        name: &str,
        expires_in_days: Option<u32>,
    ) -> Result<CreatedToken, AccountError> {
        if self.store.accounts.user(caller.owner()).await?.is_none() {
            return Err(AccountError::Invalid(
                "personal access tokens belong to accounts, and auth.mode is none".into(),
            ));
        }
        let name = checked_token_name(name)?;
        if expires_in_days.is_some_and(|d| d == 0 || d > MAX_TOKEN_DAYS) {
            return Err(AccountError::Invalid(format!(
                "expires_in_days must be between 1 and {MAX_TOKEN_DAYS}"
            )));
        }
        let secret = secret::new_token();
        let now = Utc::now();
        let record = TokenRecord {
            token_id: uuid::Uuid::new_v4().to_string(),
            user_id: caller.owner().to_string(),
            name: name.to_string(),
            created_at: now,
            expires_at: expires_in_days.map(|d| now + chrono::Duration::days(i64::from(d))),
        };
        self.store
            .accounts
            .create_token(&record, &digest(&secret))
            .await?;
        Ok(CreatedToken {
            id: record.token_id,
            token: secret,
            name: record.name,
            expires_at: record.expires_at.map(|e| e.to_rfc3339()),
        })
    }

    /// Creates a token for the account with `email` (the command line).
    pub async fn create_token_for(
        &self,
        email: &str,
        name: &str,
        expires_in_days: Option<u32>,
    ) -> Result<CreatedToken, AccountError> {
        let user = self.user_with_email(email).await?;
        self.create_token(&Caller::account(&user), name, expires_in_days)
            .await
    }

    /// The caller's tokens.
    pub async fn tokens(&self, caller: &Caller) -> Result<Vec<TokenInfo>, AccountError> {
        let tokens = self.store.accounts.tokens_of(caller.owner()).await?;
        Ok(tokens.iter().map(token_info).collect())
    }

    /// Revokes one of the caller's tokens.
    pub async fn revoke_token(&self, caller: &Caller, id: &str) -> Result<(), AccountError> {
        if self.store.accounts.delete_token(caller.owner(), id).await? {
            self.revoked().await;
            Ok(())
        } else {
            Err(AccountError::NotFound(format!(
                "you have no token with id '{id}'"
            )))
        }
    }
}

fn token_info(t: &TokenRecord) -> TokenInfo {
    TokenInfo {
        id: t.token_id.clone(),
        name: t.name.clone(),
        created_at: t.created_at.to_rfc3339(),
        expires_at: t.expires_at.map(|e| e.to_rfc3339()),
    }
}
