//! `/api/skills`, `/api/models` and `/health` over HTTP against the real server.

use std::time::{Duration, Instant};

use crate::common::{Env, error_code};
use serde_json::{Value, json};

fn names(list: &Value) -> Vec<String> {
    list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s["category"].as_str().unwrap(),
                s["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn health_answers_ok_with_the_version() {
    let env = Env::new();
    let server = env.start();
    let (status, body) = server.get_json("/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

/// `GET /api/models` names the model runs use when they name none: `agent.default_model`,
/// else the first configured one.
#[tokio::test]
async fn models_listing_names_the_default_model_runs_use() {
    let env = Env::new();
    let models = "- {name: fast, base_url: \"http://127.0.0.1:9/v1\", model: a}\n\
                  - {name: smart, base_url: \"http://127.0.0.1:9/v1\", model: b}\n";
    let first = env.start_with(&[("ANTLER_SKILLS_WATCH", "false"), ("ANTLER_MODELS", models)]);
    let (status, body) = first.get_json("/api/models").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["default"], "fast");
    assert_eq!(body["models"][1]["name"], "smart");
    drop(first);
    let named = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", models),
        ("ANTLER_AGENT_DEFAULT_MODEL", "smart"),
    ]);
    let (status, body) = named.get_json("/api/models").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["default"], "smart");
}

#[tokio::test]
async fn listing_sorts_by_category_then_name_and_reports_load_errors() {
    let env = Env::new();
    env.write_skill("custom", "zeta", "zeta", "Custom zeta.");
    env.write_skill("public", "beta", "beta", "Public beta.");
    env.write_skill("public", "team/alpha", "alpha", "Nested alpha.");
    env.write_raw("public", "broken", "---\nname: [oops\n---\n");
    env.write_raw(
        "custom",
        "renamed",
        "---\nname: other\ndescription: Mismatch.\nlicense: MIT\nmetadata:\n  author: me\nallowed-tools: Read Bash\n---\n",
    );
    let server = env.start();
    let (status, list) = server.get_json("/api/skills").await;
    assert_eq!(status, 200);
    assert_eq!(
        names(&list),
        ["public:alpha", "public:beta", "custom:other", "custom:zeta"]
    );
    let alpha = &list["skills"][0];
    assert_eq!(alpha["relative_path"], "team/alpha");
    assert_eq!(alpha["location"], "/mnt/skills/public/team/alpha/SKILL.md");
    assert_eq!(alpha["enabled"], true);
    assert_eq!(alpha["editable"], false);
    assert_eq!(alpha["shadowed"], false);
    let other = &list["skills"][2];
    assert_eq!(other["editable"], true);
    assert_eq!(other["license"], "MIT");
    assert_eq!(other["metadata"]["author"], "me");
    assert_eq!(other["allowed_tools"], json!(["Read", "Bash"]));
    assert!(
        other["warnings"][0]
            .as_str()
            .unwrap()
            .contains("does not match")
    );
    let errors = list["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["path"], "public/broken/SKILL.md");
    assert!(errors[0]["message"].as_str().unwrap().contains("YAML"));
}

#[tokio::test]
async fn listing_answers_304_to_a_matching_etag_and_200_after_a_change() {
    let env = Env::new();
    env.write_skill("public", "a", "a", "A.");
    let server = env.start();
    let first = server.get("/api/skills").await;
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    let again = server
        .http
        .get(server.url("/api/skills"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 304);
    server
        .put_json("/api/skills/a", json!({"enabled": false}))
        .await;
    let changed = server
        .http
        .get(server.url("/api/skills"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status().as_u16(), 200);
}

#[tokio::test]
async fn listing_is_gzip_compressed_when_the_client_accepts_it() {
    let env = Env::new();
    for i in 0..50 {
        env.write_skill(
            "public",
            &format!("s{i}"),
            &format!("s{i}"),
            "A repetitive description.",
        );
    }
    let server = env.start();
    let plain = server.get("/api/skills").await;
    let plain_tag = plain.headers()["etag"].to_str().unwrap().to_string();
    let plain_body = plain.bytes().await.unwrap();
    let zipped = server
        .http
        .get(server.url("/api/skills"))
        .header("accept-encoding", "br;q=1, gzip;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(zipped.headers()["content-encoding"], "gzip");
    assert_eq!(zipped.headers()["vary"], "accept-encoding");
    let zipped_tag = zipped.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(
        plain_tag, zipped_tag,
        "each representation has its own ETag"
    );
    let compressed = zipped.bytes().await.unwrap();
    assert!(compressed.len() * 5 < plain_body.len());
    let mut unzipped = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&compressed[..]),
        &mut unzipped,
    )
    .unwrap();
    assert_eq!(unzipped, plain_body);
    // A browser revalidates with the gzip tag it was given.
    let revalidated = server
        .http
        .get(server.url("/api/skills"))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &zipped_tag)
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status().as_u16(), 304);
    assert_eq!(revalidated.headers()["etag"].to_str().unwrap(), zipped_tag);
    let refused = server
        .http
        .get(server.url("/api/skills"))
        .header("accept-encoding", "gzip;q=0")
        .send()
        .await
        .unwrap();
    assert!(refused.headers().get("content-encoding").is_none());
}

#[tokio::test]
async fn details_include_the_body_and_every_file() {
    let env = Env::new();
    let dir = env.write_skill("public", "pdf", "pdf", "PDF tools.");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("scripts/extract.py"), "print('hi')\n").unwrap();
    let server = env.start();
    let (status, detail) = server.get_json("/api/skills/pdf").await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["name"], "pdf");
    assert_eq!(detail["body"], "# pdf\n\nDo the thing.\n");
    let skill_md = std::fs::metadata(dir.join("SKILL.md")).unwrap().len();
    assert_eq!(
        detail["files"],
        json!([{"path": "SKILL.md", "size": skill_md}, {"path": "scripts/extract.py", "size": 12}])
    );
}

#[tokio::test]
async fn bad_names_unknown_skills_and_ambiguous_names_get_enveloped_errors() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Public.");
    env.write_skill("custom", "pdf", "pdf", "Custom.");
    let server = env.start();
    for bad in [
        "/api/skills/a%2Fb",
        "/api/skills/%20%20",
        "/api/skills/a%00b",
        "/api/skills/a%5Cb",
    ] {
        let (status, body) = server.get_json(bad).await;
        assert_eq!(status, 400, "{bad}");
        assert_eq!(error_code(&body), "invalid_path");
    }
    // Outside the specification but usable: unknown, not malformed.
    for unknown in ["/api/skills/Bad_Name", "/api/skills/-x", "/api/skills/a--b"] {
        let (status, body) = server.get_json(unknown).await;
        assert_eq!(status, 404, "{unknown}: {body}");
    }
    let (status, body) = server.get_json("/api/skills/nope").await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&body), "not_found");
    let (status, body) = server.get_json("/api/skills/pdf?category=secret").await;
    assert_eq!(status, 400);
    assert_eq!(error_code(&body), "invalid_query");
    let (status, body) = server.get_json("/api/skills/pdf").await;
    assert_eq!(status, 409);
    assert_eq!(
        body["error"]["details"]["categories"],
        json!(["public", "custom"])
    );
    let (status, body) = server.get_json("/api/skills/pdf?category=custom").await;
    assert_eq!(status, 200);
    assert_eq!(body["description"], "Custom.");
}

#[tokio::test]
async fn toggling_is_per_category_and_survives_a_restart() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Public.");
    env.write_skill("custom", "pdf", "pdf", "Custom.");
    env.write_skill("public", "csv", "csv", "CSV.");
    let server = env.start();

    let (status, body) = server
        .put_json("/api/skills/pdf", json!({"enabled": false}))
        .await;
    assert_eq!(status, 409, "ambiguous without a category: {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("public")
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("custom")
    );

    let (status, body) = server
        .put_json(
            "/api/skills/pdf",
            json!({"enabled": false, "category": "custom"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["category"], "custom");
    assert_eq!(body["enabled"], false);
    let (status, body) = server
        .put_json("/api/skills/csv", json!({"enabled": false}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["enabled"], false);

    let (_, list) = server.get_json("/api/skills").await;
    let public_pdf = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "pdf" && s["category"] == "public")
        .unwrap()
        .clone();
    assert_eq!(
        public_pdf["enabled"], true,
        "the public skill keeps its own state"
    );
    assert_eq!(
        public_pdf["shadowed"], false,
        "a disabled custom skill shadows nothing"
    );
    server.stop();

    let server = env.start();
    let (_, list) = server.get_json("/api/skills").await;
    let state: Vec<(String, bool)> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                format!(
                    "{}:{}",
                    s["category"].as_str().unwrap(),
                    s["name"].as_str().unwrap()
                ),
                s["enabled"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        state,
        [
            ("public:csv".to_string(), false),
            ("public:pdf".to_string(), true),
            ("custom:pdf".to_string(), false)
        ]
    );
}

#[tokio::test]
async fn an_enabled_custom_skill_shadows_a_public_one_in_the_listing() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Public.");
    env.write_skill("custom", "pdf", "pdf", "Custom.");
    let server = env.start();
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"][0]["category"], "public");
    assert_eq!(list["skills"][0]["shadowed"], true);
    assert_eq!(list["skills"][1]["shadowed"], false);
}

#[tokio::test]
async fn malformed_mistyped_unsupported_and_oversized_bodies_are_refused() {
    let env = Env::new();
    env.write_skill("public", "a", "a", "A.");
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_HTTP_MAX_BODY_BYTES", "2048"),
    ]);
    let url = server.url("/api/skills/a");
    let send = |body: String, content_type: Option<&'static str>| {
        let mut req = server.http.put(&url).body(body);
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        async move {
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap())
        }
    };
    let cases = [
        (
            "{\"enabled\": tru".to_string(),
            Some("application/json"),
            400,
            "malformed_json",
        ),
        (
            "{\"enabled\": \"yes\"}".to_string(),
            Some("application/json"),
            422,
            "invalid_body",
        ),
        (
            "{}".to_string(),
            Some("application/json"),
            422,
            "invalid_body",
        ),
        (
            "{\"enabled\": true, \"extra\": 1}".to_string(),
            Some("application/json"),
            422,
            "invalid_body",
        ),
        (
            "{\"enabled\": true, \"category\": \"x\"}".to_string(),
            Some("application/json"),
            422,
            "invalid_body",
        ),
        (
            "{\"enabled\": true}".to_string(),
            None,
            415,
            "unsupported_media_type",
        ),
        (
            format!("{{\"enabled\": true, \"pad\": \"{}\"}}", "x".repeat(4096)),
            Some("application/json"),
            413,
            "payload_too_large",
        ),
    ];
    for (body, ct, want_status, want_code) in cases {
        let (status, reply) = send(body.clone(), ct).await;
        assert_eq!(status, want_status, "{body:.60}: {reply}");
        assert_eq!(error_code(&reply), want_code, "{body:.60}");
    }
    // Nothing was changed by the refused requests.
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["skills"][0]["enabled"], true);
}

#[tokio::test]
async fn unknown_routes_and_methods_get_the_envelope() {
    let env = Env::new();
    let server = env.start();
    let (status, body) = server.get_json("/api/nothing-here").await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&body), "not_found");
    let r = server
        .http
        .delete(server.url("/api/skills"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let body: Value = r.json().await.unwrap();
    assert_eq!(error_code(&body), "method_not_allowed");
}

#[tokio::test]
async fn reload_rescans_without_a_restart() {
    let env = Env::new();
    let server = env.start();
    let (_, list) = server.get_json("/api/skills").await;
    assert!(names(&list).is_empty());
    env.write_skill("custom", "fresh", "fresh", "Fresh.");
    let (status, list) = server.post("/api/skills/reload").await;
    assert_eq!(status, 200);
    assert_eq!(names(&list), ["custom:fresh"]);
}

#[tokio::test]
async fn the_file_watcher_picks_up_a_skill_copied_into_custom_by_hand() {
    let env = Env::new();
    let server = env.start_with(&[]);
    // Build the skill elsewhere and move it in, as a person copying a folder would.
    let staging = env.root.path().join("elsewhere/by-hand");
    crate::common::write_skill_dir(&staging, "by-hand", "Copied in.");
    std::fs::rename(&staging, env.skills_dir().join("custom/by-hand")).unwrap();
    let started = Instant::now();
    loop {
        let (_, list) = server.get_json("/api/skills").await;
        if names(&list) == ["custom:by-hand"] {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the watcher did not pick up the new skill: {list}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Editing the description is picked up too.
    crate::common::write_skill_dir(
        &env.skills_dir().join("custom/by-hand"),
        "by-hand",
        "Edited.",
    );
    loop {
        let (_, list) = server.get_json("/api/skills").await;
        if list["skills"][0]["description"] == "Edited." {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "edit not seen: {list}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_openapi_document_and_an_offline_swagger_ui_are_served() {
    let env = Env::new();
    let server = env.start();
    let (status, doc) = server.get_json("/api/openapi.json").await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for path in [
        "/health",
        "/api/skills",
        "/api/skills/{name}",
        "/api/skills/reload",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} undocumented");
    }
    let page = server.get("/api/docs/").await;
    assert_eq!(page.status().as_u16(), 200);
    let html = page.text().await.unwrap();
    assert!(
        !html.contains("cdn") && !html.contains("unpkg"),
        "UI must not load from a CDN"
    );
    let bundle = server.get("/api/docs/swagger-ui-bundle.js").await;
    assert_eq!(
        bundle.status().as_u16(),
        200,
        "the Swagger UI assets are vendored"
    );
    assert!(bundle.bytes().await.unwrap().len() > 100_000);
    let init = server.get("/api/docs/swagger-initializer.js").await;
    assert!(init.text().await.unwrap().contains("/api/openapi.json"));
}

#[tokio::test]
async fn skills_written_outside_the_specification_load_with_warnings_and_work_in_the_api() {
    let env = Env::new();
    env.write_raw(
        "public",
        "claude-code-guide",
        "---\nname: Claude Code Guide\ndescription: How to use Claude Code.\n---\n# Guide\n",
    );
    env.write_raw(
        "public",
        "chart-visualization",
        "---\nname: chart-visualization\ndescription: Charts.\ncompatibility:\n  python: '>=3.10'\n---\n# Charts\n",
    );
    env.write_raw(
        "custom",
        "keywords",
        "---\nname: keywords\ndescription: Keywords.\nmetadata:\n  trigger-keywords: [a, b]\n---\n# K\n",
    );
    env.write_raw(
        "custom",
        "my-notes",
        "---\nname: My Notes\ndescription: Notes.\n---\n# N\n",
    );
    let server = env.start();
    let (status, body) = server.delete("/api/skills/My%20Notes").await;
    assert_eq!(status, 204, "{body}");
    assert!(!env.skills_dir().join("custom/my-notes").exists());
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(list["errors"], json!([]), "{list}");
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 3, "{list}");
    let find = |name: &str| skills.iter().find(|s| s["name"] == name).unwrap().clone();
    let guide = find("Claude Code Guide");
    assert!(
        guide["warnings"].to_string().contains("lowercase"),
        "{guide}"
    );
    assert_eq!(
        guide["location"],
        "/mnt/skills/public/claude-code-guide/SKILL.md"
    );
    let chart = find("chart-visualization");
    assert!(
        chart["warnings"].to_string().contains("compatibility"),
        "{chart}"
    );
    assert_eq!(find("keywords")["metadata"]["trigger-keywords"], "a, b");

    // The odd name works in paths, percent-encoded, and toggles persist.
    let path = "/api/skills/Claude%20Code%20Guide";
    let (status, detail) = server.get_json(path).await;
    assert_eq!(status, 200, "{detail}");
    let (status, body) = server.put_json(path, json!({"enabled": false})).await;
    assert_eq!(
        (status, body["enabled"].as_bool()),
        (200, Some(false)),
        "{body}"
    );
    let (_, list) = server.get_json("/api/skills").await;
    let guide = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Claude Code Guide")
        .unwrap()
        .clone();
    assert_eq!(guide["enabled"], false);
}
