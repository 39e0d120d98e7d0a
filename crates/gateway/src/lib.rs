//! Antler's HTTP layer: the axum router with its OpenAPI document, the handlers (thin: they
//! parse, call a service of [`antler_app::App`] and answer), and the JSON error envelope.

pub mod auth;
pub mod error;
pub mod extract;
pub mod files;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod origin;
pub mod params;
pub mod router;
pub mod routes;
mod serve;
pub mod state;
mod trace_context;

pub use router::{metrics_router, openapi, router};
pub use serve::serve;
pub use state::{AppState, Identity};
