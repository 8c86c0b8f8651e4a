"""One signed-in user's realtime subscription through the official Python client
(AsyncRealtimeClient, PyPI `realtime`), shared by the realtime test modules.

`server` is anything with `url` and `publishable_key`: the shared server or a replica.
"""

import asyncio

import httpx
from realtime import AsyncRealtimeClient

TIMEOUT = 15


class Subscriber:
    """One realtime socket and one channel of a signed-in user, collecting postgres_changes."""

    def __init__(self, server, token: str | None):
        self.server = server
        self.token = token
        self.events: asyncio.Queue = asyncio.Queue()
        self.client: AsyncRealtimeClient | None = None
        self.state = None
        self.error = None

    async def subscribe(self, topic: str, changes: list[dict], replay_from: str | None = None):
        self.client = AsyncRealtimeClient(f"{self.server.url}/realtime/v1", self.server.publishable_key,
                                          auto_reconnect=False)
        await self.client.connect()
        if self.token:
            await self.client.set_auth(self.token)
        # The replay cursor travels as the presence key (this server refuses presence).
        params = None if replay_from is None else {"config": {
            "broadcast": {"ack": False, "self": False}, "presence": {"key": replay_from, "enabled": False},
            "private": False}}
        channel = self.client.channel(topic, params)
        for change in changes:
            channel.on_postgres_changes(change.get("event", "*"), callback=self.events.put_nowait,
                                        table=change.get("table"), schema="public", filter=change.get("filter"))

        def on_state(state, error):
            self.state, self.error = state, error

        await channel.subscribe(on_state)
        return self

    async def next(self, matching=lambda payload: True, timeout: float = TIMEOUT):
        async def wait():
            while True:
                payload = await self.events.get()
                if matching(payload):
                    return payload
        return await asyncio.wait_for(wait(), timeout)

    async def close(self):
        if self.client:
            await self.client.close()


def record_id(payload) -> str | None:
    data = payload["data"]
    return (data.get("record") or {}).get("id") or (data.get("old_record") or {}).get("id")


def api(server, client) -> httpx.AsyncClient:
    token = client.auth.get_session().access_token
    return httpx.AsyncClient(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def token_of(client) -> str:
    return client.auth.get_session().access_token
