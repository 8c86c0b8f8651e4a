"""Realtime across two server instances on one database (docs/app-developers/realtime.md,
docs/operators/scaling.md).

A second `dispatchd serve` runs on the shared server's database, JWT secret and publishable key,
as replicas behind a load balancer do. A write through either instance reaches a subscriber
connected to the other, through the official Python client; the other instance never saw the
request, so only the database's change stream can have told it.
"""

import asyncio

from realtime import RealtimeSubscribeStates
from realtime_subscriber import Subscriber, api, record_id, token_of


def test_a_write_through_one_instance_reaches_a_subscriber_on_the_other(server, replica, create_realtor,
                                                                       signed_in_client):
    second = replica("second-instance")
    owner = signed_in_client(create_realtor("Rhea Replica"))
    token = token_of(owner)

    async def scenario():
        on_second = await Subscriber(second, token).subscribe("across-2", [{"event": "*", "table": "tasks"}])
        on_first = await Subscriber(server, token).subscribe("across-1", [{"event": "*", "table": "tasks"}])
        for subscriber in (on_first, on_second):
            assert subscriber.state == RealtimeSubscribeStates.SUBSCRIBED, subscriber.error
        async with api(server, owner) as through_first, api(second, owner) as through_second:
            created = await through_first.post("/v1/tasks", json={"title": "Written on the first"})
            assert created.status_code == 201, created.text
            task = created.json()
            insert = await on_second.next(lambda p: record_id(p) == task["id"])
            assert insert["data"]["type"] == "INSERT" and insert["data"]["record"] == task

            changed = await through_second.patch(f"/v1/tasks/{task['id']}", json={"title": "Changed on the second"})
            assert changed.status_code == 200, changed.text
            update = await on_first.next(lambda p: record_id(p) == task["id"] and p["data"]["type"] == "UPDATE")
            assert update["data"]["record"]["title"] == "Changed on the second"
        await on_first.close()
        await on_second.close()

    asyncio.run(scenario())
