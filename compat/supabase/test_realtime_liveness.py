"""Realtime's timers and send bound over a raw socket (see
docs/app-developers/realtime.md, WebSocket transport).

A replica with short timers (WS_PING_INTERVAL=1, WS_PONG_TIMEOUT=2, WS_IDLE_TIMEOUT=4) shows
the heartbeat rules in seconds: a client that never answers the server's ping is dropped with
1001, one that answers pings but sends no Phoenix heartbeat is closed with 1000 "idle timeout",
and one that sends Phoenix heartbeats stays. A replica with a 64 KiB send queue
(WS_SEND_QUEUE_BYTES) shows a consumer that stops reading while broadcasts pour in being closed
with 1008 instead of buffered, measured by the server's own send-queue counters on /metrics. Time bounds are generous upper bounds: they only tell "after the timer" from
"never". That the server waited for its timer is shown by order (a ping came first, pongs were
answered), never by measuring how long it waited: a loaded machine delays the client's clock
reading too. The pong timeout leaves the client 2 s to answer a ping, so a scheduling stall of
the test process does not read as a server fault.
"""

import time

import httpx
import pytest
from raw_websocket import RawWebSocket
from websockets.frames import OP_CLOSE, OP_PING

PING_INTERVAL, PONG_TIMEOUT, IDLE_TIMEOUT = 1, 2, 4
SEND_QUEUE_BYTES = 64 * 1024


@pytest.fixture(scope="module")
def short_timers(replica):
    return replica("short-timers", WS_PING_INTERVAL=str(PING_INTERVAL), WS_PONG_TIMEOUT=str(PONG_TIMEOUT),
                   WS_IDLE_TIMEOUT=str(IDLE_TIMEOUT))


@pytest.fixture(scope="module")
def small_send_queue(replica):
    # A long close timeout: the slow client reads its close frame only after the flood.
    return replica("small-send-queue", WS_SEND_QUEUE_BYTES=str(SEND_QUEUE_BYTES), WS_CLOSE_TIMEOUT="60")


def test_a_client_that_never_answers_pings_is_dropped_with_1001(server, short_timers):
    raw = RawWebSocket(short_timers.url, server.publishable_key)
    raw.answer_pings = False
    raw.wait_for_ping()
    pinged = time.monotonic()
    # The close follows the unanswered ping (order, not a measured wait).
    close = raw.close_received()
    assert close is not None and (close.code, close.reason) == (1001, "heartbeat timeout")
    assert time.monotonic() - pinged <= PONG_TIMEOUT + 10
    assert raw.next_frame() is None  # dropped, not waiting for a close handshake
    raw.close()


def test_a_client_answering_pings_without_phoenix_heartbeats_is_closed_when_idle(server, short_timers):
    raw = RawWebSocket(short_timers.url, server.publishable_key)
    opened = time.monotonic()
    pings = 0
    # Bounded: a server that never applies the idle timeout keeps pinging (once a second) forever.
    while (frame := raw.next_frame()) is not None and frame.opcode == OP_PING:
        pings += 1  # answered by the protocol (answer_pings)
        assert time.monotonic() - opened <= IDLE_TIMEOUT + 10, f"still open after {pings} pings: no idle timeout"
    closed = time.monotonic()
    assert frame is not None and frame.opcode == OP_CLOSE, f"no close frame: {frame}"
    close = raw.protocol.close_rcvd
    assert close is not None and (close.code, close.reason) == (1000, "idle timeout")
    assert pings >= 1  # the pongs kept it past the pong timeout; the missing heartbeats ended it
    assert closed - opened <= IDLE_TIMEOUT + 10
    raw.close()


def test_phoenix_heartbeats_keep_the_socket_open_past_the_idle_timeout(server, short_timers):
    raw = RawWebSocket(short_timers.url, server.publishable_key)
    opened = time.monotonic()
    while time.monotonic() - opened < IDLE_TIMEOUT + 1.5:
        ref = raw.send_message("phoenix", "heartbeat", {})
        assert raw.reply_to(ref) == {"status": "ok", "response": {}}
        time.sleep(0.4)
    raw.close()


def sign_in(url: str, account) -> str:
    response = httpx.post(f"{url}/v1/auth/login", json={"email": account.email, "password": account.password})
    assert response.status_code == 200, response.text
    return response.json()["access_token"]


def kernel_send_buffer_max() -> int:
    """The most a TCP socket's send buffer can grow to here (tcp_wmem's maximum)."""
    with open("/proc/sys/net/ipv4/tcp_wmem") as limits:
        return int(limits.read().split()[2])


# A close frame: 2 bytes of header, the code, a reason of at most 123 bytes.
CLOSE_FRAME_BYTES = 127


def test_a_consumer_that_stops_reading_is_closed_with_1008_not_buffered(server, small_send_queue, create_realtor):
    account = create_realtor("Flo Flood")
    token = sign_in(small_send_queue.url, account)
    # The user's own private topic: every socket here is the same user (REALTIME_PUBLIC_BROADCAST is off).
    topic = f"realtime:user:{account.id}"
    config = {"broadcast": {"self": False, "ack": True}, "private": True}
    # Small receive buffer and segments: the kernel takes little, so the server's own bound decides.
    slow = RawWebSocket(small_send_queue.url, server.publishable_key, receive_buffer=4096, max_segment=1024)
    assert slow.reply_to(slow.join(topic, token, config))["status"] == "ok"

    # More than the send queue plus everything the kernel could hold, whatever it would take:
    # broadcasts of 48 KiB, 45 per connection (within the burst of 50), from enough connections.
    kernel_bytes = kernel_send_buffer_max() + 256 * 1024
    broadcast_bytes, per_flooder = 48 * 1024, 45
    flooders = -(-(SEND_QUEUE_BYTES + kernel_bytes + 1024 * 1024) // (broadcast_bytes * per_flooder))
    sent = 0
    overflows_before = small_send_queue.metrics()["websocket_send_queue_overflows_total"]
    for _ in range(flooders):
        flooder = RawWebSocket(small_send_queue.url, server.publishable_key)
        flood_ref = flooder.join(topic, token, config)
        assert flooder.reply_to(flood_ref)["status"] == "ok"
        for _ in range(per_flooder):
            ref = flooder.send_message(topic, "broadcast", {"type": "broadcast", "event": "fill",
                                                            "payload": {"n": sent, "pad": "x" * broadcast_bytes}},
                                       join_ref=flood_ref)
            assert flooder.reply_to(ref)["status"] == "ok"  # relayed (the ack comes after the relay)
            sent += 1
        flooder.close()

    # What the server held for sending, as it counts it (never the process's RSS, which moves
    # with malloc's arenas): one connection never held more than the bound and a close frame,
    # the bound was reached (the queue filled to within one broadcast of it), and the slow
    # consumer is the one connection closed for it.
    metrics = small_send_queue.metrics()
    peak = metrics["websocket_send_queue_peak_bytes"]
    assert peak <= SEND_QUEUE_BYTES + CLOSE_FRAME_BYTES, f"one connection held {peak} bytes for sending"
    assert peak > SEND_QUEUE_BYTES - broadcast_bytes - 1024, f"the send queue never filled: peak {peak}"
    assert metrics["websocket_send_queue_overflows_total"] == overflows_before + 1

    # Only now does the slow client read: what the server and the kernel kept, then the close frame.
    delivered = []
    while (message := slow.next_message()) is not None:
        if message[3] == "broadcast":
            delivered.append(message[4]["payload"]["n"])
    close = slow.protocol.close_rcvd
    assert close is not None and close.code == 1008, close
    assert "too slowly" in close.reason
    assert len(delivered) < sent  # the rest was refused, not queued
    assert delivered == list(range(len(delivered)))  # what did arrive came in order, with no gap
    assert slow.bytes_received < SEND_QUEUE_BYTES + kernel_bytes + 64 * 1024
    slow.close()
