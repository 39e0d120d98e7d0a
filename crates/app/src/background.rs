//! Startup work that may take a while with a large skills catalog (filling the skills view,
//! registering a file watch per folder) runs on threads of its own at a lower CPU priority:
//! on a busy machine the rest of startup and the requests already arriving go first, and
//! the work uses what is left.

/// How much lower (Linux nice value, 0 to 19) than the server.
const NICENESS: i32 = 10;

/// Runs `work` on a new thread named `name` at lower priority and answers its result.
/// Threads it starts inherit the priority (the file watcher's own threads, which only
/// react to changes on disk).
pub(crate) fn run<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<tokio::sync::oneshot::Receiver<T>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            // On Linux the nice value belongs to the calling thread; failing to lower it
            // (a restricted sandbox) leaves the work at normal priority.
            if let Err(error) = rustix::process::setpriority_process(None, NICENESS) {
                tracing::debug!(%error, "background work keeps normal priority");
            }
            let _ = tx.send(work());
        })?;
    Ok(rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn background_work_runs_at_lower_priority_and_answers() {
        let before = rustix::process::getpriority_process(None).unwrap();
        let inside = run("test-background", || {
            rustix::process::getpriority_process(None).unwrap()
        })
        .unwrap()
        .await
        .unwrap();
        assert_eq!(inside, (before + NICENESS).min(19));
        assert_eq!(
            rustix::process::getpriority_process(None).unwrap(),
            before,
            "the caller's thread keeps its priority"
        );
    }
}
