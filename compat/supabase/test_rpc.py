"""The claim RPCs through the official supabase-py client:
`rpc("claim_task", {"task_id": …})`, `release_task`, `claim_activity`, `release_activity`.

Each answers the row as one JSON object (`.execute().data` is a dict), runs the same claim as
`POST /v1/tasks/{id}/claim` (one claim_events row, a version bump), and a lost race is a 409
`claim_conflict` whose `details` text names the holder (`claimed_by=<id>`). Rows are set up through /v1 with the same
session; claim_events are counted through /rest/v1 as the admin (who sees every row).
"""

import threading
import uuid

import httpx
import pytest
from conftest import Account
from postgrest.exceptions import APIError


class Scene:
    """A listing Olive owns with Sam as its staff, and a task and an activity on it."""

    def __init__(self, server, create_realtor, signed_in_client):
        self.owner = create_realtor("Olive Owner")
        self.staff = create_realtor("Sam Staff")
        self.stranger = create_realtor("Stan Stranger")
        self.client = signed_in_client(self.owner)
        self.staff_client = signed_in_client(self.staff)
        self.admin = signed_in_client(Account(id="", email=server.admin_email, password=server.admin_password))
        token = self.client.auth.get_session().access_token
        api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        listing = api.post("/v1/listings", json={"address": "1 Main St", "assigned_staff": self.staff.id})
        assert listing.status_code == 201, listing.text
        self.listing = listing.json()["id"]
        self.task = self.create(api, "tasks")
        self.activity = self.create(api, "activities")

    def create(self, api, table):
        response = api.post(f"/v1/{table}", json={"title": "Call the buyer", "listing_id": self.listing})
        assert response.status_code == 201, response.text
        return response.json()["id"]

    def claim_events(self, entity_id):
        return self.admin.table("claim_events").select("*").eq("entity_id", entity_id).order("created_at").execute().data


@pytest.fixture
def scene(server, create_realtor, signed_in_client):
    return Scene(server, create_realtor, signed_in_client)


@pytest.mark.parametrize("kind", ["task", "activity"])
def test_claim_then_release_answer_the_row_and_write_one_event_each(scene, kind):
    item = scene.task if kind == "task" else scene.activity
    # supabase-swift sends upper-case UUIDs; both spellings name the item.
    claimed = scene.client.rpc(f"claim_{kind}", {f"{kind}_id": item.upper()}).execute().data
    assert isinstance(claimed, dict)
    assert claimed["id"] == item and claimed["claimed_by"] == scene.owner.id and claimed["version"] == 2
    assert [e["action"] for e in scene.claim_events(item)] == ["claimed"]

    released = scene.client.rpc(f"release_{kind}", {f"{kind}_id": item}).execute().data
    assert released["claimed_by"] is None and released["claimed_at"] is None and released["version"] == 3
    events = scene.claim_events(item)
    assert [(e["action"], e["user_id"], e["actor_id"]) for e in events] == [
        ("claimed", scene.owner.id, scene.owner.id), ("released", scene.owner.id, scene.owner.id)]


def test_a_claim_held_by_someone_else_is_a_conflict_naming_the_holder(scene):
    scene.client.rpc("claim_task", {"task_id": scene.task}).execute()
    with pytest.raises(APIError) as refused:
        scene.staff_client.rpc("claim_task", {"task_id": scene.task}).execute()
    assert refused.value.code == "claim_conflict"
    assert f"claimed_by={scene.owner.id}" in refused.value.details.split(" ")
    assert refused.value.message == "Someone else has claimed this task."
    # Only the holder (or an admin) releases it; the loser's attempts wrote nothing.
    with pytest.raises(APIError) as not_theirs:
        scene.staff_client.rpc("release_task", {"task_id": scene.task}).execute()
    assert not_theirs.value.code == "42501"
    assert len(scene.claim_events(scene.task)) == 1
    row = scene.admin.table("tasks").select("claimed_by,version").eq("id", scene.task).single().execute().data
    assert row == {"claimed_by": scene.owner.id, "version": 2}


def test_an_outsider_and_an_anonymous_caller_change_nothing(scene, new_client, signed_in_client):
    with pytest.raises(APIError) as hidden:
        signed_in_client(scene.stranger).rpc("claim_task", {"task_id": scene.task}).execute()
    assert hidden.value.code == "not_found"
    with pytest.raises(APIError) as anonymous:
        new_client().rpc("claim_task", {"task_id": scene.task}).execute()
    assert anonymous.value.code == "PGRST301"
    assert scene.claim_events(scene.task) == []
    row = scene.admin.table("tasks").select("claimed_by,version").eq("id", scene.task).single().execute().data
    assert row == {"claimed_by": None, "version": 1}


def test_wrong_names_and_values_answer_postgrest_codes(scene):
    with pytest.raises(APIError) as unknown:
        scene.client.rpc("claim_everything", {"task_id": scene.task}).execute()
    assert unknown.value.code == "PGRST202"
    with pytest.raises(APIError) as wrong_parameter:
        scene.client.rpc("claim_task", {"id": scene.task}).execute()
    assert wrong_parameter.value.code == "PGRST202"
    assert wrong_parameter.value.hint == "Perhaps you meant to call the function public.claim_task(task_id)"
    with pytest.raises(APIError) as not_a_uuid:
        scene.client.rpc("claim_task", {"task_id": "tomorrow"}).execute()
    assert not_a_uuid.value.code == "22P02"
    assert scene.claim_events(scene.task) == []


def test_twenty_simultaneous_claims_have_exactly_one_winner(server, scene, create_realtor, signed_in_client):
    # Admins see every task, so twenty distinct admins all compete for the same one.
    clients = [signed_in_client(create_realtor(f"Admin {n}", user_type="admin")) for n in range(20)]
    ids = [client.auth.get_user().user.id for client in clients]
    barrier = threading.Barrier(len(clients))
    results = [None] * len(clients)

    def claim(index):
        barrier.wait()
        try:
            results[index] = ("won", clients[index].rpc("claim_task", {"task_id": scene.task}).execute().data)
        except APIError as error:
            results[index] = (error.code, error.details)

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    winners = [n for n, (outcome, _) in enumerate(results) if outcome == "won"]
    assert len(winners) == 1, results
    winner = ids[winners[0]]
    losers = [details for outcome, details in results if outcome != "won"]
    assert len(losers) == 19 and all(r[0] == "claim_conflict" for r in results if r[0] != "won"), results
    assert all(f"claimed_by={winner}" in details.split(" ") for details in losers)
    events = scene.claim_events(scene.task)
    assert [(e["action"], e["user_id"]) for e in events] == [("claimed", winner)]
    row = scene.admin.table("tasks").select("claimed_by").eq("id", scene.task).single().execute().data
    assert row["claimed_by"] == winner
