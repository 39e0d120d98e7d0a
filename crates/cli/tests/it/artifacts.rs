//! `/api/threads/{id}/artifacts`: listing, safe serving, conditional and range requests,
//! and looking inside `.skill` archives.

use antler_skills::archive::testing::ZipBuilder;
use serde_json::Value;

use crate::common::{Env, error_code};

const BASE: &str = "/api/threads/t/artifacts/mnt/user-data";

fn setup() -> (Env, crate::common::Server) {
    let env = Env::new();
    let server = env.start();
    (env, server)
}

#[tokio::test]
async fn every_file_under_user_data_is_listed_with_type_and_size() {
    let (env, server) = setup();
    server.create_thread("t").await;
    let ud = env.files_of("t");
    std::fs::write(ud.join("outputs/report.md"), "# Report\n").unwrap();
    std::fs::create_dir_all(ud.join("workspace/deep/er")).unwrap();
    std::fs::write(ud.join("workspace/deep/er/notes"), "plain words").unwrap();
    std::fs::write(ud.join("uploads/blob"), [0u8, 1, 2]).unwrap();
    let (status, body) = server.get_json("/api/threads/t/artifacts").await;
    assert_eq!(status, 200);
    let list = body["artifacts"].as_array().unwrap();
    let got: Vec<(&str, &str, u64)> = list
        .iter()
        .map(|a| {
            (
                a["virtual_path"].as_str().unwrap(),
                a["content_type"].as_str().unwrap(),
                a["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "/mnt/user-data/outputs/report.md",
                "text/markdown; charset=utf-8",
                9
            ),
            ("/mnt/user-data/uploads/blob", "application/octet-stream", 3),
            (
                "/mnt/user-data/workspace/deep/er/notes",
                "text/plain; charset=utf-8",
                11
            ),
        ]
    );
    assert_eq!(body["truncated"], false);
    assert!(list[0]["modified_at"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn traversal_in_every_disguise_is_refused() {
    let (env, server) = setup();
    server.create_thread("t").await;
    std::fs::write(env.root.path().join("secret.txt"), "TOP-SECRET-CONTENT").unwrap();
    let cases = [
        // plain, sent byte for byte
        (format!("{BASE}/../../../../secret.txt"), 400),
        (format!("{BASE}/outputs/../../x"), 400),
        // encoded
        (format!("{BASE}/outputs/%2e%2e/%2e%2e/x"), 400),
        (format!("{BASE}/outputs/%2E%2E%2fx"), 400),
        (format!("{BASE}/outputs/..%2f..%2fsecret.txt"), 400),
        // double-encoded
        (
            format!("{BASE}/outputs/%252e%252e/%252e%252e/secret.txt"),
            400,
        ),
        (format!("{BASE}/outputs/%252fetc"), 400),
        // backslash, NUL, absolute segment
        (format!("{BASE}/outputs/..%5c..%5csecret.txt"), 400),
        (format!("{BASE}/outputs/a%00b"), 400),
        (format!("{BASE}//etc/passwd"), 400),
        // not under /mnt/user-data on a segment boundary
        (
            "/api/threads/t/artifacts/mnt/user-database/x".to_string(),
            400,
        ),
        ("/api/threads/t/artifacts/etc/passwd".to_string(), 400),
    ];
    for (path, want) in cases {
        let (status, body) = server.raw_get(&path).await;
        assert_eq!(status, want, "{path}: {body}");
        assert!(!body.contains("TOP-SECRET"), "{path} leaked: {body}");
        let json: Value = serde_json::from_str(&body).unwrap();
        error_code(&json);
    }
}

/// OpenAPI clients percent-encode the `path` parameter, slashes included.
#[tokio::test]
async fn a_path_with_encoded_slashes_serves_the_same_file() {
    let (env, server) = setup();
    server.create_thread("t").await;
    std::fs::write(env.files_of("t").join("outputs/report.md"), "# Report\n").unwrap();
    for path in [
        "/api/threads/t/artifacts/mnt/user-data/outputs/report.md",
        "/api/threads/t/artifacts/mnt%2Fuser-data%2Foutputs%2Freport.md",
        "/api/threads/t/artifacts/mnt/user-data%2foutputs/report.md",
    ] {
        let (status, body) = server.raw_get(path).await;
        assert_eq!((status, body.as_str()), (200, "# Report\n"), "{path}");
    }
}

#[tokio::test]
async fn symlinks_leading_outside_are_forbidden_and_inside_ones_work() {
    let (env, server) = setup();
    server.create_thread("t").await;
    server.create_thread("other").await;
    let ud = env.files_of("t");
    std::fs::write(env.root.path().join("secret.txt"), "secret").unwrap();
    std::fs::write(env.files_of("other").join("outputs/theirs.txt"), "theirs").unwrap();
    std::fs::write(ud.join("outputs/real.txt"), "real").unwrap();
    std::os::unix::fs::symlink(env.root.path().join("secret.txt"), ud.join("outputs/abs")).unwrap();
    std::os::unix::fs::symlink(
        "../../../other/user-data/outputs/theirs.txt",
        ud.join("outputs/rel"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/etc", ud.join("outputs/etcdir")).unwrap();
    std::os::unix::fs::symlink("real.txt", ud.join("outputs/inside")).unwrap();
    for link in ["abs", "rel", "etcdir/passwd"] {
        let (status, body) = server.get_json(&format!("{BASE}/outputs/{link}")).await;
        assert_eq!(status, 403, "{link}: {body}");
        assert_eq!(error_code(&body), "forbidden");
        assert!(
            !body.to_string().contains(env.root.path().to_str().unwrap()),
            "no host paths"
        );
    }
    let r = server.get(&format!("{BASE}/outputs/inside")).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.text().await.unwrap(), "real");
    let (status, _) = server.get_json(&format!("{BASE}/outputs")).await;
    assert_eq!(status, 400, "directories are not files");
    let (status, _) = server
        .get_json(&format!("{BASE}/outputs/missing.txt"))
        .await;
    assert_eq!(status, 404);
    let (status, _) = server
        .get_json("/api/threads/nothread/artifacts/mnt/user-data/outputs/x")
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn etag_304_ranges_and_416_follow_http_semantics() {
    let (env, server) = setup();
    server.create_thread("t").await;
    let content: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    std::fs::write(env.files_of("t").join("outputs/data.bin"), &content).unwrap();
    let url = server.url(&format!("{BASE}/outputs/data.bin"));
    let full = server.http.get(&url).send().await.unwrap();
    assert_eq!(full.status().as_u16(), 200);
    let h = full.headers().clone();
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert_eq!(h["accept-ranges"], "bytes");
    assert_eq!(h["content-length"], "10000");
    let etag = h["etag"].to_str().unwrap().to_string();
    use sha2::Digest;
    assert_eq!(
        etag,
        format!("\"{}\"", hex::encode(sha2::Sha256::digest(&content)))
    );
    assert_eq!(full.bytes().await.unwrap().as_ref(), content.as_slice());

    let cached = server
        .http
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status().as_u16(), 304);
    assert_eq!(cached.headers()["x-content-type-options"], "nosniff");

    let part = server
        .http
        .get(&url)
        .header("range", "bytes=100-199")
        .send()
        .await
        .unwrap();
    assert_eq!(part.status().as_u16(), 206);
    assert_eq!(part.headers()["content-range"], "bytes 100-199/10000");
    assert_eq!(part.bytes().await.unwrap().as_ref(), &content[100..200]);
    let tail = server
        .http
        .get(&url)
        .header("range", "bytes=-10")
        .send()
        .await
        .unwrap();
    assert_eq!(tail.bytes().await.unwrap().as_ref(), &content[9990..]);
    let bad = server
        .http
        .get(&url)
        .header("range", "bytes=20000-")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status().as_u16(), 416);
    assert_eq!(bad.headers()["content-range"], "bytes */10000");
    let body: Value = bad.json().await.unwrap();
    assert_eq!(error_code(&body), "range_not_satisfiable");
    let stale = server
        .http
        .get(&url)
        .header("range", "bytes=0-9")
        .header("if-range", "\"other\"")
        .send()
        .await
        .unwrap();
    assert_eq!(
        stale.status().as_u16(),
        200,
        "If-Range with another ETag sends everything"
    );

    // Rewriting the file changes the ETag.
    std::fs::write(env.files_of("t").join("outputs/data.bin"), b"new").unwrap();
    let changed = server
        .http
        .get(&url)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status().as_u16(), 200);
    assert_ne!(changed.headers()["etag"].to_str().unwrap(), etag);
}

#[tokio::test]
async fn active_content_is_always_an_attachment() {
    let (env, server) = setup();
    server.create_thread("t").await;
    let out = env.files_of("t").join("outputs");
    std::fs::write(out.join("page.html"), "<script>alert(1)</script>").unwrap();
    std::fs::write(out.join("pic.svg"), "<svg onload=alert(1)/>").unwrap();
    std::fs::write(out.join("doc.xhtml"), "<html/>").unwrap();
    std::fs::write(out.join("notes.md"), "# hi").unwrap();
    std::fs::write(out.join("résumé final.txt"), "cv").unwrap();
    for name in ["page.html", "pic.svg", "doc.xhtml"] {
        let r = server.get(&format!("{BASE}/outputs/{name}")).await;
        let cd = r.headers()["content-disposition"].to_str().unwrap();
        assert!(cd.starts_with("attachment;"), "{name}: {cd}");
        assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    }
    let inline = server.get(&format!("{BASE}/outputs/notes.md")).await;
    assert!(
        inline.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("inline;")
    );
    let download = server
        .get(&format!("{BASE}/outputs/notes.md?download=true"))
        .await;
    assert!(
        download.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .starts_with("attachment;")
    );
    let unicode = server
        .get(&format!(
            "{BASE}/outputs/r%C3%A9sum%C3%A9%20final.txt?download=true"
        ))
        .await;
    assert_eq!(
        unicode.headers()["content-disposition"],
        "attachment; filename=\"r_sum_ final.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.txt"
    );
}

#[tokio::test]
async fn skill_archives_can_be_looked_into() {
    let (env, server) = setup();
    server.create_thread("t").await;
    let zip = ZipBuilder::new()
        .skill("my-skill/", "my-skill")
        .file("my-skill/scripts/run.py", b"print('hi')\n")
        .file("my-skill/big.bin", &vec![0u8; 17 * 1024 * 1024])
        .finish()
        .unwrap();
    std::fs::write(env.files_of("t").join("outputs/my-skill.skill"), &zip).unwrap();
    let bad = ZipBuilder::new()
        .file("x/readme.md", b"no skill")
        .finish()
        .unwrap();
    std::fs::write(env.files_of("t").join("outputs/bad.skill"), &bad).unwrap();
    std::fs::write(env.files_of("t").join("outputs/fake.skill"), b"not a zip").unwrap();

    let (status, listing) = server
        .get_json(&format!("{BASE}/outputs/my-skill.skill/"))
        .await;
    assert_eq!(status, 200, "{listing}");
    let paths: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "my-skill/SKILL.md",
            "my-skill/scripts/run.py",
            "my-skill/big.bin"
        ]
    );
    assert_eq!(listing["entries"][1]["size"], 12);
    assert!(listing["entries"][1]["compressed_size"].as_u64().is_some());
    assert_eq!(listing["skill"]["name"], "my-skill");
    assert_eq!(listing["skill"]["root"], "my-skill/");
    assert_eq!(
        listing["skill"]["valid"], false,
        "the 17 MiB of zeros trips the ratio check"
    );
    assert_eq!(listing["skill"]["findings"][0]["rule"], "compression-ratio");

    for member in ["SKILL.md", "my-skill/SKILL.md"] {
        let r = server
            .get(&format!("{BASE}/outputs/my-skill.skill/{member}"))
            .await;
        assert_eq!(r.status().as_u16(), 200, "{member}");
        assert_eq!(r.headers()["content-type"], "text/markdown; charset=utf-8");
        assert!(r.text().await.unwrap().contains("name: my-skill"));
    }
    let script = server
        .get(&format!("{BASE}/outputs/my-skill.skill/scripts/run.py"))
        .await;
    assert_eq!(script.text().await.unwrap(), "print('hi')\n");
    let (status, _) = server
        .get_json(&format!("{BASE}/outputs/my-skill.skill/nope.md"))
        .await;
    assert_eq!(status, 404);
    let (status, body) = server
        .get_json(&format!("{BASE}/outputs/my-skill.skill/big.bin"))
        .await;
    assert_eq!(status, 413, "{body}");

    let (status, bad_listing) = server.get_json(&format!("{BASE}/outputs/bad.skill/")).await;
    assert_eq!(status, 200);
    assert_eq!(bad_listing["skill"]["valid"], false);
    assert_eq!(
        bad_listing["skill"]["findings"][0]["rule"],
        "missing-skill-md"
    );
    let (status, body) = server
        .get_json(&format!("{BASE}/outputs/fake.skill/"))
        .await;
    assert_eq!(status, 400, "{body}");
    // The archive itself downloads as a zip.
    let whole = server.get(&format!("{BASE}/outputs/my-skill.skill")).await;
    assert_eq!(whole.headers()["content-type"], "application/zip");
    assert_eq!(whole.bytes().await.unwrap().len(), zip.len());
}
