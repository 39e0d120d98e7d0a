//! Runs in this process, through the run manager, against the scripted model: the agent
//! loop and the task pool, without starting the server.

#![expect(clippy::expect_used, clippy::panic, reason = "tests")]

mod agent_loop;
mod common;
mod prompt_sections;
mod task_pool;
