-- 0005: the JSON shape of every synced row (SPEC 1), defined once in the database.
--
-- Why in SQL: the resource routes and the sync feed return the same rows; building the JSON
-- where the rows are avoids a decode/re-encode per row in Swift, and one definition per table
-- keeps the two paths from ever disagreeing. `dispatch_json(t)` is overloaded on the row type,
-- so any query can say `SELECT dispatch_json(t) FROM tasks t …`.
-- Secrets never appear: they live in other tables. txid is internal (the sync cursor) and
-- is left out.

-- RFC 3339, UTC, exactly millisecond precision (SPEC 1), truncated like Domain.Timestamp.
CREATE FUNCTION dispatch_ts(t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

CREATE FUNCTION dispatch_json(u users) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', u.id, 'name', u.name, 'email', u.email, 'user_type', u.user_type,
    'avatar_hash', u.avatar_hash, 'deactivated_at', dispatch_ts(u.deactivated_at),
    'created_at', dispatch_ts(u.created_at), 'updated_at', dispatch_ts(u.updated_at), 'version', u.version);

CREATE FUNCTION dispatch_json(l listings) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', l.id, 'address', l.address, 'city', l.city, 'province', l.province,
    'postal_code', l.postal_code, 'country', l.country, 'price', l.price, 'mls_number', l.mls_number,
    'listing_type', l.listing_type, 'status', l.status, 'owned_by', l.owned_by,
    'assigned_staff', l.assigned_staff, 'created_via', l.created_via,
    'source_slack_messages', l.source_slack_messages,
    'activated_at', dispatch_ts(l.activated_at), 'pending_at', dispatch_ts(l.pending_at),
    'closed_at', dispatch_ts(l.closed_at), 'deleted_at', dispatch_ts(l.deleted_at),
    'created_at', dispatch_ts(l.created_at), 'updated_at', dispatch_ts(l.updated_at), 'version', l.version);

CREATE FUNCTION dispatch_json(t tasks) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', t.id, 'title', t.title, 'description', t.description, 'due_date', dispatch_ts(t.due_date),
    'priority', t.priority, 'status', t.status, 'declared_by', t.declared_by, 'claimed_by', t.claimed_by,
    'listing_id', t.listing_id, 'created_via', t.created_via, 'source_slack_messages', t.source_slack_messages,
    'claimed_at', dispatch_ts(t.claimed_at), 'completed_at', dispatch_ts(t.completed_at),
    'deleted_at', dispatch_ts(t.deleted_at),
    'created_at', dispatch_ts(t.created_at), 'updated_at', dispatch_ts(t.updated_at), 'version', t.version);

CREATE FUNCTION dispatch_json(a activities) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', a.id, 'title', a.title, 'description', a.description, 'type', a.type,
    'due_date', dispatch_ts(a.due_date), 'priority', a.priority, 'status', a.status,
    'declared_by', a.declared_by, 'claimed_by', a.claimed_by, 'listing_id', a.listing_id,
    'created_via', a.created_via, 'source_slack_messages', a.source_slack_messages,
    'duration_seconds', a.duration_seconds,
    'claimed_at', dispatch_ts(a.claimed_at), 'completed_at', dispatch_ts(a.completed_at),
    'deleted_at', dispatch_ts(a.deleted_at),
    'created_at', dispatch_ts(a.created_at), 'updated_at', dispatch_ts(a.updated_at), 'version', a.version);

CREATE FUNCTION dispatch_json(n notes) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', n.id, 'content', n.content, 'created_by', n.created_by, 'parent_type', n.parent_type,
    'parent_id', n.parent_id, 'edited_at', dispatch_ts(n.edited_at), 'edited_by', n.edited_by,
    'deleted_at', dispatch_ts(n.deleted_at),
    'created_at', dispatch_ts(n.created_at), 'updated_at', dispatch_ts(n.updated_at), 'version', n.version);

CREATE FUNCTION dispatch_json(s subtasks) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', s.id, 'title', s.title, 'completed', s.completed, 'parent_type', s.parent_type,
    'parent_id', s.parent_id, 'position', s.position, 'deleted_at', dispatch_ts(s.deleted_at),
    'created_at', dispatch_ts(s.created_at), 'updated_at', dispatch_ts(s.updated_at), 'version', s.version);

CREATE FUNCTION dispatch_json(e claim_events) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', e.id, 'entity_type', e.entity_type, 'entity_id', e.entity_id, 'user_id', e.user_id,
    'action', e.action, 'actor_id', e.actor_id,
    'created_at', dispatch_ts(e.created_at), 'updated_at', dispatch_ts(e.updated_at), 'version', e.version);

CREATE FUNCTION dispatch_json(c status_changes) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE
RETURN json_build_object(
    'id', c.id, 'entity_type', c.entity_type, 'entity_id', c.entity_id, 'old_status', c.old_status,
    'new_status', c.new_status, 'changed_by', c.changed_by,
    'created_at', dispatch_ts(c.created_at), 'updated_at', dispatch_ts(c.updated_at), 'version', c.version);
