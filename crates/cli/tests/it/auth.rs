//! Signing in: the fail-closed gate (every protected operation of the OpenAPI document),
//! the first-run setup, sessions, CSRF, throttling, replicas, and the opt-out.

use serde_json::{Value, json};

use crate::common::{
    ADMIN_EMAIL, ADMIN_PASSWORD, Env, Server, Session, client_with, create_token, error_code,
    postgres_database, sign_in,
};

/// The status and JSON body of a request.
pub(crate) async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let r = request.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A request in a browser session (cookie, and the CSRF header when `csrf`).
pub(crate) fn in_session(
    server: &Server,
    method: reqwest::Method,
    path: &str,
    session: &Session,
    csrf: bool,
) -> reqwest::RequestBuilder {
    let mut r = reqwest::Client::new()
        .request(method, server.url(path))
        .header("cookie", &session.cookie);
    if csrf {
        r = r.header("x-csrf-token", &session.csrf);
    }
    r
}

/// A second account made by the admin, and its token.
pub(crate) async fn user(server: &Server, email: &str) -> String {
    let (status, body) = server
        .post_json(
            "/api/users",
            json!({"email": email, "password": "user-password-1"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["role"], "user");
    let session = sign_in(&server.base, email, "user-password-1")
        .await
        .unwrap();
    create_token(&server.base, &session, "tests").await
}

#[tokio::test]
async fn every_protected_operation_refuses_requests_without_a_valid_credential() {
    protected_operations_refuse_anonymous_requests(&[]).await;
}

#[tokio::test]
async fn every_protected_operation_refuses_anonymous_requests_on_postgresql() {
    let Some(url) = postgres_database().await else {
        return;
    };
    protected_operations_refuse_anonymous_requests(&[("ANTLER_DATABASE_URL", url.as_str())]).await;
}

async fn protected_operations_refuse_anonymous_requests(vars: &[(&str, &str)]) {
    let env = Env::new();
    let server = env.start_with(vars);
    let (status, doc) = send(reqwest::Client::new().get(server.url("/api/openapi.json"))).await;
    assert_eq!(status, 200);
    let anonymous = reqwest::Client::new();
    let forged = client_with(Some(
        "antler_pat_0000000000000000000000000000000000000000000000000000000000000000",
    ));
    let mut protected = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let concrete = path
            .replace("{thread_id}", "t1")
            .replace("{run_id}", "00000000-0000-4000-8000-000000000000")
            .replace("{id}", "00000000-0000-4000-8000-000000000000")
            .replace("{name}", "some-skill")
            .replace("{filename}", "a.txt")
            .replace("{path}", "outputs/a.txt");
        for method in item.as_object().unwrap().keys() {
            let method: reqwest::Method = method.to_uppercase().parse().unwrap();
            let public = item[method.as_str().to_lowercase()]["security"].is_null();
            for (client, what) in [(&anonymous, "no credential"), (&forged, "an unknown token")] {
                let (status, body) = send(
                    client
                        .request(method.clone(), server.url(&concrete))
                        .header("content-type", "application/json")
                        .body("{}"),
                )
                .await;
                if public {
                    assert_ne!(status, 401, "{method} {path} is public: {body}");
                } else {
                    assert_eq!(status, 401, "{method} {path} with {what}: {body}");
                    assert_eq!(error_code(&body), "unauthenticated");
                }
            }
            // A session cookie nobody issued is refused as well.
            if !public {
                let (status, _) = send(
                    anonymous
                        .request(method.clone(), server.url(&concrete))
                        .header("cookie", "antler_session=forged; antler_csrf=x")
                        .header("x-csrf-token", "x"),
                )
                .await;
                assert_eq!(status, 401, "{method} {path} with a forged cookie");
                protected += 1;
            }
        }
    }
    assert!(protected > 30, "only {protected} protected operations");
    // Outside the document too: an unknown API path needs a credential before it is a 404.
    let (status, _) = send(anonymous.get(server.url("/api/no-such-route"))).await;
    assert_eq!(status, 401);
    for public in ["/health", "/api/openapi.json", "/api/auth/status"] {
        let (status, _) = send(anonymous.get(server.url(public))).await;
        assert_eq!(status, 200, "{public}");
    }
}

#[tokio::test]
async fn the_setup_url_creates_the_first_admin_once_even_under_concurrent_attempts() {
    let env = Env::new();
    let mut cmd = env.command(&["serve", "--bind", "127.0.0.1:0"]);
    cmd.env_remove("ANTLER_ADMIN_EMAIL")
        .env_remove("ANTLER_ADMIN_PASSWORD")
        .env("ANTLER_SKILLS_WATCH", "false");
    let mut server = Server::spawn(cmd);
    assert!(server.token.is_none());
    let line = server.stdout_line();
    let url = line
        .trim()
        .strip_prefix("no admin yet: create the first one at ")
        .unwrap_or_else(|| panic!("no setup URL: {line:?}"));
    assert!(
        url.starts_with(&format!("{}/setup?token=", server.base)),
        "{url}"
    );
    let token = url.split("token=").nth(1).unwrap().to_string();
    let (_, status) = send(reqwest::Client::new().get(server.url("/api/auth/status"))).await;
    assert_eq!(status, json!({"mode": "password", "setup_required": true}));

    let setup = |token: String, email: String| {
        let url = server.url("/api/auth/setup");
        async move {
            send(
                reqwest::Client::new()
                    .post(url)
                    .json(&json!({"token": token, "email": email, "password": "first-admin-1"})),
            )
            .await
        }
    };
    let (status, body) = setup("wrong".into(), "x@example.com".into()).await;
    assert_eq!((status, error_code(&body)), (403, "bad_setup_token"));
    let (status, body) = setup(token.clone(), "not an email".into()).await;
    assert_eq!(status, 422, "{body}");

    let attempts = (0..8).map(|i| setup(token.clone(), format!("admin{i}@example.com")));
    let results = futures::future::join_all(attempts).await;
    let won: Vec<_> = results.iter().filter(|(s, _)| *s == 200).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    for (status, body) in results.iter().filter(|(s, _)| *s != 200) {
        assert!(
            matches!(error_code(body), "setup_done" | "bad_setup_token"),
            "{status} {body}"
        );
    }
    assert_eq!(won[0].1["user"]["role"], "admin");
    let (status, body) = setup(token, "late@example.com".into()).await;
    assert_eq!((status, error_code(&body)), (409, "setup_done"));
    let (_, status) = send(reqwest::Client::new().get(server.url("/api/auth/status"))).await;
    assert_eq!(status["setup_required"], false);
    let email = won[0].1["user"]["email"].as_str().unwrap();
    sign_in(&server.base, email, "first-admin-1").await.unwrap();
}

#[tokio::test]
async fn sessions_end_on_sign_out_and_password_change_and_need_the_csrf_token() {
    let env = Env::new();
    let server = env.start();
    let (status, body) = sign_in(&server.base, ADMIN_EMAIL, "wrong-password")
        .await
        .unwrap_err();
    assert_eq!((status, error_code(&body)), (401, "bad_credentials"));
    let (status, _) = sign_in(&server.base, "nobody@antler.test", ADMIN_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(status, 401);

    let first = sign_in(&server.base, ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .unwrap();
    assert!(first.cookie.contains("antler_session="), "{}", first.cookie);
    let (status, me) = send(in_session(
        &server,
        reqwest::Method::GET,
        "/api/auth/me",
        &first,
        false,
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        (me["email"].as_str(), me["role"].as_str()),
        (Some(ADMIN_EMAIL), Some("admin"))
    );
    assert_eq!(me["csrf_token"], first.csrf.as_str());

    // Unsafe requests in a session need its CSRF token; programs with tokens do not.
    let create = |session: &Session, csrf: bool| {
        in_session(
            &server,
            reqwest::Method::POST,
            "/api/threads",
            session,
            csrf,
        )
        .json(&json!({}))
    };
    let (status, body) = send(create(&first, false)).await;
    assert_eq!((status, error_code(&body)), (403, "csrf_token_invalid"));
    let (status, body) = send(
        in_session(
            &server,
            reqwest::Method::POST,
            "/api/threads",
            &first,
            false,
        )
        .header("x-csrf-token", "0".repeat(64))
        .json(&json!({})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "csrf_token_invalid"));
    assert_eq!(send(create(&first, true)).await.0, 200);
    assert_eq!(server.post_json("/api/threads", json!({})).await.0, 200);

    // Sign-out ends that session only.
    let second = sign_in(&server.base, ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .unwrap();
    let third = sign_in(&server.base, ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .unwrap();
    let r = in_session(
        &server,
        reqwest::Method::POST,
        "/api/auth/logout",
        &first,
        true,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    let cleared: Vec<_> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    assert!(
        cleared.iter().all(|c| c.contains("Max-Age=0")),
        "{cleared:?}"
    );
    let me = |s: &Session| {
        send(in_session(
            &server,
            reqwest::Method::GET,
            "/api/auth/me",
            s,
            false,
        ))
    };
    assert_eq!(me(&first).await.0, 401);
    assert_eq!(me(&second).await.0, 200);

    // A password change ends every other session; the one that made it stays.
    let (status, body) = send(
        in_session(
            &server,
            reqwest::Method::POST,
            "/api/auth/password",
            &second,
            true,
        )
        .json(&json!({"current": "wrong-password", "new": "new-password-1"})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    let (status, body) = send(
        in_session(
            &server,
            reqwest::Method::POST,
            "/api/auth/password",
            &second,
            true,
        )
        .json(&json!({"current": ADMIN_PASSWORD, "new": "new-password-1"})),
    )
    .await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(me(&second).await.0, 200);
    assert_eq!(me(&third).await.0, 401);
    assert!(
        sign_in(&server.base, ADMIN_EMAIL, ADMIN_PASSWORD)
            .await
            .is_err()
    );
    sign_in(&server.base, ADMIN_EMAIL, "new-password-1")
        .await
        .unwrap();
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_account() {
    let env = Env::new();
    let server = env.start_with(&[
        ("ANTLER_SKILLS_WATCH", "false"),
        ("ANTLER_AUTH_MAX_FAILED_LOGINS", "3"),
    ]);
    user(&server, "other@antler.test").await;
    for _ in 0..3 {
        let (status, _) = sign_in(&server.base, ADMIN_EMAIL, "wrong-password")
            .await
            .unwrap_err();
        assert_eq!(status, 401);
    }
    let r = reqwest::Client::new()
        .post(server.url("/api/auth/login"))
        .json(&json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429, "even the right password waits");
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0 && retry <= 900, "{retry}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(error_code(&body), "too_many_attempts");
    // Another account from the same address is not locked out by the first one's failures.
    sign_in(&server.base, "other@antler.test", "user-password-1")
        .await
        .unwrap();
}

#[test]
fn no_authentication_is_refused_on_a_public_address_unless_accepted() {
    let env = Env::new();
    let out = env
        .command(&["serve", "--bind", "0.0.0.0:0"])
        .env("ANTLER_AUTH_MODE", "none")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("auth.mode") && stderr.contains("loopback"),
        "{stderr}"
    );
}

#[tokio::test]
async fn sessions_and_revocations_hold_on_every_replica() {
    let Some(url) = postgres_database().await else {
        return;
    };
    let env = Env::new();
    let vars = [
        ("ANTLER_DATABASE_URL", url.as_str()),
        ("ANTLER_SKILLS_WATCH", "false"),
    ];
    let one = env.start_with(&vars);
    let other_env = Env::new();
    let two = other_env.start_with(&vars);
    let session = sign_in(&one.base, ADMIN_EMAIL, ADMIN_PASSWORD)
        .await
        .unwrap();
    let me = |server: &Server| {
        send(in_session(
            server,
            reqwest::Method::GET,
            "/api/auth/me",
            &session,
            false,
        ))
    };
    assert_eq!(
        me(&two).await.0,
        200,
        "a session from one replica works on the other"
    );
    let token = one.token.clone().unwrap();
    let (status, _) = send(client_with(Some(&token)).get(two.url("/api/auth/me"))).await;
    assert_eq!(status, 200);
    let (status, _) = send(in_session(
        &two,
        reqwest::Method::POST,
        "/api/auth/logout",
        &session,
        true,
    ))
    .await;
    assert_eq!(status, 204);
    assert_eq!(me(&one).await.0, 401, "signed out everywhere");
}
