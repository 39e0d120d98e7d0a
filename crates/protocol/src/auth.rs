//! Accounts, sign-in and tokens (`/api/auth/*`, `/api/users/*`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::wire_enum::wire_enum;

wire_enum! {
    /// What an account may do.
    pub enum Role {
        /// Manages the shared skills catalog and the accounts, besides everything a user does.
        Admin = "admin",
        /// Chats, owns threads and personal tokens; reads the shared catalog.
        User = "user",
    }
}

wire_enum! {
    /// How the server authenticates requests (`auth.mode`).
    pub enum AuthMode {
        /// Accounts with passwords, sessions and tokens (the default).
        Password = "password",
        /// No authentication: every request is the single local user's (loopback only).
        None = "none",
    }
}

/// Whether sign-in is needed and possible; public, so the web UI knows what to show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AuthStatus {
    /// The server's authentication mode.
    pub mode: AuthMode,
    /// No admin exists yet: the first one is created with the setup URL the server printed.
    pub setup_required: bool,
}

/// `POST /api/auth/setup`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetupRequest {
    /// The token of the setup URL the server printed at startup.
    pub token: String,
    /// The first admin's email address.
    pub email: String,
    /// Their password (at least 8 characters).
    pub password: String,
}

/// `POST /api/auth/login`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    /// The account's email address.
    pub email: String,
    /// Its password.
    pub password: String,
}

/// A signed-in session: the account and the CSRF token unsafe requests must echo in
/// `X-CSRF-Token` (also readable from the `antler_csrf` cookie).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SessionInfo {
    /// Who is signed in.
    pub user: Me,
    /// The CSRF token of this session.
    pub csrf_token: String,
}

/// `GET /api/auth/me`: the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Me {
    /// The account id.
    pub id: String,
    /// The email address (empty for the local user when `auth.mode` is `none`).
    pub email: String,
    /// The role.
    pub role: Role,
    /// The CSRF token of the current session (absent for token-authenticated requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csrf_token: Option<String>,
}

/// `POST /api/auth/password`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    /// The current password.
    pub current: String,
    /// The new password (at least 8 characters).
    pub new: String,
}

/// `POST /api/auth/tokens`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// A name to recognise the token by (1–100 characters, not blank, no control
    /// characters; stored trimmed).
    pub name: String,
    /// Days until the token stops working (1–3650); none means it never expires.
    #[serde(default, deserialize_with = "crate::de::opt_u32")]
    pub expires_in_days: Option<u32>,
}

/// A personal access token as listed (the secret is never shown again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TokenInfo {
    /// The token's id (for revoking it).
    pub id: String,
    /// Its name.
    pub name: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it stops working (RFC 3339), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// A token just created: the only time its secret is shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CreatedToken {
    /// The token's id.
    pub id: String,
    /// The secret, for `Authorization: Bearer …` or `X-Api-Key`.
    pub token: String,
    /// Its name.
    pub name: String,
    /// When it stops working (RFC 3339), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// An account, as admins see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UserInfo {
    /// The account id.
    pub id: String,
    /// The email address.
    pub email: String,
    /// The role.
    pub role: Role,
    /// A disabled account cannot sign in, and its sessions and tokens stop working.
    pub disabled: bool,
    /// When it was created (RFC 3339).
    pub created_at: String,
}

/// `POST /api/users`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewUser {
    /// The email address.
    pub email: String,
    /// The initial password (at least 8 characters).
    pub password: String,
    /// The role (default `user`).
    #[serde(default)]
    pub role: Option<Role>,
}

/// `PATCH /api/users/{id}`: any of the fields.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UserPatch {
    /// Disable (true) or re-enable (false) the account.
    #[serde(default)]
    pub disabled: Option<bool>,
    /// A new role.
    #[serde(default)]
    pub role: Option<Role>,
    /// A new password (ends the account's sessions).
    #[serde(default)]
    pub password: Option<String>,
}
