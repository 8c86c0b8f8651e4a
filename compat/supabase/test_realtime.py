"""Realtime through the official Python client (PyPI `realtime`, part of supabase-py).

A signed-in user subscribes with AsyncRealtimeClient (vsn 1.0.0, the publishable key in the
URL, the user's access token in the join) and sees inserts and updates made through /v1; a
row leaving its view (a listing's staff removed) arrives as a DELETE; an outsider's
subscription receives none of another user's private rows; a write made the instant the
subscription is confirmed is delivered; a join without a user's token is refused; a join that
passes a sync cursor as its presence key gets the changes it missed replayed before live ones.
"""

import asyncio
import uuid

from realtime import RealtimeSubscribeStates
from realtime_subscriber import Subscriber, api, record_id, token_of


def test_inserts_and_updates_made_through_v1_arrive(server, create_realtor, signed_in_client):
    owner = signed_in_client(create_realtor("Rita Realtime"))

    async def scenario():
        subscriber = await Subscriber(server, token_of(owner)).subscribe("tasks", [{"table": "tasks"}])
        assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
        async with api(server, owner) as http:
            created = await http.post("/v1/tasks", json={"title": "Call the buyer"})
            assert created.status_code == 201, created.text
            task = created.json()
            insert = await subscriber.next(lambda p: record_id(p) == task["id"])
            assert insert["data"]["type"] == "INSERT"
            assert insert["data"]["table"] == "tasks" and insert["data"]["schema"] == "public"
            assert insert["data"]["record"] == task  # the same row JSON as /v1
            assert {"name": "id", "type": "uuid"} in insert["data"]["columns"]
            assert insert["data"]["commit_timestamp"]

            changed = await http.patch(f"/v1/tasks/{task['id']}", json={"title": "Call the buyer again"})
            assert changed.status_code == 200, changed.text
            update = await subscriber.next(lambda p: record_id(p) == task["id"])
            assert update["data"]["type"] == "UPDATE"
            assert update["data"]["record"]["title"] == "Call the buyer again"
            assert update["data"]["old_record"] == {"id": task["id"]}
        await subscriber.close()

    asyncio.run(scenario())


def test_a_row_leaving_the_view_arrives_as_a_delete(server, create_realtor, signed_in_client):
    owner_account, staff_account = create_realtor("Olive Owner"), create_realtor("Sam Staff")
    owner, staff = signed_in_client(owner_account), signed_in_client(staff_account)

    async def scenario():
        async with api(server, owner) as http:
            created = await http.post("/v1/listings", json={"address": "9 Harbour Rd", "city": "Halifax",
                                                            "assigned_staff": staff_account.id})
            assert created.status_code == 201, created.text
            listing = created.json()["id"]
            subscriber = await Subscriber(server, token_of(staff)).subscribe("listings", [{"table": "listings"}])
            assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
            reassigned = await http.patch(f"/v1/listings/{listing}", json={"assigned_staff": None})
            assert reassigned.status_code == 200, reassigned.text
            gone = await subscriber.next(lambda p: record_id(p) == listing)
            assert gone["data"]["type"] == "DELETE"
            assert gone["data"]["old_record"] == {"id": listing}
        await subscriber.close()

    asyncio.run(scenario())


def test_an_outsider_receives_nothing_of_private_rows(server, create_realtor, signed_in_client):
    owner, outsider = signed_in_client(create_realtor("Olive Owner")), signed_in_client(create_realtor("Otto Outsider"))

    async def scenario():
        spy = await Subscriber(server, token_of(outsider)).subscribe("everything", [{"table": None}])
        assert spy.state == RealtimeSubscribeStates.SUBSCRIBED, spy.error
        async with api(server, owner) as http, api(server, outsider) as own:
            task = (await http.post("/v1/tasks", json={"title": "Private"})).json()
            note = await http.post("/v1/notes", json={"parent_type": "task", "parent_id": task["id"], "content": "secret"})
            assert note.status_code == 201, note.text
            await http.patch(f"/v1/tasks/{task['id']}", json={"title": "Still private"})
            # A write the outsider may see proves its feed ran past the private ones.
            mine = (await own.post("/v1/tasks", json={"title": "Mine"})).json()
            seen = []
            while True:
                payload = await spy.next()
                seen.append(payload)
                if record_id(payload) == mine["id"]:
                    break
        leaked = [p for p in seen if p["data"]["table"] != "users"]
        assert [record_id(p) for p in leaked] == [mine["id"]]
        await spy.close()

    asyncio.run(scenario())


def test_a_write_right_after_subscribing_is_delivered(server, create_realtor, signed_in_client):
    owner = signed_in_client(create_realtor("Rita Race"))

    async def scenario():
        async with api(server, owner) as http:
            for round_number in range(10):
                subscriber = await Subscriber(server, token_of(owner)).subscribe(
                    f"race-{round_number}", [{"event": "INSERT", "table": "tasks"}])
                assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
                # The instant subscribe() returns (SUBSCRIBED), write.
                task = (await http.post("/v1/tasks", json={"title": f"race {round_number}"})).json()
                insert = await subscriber.next(lambda p: record_id(p) == task["id"])
                assert insert["data"]["type"] == "INSERT"
                await subscriber.close()

    asyncio.run(scenario())


def test_a_join_without_a_users_token_is_refused(server):
    async def scenario():
        anonymous = await Subscriber(server, None).subscribe(f"anon-{uuid.uuid4().hex[:6]}", [{"table": "tasks"}])
        assert anonymous.state == RealtimeSubscribeStates.CHANNEL_ERROR
        assert "InvalidJWTToken" in str(anonymous.error)
        await anonymous.close()

    asyncio.run(scenario())


def test_a_join_with_a_sync_cursor_replays_what_it_missed(server, create_realtor, signed_in_client):
    owner = signed_in_client(create_realtor("Rita Replay"))

    async def scenario():
        async with api(server, owner) as http:
            first = (await http.post("/v1/tasks", json={"title": "Before"})).json()
            # Catch up to now with /v1/sync: its next_since is the cursor an event carries too.
            page = (await http.get("/v1/sync")).json()
            while page["has_more"]:
                page = (await http.get("/v1/sync", params={"since": page["next_since"]})).json()
            cursor = page["next_since"]
            # Missed while away: an insert and an update.
            missed = (await http.post("/v1/tasks", json={"title": "While away"})).json()
            assert (await http.patch(f"/v1/tasks/{first['id']}", json={"title": "Renamed"})).status_code == 200

            subscriber = await Subscriber(server, token_of(owner)).subscribe(
                "replay", [{"table": "tasks"}], replay_from=cursor)
            assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
            live = (await http.post("/v1/tasks", json={"title": "Live"})).json()
            seen = [await subscriber.next() for _ in range(3)]
            assert [(record_id(p), p["data"]["type"]) for p in seen] == [
                (missed["id"], "INSERT"), (first["id"], "UPDATE"), (live["id"], "INSERT")]
            await subscriber.close()

            refused = await Subscriber(server, token_of(owner)).subscribe(
                "replay-bad", [{"table": "tasks"}], replay_from="not-a-cursor")
            assert refused.state == RealtimeSubscribeStates.CHANNEL_ERROR
            assert "InvalidCursor" in str(refused.error)
            await refused.close()

    asyncio.run(scenario())
