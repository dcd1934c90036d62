-- A person may approve an edit of a parked call: the audit record keeps the anchor of
-- the call that ran (`anchor` stays the parked call's, the one the decision was bound to).
ALTER TABLE toolgate_audit ADD COLUMN edited_anchor TEXT;
