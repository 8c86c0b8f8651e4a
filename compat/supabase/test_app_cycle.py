"""The Dispatch app's sync cycle, run twice over the same steps:

- through supabase-py, the official Python client;
- through raw HTTP sending exactly what supabase-swift 2.55.1 sends, as read from its
  Sources/PostgREST (PostgrestQueryBuilder, PostgrestBuilder, PostgrestFilterValue),
  Sources/Supabase (SupabaseClient, Constants), Sources/Auth and Sources/Storage: an `Apikey`
  header (that capitalisation), `X-Client-Info`, `Accept`/`Content-Type: application/json`,
  upper-case UUIDs (`UUID.uuidString`), body dates in milliseconds without a zone
  (`JSONEncoder.supabase()`), filter dates with `.000Z` (`ISO8601DateFormatter`), upserts as
  arrays with `columns="a","b"` and `Prefer: resolution=merge-duplicates,return=representation`,
  updates with `Prefer: return=representation`, avatars as its multipart upload.

The cycle (references 001 and 002): down users -> listings -> tasks -> activities -> claim_events,
each `updated_at > lastSync`; up listings -> tasks -> activities, upserting dirty rows with every
DTO field (server-managed ones carry client values), including a delete by status; claims by
update; a lost race recognised by its code and holder; avatars by hash. Each actor keeps a local
copy as the app does; at the end the database and the local copies are checked, not only statuses.
"""

import datetime as dt
import hashlib
import http.client
import json
import os
import struct
import uuid
import zlib
from urllib.parse import quote, urlsplit

import pytest
from postgrest.exceptions import APIError

from test_rest_writes import psql

SWIFT_VERSION = "2.55.1"
DOWN = ["users", "listings", "tasks", "activities", "claim_events"]


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def unique_png() -> bytes:
    """A real 1x1 PNG of a random colour: avatars are named by their hash, so each run needs its own."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" + os.urandom(3)))
            + chunk(b"IEND", b""))


class Refusal(Exception):
    """A /rest/v1 error as the client hands it to the app. `decodes`: whether supabase-swift's
    PostgrestError (message String; code, details, hint String?) can decode the body — if not,
    the app gets a generic HTTPError and its `catch … where e.code == …` never matches."""

    def __init__(self, body: dict):
        super().__init__(str(body))
        self.code, self.details = body.get("code"), body.get("details")
        self.decodes = isinstance(body.get("message"), str) and all(
            body.get(key) is None or isinstance(body[key], str) for key in ("code", "details", "hint"))


class SupabasePy:
    def __init__(self, client):
        self.client = client

    @staticmethod
    def encode(value):
        if isinstance(value, uuid.UUID):
            return str(value)
        if isinstance(value, dt.datetime):
            return value.isoformat()
        return value

    def select(self, table, since):
        query = self.client.table(table).select("*")
        return (query.gt("updated_at", since.isoformat()) if since else query).execute().data

    def upsert(self, table, rows):
        try:
            self.client.table(table).upsert([{k: self.encode(v) for k, v in row.items()} for row in rows]).execute()
        except APIError as error:
            raise Refusal(error.json()) from None

    def update(self, table, values, row_id):
        try:
            self.client.table(table).update({k: self.encode(v) for k, v in values.items()}).eq("id", str(row_id)).execute()
        except APIError as error:
            raise Refusal(error.json()) from None

    def upload_avatar(self, name, data):
        self.client.storage.from_("avatars").upload(name, data, {"content-type": "image/png", "upsert": "true"})


class SwiftWire:
    def __init__(self, server, account):
        url = urlsplit(server.url)
        self.host, self.port, self.key = url.hostname, url.port, server.publishable_key
        self.token = self.key
        session = self.send("POST", "/auth/v1/token?grant_type=password",
                            json.dumps({"email": account.email, "password": account.password}).encode(),
                            {"X-Supabase-Api-Version": "2024-01-01"})
        self.token = session["access_token"]

    @staticmethod
    def encode(value):
        if isinstance(value, uuid.UUID):
            return str(value).upper()
        if isinstance(value, dt.datetime):
            return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}"
        return value

    def send(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"X-Client-Info": f"supabase-swift/{SWIFT_VERSION}; runtime=swift", "Authorization": f"Bearer {self.token}",
                "Apikey": self.key, "Accept": "application/json", "Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        connection.close()
        decoded = json.loads(raw) if raw else None
        if response.status >= 400:
            raise Refusal(decoded)
        return decoded

    def select(self, table, since):
        query = "select=*"
        if since:
            query += "&updated_at=gt." + self.encode(since) + "Z"
        return self.send("GET", f"/rest/v1/{table}?{query}")

    def upsert(self, table, rows):
        body = [{k: self.encode(v) for k, v in row.items()} for row in rows]
        columns = ",".join(f'"{key}"' for key in sorted({key for row in body for key in row}))
        self.send("POST", f"/rest/v1/{table}?columns={quote(columns, safe=',')}", json.dumps(body).encode(),
                  {"Prefer": "resolution=merge-duplicates,return=representation"})

    def update(self, table, values, row_id):
        self.send("PATCH", f"/rest/v1/{table}?id=eq.{self.encode(row_id)}",
                  json.dumps({k: self.encode(v) for k, v in values.items()}).encode(), {"Prefer": "return=representation"})

    def upload_avatar(self, name, data):
        boundary = f"dispatch.boundary.{uuid.uuid4().hex}"
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="cacheControl"\r\n\r\n3600\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name=""; filename="{name}"\r\n'
                f"Content-Type: image/png\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
        self.send("POST", f"/storage/v1/object/avatars/{name}", body,
                  {"Content-Type": f"multipart/form-data; boundary={boundary}", "x-upsert": "true"})


class App:
    """One signed-in app: its local copy of every table and its lastSync, as SyncManager keeps them."""

    def __init__(self, transport, account):
        self.transport, self.id = transport, uuid.UUID(account.id)
        self.local = {table: {} for table in DOWN}
        self.last_sync = None

    def sync_down(self):
        started = now()
        for table in DOWN:
            for row in self.transport.select(table, self.last_sync):
                self.local[table][row["id"].lower()] = row
        self.last_sync = started

    def row(self, table, row_id):
        return self.local[table][str(row_id).lower()]


def task_dto(app, task_id, listing_id, status="open", claimed_by=None, title="Schedule inspection"):
    """TaskDTO as the app encodes it: every field, the server-managed ones with client values."""
    at = now()
    return {"id": task_id, "title": title, "description": "Call the inspector", "due_date": at + dt.timedelta(days=2),
            "priority": "high", "status": status, "declared_by": app.id, "claimed_by": claimed_by, "listing_id": listing_id,
            "created_via": "dispatch", "claimed_at": None, "completed_at": at if status == "completed" else None,
            "deleted_at": at if status == "deleted" else None, "created_at": at, "updated_at": at}


@pytest.mark.parametrize("transport", ["supabase-py", "supabase-swift-wire"])
def test_the_apps_sync_cycle(transport, server, create_realtor, signed_in_client):
    alice, bob = create_realtor("Alice Agent"), create_realtor("Bob Broker")
    make = (lambda account: SupabasePy(signed_in_client(account))) if transport == "supabase-py" else \
        (lambda account: SwiftWire(server, account))
    a, b = App(make(alice), alice), App(make(bob), bob)
    a.sync_down()
    assert {str(a.id), str(b.id)} <= set(a.local["users"])

    # A works offline: a listing staffed by B, a task, a task made and deleted before any sync,
    # an activity; then syncs up listings -> tasks -> activities.
    listing, task, scrapped, activity = (uuid.uuid4() for _ in range(4))
    at = now()
    a.transport.upsert("listings", [{
        "id": listing, "address": "12 Harbour St", "city": "Halifax", "province": "NS", "postal_code": "B3H 1A1",
        "country": "CA", "price": 649000.5, "mls_number": None, "listing_type": "sale", "status": "active",
        "owned_by": a.id, "assigned_staff": b.id, "created_via": "dispatch", "source_slack_messages": None,
        "activated_at": at, "pending_at": None, "closed_at": None, "deleted_at": None, "created_at": at, "updated_at": at}])
    a.transport.upsert("tasks", [task_dto(a, task, listing), task_dto(a, scrapped, listing, status="deleted")])
    a.transport.upsert("activities", [{**task_dto(a, activity, listing, title="Show the house"), "type": "show_property",
                                       "duration_seconds": 1800}])
    a.sync_down()
    b.sync_down()
    assert b.row("tasks", scrapped)["status"] == "deleted" and b.row("activities", activity)["type"] == "show_property"

    # Claims by update: B claims; A's claim loses and is recognised by its code and holder.
    b.transport.update("tasks", {"claimed_by": b.id}, task)
    with pytest.raises(Refusal) as lost:
        a.transport.update("tasks", {"claimed_by": a.id}, task)

    # A completes the task (echoing B's claim) and deletes the activity by status: dirty rows up.
    a.transport.upsert("tasks", [task_dto(a, task, listing, status="completed", claimed_by=b.id)])
    a.transport.upsert("activities", [{**task_dto(a, activity, listing, status="deleted", title="Show the house"),
                                       "type": "show_property", "duration_seconds": 1800}])
    # Avatars by hash: B uploads <sha256>.png and sets avatar_hash; A downloads when its hash differs.
    image = unique_png()
    digest = hashlib.sha256(image).hexdigest()
    b.transport.upload_avatar(f"{digest}.png", image)
    b.transport.update("users", {"avatar_hash": digest}, b.id)
    a.sync_down()
    b.sync_down()

    hash_seen = a.row("users", b.id)["avatar_hash"]
    assert hash_seen == digest
    public = http.client.HTTPConnection(urlsplit(server.url).hostname, urlsplit(server.url).port, timeout=30)
    public.request("GET", f"/storage/v1/object/public/avatars/{hash_seen}.png")
    assert hashlib.sha256(public.getresponse().read()).hexdigest() == digest

    # The data: rows as the rules store them, and both local copies agree with the database.
    row = psql(f"""SELECT status, claimed_by, declared_by, completed_at > '{at.isoformat()}', due_date IS NOT NULL, version
                   FROM tasks WHERE id = '{task}'""").split("|")
    assert row == ["completed", str(b.id), str(a.id), "t", "t", "3"]
    assert psql(f"SELECT status || ' ' || (deleted_at >= '{at.isoformat()}') FROM tasks WHERE id = '{scrapped}'") == "deleted true"
    assert psql(f"SELECT status || ' ' || (deleted_at >= '{at.isoformat()}') FROM activities WHERE id = '{activity}'") == "deleted true"
    assert psql(f"""SELECT string_agg(coalesce(old_status, '-') || '>' || new_status || ':' || (changed_by = '{a.id}'),
                   ',' ORDER BY created_at, new_status DESC) FROM status_changes WHERE entity_id = '{activity}'""") == \
        "->open:true,open>deleted:true"
    assert psql(f"SELECT string_agg(action || ':' || user_id, ',') FROM claim_events WHERE entity_id = '{task}'") == \
        f"claimed:{b.id}"
    assert psql(f"SELECT price::text || ' ' || status || ' ' || owned_by FROM listings WHERE id = '{listing}'") == \
        f"649000.50 active {a.id}"
    for app in (a, b):
        assert app.row("tasks", task)["status"] == "completed" and app.row("tasks", task)["claimed_by"].lower() == str(b.id)
        assert app.row("activities", activity)["status"] == "deleted" and app.row("activities", activity)["deleted_at"]
        assert any(event["entity_id"].lower() == str(task) for event in app.local["claim_events"].values())

    # Last, the lost race as the app's catch sees it (errshape's `details` is text, not an object).
    assert lost.value.decodes and lost.value.code == "claim_conflict"
    assert isinstance(lost.value.details, str) and str(b.id) in lost.value.details.lower(), lost.value.details
