"""Realtime's WebSocket framing edges over a raw socket (see
docs/app-developers/realtime.md, WebSocket transport).

Each malformed input closes the connection with RFC 6455's status code, and the well-formed
twin of each input is answered normally on the same kind of connection, so every refusal is
the server's verdict on that one defect. The default limits are tested on the shared server;
small limits on a replica started with WS_MAX_FRAME_BYTES and WS_MAX_MESSAGE_BYTES.
"""

import json

import pytest
from raw_websocket import RawWebSocket, frame_bytes
from websockets.frames import OP_BINARY, OP_CONT, OP_TEXT

HEARTBEAT = json.dumps({"join_ref": None, "ref": "hb", "topic": "phoenix", "event": "heartbeat", "payload": {}}).encode()


def padded_heartbeat(size: int) -> bytes:
    """A heartbeat of exactly `size` bytes of JSON (an ignored payload field makes the bulk)."""
    bare = json.dumps({"join_ref": None, "ref": "hb", "topic": "phoenix", "event": "heartbeat",
                       "payload": {"pad": ""}}).encode()
    return bare.replace(b'"pad": ""', b'"pad": "' + b"x" * (size - len(bare)) + b'"')


@pytest.fixture
def connect(server):
    sockets = []

    def open_socket(url: str | None = None) -> RawWebSocket:
        sockets.append(RawWebSocket(url or server.url, server.publishable_key))
        return sockets[-1]

    yield open_socket
    for raw in sockets:
        raw.close()


def assert_answered(raw: RawWebSocket):
    assert raw.reply_to("hb") == {"status": "ok", "response": {}}


def assert_closed_with(raw: RawWebSocket, code: int) -> str:
    close = raw.close_received()
    assert close is not None, "TCP ended without a close frame"
    assert close.code == code, close
    assert raw.next_frame() is None, "the server kept the connection after failing it"
    return close.reason


def test_a_well_formed_masked_frame_is_answered(connect):
    raw = connect()
    raw.send_raw(frame_bytes(OP_TEXT, HEARTBEAT))
    assert_answered(raw)


@pytest.mark.parametrize("rsv", [0b100, 0b010, 0b001], ids=["rsv1", "rsv2", "rsv3"])
def test_a_reserved_bit_closes_with_1002(connect, rsv):
    raw = connect()
    raw.send_raw(frame_bytes(OP_TEXT, HEARTBEAT, rsv=rsv))
    assert_closed_with(raw, 1002)


@pytest.mark.parametrize("opcode", [0x3, 0x7, 0xB, 0xF])
def test_an_unknown_opcode_closes_with_1002(connect, opcode):
    raw = connect()
    raw.send_raw(frame_bytes(opcode, HEARTBEAT))
    assert_closed_with(raw, 1002)


def test_an_unmasked_client_frame_closes_with_1002(connect):
    raw = connect()
    raw.send_raw(frame_bytes(OP_TEXT, HEARTBEAT, masked=False))
    assert_closed_with(raw, 1002)


def test_a_continuation_without_a_message_closes_with_1002(connect):
    raw = connect()
    raw.send_raw(frame_bytes(OP_CONT, HEARTBEAT))
    assert_closed_with(raw, 1002)


def test_a_binary_message_closes_with_1003(connect):
    raw = connect()
    raw.send_raw(frame_bytes(OP_BINARY, HEARTBEAT))
    assert_closed_with(raw, 1003)


def test_text_split_inside_a_character_is_joined_before_checking(connect):
    raw = connect()
    text = HEARTBEAT.replace(b'"hb"', '"hé"'.encode())
    cut = text.index("é".encode()) + 1  # between the two bytes of é
    raw.send_raw(frame_bytes(OP_TEXT, text[:cut], fin=False) + frame_bytes(OP_CONT, text[cut:]))
    assert raw.reply_to("hé") == {"status": "ok", "response": {}}


@pytest.mark.parametrize("fragments", [
    [b'{"topic": "\xff"}'],  # a byte that is never UTF-8
    [b'{"topic": "\xc3', b'("}'],  # a lead byte whose continuation, in the next fragment, is not one
    [b'{"topic": "\xed\xa0\x80"}'],  # an encoded surrogate
], ids=["invalid-byte", "across-fragments", "surrogate"])
def test_invalid_utf8_text_closes_with_1007(connect, fragments):
    raw = connect()
    frames = [frame_bytes(OP_TEXT if index == 0 else OP_CONT, part, fin=index == len(fragments) - 1)
              for index, part in enumerate(fragments)]
    raw.send_raw(b"".join(frames))
    assert_closed_with(raw, 1007)


def test_invalid_utf8_closes_at_the_first_bad_byte_not_the_end_of_the_message(connect):
    raw = connect()
    raw.send_raw(frame_bytes(OP_TEXT, b'{"topic": "\xff', fin=False))  # the message never finishes
    assert_closed_with(raw, 1007)


def test_a_frame_over_the_default_limit_closes_with_1009_before_its_payload(connect):
    raw = connect()
    # Only the header: a 1 MiB + 1 payload is refused from its length (WS_MAX_FRAME_BYTES's default).
    raw.send_raw(bytes([0x81, 0x80 | 127]) + (1 << 20 | 1).to_bytes(8, "big") + b"mask")
    # The message limit has the same default and would refuse this frame too: the reason
    # tells that the frame limit did.
    assert assert_closed_with(raw, 1009) == "frame too big"


@pytest.fixture(scope="module")
def small_limits(replica):
    return replica("small-limits", WS_MAX_FRAME_BYTES="1024", WS_MAX_MESSAGE_BYTES="4096")


def test_a_frame_at_the_limit_is_answered_and_one_byte_more_closes_with_1009(connect, small_limits):
    fits = connect(small_limits.url)
    fits.send_raw(frame_bytes(OP_TEXT, padded_heartbeat(1024)))
    assert_answered(fits)
    over = connect(small_limits.url)
    over.send_raw(frame_bytes(OP_TEXT, padded_heartbeat(1025)))
    assert assert_closed_with(over, 1009) == "frame too big"


def test_a_message_over_the_limit_in_small_fragments_closes_with_1009(connect, small_limits):
    def fragmented(message: bytes) -> bytes:
        parts = [message[start:start + 1000] for start in range(0, len(message), 1000)]
        return b"".join(frame_bytes(OP_TEXT if index == 0 else OP_CONT, part, fin=index == len(parts) - 1)
                        for index, part in enumerate(parts))

    fits = connect(small_limits.url)
    fits.send_raw(fragmented(padded_heartbeat(4096)))  # five fragments, every one under the frame limit
    assert_answered(fits)
    over = connect(small_limits.url)
    over.send_raw(fragmented(padded_heartbeat(4097)))
    assert assert_closed_with(over, 1009) == "message too big"
