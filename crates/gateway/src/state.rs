//! What every handler gets: the application and the HTTP-only state beside it.

use std::ops::Deref;
use std::sync::Arc;

use antler_app::{App, Caller};
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use crate::auth::Authed;
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

/// The caller of a request, as a typed value the services take, resolved by
/// [`crate::auth::authenticate`] (a request that reaches a handler without one is refused).
#[derive(Debug, Clone)]
pub struct Identity(pub Caller);

impl<S: Send + Sync> FromRequestParts<S> for Identity {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Ok(Identity(
            Authed::from_request_parts(parts, state).await?.caller,
        ))
    }
}

/// An admin caller: anyone else gets 403 `admin_required`.
#[derive(Debug, Clone)]
pub struct Admin(pub Caller);

impl<S: Send + Sync> FromRequestParts<S> for Admin {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Identity(caller) = Identity::from_request_parts(parts, state).await?;
        if caller.is_admin() {
            Ok(Admin(caller))
        } else {
            Err(AppError::new(
                StatusCode::FORBIDDEN,
                "admin_required",
                "only admins may do this",
            )
            .into_response())
        }
    }
}
