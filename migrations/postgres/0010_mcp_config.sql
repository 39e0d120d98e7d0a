-- The MCP servers every replica uses (seeded from the YAML the first time, then changed by
-- admins through the API): one row holding the whole set as JSON.
CREATE TABLE mcp_config (
    id         INTEGER     PRIMARY KEY CHECK (id = 1),
    servers    JSONB       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
