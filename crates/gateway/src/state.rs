//! What every handler gets: the application and the HTTP-only state beside it.

use std::ops::Deref;
use std::sync::Arc;

use antler_app::{App, Caller};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::error::AppError;
use crate::files::etag::EtagCache;

/// Cloneable handle used as axum state. Derefs to the [`App`].
#[derive(Debug, Clone)]
pub struct AppState {
    /// The use-cases.
    pub app: Arc<App>,
    /// Content hashes of served files, keyed by inode and modification time (HTTP caching
    /// only, so it lives here rather than in the app).
    pub etags: Arc<EtagCache>,
}

impl AppState {
    /// State for `app`.
    pub fn new(app: Arc<App>) -> Self {
        AppState {
            app,
            etags: Arc::new(EtagCache::default()),
        }
    }
}

impl Deref for AppState {
    type Target = App;
    fn deref(&self) -> &App {
        &self.app
    }
}

/// The caller of a request, as a typed value the services take. Until accounts exist every
/// request is the single local user's.
#[derive(Debug, Clone)]
pub struct Identity(pub Caller);

impl<S: Send + Sync> FromRequestParts<S> for Identity {
    type Rejection = AppError;

    async fn from_request_parts(_parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Identity(Caller::local()))
    }
}
