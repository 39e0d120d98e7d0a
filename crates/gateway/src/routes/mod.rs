//! One module per endpoint group.

pub mod health;
pub mod skills;
