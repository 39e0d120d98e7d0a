//! Serving and storing a thread's files: safe names, content types, ETags, ranges, and
//! `.skill` archive previews.

pub mod archive;
pub mod etag;
pub mod names;
pub mod serve;
pub mod walk;
