//! The sandbox layer: the container paths the agent sees and their host side.
//!
//! Every thread has `/mnt/user-data/{workspace,uploads,outputs}` (read-write) backed by
//! `<data dir>/users/<owner>/threads/<id>/user-data/…` on the host; skills appear read-only at
//! `/mnt/skills`. [`paths`] maps between the two on segment boundaries and refuses traversal;
//! [`beneath`] opens host files so that symlinks can never lead outside a root.

pub mod beneath;
pub mod paths;

pub use paths::{PathError, ThreadDirs, UserDataDir, VirtualPath};
