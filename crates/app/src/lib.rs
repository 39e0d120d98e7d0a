//! Antler's use-cases, each in one place, shared by the HTTP API (`antler-gateway`) and the
//! command line (`antler-cli`).
//!
//! [`App`] is built once at startup from a [`Config`]. Its services own the use-cases:
//! [`SkillsService`] (details, toggle, install, delete, reload), [`ThreadsService`] and [`RunsService`].
//! They take the caller's identity as a typed [`Caller`] and answer domain errors
//! ([`SkillOpError`], [`ThreadError`], [`RunOpError`]) that the gateway maps to HTTP statuses in
//! one place.

pub mod accounts;
mod app;
pub mod assistants;
mod background;
mod checkpoints;
pub mod config;
pub mod console;
pub mod crons;
pub mod feedback;
pub mod files;
mod identity;
pub mod items;
mod leftovers;
pub mod mcp;
pub mod memory;
mod preferences;
pub mod run_batch;
pub mod run_requests;
pub mod runs;
mod sandbox;
pub mod secrets;
pub mod skills;
mod state_queries;
mod thread_copy;
pub mod thread_export;
pub mod thread_search;
pub mod thread_select;
pub mod threads;
pub mod usage;

pub use accounts::{AccountError, AccountsService, Authenticated};
pub use antler_store::StoreError;
pub use app::App;
pub use assistants::{AssistantError, AssistantsService};
pub use config::Config;
pub use console::{ConsoleError, ConsoleService};
pub use crons::{CronError, CronsService};
pub use feedback::{FeedbackError, FeedbackService};
pub use files::{FileError, FilesService};
pub use identity::Caller;
pub use items::{ItemError, ItemsService};
pub use mcp::{McpConfigError, McpService};
pub use memory::{MemoryError, MemoryService};
pub use run_requests::{Cleanup, StatelessRun};
pub use runs::{RunOpError, RunsService, Started};
pub use skills::{
    ImportOptions, ImportSettings, SkillOpError, SkillsService, UpdateOutcome, UpdateReport,
};
pub use threads::{ThreadError, ThreadsService};
pub use usage::{UsageError, UsageService};
