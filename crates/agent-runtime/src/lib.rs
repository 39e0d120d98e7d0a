//! The agent runtime: the model client, the agent loop with the skills catalog and the
//! sandbox tools, and runs with their event streams.

pub mod config;
pub mod model;
