//! Who is asking. The identity flows down from the edge (HTTP or the command line) as a
//! typed value; nothing below ever takes it from request metadata.

use antler_sandbox::paths::LOCAL_OWNER;

/// The person (or program) a use-case runs for; it owns the threads it creates.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    user_id: String,
}

impl Caller {
    /// The single local user (until accounts exist, every request is theirs).
    pub fn local() -> Self {
        Caller {
            user_id: LOCAL_OWNER.to_string(),
        }
    }

    /// The owner id stored with what this caller creates.
    pub fn owner(&self) -> &str {
        &self.user_id
    }
}
