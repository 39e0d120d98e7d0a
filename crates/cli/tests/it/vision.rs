//! Images in a person's message: kept in the thread as LangChain content blocks, given to a
//! vision model as `image_url` parts, described to any other model, refused when malformed.

use serde_json::{Value, json};

use crate::common::{Env, error_code, mock_llm, model_requests};

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

fn body(text: &str, model: &str) -> Value {
    json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"type": "human", "content": [
            {"type": "text", "text": text},
            {"type": "image", "mimeType": "image/png", "data": PNG, "metadata": {"name": "dot.png"}},
        ]}]},
        "config": {"configurable": {"model_name": model}},
    })
}

/// The user message of the last model request whose text mentions `marker`.
async fn user_content(model: &str, marker: &str) -> Value {
    let requests = model_requests(model).await;
    requests
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["messages"].as_array())
        .flat_map(|m| m.iter())
        .rfind(|m| m["role"] == "user" && m["content"].to_string().contains(marker))
        .unwrap_or_else(|| panic!("no request mentions {marker}: {requests}"))["content"]
        .clone()
}

#[tokio::test]
async fn images_reach_vision_models_as_image_parts_and_others_as_a_note() {
    let env = Env::new();
    let model =
        mock_llm("scenarios:\n  - match: \"\"\n    turns:\n      - content: \"a dot\"\n").await;
    let models = format!(
        "- {{name: seeing, base_url: \"{model}\", model: mock, supports_vision: true}}\n\
         - {{name: blind, base_url: \"{model}\", model: mock}}\n"
    );
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", &models),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ]);

    let (status, values) = server
        .post_json("/api/threads/t/runs/wait", {
            let mut b = body("what is in the seeing picture?", "seeing");
            b["if_not_exists"] = json!("create");
            b
        })
        .await;
    assert_eq!(status, 200, "{values}");
    let seen = user_content(&model, "seeing picture").await;
    assert_eq!(
        seen[0],
        json!({"type": "text", "text": "what is in the seeing picture?"})
    );
    assert_eq!(seen[1]["type"], "image_url");
    assert_eq!(
        seen[1]["image_url"]["url"],
        format!("data:image/png;base64,{PNG}")
    );
    // The thread keeps the picture as a content block, for clients to show again.
    let human = &values["messages"][0];
    assert_eq!(
        human["content"][1],
        json!({"type": "image", "mimeType": "image/png", "data": PNG})
    );
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(state["values"]["messages"][0]["content"], human["content"]);

    let (status, _) = server
        .post_json(
            "/api/threads/t/runs/wait",
            body("and the blind picture?", "blind"),
        )
        .await;
    assert_eq!(status, 200);
    let told = user_content(&model, "blind picture").await;
    let told = told.as_str().unwrap();
    assert!(
        told.starts_with("and the blind picture?\n\n[1 image(s) attached"),
        "{told}"
    );

    // Malformed images are refused with the reason, and nothing is stored.
    let bad = json!({
        "assistant_id": "lead_agent",
        "input": {"messages": [{"role": "user", "content": [
            {"type": "image", "mimeType": "image/svg+xml", "data": PNG},
        ]}]},
    });
    let (status, error) = server.post_json("/api/threads/t/runs/wait", bad).await;
    assert_eq!(status, 422, "{error}");
    assert!(error_code(&error).contains("invalid"), "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("images must be"),
        "{error}"
    );
    // Too many images: the message names where, as every other input error does.
    let many: Vec<Value> = (0..11)
        .map(|_| json!({"type": "image", "mimeType": "image/png", "data": PNG}))
        .collect();
    let (status, error) = server
        .post_json(
            "/api/threads/t/runs/wait",
            json!({"assistant_id": "lead_agent",
                   "input": {"messages": [{"role": "user", "content": many}]}}),
        )
        .await;
    assert_eq!(status, 422, "{error}");
    assert_eq!(
        error["error"]["message"],
        "input.messages[0].content: 11 images in one message; at most 10"
    );
    let (_, state) = server.get_json("/api/threads/t/state").await;
    assert_eq!(state["values"]["messages"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn a_model_that_can_see_views_an_uploaded_image_and_others_are_not_offered_the_tool() {
    use base64::Engine as _;
    let env = Env::new();
    let model = mock_llm(
        "scenarios:\n  - match: \"look at\"\n    turns:\n      - tool_calls: [{name: view_image, arguments: {path: /mnt/user-data/uploads/dot.png}}]\n      - content: \"a dot\"\n  - match: \"\"\n    turns:\n      - content: \"ok\"\n",
    )
    .await;
    let models = format!(
        "- {{name: seeing, base_url: \"{model}\", model: mock, supports_vision: true}}\n\
         - {{name: blind, base_url: \"{model}\", model: mock}}\n"
    );
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_MODELS", &models),
        ("ANTLER_AGENT_GENERATE_TITLES", "false"),
    ]);
    server.create_thread("v").await;
    let png = base64::engine::general_purpose::STANDARD
        .decode(PNG)
        .unwrap();
    let form = reqwest::multipart::Form::new().part(
        "files",
        reqwest::multipart::Part::bytes(png).file_name("dot.png"),
    );
    let r = server
        .http
        .post(server.url("/api/threads/v/uploads"))
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let run = |text: &str, model: &str| {
        json!({"assistant_id": "agent", "input": {"messages": [{"role": "user", "content": text}]},
            "config": {"configurable": {"model_name": model}}})
    };
    let (status, values) = server
        .post_json("/api/threads/v/runs/wait", run("look at the dot", "seeing"))
        .await;
    assert_eq!(status, 200, "{values}");
    let tool = &values["messages"][2];
    assert_eq!(tool["status"], "success", "{tool}");
    let requests = model_requests(&model).await;
    let second = &requests.as_array().unwrap()[1]["messages"];
    let messages = second.as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(messages[messages.len() - 2]["role"], "tool");
    assert_eq!(
        last["role"], "user",
        "the image follows the tool result: {last}"
    );
    assert_eq!(
        last["content"][1]["image_url"]["url"],
        format!("data:image/png;base64,{PNG}")
    );

    let (status, _) = server
        .post_json("/api/threads/v/runs/wait", run("and now?", "blind"))
        .await;
    assert_eq!(status, 200);
    let requests = model_requests(&model).await;
    let blind = requests.as_array().unwrap().last().unwrap();
    let offered: Vec<&str> = blind["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(!offered.contains(&"view_image"), "{offered:?}");
    assert!(
        !blind["messages"].to_string().contains("image_url"),
        "a blind model gets no image"
    );
}
