//! The skills each person used lately (read by the agent or activated with a slash command),
//! most recent first. Kept in memory: in a catalog too big for the prompt they are listed
//! first, so what someone works with stays in view; after a restart the order starts over.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Names remembered per person.
const KEEP: usize = 32;

/// Recently used skills per owner.
#[derive(Debug, Default)]
pub struct RecentSkills {
    by_owner: Mutex<HashMap<String, VecDeque<String>>>,
}

impl RecentSkills {
    /// `owner`'s recently used skills, most recent first.
    pub fn list(&self, owner: &str) -> Vec<String> {
        self.lock()
            .get(owner)
            .map(|names| names.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// `owner` used the skill `name` just now.
    pub fn record(&self, owner: &str, name: &str) {
        let mut by_owner = self.lock();
        let names = by_owner.entry(owner.to_string()).or_default();
        names.retain(|n| n != name);
        names.push_front(name.to_string());
        names.truncate(KEEP);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<String>>> {
        self.by_owner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_use_comes_first_and_people_are_kept_apart() {
        let recent = RecentSkills::default();
        recent.record("ann", "pdf");
        recent.record("ann", "csv");
        recent.record("ann", "pdf");
        recent.record("bob", "docx");
        assert_eq!(recent.list("ann"), ["pdf", "csv"]);
        assert_eq!(recent.list("bob"), ["docx"]);
        for i in 0..40 {
            recent.record("ann", &format!("s{i}"));
        }
        assert_eq!(recent.list("ann").len(), KEEP);
        assert_eq!(recent.list("ann")[0], "s39");
    }
}
