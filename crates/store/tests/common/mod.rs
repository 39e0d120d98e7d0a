//! Every repository test runs against SQLite and PostgreSQL. PostgreSQL comes from
//! `ANTLER_TEST_POSTGRES_URL` (an admin URL; each test gets a fresh database); `make test`
//! starts a server and sets `ANTLER_REQUIRE_POSTGRES`, so there a missing URL fails.

use std::path::Path;

use antler_store::{Location, Store, StoreError};

/// The stores to test, with their engine names. `reopen` returns the same databases again.
pub(crate) struct Engines {
    pub(crate) sqlite_dir: std::path::PathBuf,
    pub(crate) postgres_url: Option<String>,
}

impl Engines {
    pub(crate) async fn new(dir: &Path) -> Result<Self, StoreError> {
        let postgres_url = match std::env::var("ANTLER_TEST_POSTGRES_URL") {
            Ok(admin) if !admin.is_empty() => Some(fresh_database(&admin).await?),
            _ => {
                assert!(
                    std::env::var_os("ANTLER_REQUIRE_POSTGRES").is_none(),
                    "ANTLER_REQUIRE_POSTGRES is set but ANTLER_TEST_POSTGRES_URL is not"
                );
                eprintln!("note: PostgreSQL not tested (ANTLER_TEST_POSTGRES_URL is not set)");
                None
            }
        };
        Ok(Engines {
            sqlite_dir: dir.to_path_buf(),
            postgres_url,
        })
    }

    /// Opens every engine.
    pub(crate) async fn open(&self) -> Result<Vec<(&'static str, Store)>, StoreError> {
        let mut out = vec![(
            "sqlite",
            Store::open(&Location::resolve(None, &self.sqlite_dir)?, 2).await?,
        )];
        if let Some(url) = &self.postgres_url {
            out.push((
                "postgres",
                Store::open(&Location::Postgres(url.clone()), 4).await?,
            ));
        }
        Ok(out)
    }
}

/// Creates an empty database next to the admin URL's and returns its URL.
pub(crate) async fn fresh_database(admin: &str) -> Result<String, StoreError> {
    let name = format!("antler_test_{}", uuid::Uuid::new_v4().simple());
    let pool = sqlx::PgPool::connect(admin).await?;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&pool)
        .await?;
    pool.close().await;
    let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(admin);
    Ok(format!("{base}/{name}"))
}
