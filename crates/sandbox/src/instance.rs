//! Which server instance this process is.
//!
//! The id labels sandbox containers and names the instance's skills view and slots, so two
//! live servers must never share one — also when replicas share a data directory. Each id
//! has a lock file in `<data>/instances/`, held (`flock`) for the life of the process that
//! claimed it: a restart takes back a free id (and so recognises the containers a crash
//! left), a second replica gets an id of its own.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use rustix::fs::{FlockOperation, flock};

/// An instance id held by this process until the claim is dropped.
#[derive(Debug)]
pub struct InstanceClaim {
    id: String,
    _lock: File,
}

impl InstanceClaim {
    /// The id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// Claims `configured`, or else a free known id, or else a new one.
///
/// A configured id that another live process holds is an error: two servers would remove
/// each other's containers.
pub fn claim(configured: Option<&str>, data_dir: &Path) -> io::Result<InstanceClaim> {
    let dir = locks_dir(data_dir);
    std::fs::create_dir_all(&dir)?;
    if let Some(id) = configured.map(str::trim).filter(|s| !s.is_empty()) {
        if !is_plain_id(id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("instance id '{id}': {PLAIN_ID}"),
            ));
        }
        return try_claim(&dir, id)?.ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::AddrInUse,
                format!(
                    "instance id '{id}' is held by another server using {}; give each replica \
                     its own ANTLER_SANDBOX_INSTANCE_ID",
                    data_dir.display()
                ),
            )
        });
    }
    for id in known(data_dir)? {
        if let Some(claim) = try_claim(&dir, &id)? {
            return Ok(claim);
        }
    }
    let id = uuid::Uuid::new_v4().simple().to_string();
    try_claim(&dir, &id)?.ok_or_else(|| io::Error::other("a new instance id is already locked"))
}

/// The ids this data directory has seen, sorted, each with whether a live process holds it.
pub fn list(data_dir: &Path) -> io::Result<Vec<(String, bool)>> {
    let dir = locks_dir(data_dir);
    let mut out = Vec::new();
    for id in known(data_dir)? {
        let live = match try_claim(&dir, &id)? {
            Some(_released_on_drop) => false,
            None => true,
        };
        out.push((id, live));
    }
    Ok(out)
}

fn locks_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("instances")
}

/// Known ids: the lock files, plus the id file older versions kept in `<data>/instance-id`.
fn known(data_dir: &Path) -> io::Result<Vec<String>> {
    let mut ids = Vec::new();
    if let Ok(legacy) = std::fs::read_to_string(data_dir.join("instance-id")) {
        let legacy = legacy.trim();
        if is_plain_id(legacy) {
            ids.push(legacy.to_string());
        }
    }
    match std::fs::read_dir(locks_dir(data_dir)) {
        Ok(entries) => {
            for entry in entries {
                let name = entry?.file_name();
                if let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".lock"))
                    && is_plain_id(id)
                {
                    ids.push(id.to_string());
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

fn try_claim(dir: &Path, id: &str) -> io::Result<Option<InstanceClaim>> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!("{id}.lock")))?;
    match flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(InstanceClaim {
            id: id.to_string(),
            _lock: file,
        })),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// What an instance id may hold.
pub(crate) const PLAIN_ID: &str =
    "must be 1-64 letters, digits, '-', '_' or '.', not starting with '.'";

/// Ids become file names and container labels: keep them plain.
pub fn is_plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_servers_never_share_an_id_and_a_restart_takes_its_id_back() {
        let tmp = tempfile::tempdir().unwrap();
        let a = claim(None, tmp.path()).unwrap();
        let b = claim(None, tmp.path()).unwrap();
        assert_ne!(
            a.id(),
            b.id(),
            "a second server sharing the data dir gets its own id"
        );
        let a_id = a.id().to_string();
        let mut live = list(tmp.path()).unwrap();
        live.sort();
        assert!(live.iter().all(|(_, l)| *l), "{live:?}");
        drop(a);
        let listed = list(tmp.path()).unwrap();
        assert!(listed.contains(&(a_id.clone(), false)), "{listed:?}");
        let again = claim(None, tmp.path()).unwrap();
        assert_eq!(again.id(), a_id, "a restart reuses the free id");
        drop(b);
    }

    #[test]
    fn a_configured_id_in_use_is_refused_and_bad_ids_are_rejected() {
        let tmp = tempfile::tempdir().unwrap();
        let first = claim(Some("replica-1"), tmp.path()).unwrap();
        assert_eq!(first.id(), "replica-1");
        let err = claim(Some("replica-1"), tmp.path()).unwrap_err();
        assert!(
            err.to_string().contains("ANTLER_SANDBOX_INSTANCE_ID"),
            "{err}"
        );
        assert!(claim(Some("../x"), tmp.path()).is_err());
        drop(first);
        assert!(claim(Some("replica-1"), tmp.path()).is_ok());
    }

    #[test]
    fn the_id_file_of_older_versions_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("instance-id"), "0123abcd\n").unwrap();
        assert_eq!(claim(None, tmp.path()).unwrap().id(), "0123abcd");
    }
}
