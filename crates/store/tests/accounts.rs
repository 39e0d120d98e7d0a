//! Account repository tests against a real SQLite file and a real PostgreSQL database.

#![expect(clippy::unwrap_used, reason = "tests")]

mod common;

use antler_protocol::auth::Role;
use antler_store::{SetupOutcome, StoreError, TokenRecord, UserRecord, UserUpdate};
use chrono::{Duration, Utc};

fn user(id: &str, email: &str, role: Role) -> UserRecord {
    UserRecord {
        user_id: id.into(),
        email: email.into(),
        password_hash: "$argon2id$hash".into(),
        role,
        disabled: false,
        created_at: Utc::now(),
    }
}

#[tokio::test]
async fn one_first_admin_wins_concurrent_setups_and_emails_are_unique() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let a = &store.accounts;
        assert!(!a.admin_exists().await.unwrap(), "{engine}");
        let day_ago = Utc::now() - Duration::hours(24);
        a.add_setup_token("stale", day_ago).await.unwrap();
        for token in ["t1", "t2", "t3"] {
            a.add_setup_token(token, day_ago).await.unwrap();
        }
        assert_eq!(
            a.create_first_admin(
                "t1",
                Utc::now() + Duration::seconds(5),
                &user("x", "x@x.y", Role::Admin)
            )
            .await
            .unwrap(),
            SetupOutcome::BadToken,
            "{engine}: a token issued before the cutoff no longer works"
        );
        let attempts = (0..6).map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let token = ["t1", "t2", "t3"][i % 3];
                let candidate = user(&format!("u{i}"), &format!("u{i}@x.y"), Role::Admin);
                store
                    .accounts
                    .create_first_admin(token, Utc::now() - Duration::hours(24), &candidate)
                    .await
            })
        });
        let outcomes: Vec<SetupOutcome> = futures_join(attempts).await;
        assert_eq!(
            outcomes
                .iter()
                .filter(|o| **o == SetupOutcome::Created)
                .count(),
            1,
            "{engine}: {outcomes:?}"
        );
        assert_eq!(a.users().await.unwrap().len(), 1, "{engine}");
        assert_eq!(
            a.create_first_admin("t1", day_ago, &user("late", "late@x.y", Role::Admin))
                .await
                .unwrap(),
            SetupOutcome::AdminExists
        );
        let err = a
            .create_user(&user("dup", &a.users().await.unwrap()[0].email, Role::User))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{engine}: {err}");
    }
}

/// Awaits every task (in order).
async fn futures_join<T: Send + 'static>(
    tasks: impl Iterator<Item = tokio::task::JoinHandle<Result<T, StoreError>>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap().unwrap());
    }
    out
}

#[tokio::test]
async fn sessions_tokens_and_updates_round_trip_and_revoke() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let a = &store.accounts;
        a.create_user(&user("ann", "ann@x.y", Role::User))
            .await
            .unwrap();
        let expires = Utc::now() + Duration::days(1);
        for s in ["s1", "s2", "s3"] {
            a.create_session(s, "ann", &format!("csrf-{s}"), expires)
                .await
                .unwrap();
        }
        let found = a.session("s2").await.unwrap().unwrap();
        assert_eq!(
            (found.user.email.as_str(), found.csrf_token.as_str()),
            ("ann@x.y", "csrf-s2"),
            "{engine}"
        );
        assert!(
            (found.expires_at - expires).num_seconds().abs() <= 1,
            "{engine}"
        );
        a.create_session("old", "ann", "c", Utc::now() - Duration::seconds(5))
            .await
            .unwrap();
        a.delete_expired_sessions(Utc::now()).await.unwrap();
        assert!(a.session("old").await.unwrap().is_none(), "{engine}: swept");
        assert!(a.session("s1").await.unwrap().is_some(), "{engine}: kept");
        a.delete_session("s1").await.unwrap();
        assert!(a.session("s1").await.unwrap().is_none());
        a.delete_sessions_of("ann", Some("s2")).await.unwrap();
        assert!(a.session("s2").await.unwrap().is_some(), "{engine}: kept");
        assert!(a.session("s3").await.unwrap().is_none(), "{engine}: ended");

        let token = TokenRecord {
            token_id: "tok".into(),
            user_id: "ann".into(),
            name: "laptop".into(),
            created_at: Utc::now(),
            expires_at: None,
        };
        a.create_token(&token, "hash").await.unwrap();
        let (owner, found) = a.token("hash").await.unwrap().unwrap();
        assert_eq!(
            (owner.user_id.as_str(), found.name.as_str()),
            ("ann", "laptop")
        );
        assert_eq!(a.tokens_of("ann").await.unwrap().len(), 1);
        assert!(
            !a.delete_token("someone-else", "tok").await.unwrap(),
            "{engine}"
        );
        assert!(a.delete_token("ann", "tok").await.unwrap());
        assert!(a.token("hash").await.unwrap().is_none());

        let update = UserUpdate {
            disabled: Some(true),
            role: Some(Role::Admin),
            password_hash: Some("new".into()),
        };
        assert!(a.update_user("ann", &update).await.unwrap());
        let ann = a.user("ann").await.unwrap().unwrap();
        assert_eq!(
            (ann.disabled, ann.role, ann.password_hash.as_str()),
            (true, Role::Admin, "new")
        );
        // Only what is given changes.
        a.update_user(
            "ann",
            &UserUpdate {
                disabled: Some(false),
                ..UserUpdate::default()
            },
        )
        .await
        .unwrap();
        let ann = a.user("ann").await.unwrap().unwrap();
        assert_eq!(
            (ann.disabled, ann.role, ann.password_hash.as_str()),
            (false, Role::Admin, "new")
        );
        assert!(!a.update_user("nobody", &update).await.unwrap());
    }
}

#[tokio::test]
async fn adopting_moves_threads_runs_stored_items_and_usage_of_the_local_owner() {
    let tmp = tempfile::tempdir().unwrap();
    let engines = common::Engines::new(tmp.path()).await.unwrap();
    for (engine, store) in engines.open().await.unwrap() {
        let item = |owner: &str, key: &str| antler_store::NewItem {
            owner: owner.into(),
            namespace: vec!["notes".into()],
            key: key.into(),
            value: serde_json::json!({"by": owner})
                .as_object()
                .unwrap()
                .clone(),
            search_text: None,
            ttl_minutes: None,
            now: chrono::Utc::now(),
        };
        store.items.put(&item("local", "mine")).await.unwrap();
        store.items.put(&item("local", "both")).await.unwrap();
        store.items.put(&item("admin", "both")).await.unwrap();
        store
            .threads
            .create("local", "t1", Default::default())
            .await
            .unwrap();
        store
            .threads
            .create("other", "t2", Default::default())
            .await
            .unwrap();
        let today = chrono::Utc::now().date_naive();
        let used = antler_store::UsageCounts {
            model_calls: 1,
            input_tokens: 120,
            output_tokens: 30,
            ..Default::default()
        };
        store
            .usage
            .record(&[antler_store::UsageEntry {
                owner: "local".into(),
                run_id: "r1".into(),
                thread_id: "t1".into(),
                model: "m".into(),
                day: today,
                counts: used,
            }])
            .await
            .unwrap();
        assert_eq!(
            store.accounts.adopt("local", "admin").await.unwrap(),
            1,
            "{engine}"
        );
        assert!(
            store.threads.get("admin", "t1").await.unwrap().is_some(),
            "{engine}"
        );
        assert!(store.threads.get("local", "t1").await.unwrap().is_none());
        // What the adopted runs used counts against the admin's day now.
        let admin_day = store.usage.day_total("admin", today).await.unwrap();
        assert_eq!(admin_day.input_tokens, 120, "{engine}");
        let local_day = store.usage.day_total("local", today).await.unwrap();
        assert_eq!(local_day.input_tokens, 0, "{engine}");
        assert!(store.threads.get("other", "t2").await.unwrap().is_some());
        let ns = ["notes".to_string()];
        let now = chrono::Utc::now();
        let mine = store
            .items
            .get("admin", &ns, "mine", now, false)
            .await
            .unwrap();
        assert_eq!(mine.unwrap().value["by"], "local", "{engine}");
        let both = store
            .items
            .get("admin", &ns, "both", now, false)
            .await
            .unwrap();
        assert_eq!(
            both.unwrap().value["by"],
            "admin",
            "the admin's own item stays"
        );
        assert_eq!(store.accounts.adopt("local", "admin").await.unwrap(), 0);
    }
}
