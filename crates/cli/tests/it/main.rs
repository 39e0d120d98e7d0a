//! Integration tests: the real `antler` binary, started on port 0 with temporary directories,
//! driven over HTTP and the command line. One test binary keeps linking fast.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests: a failed step should abort the test with its message"
)]

mod accounts;
mod api_skills;
mod artifacts;
mod assistants;
mod auth;
mod branching;
mod cli;
mod common;
mod console;
mod conversions;
mod crons;
mod demo;
mod egress;
mod export;
mod feedback;
mod history;
mod install;
mod langgraph;
mod leftovers;
mod limits;
mod mcp;
mod mcp_lifecycle;
mod mcp_sandboxed;
mod memory;
mod memory_replicas;
mod memory_scope;
mod message_files;
mod origin;
mod ownership;
mod personal_skills;
mod providers;
mod replicas;
mod research;
mod runs;
mod sandbox;
mod sdk_gaps;
mod secrets;
mod skill_import;
mod skill_races;
mod skill_search;
mod skill_slash;
mod storage;
mod store_items;
mod subagents;
mod suggestions;
mod summarization;
mod telemetry;
mod thread_api;
mod thread_search;
mod threads;
mod uploads;
mod usage;
mod vision;
mod web;
