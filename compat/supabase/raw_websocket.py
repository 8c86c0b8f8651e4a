"""A WebSocket client under the test's full control, for realtime's protocol edges.

websockets' sans-I/O ClientProtocol does the handshake and parses what the server sends (so a
malformed server frame fails the test), over a plain blocking socket that the test owns: it
can write bytes the library would refuse to produce (reserved bits, unknown opcodes, unmasked
frames), leave pings unanswered, or stop reading altogether.

Phoenix messages use vsn 1.0.0 (objects) unless the socket was opened with vsn="2.0.0".
"""

import itertools
import json
import os
import socket
import struct
import time
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.frames import OP_CLOSE, OP_PING, OP_TEXT, Close, Frame
from websockets.http11 import Response
from websockets.uri import parse_uri


def frame_bytes(opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, masked: bool = True) -> bytes:
    """One frame as RFC 6455 §5.2 lays it out, including what websockets will not send:
    `rsv` is the three reserved bits (0–7), any opcode, and masking optional."""
    first = (0x80 if fin else 0) | (rsv & 0b111) << 4 | opcode
    mask_bit = 0x80 if masked else 0
    if len(payload) < 126:
        header = struct.pack("!BB", first, mask_bit | len(payload))
    elif len(payload) < 1 << 16:
        header = struct.pack("!BBH", first, mask_bit | 126, len(payload))
    else:
        header = struct.pack("!BBQ", first, mask_bit | 127, len(payload))
    if not masked:
        return header + payload
    key = os.urandom(4)
    return header + key + bytes(byte ^ key[index % 4] for index, byte in enumerate(payload))


class RawWebSocket:
    def __init__(self, base_url: str, apikey: str, *, vsn: str = "1.0.0", receive_buffer: int | None = None,
                 max_segment: int | None = None, timeout: float = 15):
        parts = urlsplit(base_url)
        self.vsn = vsn
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            # Before connect, so the advertised window stays small: the server's writes stall early.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        if max_segment is not None:
            # Loopback's 64 KiB segments let the sender's buffer grow to megabytes; small ones keep it small.
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, max_segment)
        self.sock.settimeout(timeout)
        self.sock.connect((parts.hostname, parts.port))
        uri = f"ws://{parts.hostname}:{parts.port}/realtime/v1/websocket?apikey={apikey}&vsn={vsn}"
        self.protocol = ClientProtocol(parse_uri(uri), max_size=None)
        self.protocol.send_request(self.protocol.connect())
        self.flush()
        self.answer_pings = True
        self.bytes_received = 0
        self.refs = itertools.count(1)
        self.pending: list = []
        deadline = time.monotonic() + timeout
        while True:
            event = self._next_event(deadline)
            if isinstance(event, Response):
                assert event.status_code == 101, f"handshake answered {event.status_code}: {event.body!r}"
                break
            assert event is not None, "the server closed during the handshake"

    # Writing

    def flush(self):
        for data in self.protocol.data_to_send():
            if data:
                self.sock.sendall(data)

    def send_raw(self, data: bytes):
        self.sock.sendall(data)

    def send_message(self, topic: str, event: str, payload: dict, *, join_ref: str | None = None) -> str:
        ref = str(next(self.refs))
        if self.vsn == "2.0.0":
            message = [join_ref, ref, topic, event, payload]
        else:
            message = {"join_ref": join_ref, "ref": ref, "topic": topic, "event": event, "payload": payload}
        self.protocol.send_text(json.dumps(message).encode())
        self.flush()
        return ref

    def join(self, topic: str, token: str | None, config: dict | None = None) -> str:
        payload = {"config": config or {"postgres_changes": [{"event": "*", "schema": "public", "table": "tasks"}]}}
        if token is not None:
            payload["access_token"] = token
        ref = str(next(self.refs))
        if self.vsn == "2.0.0":
            message = [ref, ref, topic, "phx_join", payload]
        else:
            message = {"join_ref": ref, "ref": ref, "topic": topic, "event": "phx_join", "payload": payload}
        self.protocol.send_text(json.dumps(message).encode())
        self.flush()
        return ref

    # Reading

    def _next_event(self, deadline: float):
        """The next handshake response or frame; None once the server closed TCP."""
        while True:
            self.pending += self.protocol.events_received()
            if self.pending:
                return self.pending.pop(0)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("nothing from the server in time")
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                self.protocol.receive_eof()
                return None
            self.bytes_received += len(data)
            self.protocol.receive_data(data)
            assert self.protocol.parser_exc is None, f"the server sent a malformed frame: {self.protocol.parser_exc}"
            if self.answer_pings:
                self.flush()
            else:
                self.protocol.data_to_send()  # a pong the test chose not to send

    def next_frame(self, timeout: float = 15) -> Frame | None:
        return self._next_event(time.monotonic() + timeout)

    def next_message(self, timeout: float = 15):
        """The next Phoenix message as (join_ref, ref, topic, event, payload); None at a close."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self._next_event(deadline)
            if frame is None or frame.opcode == OP_CLOSE:
                return None
            if frame.opcode != OP_TEXT:
                continue
            decoded = json.loads(frame.data)
            if isinstance(decoded, list):
                return tuple(decoded)
            return decoded["join_ref"], decoded["ref"], decoded["topic"], decoded["event"], decoded["payload"]

    def reply_to(self, ref: str, timeout: float = 15) -> dict:
        """The payload of the phx_reply to `ref` ({"status", "response"})."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next_message(max(0.0, deadline - time.monotonic()))
            assert message is not None, f"closed before the reply to {ref}: {self.close_received()}"
            if message[3] == "phx_reply" and message[1] == ref:
                return message[4]

    def close_received(self, timeout: float = 15) -> Close | None:
        """Reads until the server's close frame (answering it) or the end of the stream; the
        close frame's code and reason, or None when TCP ended without one."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self._next_event(deadline)
            if frame is None:
                return self.protocol.close_rcvd
            if frame.opcode == OP_CLOSE:
                return Close.parse(frame.data) if frame.data else Close(1005, "")

    def wait_for_ping(self, timeout: float = 15) -> Frame:
        deadline = time.monotonic() + timeout
        while True:
            frame = self._next_event(deadline)
            assert frame is not None, "closed before any ping"
            if frame.opcode == OP_PING:
                return frame

    def close(self):
        self.sock.close()
