//! Who is asking. The identity flows down from the edge (HTTP or the command line) as a
//! typed value; nothing below ever takes it from request metadata.

use antler_protocol::auth::Role;
use antler_sandbox::paths::LOCAL_OWNER;
use antler_store::UserRecord;

/// The person (or program) a use-case runs for; it owns the threads it creates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    user_id: String,
    email: String,
    role: Role,
}

impl Caller {
    /// The single local user of `auth.mode: none` (an admin: nobody else exists).
    pub fn local() -> Self {
        Caller {
            user_id: LOCAL_OWNER.to_string(),
            email: String::new(),
            role: Role::Admin,
        }
    }

    /// The holder of an account.
    pub fn account(user: &UserRecord) -> Self {
        Caller {
            user_id: user.user_id.clone(),
            email: user.email.clone(),
            role: user.role,
        }
    }

    /// A run's owner acting through the agent (memory tools): their own data only, no
    /// admin rights.
    pub(crate) fn owner_only(owner: &str) -> Self {
        Caller {
            user_id: owner.to_string(),
            email: String::new(),
            role: Role::User,
        }
    }

    /// The owner id stored with what this caller creates.
    pub fn owner(&self) -> &str {
        &self.user_id
    }

    /// The account's email address (empty for the local user).
    pub fn email(&self) -> &str {
        &self.email
    }

    /// The role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Whether the caller manages the shared catalog and the accounts.
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
}
