"""/rest/v1 reads through the official supabase-py client.

Every filter, order, paging, count, single and maybe_single; visibility (an outsider sees
nothing); the blocked-writer race for delta polling; and an unbounded read past Supabase's
1,000-row cap. Rows are created through /v1 with the same session (one session system), and
bulk rows and the row lock of the race through psql on the server's embedded PostgreSQL.
"""

import os
import subprocess
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import pytest
from postgrest.exceptions import APIError

ROWS = [
    ("Alpha", "low", "2026-01-01T09:00:00Z", "call, then email"),
    ("Bravo", "medium", "2026-01-02T09:00:00Z", None),
    ("Charlie", "high", None, "photos"),
    ("Delta", "urgent", "2026-01-04T09:00:00Z", None),
    ("Echo", "medium", "2026-01-05T09:00:00Z", "sign (twice)"),
]


def psql_args():
    """psql arguments for the server's embedded cluster (its socket directory and port are in
    postmaster.pid under DATA_DIR, which scripts/supabase-test exports)."""
    lines = open(os.path.join(os.environ["DATA_DIR"], "postgres", "postmaster.pid")).read().splitlines()
    return ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", lines[4], "-p", lines[3], "-U", "postgres",
            "-d", "postgres"]


def psql(sql: str) -> str:
    return subprocess.run(psql_args() + ["-c", sql], check=True, capture_output=True, text=True).stdout


class World:
    def __init__(self, server, create_realtor, signed_in_client):
        self.owner = create_realtor("Olive Owner")
        self.stranger = create_realtor("Stan Stranger")
        self.client = signed_in_client(self.owner)
        self.outsider = signed_in_client(self.stranger)
        token = self.client.auth.get_session().access_token
        self.api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        listing = self.api.post("/v1/listings", json={"address": "1 Main St", "city": "Halifax"})
        assert listing.status_code == 201, listing.text
        self.listing = listing.json()["id"]
        self.ids = {}
        for title, priority, due, description in ROWS:
            body = {"title": title, "priority": priority, "listing_id": self.listing}
            if due:
                body["due_date"] = due
            if description:
                body["description"] = description
            response = self.api.post("/v1/tasks", json=body)
            assert response.status_code == 201, response.text
            self.ids[title] = response.json()["id"]

    def tasks(self):
        return self.client.table("tasks").select("*").eq("listing_id", self.listing)

    def titles(self, query) -> list:
        return [row["title"] for row in query.execute().data]


@pytest.fixture(scope="module")
def world(server, create_realtor, admin_api):
    from supabase import ClientOptions, create_client

    def sign_in(account):
        client = create_client(server.url, server.publishable_key,
                               ClientOptions(auto_refresh_token=False, persist_session=False))
        client.auth.sign_in_with_password({"email": account.email, "password": account.password})
        return client

    return World(server, create_realtor, sign_in)


def test_every_filter(world):
    t = world.tasks
    assert world.titles(t().eq("title", "Bravo")) == ["Bravo"]
    assert set(world.titles(t().neq("priority", "medium"))) == {"Alpha", "Charlie", "Delta"}
    assert set(world.titles(t().gt("due_date", "2026-01-02T09:00:00+00:00"))) == {"Delta", "Echo"}
    assert set(world.titles(t().gte("due_date", "2026-01-02T09:00:00Z"))) == {"Bravo", "Delta", "Echo"}
    assert world.titles(t().lt("due_date", "2026-01-02T09:00:00")) == ["Alpha"]
    assert set(world.titles(t().lte("due_date", "2026-01-02T09:00:00Z"))) == {"Alpha", "Bravo"}
    assert world.titles(t().is_("due_date", "null")) == ["Charlie"]
    assert set(world.titles(t().not_.is_("due_date", "null"))) == {"Alpha", "Bravo", "Delta", "Echo"}
    assert set(world.titles(t().in_("title", ["Alpha", "Echo", "Zulu"]))) == {"Alpha", "Echo"}
    assert set(world.titles(t().in_("description", ["call, then email", "sign (twice)"]))) == {"Alpha", "Echo"}
    assert set(world.titles(t().like("title", "*ha*"))) == {"Alpha", "Charlie"}
    assert set(world.titles(t().ilike("title", "%A%"))) == {"Alpha", "Bravo", "Charlie", "Delta"}
    assert set(world.titles(t().not_.ilike("title", "*a*"))) == {"Echo"}
    assert set(world.titles(t().or_("title.eq.Alpha,priority.eq.urgent"))) == {"Alpha", "Delta"}
    assert set(world.titles(t().or_("title.eq.Alpha,and(priority.eq.medium,due_date.gt.2026-01-03T00:00:00Z)"))) == {"Alpha", "Echo"}
    # Upper-case UUIDs (what Swift's uuidString sends) compare as UUIDs.
    assert world.titles(t().eq("id", world.ids["Delta"].upper())) == ["Delta"]
    rows = world.client.table("tasks").select("id,title,due_date").eq("id", world.ids["Alpha"]).execute().data
    assert rows == [{"id": world.ids["Alpha"], "title": "Alpha", "due_date": "2026-01-01T09:00:00.000Z"}]


def test_order_and_paging(world):
    t = world.tasks
    assert world.titles(t().order("title", desc=True)) == ["Echo", "Delta", "Charlie", "Bravo", "Alpha"]
    assert world.titles(t().order("due_date", nullsfirst=True)) == ["Charlie", "Alpha", "Bravo", "Delta", "Echo"]
    assert world.titles(t().order("due_date", desc=True, nullsfirst=False)) == ["Echo", "Delta", "Bravo", "Alpha", "Charlie"]
    assert world.titles(t().order("priority").order("title", desc=True)) == ["Charlie", "Alpha", "Echo", "Bravo", "Delta"]
    assert world.titles(t().order("title").limit(2)) == ["Alpha", "Bravo"]
    assert world.titles(t().order("title").limit(2).offset(2)) == ["Charlie", "Delta"]
    assert world.titles(t().order("title").range(1, 3)) == ["Bravo", "Charlie", "Delta"]


def test_counts_and_head(world):
    def counted(method, **kwargs):
        return world.client.table("tasks").select("*", count=method, **kwargs).eq("listing_id", world.listing)
    for method in ("exact", "planned", "estimated"):
        response = counted(method).limit(2).execute()
        assert len(response.data) == 2
        assert response.count is not None and response.count >= 0
    assert counted("exact").limit(2).execute().count == 5
    assert counted("exact").eq("priority", "medium").execute().count == 2
    head = counted("exact", head=True).execute()
    assert head.count == 5


def test_single_and_maybe_single(world):
    t = world.tasks
    assert t().eq("title", "Charlie").single().execute().data["id"] == world.ids["Charlie"]
    with pytest.raises(APIError) as none:
        t().eq("title", "Zulu").single().execute()
    assert none.value.code == "PGRST116"
    with pytest.raises(APIError) as many:
        t().eq("priority", "medium").single().execute()
    assert many.value.code == "PGRST116" and "2 rows" in many.value.details
    assert t().eq("title", "Zulu").maybe_single().execute() is None
    assert t().eq("title", "Echo").maybe_single().execute().data["title"] == "Echo"


def test_an_outsider_sees_nothing(world):
    for table in ("listings", "tasks", "activities", "notes", "subtasks", "claim_events", "status_changes"):
        response = world.outsider.table(table).select("*", count="exact").execute()
        assert response.data == [] and response.count == 0, table
    assert world.outsider.table("tasks").select("*").eq("id", world.ids["Alpha"]).maybe_single().execute() is None


def test_errors_are_postgrest_shaped(world):
    with pytest.raises(APIError) as unknown:
        world.client.table("nope").select("*").execute()
    assert unknown.value.code == "PGRST205"
    with pytest.raises(APIError) as column:
        world.client.table("tasks").select("nope").execute()
    assert column.value.code == "42703"
    with pytest.raises(APIError) as value:
        world.client.table("tasks").select("*").eq("id", "not-a-uuid").execute()
    assert value.value.code == "22P02"


def test_unbounded_read_returns_every_row(world):
    psql(f"""INSERT INTO tasks (title, declared_by, listing_id)
             SELECT 'Bulk ' || n, '{world.owner.id}', '{world.listing}' FROM generate_series(1, 1500) AS n""")
    rows = world.client.table("tasks").select("id").eq("listing_id", world.listing).execute().data
    assert len(rows) == 1505 and len({row["id"] for row in rows}) == 1505
    counted = world.client.table("tasks").select("id", count="exact").eq("listing_id", world.listing).execute()
    assert counted.count == 1505 and len(counted.data) == 1505


def test_delta_poll_gets_a_write_that_was_blocked_behind_a_lock(world):
    alpha, bravo = world.ids["Alpha"], world.ids["Bravo"]
    holder = subprocess.Popen(psql_args(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    holder.stdin.write(f"BEGIN;\nSELECT 1 FROM tasks WHERE id = '{alpha}' FOR UPDATE;\n\\echo locked\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == "1"
    assert holder.stdout.readline().strip() == "locked"
    result = {}
    late = threading.Thread(target=lambda: result.update(
        status=world.api.patch(f"/v1/tasks/{alpha}", json={"title": "Late"}).status_code))
    late.start()
    deadline = time.time() + 15
    while psql("SELECT count(*) FROM pg_locks WHERE NOT granted").strip() == "0":
        assert time.time() < deadline, "the PATCH never waited on the lock"
        time.sleep(0.05)
    assert world.api.patch(f"/v1/tasks/{bravo}", json={"title": "Bravo 2"}).status_code == 200

    def poll(since):
        rows = world.client.table("tasks").select("id,title").gt("updated_at", since.isoformat()).execute().data
        return {row["id"]: row["title"] for row in rows}

    first = poll(datetime.now(timezone.utc))
    assert first.get(alpha) != "Late"
    last_sync = datetime.now(timezone.utc)  # the app's lastSync: its own clock after the poll
    holder.stdin.write("COMMIT;\n")
    holder.stdin.close()
    holder.wait(timeout=15)
    late.join(timeout=30)
    assert result.get("status") == 200
    assert poll(last_sync).get(alpha) == "Late"
    # Within the clock-skew bound a phone clock running ahead loses nothing either.
    assert poll(datetime.now(timezone.utc) + timedelta(seconds=50)).get(alpha) == "Late"
