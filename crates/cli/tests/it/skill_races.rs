//! Concurrent skill changes: whatever order a burst of toggles, installs and deletes lands
//! in, once it settles the API, the database and every instance's `/mnt/skills` agree.

use std::sync::Arc;

use antler_skills::archive::testing::ZipBuilder;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use tokio::sync::Barrier;

use crate::common::{Env, Server, postgres_database};

/// How many times a burst is repeated (the race needs several tries to show).
const ROUNDS: usize = 20;
/// Requests released together in one burst.
const BURST: usize = 50;

/// What the API lists for `name` in `category`.
async fn listed(server: &Server, category: &str, name: &str) -> Option<bool> {
    let (status, list) = server.get_json("/api/skills").await;
    assert_eq!(status, 200, "{list}");
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name && s["category"] == category)
        .map(|s| s["enabled"].as_bool().unwrap())
}

/// The database of a server under test.
enum Db {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Db {
    async fn sqlite(env: &Env) -> Db {
        let path = env.data_dir().join("antler.db");
        Db::Sqlite(
            sqlx::SqlitePool::connect(&format!("sqlite:{}", path.display()))
                .await
                .unwrap(),
        )
    }

    /// What the database holds for a skill (no row: enabled).
    async fn enabled(&self, category: &str, name: &str) -> bool {
        const SQL: &str = "SELECT CASE WHEN enabled THEN 1 ELSE 0 END FROM skill_states \
                           WHERE category = $1 AND name = $2";
        let row: Option<(i32,)> = match self {
            Db::Sqlite(pool) => sqlx::query_as(SQL)
                .bind(category)
                .bind(name)
                .fetch_optional(pool)
                .await
                .unwrap(),
            Db::Postgres(pool) => sqlx::query_as(SQL)
                .bind(category)
                .bind(name)
                .fetch_optional(pool)
                .await
                .unwrap(),
        };
        row.is_none_or(|(e,)| e == 1)
    }
}

/// Whether the instance's skills view holds the skill (what sandboxes see at /mnt/skills).
fn in_view(env: &Env, instance: &str, category: &str, rel: &str) -> bool {
    env.data_dir()
        .join("skills-view")
        .join(instance)
        .join(category)
        .join(rel)
        .join("SKILL.md")
        .is_file()
}

/// Sends `BURST` requests released together by a barrier (a sequential loop never shows
/// the race); `nth` builds the i-th.
async fn burst(nth: impl Fn(usize) -> reqwest::RequestBuilder) {
    let barrier = Arc::new(Barrier::new(BURST));
    let tasks: Vec<_> = (0..BURST)
        .map(|i| {
            let request = nth(i);
            let barrier = barrier.clone();
            tokio::spawn(async move {
                barrier.wait().await;
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                (status, body)
            })
        })
        .collect();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert!(
            matches!(status, 200 | 204 | 404 | 409),
            "unexpected answer {status}: {body}"
        );
    }
}

fn toggle(server: &Server, name: &str, enabled: bool) -> reqwest::RequestBuilder {
    server
        .http
        .put(server.url(&format!("/api/skills/{name}")))
        .json(&json!({ "enabled": enabled }))
}

#[tokio::test]
async fn concurrent_toggles_leave_the_api_the_database_and_the_view_agreeing() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Read PDFs.");
    env.write_skill("public", "csv", "csv", "Read CSVs.");
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SANDBOX_INSTANCE_ID", "races"),
    ]);
    let db = Db::sqlite(&env).await;
    for round in 0..ROUNDS {
        burst(|i| toggle(&server, "pdf", (i + round) % 2 == 0)).await;
        let api = listed(&server, "public", "pdf").await.unwrap();
        assert_eq!(
            api,
            db.enabled("public", "pdf").await,
            "round {round}: the API and the database disagree"
        );
        assert_eq!(
            api,
            in_view(&env, "races", "public", "pdf"),
            "round {round}: the API and /mnt/skills disagree"
        );
        assert!(in_view(&env, "races", "public", "csv"), "untouched skill");
    }
}

fn archive(name: &str, body: &str) -> Vec<u8> {
    ZipBuilder::new()
        .file(
            &format!("{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {body}\n---\n# {name}\n").as_bytes(),
        )
        .finish()
        .unwrap()
}

fn install(server: &Server, zip: Vec<u8>, enable: bool) -> reqwest::RequestBuilder {
    let form = Form::new()
        .part("file", Part::bytes(zip).file_name("x.skill"))
        .text("overwrite", "true")
        .text("enable", enable.to_string());
    server
        .http
        .post(server.url("/api/skills/upload"))
        .multipart(form)
}

#[tokio::test]
async fn concurrent_installs_deletes_and_toggles_settle_in_agreement() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_SANDBOX_INSTANCE_ID", "mixed"),
    ]);
    let db = Db::sqlite(&env).await;
    let zip = archive("notes", "Take notes.");
    for round in 0..ROUNDS / 4 {
        burst(|i| match (i + round) % 5 {
            0 => install(&server, zip.clone(), true),
            1 => install(&server, zip.clone(), false),
            2 => server.http.delete(server.url("/api/skills/notes")),
            3 => toggle(&server, "notes", true),
            _ => toggle(&server, "notes", false),
        })
        .await;
        let api = listed(&server, "custom", "notes").await;
        let on_disk = env.skills_dir().join("custom/notes/SKILL.md").is_file();
        assert_eq!(api.is_some(), on_disk, "round {round}: listing vs disk");
        let viewed = in_view(&env, "mixed", "custom", "notes");
        match api {
            Some(enabled) => {
                assert_eq!(
                    enabled,
                    db.enabled("custom", "notes").await,
                    "round {round}"
                );
                assert_eq!(enabled, viewed, "round {round}: API vs /mnt/skills");
            }
            None => assert!(!viewed, "round {round}: a deleted skill is still mounted"),
        }
    }
}

#[tokio::test]
async fn concurrent_toggles_on_two_replicas_leave_every_view_agreeing() {
    let Some(url) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Read PDFs.");
    let start = |name: &str| {
        env.start_with(&[
            ("ANTLER_SKILLS_WATCH", "false"),
            ("ANTLER_DATABASE_URL", &url),
            ("ANTLER_SANDBOX_INSTANCE_ID", name),
        ])
    };
    let (a, b) = (start("replica-a"), start("replica-b"));
    let db = Db::Postgres(sqlx::PgPool::connect(&url).await.unwrap());
    for round in 0..ROUNDS / 2 {
        burst(|i| {
            let server = if i % 2 == 0 { &a } else { &b };
            toggle(server, "pdf", (i / 2 + round) % 2 == 0)
        })
        .await;
        let want = db.enabled("public", "pdf").await;
        // The other replica hears of the last change through a notice: give it a moment.
        crate::common::wait_for("both replicas to settle", async || {
            listed(&a, "public", "pdf").await == Some(want)
                && listed(&b, "public", "pdf").await == Some(want)
                && in_view(&env, "replica-a", "public", "pdf") == want
                && in_view(&env, "replica-b", "public", "pdf") == want
        })
        .await;
    }
}
