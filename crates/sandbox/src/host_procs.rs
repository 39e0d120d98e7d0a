//! Host commands (local provider with `allow_host_bash`) outlive a server killed with
//! SIGKILL: each runs in its own process group, recorded in the data dir while it runs
//! (`<data>/sandbox/host-commands/<instance>/<pgid>` holding the group leader's start time),
//! so the next start kills what the previous process left running, as the Docker provider
//! removes its containers. The start time guards against a reused process id.

use std::io;
use std::path::{Path, PathBuf};

use rustix::process::{Pid, Signal, kill_process_group};

/// Where the commands of `instance` are recorded.
pub fn records_dir(data_dir: &Path, instance: &str) -> PathBuf {
    data_dir
        .join("sandbox")
        .join("host-commands")
        .join(instance)
}

/// A running command's record; removed when dropped (the command has ended).
#[derive(Debug)]
pub struct Record {
    path: Option<PathBuf>,
}

impl Drop for Record {
    fn drop(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Records the process group `pgid` (its leader just started) in `dir`. A command that is
/// already gone, or a record that cannot be written, leaves no record (logged).
pub fn record(dir: &Path, pgid: u32) -> Record {
    let Some(started) = start_time(pgid) else {
        return Record { path: None };
    };
    let path = dir.join(pgid.to_string());
    let written =
        std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, format!("{started}\n")));
    match written {
        Ok(()) => Record { path: Some(path) },
        Err(error) => {
            tracing::warn!(%error, pgid, "a host command could not be recorded");
            Record { path: None }
        }
    }
}

/// Kills the process groups recorded in `dir` that still run with the recorded start time,
/// and removes the records. Answers how many groups were killed.
pub fn reap(dir: &Path) -> io::Result<usize> {
    let read = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        other => other?,
    };
    let mut killed = 0;
    for entry in read.filter_map(Result::ok) {
        let path = entry.path();
        let recorded = std::fs::read_to_string(&path).ok();
        let pgid = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok());
        if let (Some(pgid), Some(recorded)) = (pgid, recorded)
            && start_time(pgid).is_some_and(|t| t.to_string() == recorded.trim())
            && let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw)
            && kill_process_group(pid, Signal::KILL).is_ok()
        {
            tracing::warn!(
                pgid,
                "killed a host command left running by a stopped server"
            );
            killed += 1;
        }
        let _ = std::fs::remove_file(&path);
    }
    Ok(killed)
}

/// The start time of process `pid` (clock ticks since boot, field 22 of `/proc/<pid>/stat`).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields after the last ')'.
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_group_is_killed_and_a_reused_pid_is_not() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .expect("sleep");
        let pgid = child.id();
        let record = record(dir.path(), pgid);
        // The server died: the record stays behind.
        std::mem::forget(record);
        // A record whose start time does not match is a reused pid: left alone.
        std::fs::write(dir.path().join("1"), "12345\n").expect("decoy");
        assert_eq!(reap(dir.path()).expect("reap"), 1);
        let status = child.wait().expect("wait");
        assert!(!status.success(), "killed");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
    }
}
