-- The user of the session's principal (API_KEYS `{"tenant": ..., "user": ...}`, or x-toolsearch-user
-- from an assertsUser key); NULL where the key names no user.
ALTER TABLE audit_events ADD COLUMN user TEXT;
