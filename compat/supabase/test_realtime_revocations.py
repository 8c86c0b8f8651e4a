"""Rows leaving a user's view, seen through the official Python client.

Sam is the staff of Olive's listing and sees its tasks. Each way a row can leave his view — a
task moved to another listing, the listing reassigned (its tasks go with it), a claim
released (the task, and the listing he only saw through that claim) — reaches his
subscription as a DELETE with `old_record: {id}`. Olive, who still sees every row, gets
UPDATEs and never a DELETE; Otto, who never saw them, gets nothing about them at all.
"""

import asyncio

from realtime import RealtimeSubscribeStates
from realtime_subscriber import Subscriber, api, record_id, token_of


def event(payload) -> tuple[str, str, str]:
    data = payload["data"]
    return data["table"], data["type"], record_id(payload)


async def expect(subscriber: Subscriber, *wanted: tuple[str, str, str]):
    """Waits until every wanted (table, type, id) arrived; returns everything that came meanwhile."""
    missing, seen = set(wanted), []
    while missing:
        payload = await subscriber.next()
        seen.append(payload)
        missing.discard(event(payload))
    return seen


def test_each_way_of_leaving_the_view_arrives_as_a_delete_only_for_who_lost_the_row(
        server, create_realtor, signed_in_client):
    olive_account, sam_account, otto_account = (create_realtor(name) for name in ("Olive Owner", "Sam Staff",
                                                                                   "Otto Outsider"))
    olive, sam, otto = (signed_in_client(account) for account in (olive_account, sam_account, otto_account))
    everything = [{"table": None}]

    async def scenario():
        async with api(server, olive) as as_olive, api(server, sam) as as_sam, api(server, otto) as as_otto:
            async def create(path, body):
                response = await as_olive.post(path, json=body)
                assert response.status_code == 201, response.text
                return response.json()["id"]

            listing = await create("/v1/listings", {"address": "1 Dock St", "city": "Halifax",
                                                    "assigned_staff": sam_account.id})
            elsewhere = await create("/v1/listings", {"address": "2 Dock St", "city": "Halifax"})
            moved, released, reassigned = [await create("/v1/tasks", {"title": title, "listing_id": listing})
                                           for title in ("Move me", "Claim me", "Stay with the listing")]
            subscribers = [await Subscriber(server, token_of(client)).subscribe(f"view-{name}", everything)
                           for name, client in (("sam", sam), ("olive", olive), ("otto", otto))]
            for subscriber in subscribers:
                assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
            as_sam_feed, olive_feed, otto_feed = subscribers

            # A task moved to a listing Sam has nothing to do with.
            response = await as_olive.patch(f"/v1/tasks/{moved}", json={"listing_id": elsewhere})
            assert response.status_code == 200, response.text
            sam_seen = await expect(as_sam_feed, ("tasks", "DELETE", moved))

            # The listing reassigned: its unclaimed task leaves with it; the listing stays, since
            # Sam still holds a claim on it.
            response = await as_sam.post(f"/v1/tasks/{released}/claim")
            assert response.status_code == 200, response.text
            response = await as_olive.patch(f"/v1/listings/{listing}", json={"assigned_staff": None})
            assert response.status_code == 200, response.text
            sam_seen += await expect(as_sam_feed, ("tasks", "DELETE", reassigned), ("listings", "UPDATE", listing))

            # The claim released: the task, and the listing he saw only through it.
            response = await as_sam.delete(f"/v1/tasks/{released}/claim")
            assert response.status_code == 200, response.text
            sam_seen += await expect(as_sam_feed, ("tasks", "DELETE", released), ("listings", "DELETE", listing))
            for payload in sam_seen:
                if payload["data"]["type"] == "DELETE":
                    assert payload["data"]["old_record"] == {"id": record_id(payload)}
                    assert payload["data"]["record"] == {}, payload

            olive_seen = await expect(olive_feed, ("tasks", "UPDATE", moved), ("listings", "UPDATE", listing),
                                      ("tasks", "UPDATE", released))
            assert [event(p) for p in olive_seen if p["data"]["type"] == "DELETE"] == []

            # Otto's own write marks the end of his feed: nothing about Olive's rows came before it.
            mine = await as_otto.post("/v1/tasks", json={"title": "Otto's own"})
            assert mine.status_code == 201, mine.text
            otto_seen = await expect(otto_feed, ("tasks", "INSERT", mine.json()["id"]))
            private = {listing, elsewhere, moved, released, reassigned}
            assert [event(p) for p in otto_seen if record_id(p) in private] == []
        for subscriber in subscribers:
            await subscriber.close()

    asyncio.run(scenario())
