-- Enabled state of personal skills (category `user`), one row per owner and name. Not tied
-- to `users` by a foreign key: the single local owner of `auth.mode: none` has no account.
CREATE TABLE personal_skill_states (
    owner      TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    updated_at TEXT    NOT NULL,
    PRIMARY KEY (owner, name)
);
