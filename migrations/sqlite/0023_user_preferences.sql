-- Each person's preferences that the server acts on (a missing row: every default).
-- `suggestions`: follow-up suggestions after an answer (on by default).
CREATE TABLE user_preferences (
    owner       TEXT    PRIMARY KEY NOT NULL,
    suggestions INTEGER NOT NULL DEFAULT 1 CHECK (suggestions IN (0, 1)),
    updated_at  TEXT    NOT NULL
);
