"""/rest/v1 writes through the official supabase-py client.

Insert, upsert (merge replayed, ignore-duplicates), update, soft delete, claims by update
(claim, release, a held claim's 409 naming the holder, 20 clients racing), a bulk write that
is all or nothing, and an outsider whose every write changes nothing. What a request changed
is checked in the database itself (psql on the server's embedded PostgreSQL, as
test_rest_reads.py does), not only through the API.
"""

import os
import subprocess
import threading
import uuid

import httpx
import pytest
from postgrest.exceptions import APIError
from postgrest.types import CountMethod, ReturnMethod


def psql(sql: str) -> str:
    lines = open(os.path.join(os.environ["DATA_DIR"], "postgres", "postmaster.pid")).read().splitlines()
    args = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", lines[4], "-p", lines[3], "-U", "postgres",
            "-d", "postgres", "-c", sql]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def scalar(sql: str) -> int:
    return int(psql(sql))


class Team:
    """An owner with a listing whose assigned staff is a second realtor, and a stranger."""

    def __init__(self, server, create_realtor, signed_in_client):
        self.owner = create_realtor("Olive Owner")
        self.staff = create_realtor("Sam Staff")
        self.stranger_account = create_realtor("Stan Stranger")
        self.client = signed_in_client(self.owner)
        self.staff_client = signed_in_client(self.staff)
        self.stranger = signed_in_client(self.stranger_account)
        token = self.client.auth.get_session().access_token
        api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        listing = api.post("/v1/listings", json={"address": "1 Main St", "assigned_staff": self.staff.id})
        assert listing.status_code == 201, listing.text
        self.listing = listing.json()["id"]

    def new_task(self, title="Call the buyer", client=None) -> str:
        row = (client or self.client).table("tasks").insert({"title": title, "listing_id": self.listing}).execute().data[0]
        return row["id"]


@pytest.fixture
def team(server, create_realtor, signed_in_client):
    return Team(server, create_realtor, signed_in_client)


def test_insert_honours_the_client_id_and_makes_the_caller_the_declarer(team):
    task_id = str(uuid.uuid4()).upper()
    data = team.client.table("tasks").insert({
        "id": task_id, "title": "Stage the house", "listing_id": team.listing,
        "declared_by": team.staff.id, "version": 42, "due_date": "2026-06-15T18:12:04.123",
    }).execute().data
    assert len(data) == 1 and data[0]["id"] == task_id.lower()
    assert data[0]["declared_by"] == team.owner.id and data[0]["version"] == 1
    assert data[0]["due_date"] == "2026-06-15T18:12:04.123Z"
    assert psql(f"SELECT declared_by FROM tasks WHERE id = '{task_id}'") == team.owner.id

    rows = team.client.table("tasks").insert([
        {"title": "One", "listing_id": team.listing, "priority": "high"},
        {"title": "Two", "listing_id": team.listing},
    ]).execute().data
    assert [row["title"] for row in rows] == ["One", "Two"]
    assert [row["priority"] for row in rows] == ["high", "medium"]
    assert scalar(f"SELECT count(*) FROM status_changes WHERE entity_id IN ('{rows[0]['id']}', '{rows[1]['id']}')") == 2


def test_a_merge_upsert_touches_only_the_keys_sent_and_replays_change_nothing(team):
    task_id = str(uuid.uuid4())
    team.client.table("tasks").upsert({"id": task_id, "title": "Offline", "description": "keep me",
                                       "listing_id": team.listing}).execute()
    change = {"id": task_id, "title": "Offline, edited", "status": "completed"}
    for _ in range(3):
        data = team.client.table("tasks").upsert(change, default_to_null=False).execute().data
        assert data[0]["title"] == "Offline, edited" and data[0]["description"] == "keep me"
        assert data[0]["completed_at"] is not None
    assert scalar(f"SELECT version FROM tasks WHERE id = '{task_id}'") == 2
    assert scalar(f"SELECT count(*) FROM status_changes WHERE entity_id = '{task_id}'") == 2


def test_ignore_duplicates_leaves_an_existing_row_alone(team):
    task_id = team.new_task("Original")
    data = team.client.table("tasks").upsert([{"id": task_id, "title": "Changed"}],
                                             ignore_duplicates=True).execute().data
    assert data == []
    assert psql(f"SELECT title FROM tasks WHERE id = '{task_id}'") == "Original"


def test_a_conflict_target_other_than_id_is_a_clear_400(team):
    with pytest.raises(APIError) as refused:
        team.client.table("tasks").upsert({"title": "x"}, on_conflict="title").execute()
    assert refused.value.code == "42P10"


def test_update_and_soft_delete(team):
    task_id = team.new_task()
    data = team.staff_client.table("tasks").update({"priority": "urgent"}).eq("id", task_id).execute().data
    assert data[0]["priority"] == "urgent" and data[0]["version"] == 2
    team.client.table("tasks").delete().eq("id", task_id).execute()
    assert psql(f"SELECT status || ' ' || (deleted_at IS NOT NULL) FROM tasks WHERE id = '{task_id}'") == "deleted true"
    # Syncing clients learn of the delete: the row is still there to read.
    row = team.client.table("tasks").select("status").eq("id", task_id).single().execute().data
    assert row["status"] == "deleted"


def test_writes_report_the_count_the_client_asks_for(team):
    """count= on insert, update and delete: the client reads the rows written from Content-Range."""
    inserted = team.client.table("tasks").insert(
        [{"title": "Count one", "listing_id": team.listing}, {"title": "Count two", "listing_id": team.listing}],
        count=CountMethod.exact).execute()
    assert inserted.count == 2 and len(inserted.data) == 2
    ids = [row["id"] for row in inserted.data]
    updated = team.staff_client.table("tasks").update({"priority": "high"}, count=CountMethod.planned) \
        .in_("id", ids).execute()
    assert updated.count == 2 and {row["priority"] for row in updated.data} == {"high"}
    minimal = team.client.table("tasks").update({"priority": "low"}, count=CountMethod.exact,
                                                returning=ReturnMethod.minimal).in_("id", ids).execute()
    assert minimal.count == 2 and minimal.data == []
    nothing = team.client.table("tasks").update({"priority": "low"}, count=CountMethod.exact) \
        .eq("title", "no such task").execute()
    assert nothing.count == 0 and nothing.data == []
    deleted = team.client.table("tasks").delete(count=CountMethod.estimated).in_("id", ids).execute()
    assert deleted.count == 2
    assert scalar(f"SELECT count(*) FROM tasks WHERE id IN ('{ids[0]}', '{ids[1]}') AND status = 'deleted'") == 2
    # Without count= there is no total ("*/*"), and the client reports none.
    assert team.client.table("tasks").insert({"title": "Uncounted", "listing_id": team.listing}).execute().count is None


def test_claim_and_release_by_update(team):
    task_id = team.new_task()
    claimed = team.staff_client.table("tasks").update({"claimed_by": team.staff.id}).eq("id", task_id).execute().data
    assert claimed[0]["claimed_by"] == team.staff.id and claimed[0]["claimed_at"] is not None

    with pytest.raises(APIError) as lost:
        team.client.table("tasks").update({"claimed_by": team.owner.id, "title": "Mine now"}).eq("id", task_id).execute()
    assert lost.value.code == "claim_conflict"
    # details is PostgREST's text (docs/app-developers/errors.md): logfmt, the holder named.
    assert f"claimed_by={team.staff.id}" in lost.value.details.split(" ")
    assert psql(f"SELECT title FROM tasks WHERE id = '{task_id}'") == "Call the buyer"

    with pytest.raises(APIError) as for_someone_else:
        team.client.table("tasks").update({"claimed_by": team.stranger_account.id}).eq("id", task_id).execute()
    assert for_someone_else.value.code == "42501"

    released = team.staff_client.table("tasks").update({"claimed_by": None}).eq("id", task_id).execute().data
    assert released[0]["claimed_by"] is None
    assert psql(f"SELECT string_agg(action, ',' ORDER BY created_at) FROM claim_events WHERE entity_id = '{task_id}'") \
        == "claimed,released"


def test_twenty_clients_claiming_one_task_by_update_have_exactly_one_winner(server, create_realtor, signed_in_client):
    # Admins see every task, so twenty distinct users all compete for it.
    clients = [(account, signed_in_client(account))
               for account in (create_realtor(f"Admin {i}", user_type="admin") for i in range(20))]
    task_id = clients[0][1].table("tasks").insert({"title": "Race"}).execute().data[0]["id"]
    barrier = threading.Barrier(len(clients))
    outcomes = []
    lock = threading.Lock()

    def claim(account, client):
        barrier.wait()
        try:
            client.table("tasks").update({"claimed_by": account.id}).eq("id", task_id).execute()
            outcome = "ok"
        except APIError as error:
            outcome = error.code
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=claim, args=pair) for pair in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["claim_conflict"] * 19 + ["ok"]
    assert scalar(f"SELECT count(*) FROM claim_events WHERE entity_id = '{task_id}'") == 1


def test_a_bulk_delete_with_one_forbidden_row_changes_nothing(team):
    own = team.new_task("Staff's own", client=team.staff_client)
    owners = team.new_task("Owner's")
    with pytest.raises(APIError) as refused:
        team.staff_client.table("tasks").delete().eq("listing_id", team.listing).execute()
    assert refused.value.code == "42501"
    assert scalar(f"SELECT count(*) FROM tasks WHERE id IN ('{own}', '{owners}') AND status = 'open' AND version = 1") == 2


def test_everything_an_outsider_tries_changes_nothing(team):
    task_id = team.new_task()
    snapshot = f"""SELECT (SELECT string_agg(t::text, '|') FROM tasks t WHERE listing_id = '{team.listing}'),
                          (SELECT string_agg(l::text, '|') FROM listings l WHERE id = '{team.listing}'),
                          (SELECT count(*) FROM claim_events), (SELECT count(*) FROM status_changes),
                          (SELECT string_agg(u::text, '|') FROM users u WHERE id = '{team.owner.id}')"""
    before = psql(snapshot)
    outsider = team.stranger
    assert outsider.table("tasks").update({"title": "Hacked"}).eq("id", task_id).execute().data == []
    assert outsider.table("tasks").delete().eq("id", task_id).execute().data == []
    assert outsider.table("listings").update({"city": "Elsewhere"}).eq("id", team.listing).execute().data == []
    assert outsider.table("tasks").update({"claimed_by": team.stranger_account.id}).eq("id", task_id).execute().data == []
    attempts = [
        lambda: outsider.table("tasks").upsert({"id": task_id, "title": "Hacked"}).execute(),
        lambda: outsider.table("tasks").insert({"id": task_id, "title": "Hacked"}).execute(),
        lambda: outsider.table("tasks").insert({"title": "On their listing", "listing_id": team.listing}).execute(),
        lambda: outsider.table("claim_events").insert({"entity_type": "task", "entity_id": task_id}).execute(),
        lambda: outsider.table("status_changes").delete().eq("entity_id", task_id).execute(),
        lambda: outsider.table("users").update({"name": "Hacked"}).eq("id", team.owner.id).execute(),
        lambda: outsider.table("users").delete().eq("id", team.owner.id).execute(),
        lambda: outsider.table("tasks").delete().neq("id", str(uuid.uuid4())).execute(),
    ]
    for attempt in attempts:
        try:
            result = attempt()
            assert result.data == [], result.data
        except APIError as error:
            assert error.code in {"23505", "42501", "validation_failed"}, error
    assert psql(snapshot) == before
