-- The audit trail across sessions, one row per event (worker/core/audit.ts). Rows arrive from the
-- session objects' outboxes (INSERT OR IGNORE by id); ids sort by time, so listings page by id.
CREATE TABLE IF NOT EXISTS audit_events (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  tenant TEXT NOT NULL,
  session TEXT NOT NULL,
  type TEXT NOT NULL,
  tool TEXT,
  server TEXT,
  decision TEXT NOT NULL,
  outcome TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  args_digest TEXT,
  args_bytes INTEGER NOT NULL,
  result_bytes INTEGER NOT NULL,
  detail TEXT,
  arguments TEXT,
  via TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_tenant ON audit_events (tenant, id);
CREATE INDEX IF NOT EXISTS audit_events_session ON audit_events (tenant, session, id);
