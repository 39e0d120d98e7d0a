//! Slash activation and the extension fields: `/name arguments` gives the model the skill's
//! body with the arguments filled in, `allowed-tools` limits the tools for that run,
//! `disable-model-invocation` keeps a skill out of the model's catalog but not out of slash
//! commands, and `user-invocable: false` makes `/name` plain text.

use serde_json::Value;

use crate::common::{Env, mock_llm, model_requests, run_body};

const SCRIPT: &str = r#"
scenarios:
  - match: "/reviewer"
    turns:
      - tool_calls: [{name: bash, arguments: {command: "echo not allowed"}}]
      - content: "reviewed"
  - match: ""
    turns:
      - content: "ok"
"#;

fn system(request: &Value) -> &str {
    request["messages"][0]["content"].as_str().unwrap()
}

fn tool_names(request: &Value) -> Vec<&str> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|d| d["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_slash_command_gives_the_model_the_skill_with_its_arguments_and_its_tool_limits() {
    let env = Env::new();
    env.write_raw(
        "public",
        "reviewer",
        "---\nname: reviewer\ndescription: Reviews code.\nallowed-tools: Read Grep\nargument-hint: <file> [focus]\n---\n# Reviewer\nReview $1 carefully, looking at $2. Everything asked: $ARGUMENTS\n",
    );
    env.write_raw(
        "public",
        "hidden-helper",
        "---\nname: hidden-helper\ndescription: Only on request.\ndisable-model-invocation: true\n---\nHelp with the hidden thing.\n",
    );
    env.write_raw(
        "public",
        "no-slash",
        "---\nname: no-slash\ndescription: Only for the model.\nuser-invocable: false\n---\nNever by hand.\n",
    );
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);

    let (_, list) = server.get_json("/api/skills").await;
    let skill = |name: &str| {
        list["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(skill("reviewer")["argument_hint"], "<file> [focus]");
    assert_eq!(skill("hidden-helper")["disable_model_invocation"], true);
    assert_eq!(skill("no-slash")["user_invocable"], false);
    assert!(
        skill("hidden-helper")["warnings"]
            .as_array()
            .unwrap()
            .is_empty(),
        "extension fields are used, not warned about: {list}"
    );

    for (thread, text) in [
        ("t1", "/reviewer src/main.rs errors please"),
        ("t2", "/hidden-helper"),
        ("t3", "/no-slash do it"),
    ] {
        server.create_thread(thread).await;
        let (status, run) = server
            .post_json(
                &format!("/api/threads/{thread}/runs/wait"),
                run_body(text, &["values"]),
            )
            .await;
        assert_eq!(status, 200, "{run}");
    }
    let requests = model_requests(&model).await;
    let requests = requests.as_array().unwrap();
    assert_eq!(
        requests.len(),
        4,
        "two calls for the reviewer, one each for the others"
    );

    let first = system(&requests[0]);
    assert!(
        first.contains("<activated_skill name=\"reviewer\""),
        "{first}"
    );
    assert!(
        first.contains(
            "Review src/main.rs carefully, looking at errors. Everything asked: src/main.rs errors please"
        ),
        "{first}"
    );
    assert!(
        !first.contains("/mnt/skills/public/hidden-helper/SKILL.md"),
        "a skill kept from the model is not in its catalog"
    );
    assert_eq!(tool_names(&requests[0]), ["read_file", "grep"]);
    let refused = requests[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .to_string();
    assert!(
        refused.contains("'bash' is not allowed while following the skill 'reviewer'"),
        "{refused}"
    );

    let second = system(&requests[2]);
    assert!(second.contains("<activated_skill name=\"hidden-helper\""));
    assert!(second.contains("Help with the hidden thing."));
    assert!(
        tool_names(&requests[2]).contains(&"bash"),
        "no limit without allowed-tools"
    );

    let third = system(&requests[3]);
    assert!(!third.contains("<activated_skill"), "user-invocable: false");
    assert!(third.contains("/mnt/skills/public/no-slash/SKILL.md"));
}
