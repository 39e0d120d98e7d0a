//! Test harness: temporary skills/data directories and the real `antler` binary on port 0.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The binary under test.
pub(crate) fn antler() -> Command {
    Command::new(env!("CARGO_BIN_EXE_antler"))
}

/// A temporary installation: `skills/{public,custom}` and `data/`.
pub(crate) struct Env {
    pub(crate) root: tempfile::TempDir,
}

impl Env {
    pub(crate) fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("skills/public")).unwrap();
        std::fs::create_dir_all(root.path().join("skills/custom")).unwrap();
        Env { root }
    }

    pub(crate) fn skills_dir(&self) -> PathBuf {
        self.root.path().join("skills")
    }

    pub(crate) fn data_dir(&self) -> PathBuf {
        self.root.path().join("data")
    }

    /// Writes `skills/<category>/<rel>/SKILL.md`.
    pub(crate) fn write_skill(
        &self,
        category: &str,
        rel: &str,
        name: &str,
        description: &str,
    ) -> PathBuf {
        let dir = self.skills_dir().join(category).join(rel);
        write_skill_dir(&dir, name, description);
        dir
    }

    /// Writes a raw `SKILL.md`.
    pub(crate) fn write_raw(&self, category: &str, rel: &str, text: &str) {
        let dir = self.skills_dir().join(category).join(rel);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }

    /// The environment a server of this installation runs with.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut cmd = antler();
        cmd.args(args)
            .current_dir(self.root.path())
            .env("ANTLER_DATA_DIR", self.data_dir())
            .env("ANTLER_SKILLS_DIR", self.skills_dir())
            .env("ANTLER_LOG_LEVEL", "warn")
            // The first admin; `Server::spawn` signs in as them and works with a token.
            .env("ANTLER_ADMIN_EMAIL", ADMIN_EMAIL)
            .env("ANTLER_ADMIN_PASSWORD", ADMIN_PASSWORD)
            // Docker tests opt in; everything else stays fast and independent of the engine.
            .env("ANTLER_SANDBOX_PROVIDER", "local")
            .env("ANTLER_SANDBOX_IMAGE", sandbox_image())
            // Learning from conversations would add model requests to every test's script;
            // the memory tests turn it on.
            .env("ANTLER_MEMORY_EXTRACTION", "false")
            // Likewise follow-up suggestions (one more call after each answer); the
            // suggestions tests turn them on.
            .env("ANTLER_AGENT_SUGGESTIONS_ENABLED", "false");
        cmd
    }

    /// Starts `antler serve --bind 127.0.0.1:0` with the file watcher off (tests that need
    /// it use [`Env::start_with`]).
    pub(crate) fn start(&self) -> Server {
        self.start_with(&[("ANTLER_SKILLS_WATCH", "false")])
    }

    pub(crate) fn start_with(&self, env: &[(&str, &str)]) -> Server {
        let mut cmd = self.command(&["serve", "--bind", "127.0.0.1:0"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        Server::spawn(cmd)
    }
}

pub(crate) fn write_skill_dir(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo the thing.\n"),
    )
    .unwrap();
}

/// The admin every test server is started with.
pub(crate) const ADMIN_EMAIL: &str = "admin@antler.test";
/// Their password.
pub(crate) const ADMIN_PASSWORD: &str = "admin-password-1";

/// A running server; killed when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) base: String,
    /// Sends the admin's token with every request.
    pub(crate) http: reqwest::Client,
    /// The admin's personal access token (`None` when the server has no such admin).
    pub(crate) token: Option<String>,
    /// The server's stdout after the `listening on` line.
    pub(crate) stdout: Option<BufReader<std::process::ChildStdout>>,
}

/// A signed-in browser-like session: its cookie header and CSRF token.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) cookie: String,
    pub(crate) csrf: String,
}

/// Signs in with a password: the session, or the status and body of the refusal.
pub(crate) async fn sign_in(
    base: &str,
    email: &str,
    password: &str,
) -> Result<Session, (u16, serde_json::Value)> {
    let r = reqwest::Client::new()
        .post(format!("{base}/api/auth/login"))
        .json(&serde_json::json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let cookie = r
        .headers()
        .get_all(reqwest::header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next())
        .collect::<Vec<_>>()
        .join("; ");
    let body: serde_json::Value = r.json().await.unwrap_or(serde_json::Value::Null);
    if status != 200 {
        return Err((status, body));
    }
    Ok(Session {
        cookie,
        csrf: body["csrf_token"].as_str().unwrap().to_string(),
    })
}

/// Creates a personal access token in a session.
pub(crate) async fn create_token(base: &str, session: &Session, name: &str) -> String {
    let r = reqwest::Client::new()
        .post(format!("{base}/api/auth/tokens"))
        .header("cookie", &session.cookie)
        .header("x-csrf-token", &session.csrf)
        .json(&serde_json::json!({"name": name}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let body: serde_json::Value = r.json().await.unwrap();
    body["token"].as_str().unwrap().to_string()
}

/// The test admin's token on the server at `base` (on a thread of its own, since servers
/// are spawned from async tests).
fn admin_token(base: &str) -> Option<String> {
    let base = base.to_string();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let status: serde_json::Value = reqwest::get(format!("{base}/api/auth/status"))
                .await
                .ok()?
                .json()
                .await
                .ok()?;
            if status["mode"] != "password" {
                return None;
            }
            let session = sign_in(&base, ADMIN_EMAIL, ADMIN_PASSWORD).await.ok()?;
            Some(create_token(&base, &session, "tests").await)
        })
    })
    .join()
    .unwrap()
}

/// A client sending `token` with every request.
pub(crate) fn client_with(token: Option<&str>) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(token) = token {
        headers.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {token}").parse().unwrap(),
        );
    }
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .default_headers(headers)
        .build()
        .unwrap()
}

impl Server {
    pub(crate) fn spawn(cmd: Command) -> Server {
        Server::spawn_with_log(cmd, Stdio::inherit())
    }

    /// Like [`Server::spawn`], with the server's log (stderr) going to `log`.
    pub(crate) fn spawn_with_log(mut cmd: Command, log: impl Into<Stdio>) -> Server {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("start antler");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let base = first
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"))
            .to_string();
        let token = admin_token(&base);
        Server {
            child,
            http: client_with(token.as_deref()),
            base,
            token,
            stdout: Some(stdout),
        }
    }

    /// The next line the server printed on stdout.
    pub(crate) fn stdout_line(&mut self) -> String {
        let mut line = String::new();
        if let Some(out) = self.stdout.as_mut() {
            out.read_line(&mut line).unwrap();
        }
        line
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Reads a run's stream to its end, resuming after `last_event_id`.
    pub(crate) async fn replay(&self, thread: &str, run: &str, last_event_id: u64) -> Vec<Sse> {
        let response = self
            .http
            .get(self.url(&format!("/api/threads/{thread}/runs/{run}/stream")))
            .header("last-event-id", last_event_id.to_string())
            .send()
            .await
            .unwrap();
        read_sse(response, |_| false).await
    }

    pub(crate) async fn get(&self, path: &str) -> reqwest::Response {
        self.http.get(self.url(path)).send().await.unwrap()
    }

    pub(crate) async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let r = self.get(path).await;
        let status = r.status().as_u16();
        (status, r.json().await.unwrap())
    }

    pub(crate) async fn put_json(
        &self,
        path: &str,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        send_json(self.http.put(self.url(path)).json(&body)).await
    }

    pub(crate) async fn post(&self, path: &str) -> (u16, serde_json::Value) {
        send_json(self.http.post(self.url(path))).await
    }

    /// Stops the server with SIGTERM and waits for it.
    pub(crate) fn stop(mut self) {
        terminate(&mut self.child);
    }

    /// Kills the server with SIGKILL: no shutdown, as in a crash.
    pub(crate) fn crash(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of the token chunks among `events` (`messages` events), in order.
pub(crate) fn streamed_text(events: &[Sse]) -> String {
    events
        .iter()
        .filter(|e| e.event == "messages" && e.data[0]["type"] == "AIMessageChunk")
        .filter_map(|e| e.data[0]["content"].as_str())
        .collect()
}

/// Polls `check` until it holds, for at most a minute; fails naming `what` otherwise.
pub(crate) async fn wait_for(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !check().await {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Every chat request the scripted model at `model_url` (its `/v1` base) received.
pub(crate) async fn model_requests(model_url: &str) -> serde_json::Value {
    reqwest::get(model_url.replace("/v1", "/_requests"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The last request the scripted model received whose last message is the person's `text`.
pub(crate) async fn model_request_for(model_url: &str, text: &str) -> serde_json::Value {
    let requests = model_requests(model_url).await;
    requests
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|r| {
            r["messages"]
                .as_array()
                .and_then(|m| m.last())
                .is_some_and(|m| m["content"] == text)
        })
        .cloned()
        .unwrap_or_else(|| panic!("the model received no request ending with {text:?}"))
}

/// A `bash` command that sleeps under a name of its own (`exec -a` sets its `argv[0]`), so
/// that a test finds its command among the processes by that name: tests running at the
/// same time (or another checkout's) can never be mistaken for it, as with a `sleep` told
/// apart only by its duration.
pub(crate) struct Sleeper {
    /// What the process is called while it sleeps.
    pub(crate) name: String,
    /// The command for the model's `bash` call (no quotes, safe in YAML).
    pub(crate) command: String,
}

impl Sleeper {
    /// A command sleeping `seconds` under a new name.
    pub(crate) fn new(seconds: u32) -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("antler-test-sleeper-{:x}-{nanos:x}-{n}", std::process::id());
        Sleeper {
            command: format!("exec -a {name} sleep {seconds}"),
            name,
        }
    }

    /// The host processes running it.
    pub(crate) fn processes(&self) -> Vec<i32> {
        processes_matching(&self.name)
    }

    /// Whether it runs on the host.
    pub(crate) fn running(&self) -> bool {
        !self.processes().is_empty()
    }
}

/// Host processes whose command line contains `needle` (as `pgrep -f`, without procps).
pub(crate) fn processes_matching(needle: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                String::from_utf8_lossy(&c)
                    .replace('\0', " ")
                    .contains(needle)
            })
        })
        .collect()
}

/// Sends `signal` to `pid`, ignoring a process that is already gone.
pub(crate) fn signal(pid: i32, signal: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

fn terminate(child: &mut Child) {
    signal(
        i32::try_from(child.id()).unwrap_or(0),
        rustix::process::Signal::TERM,
    );
    // Shutdown removes sandbox containers, which can take a while on a busy engine.
    for _ in 0..600 {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A graceful stop, so that a test that ends early (or fails) leaves no sandbox containers.
impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            terminate(&mut self.child);
        }
    }
}

/// Sends a request; the status and the JSON body (`null` when the body is empty or not JSON).
async fn send_json(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
    )
}

/// Asserts the JSON error envelope and returns its code.
pub(crate) fn error_code(body: &serde_json::Value) -> &str {
    let error = body
        .get("error")
        .unwrap_or_else(|| panic!("no envelope: {body}"));
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    error["code"].as_str().unwrap()
}

impl Server {
    pub(crate) async fn post_json(
        &self,
        path: &str,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        send_json(self.http.post(self.url(path)).json(&body)).await
    }

    pub(crate) async fn patch_json(
        &self,
        path: &str,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        send_json(self.http.patch(self.url(path)).json(&body)).await
    }

    pub(crate) async fn delete(&self, path: &str) -> (u16, serde_json::Value) {
        send_json(self.http.delete(self.url(path))).await
    }

    pub(crate) async fn create_thread(&self, id: &str) {
        let (status, body) = self
            .post_json("/api/threads", serde_json::json!({ "thread_id": id }))
            .await;
        assert_eq!(status, 200, "{body}");
    }

    /// Sends a request line byte for byte (clients normalise `..` away; attackers do not).
    pub(crate) async fn raw_get(&self, path: &str) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let addr = self.base.trim_start_matches("http://");
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let auth = self
            .token
            .as_ref()
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await.unwrap();
        let text = String::from_utf8_lossy(&response).into_owned();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
        (status, body)
    }
}

impl Env {
    /// Host side of a thread's `/mnt/user-data`.
    pub(crate) fn user_data(&self, thread: &str) -> PathBuf {
        self.thread_dir(thread)
            .unwrap_or_else(|| self.data_dir().join("users/local/threads").join(thread))
            .join("user-data")
    }

    /// [`Env::user_data`] with its three folders made, as the sandbox makes them at its
    /// first command (a thread gets its folders with its first file).
    pub(crate) fn files_of(&self, thread: &str) -> PathBuf {
        let dir = self.user_data(thread);
        for sub in ["workspace", "uploads", "outputs"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        dir
    }

    /// `data/users/<owner>/threads/<thread>`, whoever owns it, if it exists.
    pub(crate) fn thread_dir(&self, thread: &str) -> Option<PathBuf> {
        std::fs::read_dir(self.data_dir().join("users"))
            .ok()?
            .filter_map(|e| e.ok())
            .map(|owner| owner.path().join("threads").join(thread))
            .find(|dir| dir.is_dir())
    }

    /// Every path under the installation except the database and scratch files, sorted.
    pub(crate) fn tree(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self.root.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                let rel = path
                    .strip_prefix(self.root.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if rel.starts_with("data/antler.db") || rel.starts_with("data/tmp/") {
                    continue;
                }
                if entry.file_type().unwrap().is_dir() {
                    stack.push(path);
                }
                out.push(rel);
            }
        }
        out.sort();
        out
    }
}

/// A scripted model server in this process; returns its `/v1` base URL.
pub(crate) async fn mock_llm(script: &str) -> String {
    let script = antler_mock_llm::Script::parse(script).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(antler_mock_llm::serve(script, listener));
    format!("http://{addr}/v1")
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub(crate) struct Sse {
    pub(crate) id: Option<u64>,
    pub(crate) event: String,
    pub(crate) data: serde_json::Value,
}

/// Reads an SSE response to its end (or until `stop` says so).
pub(crate) async fn read_sse(
    mut response: reqwest::Response,
    mut stop: impl FnMut(&Sse) -> bool,
) -> Vec<Sse> {
    let mut buf = String::new();
    let mut out = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let mut sse = Sse {
                id: None,
                event: String::new(),
                data: serde_json::Value::Null,
            };
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    sse.event = v.trim().to_string();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.strip_prefix(' ').unwrap_or(v));
                } else if let Some(v) = line.strip_prefix("id:") {
                    sse.id = v.trim().parse().ok();
                }
            }
            if sse.event.is_empty() && data.is_empty() {
                continue; // heartbeat comment
            }
            sse.data = serde_json::from_str(&data).unwrap_or(serde_json::Value::Null);
            let done = stop(&sse);
            out.push(sse);
            if done {
                return out;
            }
        }
    }
    out
}

impl Env {
    /// A server using the scripted model at `model_url` and the local provider with host bash.
    pub(crate) fn start_agent(&self, model_url: &str, extra: &[(&str, &str)]) -> Server {
        let mut vars = vec![
            ("ANTLER_SKILLS_WATCH", "false"),
            ("ANTLER_MODEL_BASE_URL", model_url),
            ("ANTLER_MODEL", "mock"),
            ("ANTLER_SANDBOX_ALLOW_HOST_BASH", "true"),
        ];
        vars.extend_from_slice(extra);
        self.start_with(&vars)
    }
}

impl Server {
    /// Runs `assistant` on `thread` (created if need be) with the person's `text`, to the
    /// end; answers the final values (a run that could not start fails the test).
    pub(crate) async fn run_wait(
        &self,
        thread: &str,
        assistant: &str,
        text: &str,
    ) -> serde_json::Value {
        let (status, values) = self
            .post_json(
                &format!("/api/threads/{thread}/runs/wait"),
                serde_json::json!({"assistant_id": assistant, "if_not_exists": "create",
                    "input": {"messages": [{"role": "user", "content": text}]}}),
            )
            .await;
        assert_eq!(status, 200, "{values}");
        values
    }

    /// Starts a streaming run and returns the response.
    pub(crate) async fn stream_run(
        &self,
        thread: &str,
        body: serde_json::Value,
    ) -> reqwest::Response {
        self.http
            .post(self.url(&format!("/api/threads/{thread}/runs/stream")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Polls a run until `done` holds for it.
    pub(crate) async fn wait_run(
        &self,
        thread: &str,
        run: &str,
        done: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let (_, r) = self
                .get_json(&format!("/api/threads/{thread}/runs/{run}"))
                .await;
            if done(&r) {
                return r;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "run never reached the state: {r}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// A run request with one user message.
pub(crate) fn run_body(text: &str, modes: &[&str]) -> serde_json::Value {
    serde_json::json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"role": "user", "content": text}]},
        "stream_mode": modes,
    })
}

/// The image Docker tests run: the one `make test` builds (slim), unless
/// `ANTLER_SANDBOX_IMAGE` names another.
pub(crate) fn sandbox_image() -> String {
    std::env::var("ANTLER_SANDBOX_IMAGE")
        .unwrap_or_else(|_| antler_sandbox::config::FALLBACK_IMAGE.into())
}

/// Whether the Docker engine answers and has the sandbox image. `make test` sets
/// `ANTLER_REQUIRE_DOCKER` (after building the image), so there a missing one fails; elsewhere
/// Docker tests skip, saying why.
pub(crate) async fn docker() -> bool {
    let cfg = antler_sandbox::config::SandboxConfig {
        image: sandbox_image(),
        ..Default::default()
    };
    let ready = match antler_sandbox::docker::connect(&cfg) {
        Ok(docker) => antler_sandbox::docker::check(&docker, &cfg.image).await,
        Err(e) => Err(e),
    };
    match ready {
        Ok(_) => true,
        Err(e) => {
            assert!(
                std::env::var_os("ANTLER_REQUIRE_DOCKER").is_none(),
                "ANTLER_REQUIRE_DOCKER is set but Docker is not usable: {e}"
            );
            eprintln!("note: skipped, this test needs Docker ({e})");
            false
        }
    }
}

/// A fresh PostgreSQL database for one test, from `ANTLER_TEST_POSTGRES_URL` (an admin URL).
/// `make test` sets it; without it (and without `ANTLER_REQUIRE_POSTGRES`) replica tests skip.
pub(crate) async fn postgres_database() -> Option<String> {
    let Ok(admin) = std::env::var("ANTLER_TEST_POSTGRES_URL") else {
        assert!(
            std::env::var_os("ANTLER_REQUIRE_POSTGRES").is_none(),
            "ANTLER_REQUIRE_POSTGRES is set but ANTLER_TEST_POSTGRES_URL is not"
        );
        eprintln!("note: replica tests need PostgreSQL (ANTLER_TEST_POSTGRES_URL is not set)");
        return None;
    };
    let name = format!("antler_it_{:x}{:x}", std::process::id(), rand_suffix());
    let pool = sqlx::PgPool::connect(&admin).await.unwrap();
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let base = admin
        .rsplit_once('/')
        .map(|(b, _)| b)
        .unwrap_or(&admin)
        .to_string();
    Some(format!("{base}/{name}"))
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}
