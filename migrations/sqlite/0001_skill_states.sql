-- Enabled state of skills, keyed by (category, name) so a custom skill never shares state
-- with a public skill of the same name. A missing row means enabled.
CREATE TABLE skill_states (
    category   TEXT    NOT NULL CHECK (category IN ('public', 'custom')),
    name       TEXT    NOT NULL,
    enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    updated_at TEXT    NOT NULL,
    PRIMARY KEY (category, name)
);
