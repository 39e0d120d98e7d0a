//! One module per endpoint group.

pub mod artifacts;
pub mod health;
pub mod models;
pub mod runs;
pub mod skill_install;
pub mod skills;
pub mod threads;
pub mod uploads;
