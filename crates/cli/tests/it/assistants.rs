//! Assistants as custom agents: the LangGraph assistants API (create, search, count, get,
//! versions, latest, patch, delete, schemas, graph), owned by their creator, and runs that
//! follow their assistant's instructions, model, skills and tools.

use serde_json::{Value, json};

use crate::auth::{send, user};
use crate::common::{Env, client_with, error_code, mock_llm, model_requests};

const SCRIPT: &str = "scenarios:\n  - match: \"\"\n    turns:\n      - content: \"done\"\n";

fn writer() -> Value {
    json!({
        "graph_id": "agent",
        "name": "Writer",
        "description": "Writes short notes.",
        "context": {
            "system_prompt": "Always answer in haiku.",
            "model_name": "quick",
            "skills": ["notes"],
            "tools": ["read_file", "write_file"],
        },
        "metadata": {"team": "docs"},
    })
}

#[tokio::test]
async fn assistants_are_versioned_custom_agents_of_their_creator() {
    let env = Env::new();
    let model = mock_llm(SCRIPT).await;
    let models = format!("- {{name: quick, base_url: \"{model}\", model: mock}}\n");
    let server = env.start_with(&[("ANTLER_SKILLS_WATCH", "false"), ("ANTLER_MODELS", &models)]);
    let (status, built_in) = server.get_json("/api/assistants/agent").await;
    assert_eq!(status, 200, "{built_in}");
    assert_eq!(built_in["graph_id"], "agent");
    let built_in_id = built_in["assistant_id"].as_str().unwrap().to_string();
    assert_eq!(
        server
            .get_json(&format!("/api/assistants/{built_in_id}"))
            .await
            .1,
        built_in
    );

    let (status, created) = server.post_json("/api/assistants", writer()).await;
    assert_eq!(status, 200, "{created}");
    let id = created["assistant_id"].as_str().unwrap().to_string();
    assert_eq!(created["version"], 1);
    assert_eq!(
        created["context"]["tools"],
        json!(["read_file", "write_file"])
    );
    let (status, again) = server
        .post_json("/api/assistants", {
            let mut w = writer();
            w["assistant_id"] = json!(id);
            w
        })
        .await;
    assert_eq!((status, error_code(&again)), (409, "conflict"), "{again}");
    let (status, same) = server
        .post_json("/api/assistants", {
            let mut w = writer();
            w["assistant_id"] = json!(id);
            w["if_exists"] = json!("do_nothing");
            w
        })
        .await;
    assert_eq!((status, &same["assistant_id"]), (200, &json!(id)));

    let (_, found) = server.post_json("/api/assistants/search", json!({})).await;
    assert_eq!(found.as_array().unwrap().len(), 2, "{found}");
    let (_, found) = server
        .post_json(
            "/api/assistants/search",
            json!({"metadata": {"team": "docs"}}),
        )
        .await;
    assert_eq!(found[0]["assistant_id"], json!(id));
    let (_, count) = server
        .post_json("/api/assistants/count", json!({"name": "writ"}))
        .await;
    assert_eq!(count, json!(1));

    let (status, patched) = server
        .patch_json(
            &format!("/api/assistants/{id}"),
            json!({"name": "Poet", "metadata": {"level": 2}}),
        )
        .await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(
        (patched["version"].clone(), patched["name"].clone()),
        (json!(2), json!("Poet"))
    );
    assert_eq!(patched["metadata"], json!({"team": "docs", "level": 2}));
    assert_eq!(
        patched["context"], created["context"],
        "unpatched fields stay"
    );
    let (_, versions) = server
        .post_json(&format!("/api/assistants/{id}/versions"), json!({}))
        .await;
    let names: Vec<&str> = versions
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Poet", "Writer"]);
    let (status, back) = server
        .post_json(
            &format!("/api/assistants/{id}/latest"),
            json!({"version": 1}),
        )
        .await;
    assert_eq!((status, &back["name"]), (200, &json!("Writer")));
    let (status, _) = server
        .post_json(
            &format!("/api/assistants/{id}/latest"),
            json!({"version": 7}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, schemas) = server
        .get_json(&format!("/api/assistants/{id}/schemas"))
        .await;
    assert_eq!(status, 200);
    assert!(schemas["context_schema"]["properties"]["system_prompt"].is_object());
    let (status, graph) = server
        .get_json(&format!("/api/assistants/{id}/graph"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 4);

    // What cannot be.
    for (body, why) in [
        (json!({"graph_id": "other"}), "unknown graph"),
        (
            json!({"graph_id": "agent", "assistant_id": "x"}),
            "an id that is not a UUID",
        ),
        (
            json!({"graph_id": "agent", "context": {"tools": ["rm"]}}),
            "an unknown tool",
        ),
        (
            json!({"graph_id": "agent", "context": {"model_name": "slow"}}),
            "an unknown model",
        ),
        (
            json!({"graph_id": "agent", "context": {"skills": "notes"}}),
            "skills not a list",
        ),
        (
            json!({"graph_id": "agent", "context": []}),
            "context not an object",
        ),
        (
            json!({"graph_id": "agent", "name": "x".repeat(201)}),
            "a long name",
        ),
    ] {
        let (status, answer) = server.post_json("/api/assistants", body).await;
        assert_eq!(status, 422, "{why}: {answer}");
    }
    for (status, what) in [
        (
            server
                .patch_json(
                    &format!("/api/assistants/{built_in_id}"),
                    json!({"name": "x"}),
                )
                .await
                .0,
            "patch",
        ),
        (server.delete("/api/assistants/agent").await.0, "delete"),
    ] {
        assert_eq!(status, 409, "the built-in assistant cannot {what}");
    }

    // Another user sees only the built-in one.
    let other = client_with(Some(&user(&server, "b@antler.test").await));
    let (status, _) = send(other.get(server.url(&format!("/api/assistants/{id}")))).await;
    assert_eq!(status, 404);
    let (status, _) = send(
        other
            .patch(server.url(&format!("/api/assistants/{id}")))
            .json(&json!({"name": "mine"})),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = send(other.delete(server.url(&format!("/api/assistants/{id}")))).await;
    assert_eq!(status, 404);
    let (_, theirs) = send(
        other
            .post(server.url("/api/assistants/search"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(theirs.as_array().unwrap().len(), 1, "{theirs}");
    let (status, _) = send(
        other
            .post(server.url("/api/threads/t/runs/wait"))
            .json(&json!({"assistant_id": id, "if_not_exists": "create",
                "input": {"messages": [{"role": "user", "content": "hi"}]}})),
    )
    .await;
    assert_eq!(status, 404, "a run cannot use another user's assistant");

    assert_eq!(server.delete(&format!("/api/assistants/{id}")).await.0, 204);
    assert_eq!(
        server.get_json(&format!("/api/assistants/{id}")).await.0,
        404
    );
}

#[tokio::test]
async fn a_run_follows_its_assistant() {
    let env = Env::new();
    env.write_skill("public", "notes", "notes", "Writes notes.");
    env.write_skill("public", "charts", "charts", "Draws charts.");
    let model = mock_llm(SCRIPT).await;
    let models = format!(
        "- {{name: main, base_url: \"{model}\", model: main-model}}\n\
         - {{name: quick, base_url: \"{model}\", model: quick-model}}\n"
    );
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", &models),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ]);
    let (_, created) = server.post_json("/api/assistants", writer()).await;
    let id = created["assistant_id"].as_str().unwrap().to_string();
    let run = |assistant: String| {
        json!({"assistant_id": assistant, "if_not_exists": "create",
            "input": {"messages": [{"role": "user", "content": "write"}]}})
    };
    let (status, values) = server
        .post_json("/api/threads/custom/runs/wait", run(id.clone()))
        .await;
    assert_eq!(status, 200, "{values}");
    let (status, _) = server
        .post_json("/api/threads/plain/runs/wait", run("agent".into()))
        .await;
    assert_eq!(status, 200);

    let requests = model_requests(&model).await;
    let requests = requests.as_array().unwrap();
    let (custom, plain) = (&requests[0], &requests[1]);
    let system = |r: &Value| r["messages"][0]["content"].as_str().unwrap().to_string();
    let tools = |r: &Value| -> Vec<String> {
        r["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|t| t["function"]["name"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(custom["model"], "quick-model", "the assistant's model");
    assert!(system(custom).contains("Always answer in haiku."));
    assert!(system(custom).contains("notes") && !system(custom).contains("charts"));
    assert_eq!(tools(custom), ["read_file", "write_file"]);
    assert_eq!(plain["model"], "main-model");
    assert!(!system(plain).contains("haiku"));
    assert!(system(plain).contains("charts"));
    assert!(tools(plain).len() > 5);

    let (_, thread) = server.get_json("/api/threads/custom").await;
    assert_eq!(thread["metadata"]["assistant_id"], json!(id));
    assert_eq!(thread["metadata"]["graph_id"], "agent");
    let (_, runs) = server.get_json("/api/threads/custom/runs").await;
    assert_eq!(runs[0]["assistant_id"], json!(id));
    let (_, state) = server.get_json("/api/threads/custom/state").await;
    assert_eq!(state["metadata"]["assistant_id"], json!(id));

    let (status, answer) = server
        .post_json(
            "/api/threads/plain/runs/wait",
            run("00000000-0000-4000-8000-000000000000".into()),
        )
        .await;
    assert_eq!(status, 404, "{answer}");
}

#[tokio::test]
async fn any_spelling_of_an_assistant_uuid_finds_it() {
    let env = Env::new();
    let server = env.start();
    let upper = "A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF";
    let (status, created) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "assistant_id": upper, "name": "Upper"}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["assistant_id"].as_str().unwrap();
    assert_eq!(id, upper.to_lowercase(), "stored in its canonical spelling");
    for spelling in [
        upper.to_string(),
        id.to_string(),
        id.replace('-', ""),
        format!("{{{id}}}"),
    ] {
        let (status, got) = server
            .get_json(&format!("/api/assistants/{spelling}"))
            .await;
        assert_eq!(
            (status, got["name"].as_str()),
            (200, Some("Upper")),
            "{spelling}"
        );
    }
    let (status, _) = server
        .patch_json(
            &format!("/api/assistants/{upper}"),
            json!({"name": "Renamed"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        server.delete(&format!("/api/assistants/{upper}")).await.0,
        204
    );
    assert_eq!(
        server.get_json(&format!("/api/assistants/{id}")).await.0,
        404
    );
}

#[tokio::test]
async fn searches_page_through_stored_assistants_and_the_built_in_one_in_order() {
    let env = Env::new();
    let server = env.start();
    for name in ["Zeta", "beta", "Mu", "alpha"] {
        let (status, body) = server
            .post_json(
                "/api/assistants",
                json!({"graph_id": "agent", "name": name}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    for (sort_by, order) in [
        ("name", "asc"),
        ("name", "desc"),
        ("created_at", "asc"),
        ("updated_at", "desc"),
    ] {
        let query = |limit: u32, offset: u32| json!({"sort_by": sort_by, "sort_order": order, "limit": limit, "offset": offset});
        let (_, whole) = server
            .post_json("/api/assistants/search", query(100, 0))
            .await;
        let whole: Vec<String> = whole
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(whole.len(), 5, "{whole:?}");
        assert!(whole.contains(&"Antler".to_string()));
        let mut paged = Vec::new();
        for offset in 0..6 {
            let (_, page) = server
                .post_json("/api/assistants/search", query(1, offset))
                .await;
            paged.extend(
                page.as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a["name"].as_str().unwrap().to_string()),
            );
        }
        assert_eq!(paged, whole, "{sort_by} {order}: pages add up to the whole");
        if sort_by == "name" {
            let mut sorted = whole.clone();
            sorted.sort_by_key(|n| n.to_lowercase());
            if order == "desc" {
                sorted.reverse();
            }
            assert_eq!(whole, sorted);
        }
    }
    let (_, n) = server.post_json("/api/assistants/count", json!({})).await;
    assert_eq!(n, 5);
    let (_, n) = server
        .post_json("/api/assistants/count", json!({"name": "ET"}))
        .await;
    assert_eq!(n, 2, "Zeta and beta");
    // Metadata is bounded in size.
    let big = "m".repeat(70 * 1024);
    let (status, body) = server
        .post_json(
            "/api/assistants",
            json!({"graph_id": "agent", "name": "Big", "metadata": {"blob": big}}),
        )
        .await;
    assert_eq!((status, error_code(&body)), (422, "invalid_body"), "{body}");
}
