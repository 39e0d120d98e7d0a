-- A person's storage quota is checked before each run: the sum of their threads' bytes,
-- read from this index alone rather than from every thread row (whose state may be large).
CREATE INDEX threads_owner_bytes ON threads (owner, stored_bytes);
