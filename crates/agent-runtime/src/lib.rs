//! The agent runtime: the model client, the agent loop with the skills catalog and the
//! sandbox tools, and runs with their event streams.

pub mod agent;
pub mod bm25;
pub mod checkpoints;
pub mod config;
pub mod hooks;
pub mod images;
pub mod input;
pub mod langchain;
pub mod memory;
pub mod model;
pub mod profile;
pub mod prompt;
pub mod runs;
pub mod secrets;
pub mod suggestions;
pub mod telemetry;
pub mod tokens;
pub mod tools;
pub mod usage;
