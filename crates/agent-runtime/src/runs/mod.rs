//! Runs: creation with multitask strategies, execution, cancellation, recovery, and event
//! streams.

mod active;
pub mod choice;
mod create;
mod events_mode;
mod execute;
pub mod log;
mod manager;
mod notices;
mod queue;
mod recent;
mod replicas;
mod sink;
mod stored;
pub mod stream;
mod suggest;

pub use active::{ActiveRun, RunError};
pub use manager::{RunDeps, RunLoad, RunManager, SkillSource};
pub use recent::RecentSkills;
