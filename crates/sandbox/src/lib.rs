//! The sandbox layer: where the agent's tools run.
//!
//! Every thread has `/mnt/user-data/{workspace,uploads,outputs}` (read-write) backed by
//! `<data dir>/users/<owner>/threads/<id>/user-data/…` on the host; the enabled skills appear
//! read-only at `/mnt/skills` through a projection ([`view`]), the owner's personal skills at
//! `/mnt/skills/user` ([`personal`]). [`paths`] maps container paths
//! on segment boundaries, [`beneath`] opens host files so symlinks never lead outside, and
//! [`files`] implements the file tools on the host side. Commands run in a Docker container
//! per thread ([`docker`]) or, when allowed, on the host ([`local`]).

pub mod access;
pub mod api;
pub mod beneath;
pub mod config;
pub mod docker;
pub mod egress;
pub mod error;
pub mod files;
pub mod gate;
pub mod host_procs;
pub mod instance;
pub mod local;
pub mod output;
pub mod paths;
pub mod personal;
pub mod storage;
pub mod view;
pub mod walk;

pub use access::FileAccess;
pub use api::{Acquire, ExecOutput, ExecRequest, Sandbox, SandboxProvider};
pub use error::SandboxError;
pub use paths::{PathError, ThreadDirs, UserDataDir, VirtualPath};
