//! A catalog too big for the prompt: the prompt lists what fits and the agent finds the rest
//! with `search_skills`.

use serde_json::Value;

use crate::common::{Env, mock_llm, model_requests, run_body};

const SCRIPT: &str = r#"
scenarios:
  - match: ""
    turns:
      - tool_calls: [{name: search_skills, arguments: {query: "norwegian tax return"}}]
      - tool_calls: [{name: read_file, arguments: {path: /mnt/skills/public/zz-tax-filing/SKILL.md}}]
      - content: "done"
"#;

fn tool_names(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|d| {
                    d["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn tool_results(values: &Value) -> Vec<(String, String)> {
    values["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "tool")
        .map(|m| {
            (
                m["name"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn with_ten_thousand_skills_the_agent_finds_and_reads_one_the_prompt_does_not_list() {
    let env = Env::new();
    for i in 0..10_000 {
        let name = format!("skill-{i:05}");
        env.write_skill(
            "public",
            &name,
            &name,
            &format!("Generic helper number {i} for everyday chores around the house."),
        );
    }
    env.write_skill(
        "public",
        "zz-tax-filing",
        "zz-tax-filing",
        "Prepare a Norwegian tax return from payslips and bank statements.",
    );
    let model = mock_llm(SCRIPT).await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    let (status, values) = server
        .post_json(
            "/api/threads/t/runs/wait",
            run_body("do my taxes", &["values"]),
        )
        .await;
    assert_eq!(status, 200, "{values}");

    let requests = model_requests(&model).await;
    let first = &requests.as_array().unwrap()[0];
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        !system.contains("zz-tax-filing"),
        "the target is not listed"
    );
    assert!(
        system.contains("<more_skills count=\""),
        "the prompt says more exist"
    );
    assert!(
        system.chars().count() < 20_000,
        "{}",
        system.chars().count()
    );
    assert!(tool_names(first).contains(&"search_skills".to_string()));

    let results = tool_results(&values);
    assert_eq!(results[0].0, "search_skills");
    assert!(
        results[0]
            .1
            .starts_with("zz-tax-filing: Prepare a Norwegian tax return"),
        "the best match first: {}",
        results[0].1
    );
    assert!(
        results[0]
            .1
            .contains("location: /mnt/skills/public/zz-tax-filing/SKILL.md")
    );
    assert_eq!(results[1].0, "read_file");
    assert!(results[1].1.contains("# zz-tax-filing"), "{}", results[1].1);

    // Read once, it heads the list in the person's next conversation.
    server.create_thread("t2").await;
    let (status, _) = server
        .post_json(
            "/api/threads/t2/runs/wait",
            run_body("taxes again", &["values"]),
        )
        .await;
    assert_eq!(status, 200);
    let requests = model_requests(&model).await;
    let next = requests.as_array().unwrap()[3]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let listed = next.find("<name>zz-tax-filing</name>");
    let first_other = next.find("<name>skill-00000</name>");
    assert!(
        listed.is_some() && first_other.is_none_or(|other| listed < Some(other)),
        "the recently used skill is listed first"
    );
}

#[tokio::test]
async fn a_catalog_that_fits_the_prompt_is_listed_whole_without_search_skills() {
    let env = Env::new();
    env.write_skill("public", "zz-tax-filing", "zz-tax-filing", "Taxes.");
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n").await;
    let server = env.start_agent(&model, &[("ANTLER_AGENT_GENERATE_TITLES", "false")]);
    server.create_thread("t").await;
    let (status, _) = server
        .post_json("/api/threads/t/runs/wait", run_body("hi", &["values"]))
        .await;
    assert_eq!(status, 200);
    let requests = model_requests(&model).await;
    let first = &requests.as_array().unwrap()[0];
    assert!(
        first["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("zz-tax-filing")
    );
    assert!(!tool_names(first).contains(&"search_skills".to_string()));
}
