//! The web tools' network parts against servers this test runs: fetching under the SSRF
//! rules (redirects, names resolving inside, a rebinding resolver), reading pages, and each
//! search provider's documented answer shape and failures.

#![expect(clippy::unwrap_used, reason = "tests: a failed step aborts the test")]

mod fetch;
mod search;
mod server;
