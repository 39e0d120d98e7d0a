//! Requests over the line and header limits, and bodies of the wrong kind, get the JSON
//! error envelope like every other failure.

use serde_json::{Value, json};

use crate::common::{Env, error_code};

#[tokio::test]
async fn a_long_uri_and_too_many_headers_are_refused_in_the_envelope() {
    let env = Env::new();
    let server = env.start();
    let long = format!("/api/threads/{}", "a".repeat(20_000));
    let response = server.get(&long).await;
    assert_eq!(response.status().as_u16(), 414);
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "uri_too_long", "{body}");

    let mut request = server.http.get(server.url("/api/skills"));
    for i in 0..150 {
        request = request.header(format!("x-extra-{i}"), "1");
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status().as_u16(), 431);
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "headers_too_large", "{body}");

    let response = server
        .http
        .get(server.url("/api/skills"))
        .header("x-big", "b".repeat(100_000))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 431);
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "headers_too_large", "{body}");
}

#[tokio::test]
async fn json_bodies_must_be_objects() {
    let env = Env::new();
    env.write_skill("public", "pdf", "pdf", "Read PDFs.");
    let server = env.start();
    // `[true]` used to be read field by field into {"enabled": true} and change the state.
    let (status, body) = server.put_json("/api/skills/pdf", json!([false])).await;
    assert_eq!((status, error_code(&body)), (422, "invalid_body"), "{body}");
    let (_, list) = server.get_json("/api/skills").await;
    assert_eq!(
        list["skills"][0]["enabled"], true,
        "the state must not change"
    );
    let (status, body) = server.post_json("/api/threads/search", json!([])).await;
    assert_eq!((status, error_code(&body)), (422, "invalid_body"), "{body}");
}

#[tokio::test]
async fn a_huge_skill_name_is_not_echoed_whole() {
    let env = Env::new();
    let server = env.start();
    let name = "X".repeat(10_000);
    let (status, body) = server.get_json(&format!("/api/skills/{name}")).await;
    assert_eq!(status, 400);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.len() < 400,
        "{} bytes: the name is echoed",
        message.len()
    );
}

#[tokio::test]
async fn the_upload_limits_of_a_missing_thread_are_not_found() {
    let env = Env::new();
    let server = env.start();
    let (status, body) = server.get_json("/api/threads/nope/uploads/limits").await;
    assert_eq!((status, error_code(&body)), (404, "not_found"), "{body}");
}
