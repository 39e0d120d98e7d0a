//! `antler migrate`.

use std::path::PathBuf;
use std::process::ExitCode;

use antler_store::Store;

use super::{fail, setup};

pub(crate) fn run(config: Option<PathBuf>) -> ExitCode {
    let (config, rt) = match setup(config.as_deref()) {
        Ok(setup) => setup,
        Err(code) => return code,
    };
    let result = rt.block_on(async {
        let location = config.database_location()?;
        Store::open(&location, 1).await?;
        anyhow::Ok(location)
    });
    match result {
        Ok(location) => {
            println!("database is up to date: {location}");
            ExitCode::SUCCESS
        }
        Err(e) => fail("migration failed", &e),
    }
}
