//! Loading the configuration from files and the environment.

use std::path::PathBuf;

use super::*;

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_apply_without_file_or_environment() {
    let c = Config::from_sources(None, &env(&[])).unwrap();
    assert_eq!(c, Config::default());
    assert_eq!(c.bind, "127.0.0.1:8000");
    assert_eq!(c.data_dir, PathBuf::from("./data"));
    assert_eq!(c.skills_dir, PathBuf::from("./skills"));
}

#[test]
fn the_file_overrides_defaults_and_the_environment_overrides_the_file() {
    let yaml = "bind: 0.0.0.0:9000\ndatabase:\n  max_connections: 8\nskills:\n  watch: false\n";
    let c = Config::from_sources(
        Some(yaml),
        &env(&[
            ("ANTLER_BIND", "127.0.0.1:0"),
            ("ANTLER_DATA_DIR", "/tmp/d"),
            ("ANTLER_SKILLS_DIR", "/tmp/s"),
            ("ANTLER_DATABASE_URL", "sqlite:/tmp/x.db"),
            ("ANTLER_SKILLS_WATCH_DEBOUNCE_MS", "50"),
        ]),
    )
    .unwrap();
    assert_eq!(c.bind, "127.0.0.1:0");
    assert_eq!(c.data_dir, PathBuf::from("/tmp/d"));
    assert_eq!(c.skills_dir, PathBuf::from("/tmp/s"));
    assert_eq!(c.database.url.as_deref(), Some("sqlite:/tmp/x.db"));
    assert_eq!(c.database.max_connections, 8);
    assert!(!c.skills.watch);
    assert_eq!(c.skills.watch_debounce_ms, 50);
}

#[test]
fn list_variables_take_commas_flow_lists_and_block_lists() {
    for (raw, hosts) in [
        ("a.example, b.example", vec!["a.example", "b.example"]),
        ("a.example", vec!["a.example"]),
        ("[a.example, b.example]", vec!["a.example", "b.example"]),
        ("- a.example\n- b.example\n", vec!["a.example", "b.example"]),
        ("", vec![]),
    ] {
        let c = Config::from_sources(None, &env(&[("ANTLER_HTTP_ALLOWED_HOSTS", raw)])).unwrap();
        assert_eq!(c.http.allowed_hosts, hosts, "{raw:?}");
    }
    for (var, raw, key) in [
        (
            "ANTLER_HTTP_ALLOWED_HOSTS",
            "https://a.example",
            "http.allowed_hosts",
        ),
        (
            "ANTLER_HTTP_ALLOWED_HOSTS",
            "a.example:8000",
            "http.allowed_hosts",
        ),
        (
            "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
            "ui.example",
            "http.cors.allowed_origins",
        ),
        (
            "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
            "https://ui.example/app",
            "http.cors.allowed_origins",
        ),
        (
            "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
            "HTTPS://UI.example",
            "http.cors.allowed_origins",
        ),
    ] {
        let err = Config::from_sources(None, &env(&[(var, raw)])).unwrap_err();
        assert_eq!(err.key, key, "{raw:?}");
    }
    let c = Config::from_sources(
        None,
        &env(&[(
            "ANTLER_HTTP_CORS_ALLOWED_ORIGINS",
            "https://ui.example, http://localhost:3000/",
        )]),
    )
    .unwrap();
    assert_eq!(
        c.http.cors.allowed_origins,
        ["https://ui.example", "http://localhost:3000/"]
    );
}

#[test]
fn errors_name_the_key() {
    let err = Config::from_sources(Some("bind: nonsense\n"), &env(&[])).unwrap_err();
    assert_eq!(err.key, "bind");
    let err =
        Config::from_sources(Some("database:\n  max_connections: lots\n"), &env(&[])).unwrap_err();
    assert_eq!(err.key, "database.max_connections");
    let err = Config::from_sources(None, &env(&[("ANTLER_SKILLS_WATCH", "maybe")])).unwrap_err();
    assert_eq!(err.key, "skills.watch");
    assert!(err.message.contains("ANTLER_SKILLS_WATCH"), "{err}");
    let err = Config::from_sources(Some("skills:\n  wacth: true\n"), &env(&[])).unwrap_err();
    assert!(err.to_string().contains("wacth"), "{err}");
    let err = Config::from_sources(Some("log:\n  format: xml\n"), &env(&[])).unwrap_err();
    assert_eq!(err.key, "log.format");
    let err = Config::from_sources(Some("[1, 2]"), &env(&[])).unwrap_err();
    assert_eq!(err.key, "<file>");
    let err =
        Config::from_sources(None, &env(&[("ANTLER_UPLOADS_MAX_REQUEST_BYTES", "0")])).unwrap_err();
    assert_eq!(err.key, "uploads.max_request_bytes");
    let err = Config::from_sources(
        Some("skills:\n  install:\n    max_total_bytes: 0\n"),
        &env(&[]),
    )
    .unwrap_err();
    assert_eq!(err.key, "skills.install.max_total_bytes");
    let err =
        Config::from_sources(None, &env(&[("ANTLER_SANDBOX_INSTANCE_ID", "../x")])).unwrap_err();
    assert_eq!(err.key, "sandbox.instance_id");
}

#[test]
fn optional_strings_from_the_environment_stay_strings() {
    let c = Config::from_sources(
        None,
        &env(&[
            ("ANTLER_SANDBOX_INSTANCE_ID", "42"),
            ("ANTLER_SANDBOX_DOCKER_RUNTIME", "1000"),
        ]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.sandbox.instance_id.as_deref(), Some("42"));
    assert_eq!(c.sandbox.docker.runtime.as_deref(), Some("1000"));
    let c = Config::from_sources(
        Some("sandbox:\n  instance_id: a\n"),
        &env(&[("ANTLER_SANDBOX_INSTANCE_ID", "")]),
    )
    .unwrap();
    assert_eq!(
        c.sandbox.instance_id, None,
        "an empty variable unsets the key"
    );
}

#[test]
fn the_example_file_documents_every_key_and_loads() {
    let text = include_str!("../../../../../config/antler.example.yaml");
    let example = Config::from_sources(Some(text), &env(&[])).unwrap();
    assert_eq!(example, Config::default(), "the example shows the defaults");
    let defaults = serde_yaml::to_value(Config::default()).unwrap();
    let mut keys = Vec::new();
    leaf_keys(&defaults, &mut Vec::new(), &mut keys);
    for key in keys {
        let last = key.rsplit('.').next().unwrap();
        assert!(
            text.contains(&format!("{last}:")),
            "config/antler.example.yaml does not document '{key}'"
        );
        let var = format!("ANTLER_{}", key.replace('.', "_").to_uppercase());
        assert!(text.contains(&var), "the example does not name {var}");
    }
}

fn leaf_keys(v: &Value, path: &mut Vec<String>, out: &mut Vec<String>) {
    if let Value::Mapping(m) = v {
        for (k, child) in m {
            path.push(k.as_str().unwrap().to_string());
            if matches!(child, Value::Mapping(_)) {
                leaf_keys(child, path, out);
            } else {
                out.push(path.join("."));
            }
            path.pop();
        }
    }
}

#[test]
fn the_sandbox_image_is_full_by_default_and_sandbox_docker_image_wins() {
    let c = Config::from_sources(None, &env(&[])).unwrap();
    assert_eq!(c.sandbox.image, "antler-sandbox:full");
    assert!(c.sandbox.image_is_default());
    let c = Config::from_sources(
        Some("sandbox:\n  image: antler-sandbox:slim\n  docker:\n    image: mine:1\n"),
        &env(&[]),
    )
    .unwrap();
    assert_eq!(c.sandbox.image, "mine:1");
    assert!(!c.sandbox.image_is_default());
    let c = Config::from_sources(
        Some("sandbox:\n  image: antler-sandbox:slim\n"),
        &env(&[("ANTLER_SANDBOX_DOCKER_IMAGE", "from-env:2")]),
    )
    .unwrap();
    assert_eq!(c.sandbox.image, "from-env:2");
    // An empty docker.image leaves sandbox.image in force.
    let c = Config::from_sources(
        Some("sandbox:\n  image: antler-sandbox:slim\n  docker:\n    image: ' '\n"),
        &env(&[]),
    )
    .unwrap();
    assert_eq!(c.sandbox.image, "antler-sandbox:slim");
}
