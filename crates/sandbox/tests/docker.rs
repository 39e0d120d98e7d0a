//! The Docker provider against a real engine and the real sandbox image
//! (`make sandbox-image`; `make test` builds it first and sets `ANTLER_REQUIRE_DOCKER`, so
//! there a missing one fails; elsewhere these tests skip, saying why).

#![expect(
    clippy::unwrap_used,
    reason = "tests: a failed step aborts with its message"
)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use antler_protocol::skills::SkillCategory;
use antler_sandbox::api::{ExecRequest, Sandbox, SandboxProvider};
use antler_sandbox::config::SandboxConfig;
use antler_sandbox::docker::{DockerProvider, connect};
use antler_sandbox::personal::PersonalSkills;
use antler_sandbox::view::{ProjectedSkill, SkillsView};
use antler_sandbox::{SandboxError, ThreadDirs};
use bollard::query_parameters::ListContainersOptionsBuilder;

struct Env {
    tmp: tempfile::TempDir,
    view: SkillsView,
    instance: String,
}

/// The configuration the tests start from: the image `make test` builds (slim), unless
/// `ANTLER_SANDBOX_IMAGE` names another.
fn base_config() -> SandboxConfig {
    SandboxConfig {
        image: std::env::var("ANTLER_SANDBOX_IMAGE")
            .unwrap_or_else(|_| antler_sandbox::config::FALLBACK_IMAGE.into()),
        ..SandboxConfig::default()
    }
}

impl Env {
    /// An environment when Docker is usable; `None` (the test skips) when it is not.
    async fn ready() -> Option<Self> {
        let cfg = base_config();
        let usable = match connect(&cfg) {
            Ok(docker) => antler_sandbox::docker::check(&docker, &cfg.image).await,
            Err(e) => Err(e),
        };
        match usable {
            Ok(_) => Some(Env::new()),
            Err(e) => {
                assert!(
                    std::env::var_os("ANTLER_REQUIRE_DOCKER").is_none(),
                    "ANTLER_REQUIRE_DOCKER is set but Docker is not usable: {e}"
                );
                eprintln!("note: skipped, this test needs Docker ({e})");
                None
            }
        }
    }

    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let view = SkillsView::open(&tmp.path().join("data/skills-view")).unwrap();
        Env {
            tmp,
            view,
            instance: format!("test-{}", uuid::Uuid::new_v4().simple()),
        }
    }

    fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    fn config(&self, tweak: impl FnOnce(&mut SandboxConfig)) -> SandboxConfig {
        let mut cfg = base_config();
        cfg.docker.warm_pool = 0;
        cfg.docker.memory_mb = 256;
        cfg.docker.pids_limit = 64;
        tweak(&mut cfg);
        cfg
    }

    async fn provider(&self, tweak: impl FnOnce(&mut SandboxConfig)) -> DockerProvider {
        DockerProvider::start(
            self.config(tweak),
            &self.data(),
            self.view.root(),
            &self.instance,
        )
        .await
        .unwrap()
    }

    fn skill(&self, name: &str) -> ProjectedSkill {
        let dir = self.tmp.path().join("skills/public").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\n---\n{name} body\n"),
        )
        .unwrap();
        ProjectedSkill {
            category: SkillCategory::Public,
            relative_path: name.into(),
            source: dir,
            load_id: 0,
        }
    }

    async fn containers(&self) -> Vec<String> {
        let docker = connect(&SandboxConfig::default()).unwrap();
        let filters = HashMap::from([(
            "label".to_string(),
            vec![format!("antler.instance={}", self.instance)],
        )]);
        docker
            .list_containers(Some(
                ListContainersOptionsBuilder::new()
                    .all(true)
                    .filters(&filters)
                    .build(),
            ))
            .await
            .unwrap()
            .into_iter()
            .filter_map(|c| c.id)
            .collect()
    }
}

/// Removes the instance's containers even when a test fails before its provider shut down
/// (a leftover could be running a fork bomb).
impl Drop for Env {
    fn drop(&mut self) {
        let label = format!("label=antler.instance={}", self.instance);
        let Ok(out) = std::process::Command::new("docker")
            .args(["ps", "-aq", "--filter", &label])
            .output()
        else {
            return;
        };
        let ids = String::from_utf8_lossy(&out.stdout);
        let ids: Vec<&str> = ids.split_whitespace().collect();
        if !ids.is_empty() {
            let _ = std::process::Command::new("docker")
                .args(["rm", "-f"])
                .args(&ids)
                .output();
        }
    }
}

async fn sh(sb: &Arc<dyn Sandbox>, command: &str) -> antler_sandbox::ExecOutput {
    sb.exec(ExecRequest::new(command, Duration::from_secs(30)))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_container_is_hardened() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|_| {}).await;
    let sb = provider.acquire("hard").await.unwrap();
    let out = sh(&sb, "id -u; grep CapEff /proc/self/status; grep Seccomp: /proc/self/status; ls /sys/class/net; touch /etc/x 2>&1; echo rootfs=$?").await;
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_ne!(lines[0], "0", "not root: {out:?}");
    assert!(
        lines[1].ends_with("0000000000000000"),
        "no capabilities: {}",
        lines[1]
    );
    assert_eq!(
        lines[2].split_whitespace().last(),
        Some("2"),
        "seccomp filter on"
    );
    assert_eq!(lines[3], "lo", "no network interface but loopback");
    assert!(out.stdout.contains("Read-only file system"), "{out:?}");
    let net = sh(
        &sb,
        "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)\"",
    )
    .await;
    assert_ne!(net.exit_code, Some(0), "no network: {net:?}");
    provider.shutdown().await;
}

#[tokio::test]
async fn skills_are_read_only_and_only_enabled_ones_are_visible() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let (a, b) = (env.skill("alpha"), env.skill("beta"));
    env.view.sync(std::slice::from_ref(&a)).unwrap();
    let provider = env.provider(|_| {}).await;
    let sb = provider.acquire("skills").await.unwrap();
    let out = sh(&sb, "cat /mnt/skills/public/alpha/SKILL.md; cat /mnt/skills/public/beta/SKILL.md; touch /mnt/skills/public/alpha/x").await;
    assert!(out.stdout.contains("alpha body"));
    assert!(
        out.stderr.contains("beta/SKILL.md: No such file"),
        "{out:?}"
    );
    assert!(out.stderr.contains("Read-only file system"), "{out:?}");
    let file_api = sb
        .read_file("/mnt/skills/public/beta/SKILL.md", None)
        .await
        .unwrap_err();
    assert!(matches!(file_api, SandboxError::NotFound(_)));
    // Enabling beta (and disabling alpha) shows in the same container without a restart.
    let before = provider.list().await[0].id.clone();
    env.view.sync(&[b]).unwrap();
    let out = sh(
        &sb,
        "cat /mnt/skills/public/beta/SKILL.md; test -e /mnt/skills/public/alpha; echo alpha=$?",
    )
    .await;
    assert!(
        out.stdout.contains("beta body") && out.stdout.contains("alpha=1"),
        "{out:?}"
    );
    assert_eq!(provider.list().await[0].id, before, "same container");
    provider.shutdown().await;
}

#[tokio::test]
async fn files_are_shared_with_the_host_and_not_between_threads() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|_| {}).await;
    let a = provider.acquire("thread-a").await.unwrap();
    let b = provider.acquire("thread-b").await.unwrap();
    let out = sh(
        &a,
        "echo report > /mnt/user-data/outputs/report.md && echo done",
    )
    .await;
    assert_eq!(out.stdout.trim(), "done", "{out:?}");
    let host = ThreadDirs::new(&env.data(), "local", "thread-a");
    assert_eq!(
        std::fs::read_to_string(host.user_data().join("outputs/report.md")).unwrap(),
        "report\n"
    );
    a.write_file("/mnt/user-data/workspace/from-api.txt", "api", false)
        .await
        .unwrap();
    assert_eq!(
        sh(&a, "cat from-api.txt").await.stdout,
        "api",
        "file API writes are visible inside"
    );
    let other = sh(
        &b,
        "ls -A /mnt/user-data/outputs; ls / ; find / -name report.md 2>/dev/null | head -1",
    )
    .await;
    assert!(
        !other.stdout.contains("report.md"),
        "thread B sees A's files: {other:?}"
    );
    provider.shutdown().await;
}

#[tokio::test]
async fn timeouts_kill_the_process_tree_and_output_is_capped() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|c| c.max_output_bytes = 4096).await;
    let sb = provider.acquire("limits").await.unwrap();
    let out = sb
        .exec(ExecRequest::new(
            "sleep 300 & sleep 300; echo never",
            Duration::from_secs(1),
        ))
        .await
        .unwrap();
    assert!(out.timed_out, "{out:?}");
    assert!(!out.stdout.contains("never"));
    let left = sh(&sb, "ps -eo args= | grep -cx 'sleep 300' || true").await;
    assert_eq!(
        left.stdout.trim(),
        "0",
        "background processes were killed too"
    );
    let big = sh(
        &sb,
        "head -c 100000 /dev/zero | tr '\\0' a; echo; echo TAIL",
    )
    .await;
    assert!(big.stdout_skipped > 90_000, "{}", big.stdout_skipped);
    assert!(big.stdout.contains("bytes of output skipped"));
    assert!(big.stdout.trim_end().ends_with("TAIL"));
    let code = sh(&sb, "exit 7").await;
    assert_eq!(code.exit_code, Some(7));
    // A command that finishes leaves nothing running behind it (and returns: waiting for
    // its background sleeps would take minutes).
    let quick = sh(
        &sb,
        "sleep 301 > /dev/null 2>&1 & sleep 302 & echo done; exit 3",
    )
    .await;
    assert_eq!((quick.stdout.trim(), quick.exit_code), ("done", Some(3)));
    let left = sh(&sb, "ps -eo args= | grep -c '^sleep 30[12]$' || true").await;
    assert_eq!(
        left.stdout.trim(),
        "0",
        "background processes outlived their command"
    );
    let req = ExecRequest::new("sleep 300", Duration::from_secs(60));
    let cancel = req.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cancel.cancel();
    });
    let out = sb.exec(req).await.unwrap();
    assert!(out.cancelled && !out.timed_out, "{out:?}");
    provider.shutdown().await;
}

#[tokio::test]
async fn fork_bombs_and_memory_hogs_are_contained() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|_| {}).await;
    let sb = provider.acquire("abuse").await.unwrap();
    // The kernel enforces the configured process limit on the container (cgroup v2 or v1).
    let limit = sb
        .exec(ExecRequest::new(
            "cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max",
            Duration::from_secs(10),
        ))
        .await
        .unwrap();
    assert_eq!(
        limit.stdout.trim(),
        env.config(|_| {}).docker.pids_limit.to_string(),
        "{limit:?}"
    );
    let bomb = sb
        .exec(ExecRequest::new(
            "bomb() { bomb | bomb & }; bomb",
            Duration::from_secs(5),
        ))
        .await;
    assert!(
        bomb.is_ok() || matches!(bomb, Err(SandboxError::Infra(_))),
        "{bomb:?}"
    );
    // After the bomb the container is usable again, or it failed a command and the next
    // acquire replaces it.
    let hog = "python3 -c \"b = bytearray(1024 * 1024 * 1024); print('allocated')\"";
    let first = provider.acquire("abuse").await.unwrap();
    let out = match first
        .exec(ExecRequest::new(hog, Duration::from_secs(30)))
        .await
    {
        Ok(out) => out,
        Err(_) => sh(&provider.acquire("abuse").await.unwrap(), hog).await,
    };
    assert!(
        !out.stdout.contains("allocated"),
        "the memory limit holds: {out:?}"
    );
    assert!(matches!(out.exit_code, Some(137) | Some(1)), "{out:?}");
    // Still usable afterwards, or it noticed it is not and the next acquire replaces it.
    let alive = |sb: Arc<dyn Sandbox>| async move {
        sb.exec(ExecRequest::new("echo alive", Duration::from_secs(30)))
            .await
    };
    let first = alive(provider.acquire("abuse").await.unwrap()).await;
    if !first.as_ref().is_ok_and(|o| o.stdout.trim() == "alive") {
        let second = alive(provider.acquire("abuse").await.unwrap()).await;
        assert!(
            second.as_ref().is_ok_and(|o| o.stdout.trim() == "alive"),
            "the broken container was replaced: first {first:?}, then {second:?}"
        );
    }
    provider.shutdown().await;
}

#[tokio::test]
async fn a_warm_container_is_taken_by_a_new_thread() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|c| c.docker.warm_pool = 1).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while provider.warm_ready().await < 1 {
        assert!(Instant::now() < deadline, "no warm container came up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let warm_id = provider.list().await[0].id.clone();
    // The thread already has an upload: it moves into the warm container's slot.
    let dirs = ThreadDirs::new(&env.data(), "local", "warm-hit");
    dirs.create().unwrap();
    std::fs::write(dirs.user_data().join("uploads/in.csv"), "a,b\n").unwrap();
    let sb = provider.acquire("warm-hit").await.unwrap();
    let info = provider.list().await;
    let bound = info
        .iter()
        .find(|i| i.thread_id.as_deref() == Some("warm-hit"))
        .unwrap();
    assert_eq!(bound.id, warm_id, "the warm container was used");
    assert_eq!(
        sh(&sb, "cat /mnt/user-data/uploads/in.csv").await.stdout,
        "a,b\n"
    );
    sh(&sb, "echo out > /mnt/user-data/outputs/o.txt").await;
    assert!(
        dirs.user_data().join("outputs/o.txt").is_file(),
        "host path still reaches the files"
    );
    provider.shutdown().await;
}

#[tokio::test]
async fn the_container_cap_makes_acquirers_wait_then_fail_clearly() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = Arc::new(
        env.provider(|c| {
            c.docker.max_containers = 1;
            c.docker.acquire_timeout_secs = 1;
        })
        .await,
    );
    let _first = provider.acquire("cap-1").await.unwrap();
    let e = provider.acquire("cap-2").await.err().unwrap();
    assert!(matches!(e, SandboxError::Unavailable(_)), "{e}");
    assert!(e.to_string().contains("in use"), "{e}");
    // A waiter gets the slot as soon as it frees up.
    let waiter = {
        let p = provider.clone();
        tokio::spawn(async move { p.acquire("cap-2").await.map(|_| ()) })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    provider.destroy("cap-1").await.unwrap();
    waiter.await.unwrap().unwrap();
    provider.shutdown().await;
}

#[tokio::test]
async fn the_idle_reaper_skips_a_busy_container() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env
        .provider(|c| {
            c.docker.idle_timeout_secs = 1;
            c.docker.reap_interval_secs = 1;
        })
        .await;
    let busy = provider.acquire("busy").await.unwrap();
    drop(provider.acquire("idle").await.unwrap());
    let running = tokio::spawn(async move {
        busy.exec(ExecRequest::new(
            "sleep 4; echo finished",
            Duration::from_secs(30),
        ))
        .await
    });
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let threads: Vec<Option<String>> = provider
        .list()
        .await
        .into_iter()
        .map(|i| i.thread_id)
        .collect();
    assert_eq!(
        threads,
        [Some("busy".to_string())],
        "idle one reaped, busy one kept"
    );
    let out = running.await.unwrap().unwrap();
    assert_eq!(out.stdout.trim(), "finished");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !provider.list().await.is_empty() || !env.containers().await.is_empty() {
        assert!(
            Instant::now() < deadline,
            "the finished container was not reaped"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    provider.shutdown().await;
}

#[tokio::test]
async fn shutdown_removes_every_container_and_restart_removes_leftovers() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let provider = env.provider(|c| c.docker.warm_pool = 1).await;
    provider.acquire("s1").await.unwrap();
    provider.acquire("s2").await.unwrap();
    assert!(env.containers().await.len() >= 2);
    provider.shutdown().await;
    assert!(env.containers().await.is_empty(), "all removed");

    // A provider that vanishes without shutdown (a crash) leaves containers behind...
    let crashed = env.provider(|_| {}).await;
    crashed.acquire("orphan").await.unwrap();
    std::mem::forget(crashed);
    assert_eq!(env.containers().await.len(), 1);
    // ...and the next start of the same instance removes them.
    let restarted = env.provider(|_| {}).await;
    assert!(env.containers().await.is_empty(), "reconciled at start");
    restarted.shutdown().await;
}

/// Personal skills of whoever a test says: alice has `notes` until `take_away`.
struct Mine {
    notes: std::sync::Mutex<Option<ProjectedSkill>>,
}

#[async_trait::async_trait]
impl PersonalSkills for Mine {
    async fn wanted(&self, owner: &str) -> Vec<ProjectedSkill> {
        match owner {
            "alice" => self.notes.lock().unwrap().iter().cloned().collect(),
            _ => Vec::new(),
        }
    }
}

#[tokio::test]
async fn personal_skills_appear_only_in_their_owner_sandboxes_warm_or_cold() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let dir = env.tmp.path().join("users/alice/skills/user/notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: notes\n---\nalice's notes\n",
    )
    .unwrap();
    let mine = Arc::new(Mine {
        notes: std::sync::Mutex::new(Some(ProjectedSkill {
            category: SkillCategory::User,
            relative_path: "notes".into(),
            source: dir,
            load_id: 0,
        })),
    });
    let provider = DockerProvider::start_with(
        env.config(|c| c.docker.warm_pool = 1),
        &env.data(),
        env.view.root(),
        &env.instance,
        true,
        Some(mine.clone()),
    )
    .await
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while provider.warm_ready().await < 1 {
        assert!(Instant::now() < deadline, "no warm container came up");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The warm container goes to alice's thread, bob's thread starts a cold one.
    let alice = provider
        .acquire_for(
            "a1",
            antler_sandbox::Acquire {
                owner: Some("alice"),
                image: None,
                network: None,
                keep: false,
            },
        )
        .await
        .unwrap();
    let bob = provider
        .acquire_for(
            "b1",
            antler_sandbox::Acquire {
                owner: Some("bob"),
                image: None,
                network: None,
                keep: false,
            },
        )
        .await
        .unwrap();
    let seen = sh(&alice, "cat /mnt/skills/user/notes/SKILL.md").await;
    assert!(seen.stdout.contains("alice's notes"), "{seen:?}");
    assert_eq!(
        alice
            .read_file("/mnt/skills/user/notes/SKILL.md", None)
            .await
            .unwrap(),
        "---\nname: notes\n---\nalice's notes\n",
        "the file tools see the same"
    );
    let write = sh(&alice, "echo x > /mnt/skills/user/notes/SKILL.md").await;
    assert_ne!(write.exit_code, Some(0), "personal skills are read-only");
    let other = sh(&bob, "ls -A /mnt/skills/user; ls /mnt/skills").await;
    assert_eq!(
        other.stdout, "custom\npublic\nuser\n",
        "bob sees no personal skill of alice: {other:?}"
    );
    assert!(
        bob.read_file("/mnt/skills/user/notes/SKILL.md", None)
            .await
            .is_err()
    );
    // Alice's skill goes away: her running sandbox follows.
    *mine.notes.lock().unwrap() = None;
    provider.refresh_personal("alice").await.unwrap();
    let gone = sh(&alice, "ls -A /mnt/skills/user").await;
    assert_eq!(gone.stdout, "", "{gone:?}");
    drop((alice, bob));
    provider.shutdown().await;
    let left = std::fs::read_dir(antler_sandbox::personal::personal_root(
        &env.data(),
        &env.instance,
    ))
    .unwrap()
    .count();
    assert_eq!(left, 0, "the copies go with their sandboxes");
}

/// A thread whose agent now names another image gets a container of that image (its files
/// stay: they live on the host); the same image keeps the running container.
#[tokio::test]
async fn another_image_replaces_an_idle_container() {
    let Some(env) = Env::ready().await else {
        return;
    };
    let docker = connect(&base_config()).unwrap();
    let tag = format!("replace-{}", uuid::Uuid::new_v4().simple());
    let other = format!("antler-sandbox:{tag}");
    docker
        .tag_image(
            &base_config().image,
            Some(
                bollard::query_parameters::TagImageOptionsBuilder::new()
                    .repo("antler-sandbox")
                    .tag(&tag)
                    .build(),
            ),
        )
        .await
        .unwrap();
    let provider = env.provider(|_| {}).await;
    let image_of = async |sb: &Arc<dyn Sandbox>| {
        let id = sh(sb, "cat /etc/hostname").await.stdout.trim().to_string();
        docker
            .inspect_container(
                &id,
                None::<bollard::query_parameters::InspectContainerOptions>,
            )
            .await
            .unwrap()
            .config
            .unwrap()
            .image
            .unwrap()
    };
    let with = |image| antler_sandbox::Acquire {
        owner: None,
        image: Some(image),
        network: None,
        keep: false,
    };
    let first = provider.acquire("swap").await.unwrap();
    sh(&first, "echo kept > /mnt/user-data/workspace/note.txt").await;
    assert_eq!(image_of(&first).await, base_config().image);
    // Held by another run: kept, whatever the new image.
    let held = provider.acquire_for("swap", with(&other)).await.unwrap();
    assert!(
        Arc::ptr_eq(&first, &held),
        "a sandbox in use is not replaced"
    );
    drop((first, held));
    let second = provider.acquire_for("swap", with(&other)).await.unwrap();
    assert_eq!(image_of(&second).await, other);
    assert_eq!(
        sh(&second, "cat /mnt/user-data/workspace/note.txt")
            .await
            .stdout,
        "kept\n"
    );
    let again = provider.acquire_for("swap", with(&other)).await.unwrap();
    assert!(Arc::ptr_eq(&second, &again), "the same image keeps it");
    drop(again);
    // The server's own job (converting an upload) takes the container as it is.
    let job = provider
        .acquire_for(
            "swap",
            antler_sandbox::Acquire {
                keep: true,
                ..antler_sandbox::Acquire::default()
            },
        )
        .await
        .unwrap();
    assert!(Arc::ptr_eq(&second, &job), "a job does not replace it");
    assert_eq!(image_of(&job).await, other);
    drop(job);
    assert_eq!(env.containers().await.len(), 1, "the first one was removed");
    provider.shutdown().await;
    let _ = docker
        .remove_image(
            &other,
            None::<bollard::query_parameters::RemoveImageOptions>,
            None,
        )
        .await;
}

#[path = "docker/egress.rs"]
mod egress;
