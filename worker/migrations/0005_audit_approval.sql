-- The approval an event belongs to (`ap_...`, POLICY.approval): the request for a yes, the
-- decision, and the call it released; NULL for everything else.
ALTER TABLE audit_events ADD COLUMN approval TEXT;
