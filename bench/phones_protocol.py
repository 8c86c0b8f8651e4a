"""The phones of bench/phones (stdlib only; driven by bench/phones_clients.py): long-polling
phones (`GET /v1/sync?since=…&wait=…` on a keep-alive connection, re-polling from each
answer's `next_since`) and Realtime phones (WebSocket, vsn 1.0.0, one channel with
`postgres_changes` on every table, joined with its cursor as `config.presence.key` so a rejoin
replays what it missed), all on one epoll in one thread, from many loopback source addresses.

Every recv is timestamped (time.time()) as it returns; a long-poll answer is only cut from the
stream there (its `next_since` taken by a regular expression so the phone can ask again at
once), Realtime frames are only split; JSON is parsed by the driver after a phase. A phone whose
connection closes (a restart) reconnects after a random part of `retry` seconds and keeps
retrying while refused, as apps do, and records how long each successful connect took: a
connect of about 1 s or more is a SYN the kernel dropped and the phone retransmitted.
"""
import errno, heapq, itertools, json, os, re, select, socket, time
from realtime_protocol import EVENT_MARK, frame, next_frame, token

NEXT_SINCE = re.compile(rb'"next_since":"([^"]+)"')


class Loop:
    """One epoll and a timer heap; `run` serves both until `until()` holds or time runs out."""

    def __init__(self):
        self.epoll, self.by_fd, self.timers, self.seq = select.epoll(), {}, [], itertools.count()

    def watch(self, endpoint, mask):
        self.by_fd[endpoint.sock.fileno()] = endpoint
        self.epoll.register(endpoint.sock.fileno(), mask)

    def forget(self, endpoint):
        fd = endpoint.sock.fileno()
        if self.by_fd.pop(fd, None) is not None:
            self.epoll.unregister(fd)

    def at(self, when, callback):
        heapq.heappush(self.timers, (when, next(self.seq), callback))

    def run(self, until, timeout):
        deadline = time.time() + timeout
        check = 0.0
        while True:
            now = time.time()
            if now >= check:  # conditions look at every phone: not at every wake-up
                if until():
                    return True
                check = now + 0.1
            # At most 256 due timers between two polls: 10,000 phones reconnecting at once must
            # not keep the loop from seeing the first ones connect (their connect time).
            for _ in range(256):
                if not self.timers or self.timers[0][0] > now:
                    break
                heapq.heappop(self.timers)[2]()
                now = time.time()
            if now >= deadline:
                return False
            due = self.timers[0][0] if self.timers else deadline
            wait = min(deadline, due) - now
            for fd, events in self.epoll.poll(max(0.0, min(wait, 0.05))):
                endpoint = self.by_fd.get(fd)
                if endpoint is not None:
                    endpoint.ready(events)


class Phone:
    """A connection that reconnects: subclasses say what to send when connected and how to read."""

    def __init__(self, loop, index, user, source, host, port, cursor, retry):
        self.loop, self.index, self.user, self.source = loop, index, user, source
        self.host, self.port, self.cursor, self.retry, self.token = host, port, cursor, retry, token(user)
        self.sock, self.open, self.connecting_since, self.buf = None, False, None, bytearray()
        # connects: (time, seconds, SYN resent, how late this client started the attempt against its retry timer)
        self.connects, self.refused, self.closed_at, self.ready_at = [], 0, [], []  # connects, count, times
        self.due_at, self.late = None, 0.0
        self.received = []  # (time, bytes): every long-poll answer / postgres_changes event
        self.errors = []    # (time, what)
        self.reconnect = True

    def connect(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.bind((self.source, 0))
        self.connecting_since, self.buf = time.time(), bytearray()
        self.late = self.connecting_since - self.due_at if self.due_at else 0.0
        code = self.sock.connect_ex((self.host, self.port))
        if code not in (0, errno.EINPROGRESS):
            self.sock.close()
            self.failed_connect()
            return
        self.loop.watch(self, select.EPOLLOUT | select.EPOLLIN)

    def failed_connect(self):
        self.refused += 1
        self.sock, self.connecting_since = None, None
        self.schedule_reconnect()

    def schedule_reconnect(self):
        if self.reconnect:
            self.due_at = time.time() + self.retry * (0.5 + 0.5 * (os.urandom(1)[0] / 255))
            self.loop.at(self.due_at, self.connect)

    def ready(self, events):
        if self.connecting_since is not None:
            if self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                self.loop.forget(self)
                self.sock.close()
                self.failed_connect()
                return
            now = time.time()
            # TCP_INFO's total_retrans right after the handshake: > 0 means the SYN was sent again
            # (the kernel dropped it: a full accept queue), whatever this loop's own delays were.
            info = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
            self.connects.append((now, now - self.connecting_since, int.from_bytes(info[100:104], "little"), self.late))
            self.connecting_since, self.open = None, True
            self.loop.epoll.modify(self.sock.fileno(), select.EPOLLIN)
            self.connected()
            if not events & select.EPOLLIN:
                return
        while self.open:
            try:
                data = self.sock.recv(262144)
            except BlockingIOError:
                return
            except OSError as error:
                self.drop(f"recv: {error}")
                return
            if not data:
                self.drop("eof")
                return
            self.feed(data, time.time())

    def send(self, data):
        try:
            self.sock.sendall(data)  # small messages on an idle socket: the buffer takes them
        except OSError as error:
            self.drop(f"send: {error}")

    def drop(self, why):
        if not self.open:
            return
        self.open = False
        self.closed_at.append((time.time(), why))
        self.loop.forget(self)
        self.sock.close()
        self.schedule_reconnect()


class LongPollPhone(Phone):
    kind = "longpoll"

    def __init__(self, *args, wait):
        super().__init__(*args)
        self.wait, self.polls, self.asked_at = wait, 0, None

    def connected(self):
        self.poll()

    def poll(self):
        self.polls += 1
        self.asked_at = time.time()
        self.send((f"GET /v1/sync?since={self.cursor}&wait={self.wait} HTTP/1.1\r\nHost: {self.host}\r\n"
                   f"Authorization: Bearer {self.token}\r\nAccept: application/json\r\n\r\n").encode())

    def feed(self, data, now):
        self.buf += data
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buf[:end]).lower()
        length = int(head.split(b"content-length:")[1].split(b"\r\n")[0]) if b"content-length:" in head else 0
        if len(self.buf) < end + 4 + length:
            return
        body = bytes(self.buf[end + 4:end + 4 + length])
        del self.buf[:end + 4 + length]
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            self.errors.append((now, f"{status} {body[:80]!r}"))
            self.drop(f"status {status}")  # 503 while shutting down: reconnect and ask again
            return
        self.received.append((now, body))
        if not self.ready_at or self.ready_at[-1] < self.connects[-1][0]:
            self.ready_at.append(now)  # the first answer on this connection
        found = NEXT_SINCE.search(body)
        self.cursor = found.group(1).decode() if found else self.cursor
        if b"connection: close" in head:
            self.drop("connection: close")
        else:
            self.poll()


class RealtimePhone(Phone):
    kind = "realtime"

    def __init__(self, *args, heartbeat, apikey):
        super().__init__(*args)
        self.heartbeat, self.apikey, self.upgraded, self.replies, self.join_errors = heartbeat, apikey, False, 0, []
        self.loop.at(time.time() + heartbeat * (os.urandom(1)[0] / 255), self.beat)

    def connected(self):
        self.upgraded = False
        self.cursor = self.last_cursor()
        key = __import__("base64").b64encode(os.urandom(16)).decode()
        join = {"topic": "realtime:phone", "event": "phx_join", "ref": "1", "join_ref": "1",
                "payload": {"config": {"broadcast": {"self": False}, "presence": {"key": self.cursor},
                                       "postgres_changes": [{"event": "*", "schema": "public"}]},
                            "access_token": self.token}}
        self.send((f"GET /realtime/v1/websocket?apikey={self.apikey}&vsn=1.0.0 HTTP/1.1\r\nHost: {self.host}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Version: 13\r\n\r\n").encode() + frame(json.dumps(join, separators=(",", ":"))))

    def last_cursor(self):
        """The cursor of the last event applied (what an app stores), or the one it started from."""
        for _, payload in reversed(self.received):
            found = re.search(rb'"cursor":"([^"]+)"', payload)
            if found:
                return found.group(1).decode()
        return self.cursor

    def beat(self):
        if self.open and self.upgraded:
            self.send(frame('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"hb"}'))
        self.loop.at(time.time() + self.heartbeat, self.beat)

    def feed(self, data, now):
        self.buf += data
        if not self.upgraded:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buf.startswith(b"HTTP/1.1 101"):
                self.errors.append((now, bytes(self.buf[:120]).decode(errors="replace")))
                self.drop("refused upgrade")
                return
            del self.buf[:end + 4]
            self.upgraded = True
        while self.open and (taken := next_frame(self.buf)) is not None:
            opcode, payload = taken
            if opcode == 1 and EVENT_MARK in payload[:120]:
                self.received.append((now, payload))
            elif opcode == 1 and b'"phx_reply"' in payload[:120]:
                self.replies += 1
                if b'"status":"error"' in payload:
                    self.join_errors.append((now, payload[:200]))
            elif opcode == 1 and b"Subscribed to PostgreSQL" in payload:
                self.ready_at.append(now)
            elif opcode == 9:
                self.send(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
            elif opcode == 8:
                self.drop(f"close {payload[:2].hex()}")
