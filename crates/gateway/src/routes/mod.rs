//! One module per endpoint group.

pub mod artifacts;
pub mod assistants;
pub mod auth;
pub mod console;
pub mod crons;
mod event_stream;
pub mod feedback;
pub mod health;
pub mod mcp;
pub mod memory;
pub mod models;
pub mod preferences;
pub mod run_batch;
pub mod runs;
pub mod secrets;
pub mod skill_import;
pub mod skill_install;
pub mod skills;
pub mod state;
pub mod stateless;
pub mod store_items;
pub mod thread_export;
pub mod thread_stream;
pub mod threads;
pub mod uploads;
pub mod usage;
pub mod users;
