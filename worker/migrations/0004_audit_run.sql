-- The code-mode run an event belongs to (`run_...`): a program's own row (type `run`) and each
-- call it made; NULL for everything else.
ALTER TABLE audit_events ADD COLUMN run TEXT;
