//! The web UI is served at `/` with client-side routes falling back to `index.html`.

use crate::common::{Env, error_code};

#[tokio::test]
async fn the_ui_build_is_served_with_spa_fallback_and_the_api_keeps_json_errors() {
    let env = Env::new();
    let web = env.root.path().join("web");
    std::fs::create_dir_all(web.join("assets")).unwrap();
    std::fs::write(web.join("index.html"), "<!doctype html><div id=root></div>").unwrap();
    std::fs::write(web.join("assets/app.js"), "console.log('ui')").unwrap();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_WEB_DIR", web.to_str().unwrap()),
    ]);
    for path in ["/", "/threads/abc", "/settings/skills"] {
        let r = server.get(path).await;
        assert_eq!(r.status().as_u16(), 200, "{path}");
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        assert!(r.text().await.unwrap().contains("id=root"));
    }
    let js = server.get("/assets/app.js").await;
    assert!(
        js.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    assert_eq!(js.headers()["x-content-type-options"], "nosniff");
    let (status, body) = server.get_json("/api/nope").await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&body), "not_found");
    let r = server
        .http
        .post(server.url("/threads/abc"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
}

#[tokio::test]
async fn without_a_ui_build_unknown_paths_are_json_404s() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_WEB_DIR", "/nonexistent"),
    ]);
    let (status, body) = server.get_json("/threads/abc").await;
    assert_eq!(status, 404);
    assert_eq!(error_code(&body), "not_found");
}
