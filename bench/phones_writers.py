"""The office's writes for bench/phones (stdlib only): each write is one HTTP request on a fresh
connection (as a phone sends it), a create (`POST /v1/tasks` on the agent's listing) or a title
change of one of the agent's tasks (`PATCH /v1/tasks/{id}`), alternating, every task a
different one within the minute, so the long-polling phones (which see state, not events)
can see every write. The title is the write's marker; an agent has at most one write in flight.
"""
import errno, json, select, socket, time
from realtime_protocol import token


class Agent:
    def __init__(self, user, listing, staff, tasks):
        self.user, self.listing, self.staff, self.tasks, self.token = user, listing, staff, tasks, token(user)
        self.next_task, self.creates, self.busy, self.queue = 0, 0, False, []


class Write:
    def __init__(self, agent, marker, recipients, phase):
        self.agent, self.marker, self.recipients, self.phase = agent, marker, recipients, phase
        self.scheduled = self.sent = self.done = None
        self.status, self.buf, self.sock = None, bytearray(), None


class Writers:
    def __init__(self, loop, host, port, agents, admins):
        self.loop, self.host, self.port, self.agents, self.admins = loop, host, port, agents, admins
        self.writes, self.count = [], 0

    def schedule(self, when, agent, phase):
        """A write by `agent` at `when` (time.time()); seen by the agent, the listing's staff, admins."""
        self.count += 1
        write = Write(agent, f"w{self.count:05d}-{phase}", {agent.user, agent.staff, *self.admins}, phase)
        write.scheduled = when
        self.writes.append(write)
        self.loop.at(when, lambda: self.start(write))
        return write

    def start(self, write):
        agent = write.agent
        if agent.busy:
            agent.queue.append(write)
            return
        agent.busy = True
        write.sent = time.time()
        if (agent.creates + agent.next_task) % 2 == 1 or not agent.tasks:  # patch, create, patch, ...
            agent.creates += 1
            method, path, body = "POST", "/v1/tasks", {"title": write.marker, "listing_id": agent.listing}
        else:
            task = agent.tasks[agent.next_task % len(agent.tasks)]
            agent.next_task += 1
            method, path, body = "PATCH", f"/v1/tasks/{task}", {"title": write.marker}
        data = json.dumps(body).encode()
        write.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        write.sock.setblocking(False)
        code = write.sock.connect_ex((self.host, self.port))
        if code not in (0, errno.EINPROGRESS):
            write.status, write.done = f"connect {code}", time.time()
            self.finish(write)
            return
        write.request = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {agent.token}\r\n"
                         f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode() + data
        write.ready = lambda events: self.ready(write, events)
        self.loop.watch(write, select.EPOLLOUT | select.EPOLLIN)

    def ready(self, write, events):
        if write.request is not None:
            if write.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                write.status = "connect failed"
                self.end(write)
                return
            write.sock.sendall(write.request)
            write.request = None
            self.loop.epoll.modify(write.sock.fileno(), select.EPOLLIN)
            return
        while True:
            try:
                data = write.sock.recv(65536)
            except BlockingIOError:
                return
            except OSError as error:
                write.status = f"recv {error}"
                break
            if not data:
                break
            write.buf += data
        if write.status is None and write.buf.startswith(b"HTTP/1.1 "):
            write.status = int(write.buf.split(b" ", 2)[1])
        self.end(write)

    def end(self, write):
        write.done = time.time()
        self.loop.forget(write)
        write.sock.close()
        self.finish(write)

    def finish(self, write):
        agent = write.agent
        agent.busy = False
        if agent.queue:
            self.start(agent.queue.pop(0))
