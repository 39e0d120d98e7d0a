//! Accounts: creating them and, for admins, listing and changing them.

use super::*;

impl AccountsService {
    /// Creates an account (admins through the API, operators through the CLI).
    pub async fn create_user(
        &self,
        email: &str,
        password: &str,
        role: Role,
    ) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        check_password(password)?;
        let user = new_record(email, hashed(password.to_string()).await?, role);
        match self.store.accounts.create_user(&user).await {
            Ok(()) => {}
            Err(StoreError::Conflict(_)) => return Err(AccountError::EmailTaken),
            Err(e) => return Err(e.into()),
        }
        tracing::info!(user.id = %user.user_id, role = %role, "account created");
        if role == Role::Admin {
            self.adopt_local_data().await?;
        }
        Ok(user)
    }

    /// The account with `id`, or 404.
    pub(super) async fn user_with_id(&self, id: &str) -> Result<UserRecord, AccountError> {
        self.store
            .accounts
            .user(id)
            .await?
            .ok_or_else(|| AccountError::NotFound(format!("no account has the id '{id}'")))
    }

    /// The account with `email`, or 404.
    pub(super) async fn user_with_email(&self, email: &str) -> Result<UserRecord, AccountError> {
        let email = normalise_email(email)?;
        self.store
            .accounts
            .user_by_email(&email)
            .await?
            .ok_or_else(|| AccountError::NotFound(format!("no account has the email {email}")))
    }

    /// Every account.
    pub async fn users(&self) -> Result<Vec<UserInfo>, AccountError> {
        Ok(self
            .store
            .accounts
            .users()
            .await?
            .iter()
            .map(user_info)
            .collect())
    }

    /// Changes an account (admins). An admin cannot disable or demote themselves, so the
    /// server always keeps an admin who can sign in.
    pub async fn update_user(
        &self,
        caller: &Caller,
        id: &str,
        disabled: Option<bool>,
        role: Option<Role>,
        password: Option<&str>,
    ) -> Result<UserInfo, AccountError> {
        if let Some(p) = password {
            check_password(p)?;
        }
        let user = self.user_with_id(id).await?;
        if user.user_id == caller.owner()
            && (disabled == Some(true) || role.is_some_and(|r| r != Role::Admin))
        {
            return Err(AccountError::LastAdmin(
                "you cannot disable or demote your own account; another admin can".into(),
            ));
        }
        let update = UserUpdate {
            disabled,
            role,
            password_hash: None,
        };
        self.store.accounts.update_user(id, &update).await?;
        if let Some(p) = password {
            self.set_password(id, p, None).await?;
        }
        if disabled == Some(true) {
            self.store.accounts.delete_sessions_of(id, None).await?;
        }
        // A disabled account or a new role must not be served from a cached credential.
        self.revoked().await;
        let user = self.user_with_id(id).await?;
        Ok(user_info(&user))
    }
}
