-- Each person's preferences that the server acts on (a missing row: every default).
-- `suggestions`: follow-up suggestions after an answer (on by default).
CREATE TABLE user_preferences (
    owner       TEXT        PRIMARY KEY,
    suggestions BOOLEAN     NOT NULL DEFAULT TRUE,
    updated_at  TIMESTAMPTZ NOT NULL
);
