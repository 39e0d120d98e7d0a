-- Accounts: people with a password (Argon2id PHC string), their browser sessions and their
-- personal access tokens. Secrets are stored as SHA-256 hashes only. `account_setup` has at
-- most one row: the first-run setup inserts it, so two concurrent setups cannot both win.
CREATE TABLE users (
    user_id       TEXT PRIMARY KEY NOT NULL,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('admin', 'user')),
    disabled      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE sessions (
    session_hash TEXT PRIMARY KEY NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    csrf_token   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE api_tokens (
    token_id     TEXT PRIMARY KEY NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL,
    expires_at   TEXT
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE setup_tokens (
    token_hash TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE account_setup (
    id         INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    user_id    TEXT NOT NULL,
    created_at TEXT NOT NULL
);
