-- The client program an event came from, where the surface names one (MCP clientInfo `name/version`).
ALTER TABLE audit_events ADD COLUMN client TEXT;
