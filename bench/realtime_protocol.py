"""The realtime benchmark's wire side (stdlib only; used by bench/realtime_clients.py): Phoenix
vsn 1.0.0 over RFC 6455 on raw non-blocking sockets and one epoll, so receiving costs this
single-threaded client little and every recv is timestamped (time.time()) as it returns.
Frames are only split on receipt; JSON is parsed after a round.
"""
import base64, hashlib, hmac, json, os, select, socket, time, uuid

EVENT_MARK = b'"event":"postgres_changes"'


def token(user):
    enc = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
    now = int(time.time())
    claims = {"sub": user, "role": "authenticated", "iat": now, "exp": now + 3600, "sid": str(uuid.uuid4())}
    signing = enc(b'{"alg":"HS256","typ":"JWT"}') + "." + enc(json.dumps(claims, separators=(",", ":")).encode())
    digest = hmac.new(os.environ["JWT_SECRET"].encode(), signing.encode(), hashlib.sha256).digest()
    return signing + "." + enc(digest)


def frame(text):
    """A masked client text frame."""
    payload, mask = text.encode(), os.urandom(4)
    n = len(payload)
    head = bytes([0x81, 0x80 | n]) if n < 126 else bytes([0x81, 0xFE]) + n.to_bytes(2, "big")
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes((mask * (n // 4 + 1))[:n], "big")).to_bytes(n, "big")
    return head + mask + masked


def next_frame(buf):
    """Takes one whole server frame (unmasked) off the front of `buf` (a bytearray): (opcode,
    payload), or None while the frame is still incomplete."""
    if len(buf) < 2:
        return None
    opcode, length, start = buf[0] & 0x0F, buf[1] & 0x7F, 2
    if length == 126:
        length, start = int.from_bytes(buf[2:4], "big"), 4
    elif length == 127:
        length, start = int.from_bytes(buf[2:10], "big"), 10
    if len(buf) < start + length:
        return None
    payload = bytes(buf[start:start + length])
    del buf[:start + length]
    return opcode, payload


class Subscriber:
    def __init__(self, index, user, sock):
        self.index, self.user, self.sock = index, user, sock
        self.buf, self.upgraded, self.subscribed, self.closed = bytearray(), False, False, None
        self.replies = 0          # phx_reply frames (join, heartbeats)
        self.events = 0           # postgres_changes frames received
        self.want, self.hit = None, None  # the round's marker, and (receipt time, payload) of its event

    def feed(self, data, now):
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buf.startswith(b"HTTP/1.1 101"):  # refused: the answer is the reason
                self.closed, self.buf = bytes(self.buf[:300]), bytearray()
                return
            del self.buf[:end + 4]
            self.upgraded = True
        while (taken := next_frame(self.buf)) is not None:
            opcode, payload = taken
            if opcode == 1 and EVENT_MARK in payload[:120]:
                self.events += 1
                if self.want is not None and self.hit is None and self.want in payload:
                    self.hit = (now, payload)
            elif opcode == 1 and b'"phx_reply"' in payload[:120]:
                self.replies += 1
            elif opcode == 1 and b"Subscribed to PostgreSQL" in payload:
                self.subscribed = True
            elif opcode == 9:
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
            elif opcode == 8:
                self.closed = payload


class Writer:
    """The admin's keep-alive HTTP connection for the writes."""
    def __init__(self, host, port, admin_token):
        self.sock = socket.create_connection((host, port))
        self.sock.setblocking(False)
        self.host, self.token, self.buf, self.done, self.closed = host, admin_token, bytearray(), None, None

    def patch(self, tag, title):
        body = json.dumps({"title": title}).encode()
        self.buf, self.done, self.status = bytearray(), None, None
        self.sock.sendall((f"PATCH /rest/v1/tasks?description=eq.{tag} HTTP/1.1\r\nHost: {self.host}\r\n"
                           f"Authorization: Bearer {self.token}\r\napikey: {os.environ['PUBLISHABLE_KEY']}\r\n"
                           f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)

    def feed(self, data, now):
        self.buf += data
        head, sep, rest = bytes(self.buf).partition(b"\r\n\r\n")
        if not sep:
            return
        length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
        if len(rest) >= length:
            self.status, self.done = int(head.split(b" ")[1]), now
            assert self.status in (200, 204), bytes(self.buf[:300])


class Bench:
    def __init__(self, host, port):
        self.host, self.port, self.epoll, self.by_fd = host, port, select.epoll(), {}

    def add(self, endpoint):
        self.epoll.register(endpoint.sock.fileno(), select.EPOLLIN)
        self.by_fd[endpoint.sock.fileno()] = endpoint

    def pump(self, until, timeout):
        """Reads whatever arrives until `until()` holds or `timeout` seconds pass."""
        deadline = time.time() + timeout
        while not until():
            left = deadline - time.time()
            if left <= 0:
                return False
            for fd, _ in self.epoll.poll(min(left, 0.05)):
                endpoint = self.by_fd[fd]
                while True:
                    try:
                        data = endpoint.sock.recv(262144)
                    except BlockingIOError:
                        break
                    if not data:
                        self.epoll.unregister(fd)
                        endpoint.closed = endpoint.closed or b"eof"
                        break
                    endpoint.feed(data, time.time())
        return True

    def connect(self, index, user, tok):
        sock = socket.create_connection((self.host, self.port))
        sock.setblocking(False)
        key = base64.b64encode(os.urandom(16)).decode()
        join = {"topic": "realtime:tasks", "event": "phx_join", "ref": "1", "join_ref": "1",
                "payload": {"config": {"broadcast": {"self": False}, "presence": {"key": ""},
                                       "postgres_changes": [{"event": "*", "schema": "public", "table": "tasks"}]},
                            "access_token": tok}}
        sock.sendall((f"GET /realtime/v1/websocket?apikey={os.environ['PUBLISHABLE_KEY']}&vsn=1.0.0 HTTP/1.1\r\n"
                      f"Host: {self.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
                     + frame(json.dumps(join, separators=(",", ":"))))
        subscriber = Subscriber(index, user, sock)
        self.add(subscriber)
        return subscriber
