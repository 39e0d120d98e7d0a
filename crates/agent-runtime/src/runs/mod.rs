//! Runs: creation with multitask strategies, execution, cancellation, and event streams.

pub mod log;
pub mod manager;
mod notices;
pub mod stream;

pub use manager::{ActiveRun, RunError, Runtime, RuntimeDeps};
