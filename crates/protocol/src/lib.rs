//! Wire types only: what goes over HTTP and between crates as data.
//!
//! Nothing here does I/O. Types derive `serde` for the wire and `utoipa::ToSchema` so the
//! OpenAPI document is generated from the same definitions the server sends.

pub mod assistants;
pub mod auth;
pub mod console;
pub mod crons;
pub mod de;
pub mod egress;
pub mod error;
pub mod feedback;
pub mod files;
pub mod health;
pub mod mcp;
pub mod memory;
pub mod messages;
pub mod paths;
pub mod preferences;
pub mod prompt_text;
pub mod run_options;
pub mod runs;
pub mod secrets;
pub mod skills;
pub mod store_items;
pub mod stream;
pub mod thread_search;
pub mod threads;
pub mod usage;
pub mod validation;
pub mod web;
pub mod wire_enum;

pub use wire_enum::UnknownValue;
