#!/usr/bin/env python3
"""Sync benchmark clients (stdlib only), driven by bench/sync.

  full    HOST PORT TOKEN PID            follow a full-sync chain; wall time, rows, pages, peak RSS
  waiters HOST PORT TOKEN CURSOR N PID   N idle long-polls (wait=60); RSS, then wake-up latency
          WRITE_PATH WRITE_BODY          after one PATCH (as TOKEN) that every waiter can see
  spread  HOST PORT TOKENS_FILE PER_USER PID WRITER_TOKEN WRITE_PATH WRITE_BODY SEEN_BY_FILE
          PER_USER idle long-polls for each user of TOKENS_FILE ("user_id token" lines), then one
          PATCH (as WRITER_TOKEN); wake latency of the waiters of the users in SEEN_BY_FILE (one
          id a line, or "*" for everyone), and a check that the others stay parked

Wake-up latency is reported twice. `wake_ms_*` is what this (single-threaded, asyncio) client
observed: from reading the write's response to reading each waiter's. `server_wake_ms_*` is
the server's own: the kernel's timestamps of the response packets leaving the server's port on
`lo` (an AF_PACKET socket with a BPF filter, read only after the wake, so capturing costs the
client nothing meanwhile), from the write's response to each waiter's first response byte. The
difference (`client_lag_ms_*`, per waiter) is time spent in this client and the kernel queue
before it read the response, not server work. Capturing needs root (CAP_NET_RAW); without it
only the client figures are printed.
"""
import asyncio, ctypes, json, socket, struct, sys, time, urllib.parse


def rss_kib(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak(pid):
    """Resets VmHWM to the current RSS (Linux: clear_refs 5; needs the process owner or root)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as refs:
            refs.write("5")
    except OSError as error:
        print(f"note: could not reset the peak RSS ({error}); server_peak_rss_after_kib includes earlier peaks")


class WireTimes:
    """Kernel timestamps (CLOCK_REALTIME) of HTTP responses leaving TCP port `port` on `lo`
    (or of any packet whose TCP payload `match` accepts: bench/realtime_clients.py times
    WebSocket frames this way)."""
    SO_ATTACH_FILTER, SO_RCVBUFFORCE, SO_TIMESTAMPNS = 26, 33, 35
    ETH_P_ALL, PACKET_OUTGOING = 0x0003, 4

    def __init__(self, port, match=lambda payload: payload.startswith(b"HTTP/1."), snap=256):
        self.match, self.snap = match, snap
        # Classic BPF: IPv4, TCP, not a later fragment, TCP source port == port; else drop.
        code = [(0x28, 0, 0, 12), (0x15, 0, 8, 0x0800), (0x30, 0, 0, 23), (0x15, 0, 6, 6),
                (0x28, 0, 0, 20), (0x45, 4, 0, 0x1FFF), (0xB1, 0, 0, 14), (0x48, 0, 0, 14),
                (0x15, 0, 1, port), (0x06, 0, 0, 0x40000), (0x06, 0, 0, 0)]
        self._program = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *op) for op in code))
        try:
            self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(self.ETH_P_ALL))
        except PermissionError:
            self.sock = None
            print("note: no CAP_NET_RAW; server-side (wire) wake times not measured")
            return
        fprog = struct.pack("HL", len(code), ctypes.addressof(self._program))
        self.sock.setsockopt(socket.SOL_SOCKET, self.SO_ATTACH_FILTER, fprog)
        self.sock.setsockopt(socket.SOL_SOCKET, self.SO_RCVBUFFORCE, 256 << 20)
        self.sock.setsockopt(socket.SOL_SOCKET, self.SO_TIMESTAMPNS, 1)
        self.sock.bind(("lo", self.ETH_P_ALL))
        self.sock.setblocking(False)
        self._read()  # packets queued before the filter was attached

    def _read(self):
        """{client port: time of the first response packet to it}, from what is queued now."""
        first = {}
        while True:
            try:
                data, ancillary, _, address = self.sock.recvmsg(self.snap, socket.CMSG_SPACE(16))
            except BlockingIOError:
                return first
            if address[2] != self.PACKET_OUTGOING:  # lo shows each packet twice: sent and received
                continue
            ip = data[14:]
            tcp = ip[(ip[0] & 0xF) * 4:]
            payload = tcp[(tcp[12] >> 4) * 4:]
            if not self.match(payload):
                continue
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == self.SO_TIMESTAMPNS:
                    seconds, nanoseconds = struct.unpack("qq", value[:16])
                    first.setdefault(struct.unpack("!H", tcp[2:4])[0], seconds + nanoseconds / 1e9)

    def collect(self):
        return self._read() if self.sock else {}


def wire_report(wire, write_port, client_seen):
    """Server-side wake times from `wire`; client_seen: {client port: realtime it read the response}."""
    if write_port not in wire:
        return "server_wake: not captured"
    start = wire[write_port]
    server = sorted((wire[p] - start) * 1000 for p in client_seen if p in wire)
    lag = sorted((client_seen[p] - wire[p]) * 1000 for p in client_seen if p in wire)
    if not server:
        return "server_wake: not captured"
    pick = lambda values, q: values[min(len(values) - 1, int(q * len(values)))]
    return (f"server_wake_ms_first={server[0]:.1f} server_wake_ms_p50={pick(server, 0.5):.1f} server_wake_ms_p99={pick(server, 0.99):.1f} "
            f"server_wake_ms_max={server[-1]:.1f} (wire, {len(server)}/{len(client_seen)} captured) "
            f"client_lag_ms_p50={pick(lag, 0.5):.1f} client_lag_ms_p99={pick(lag, 0.99):.1f}")


async def request(host, port, method, path, token, body=None, sent=None, local=None):
    reader, writer = await asyncio.open_connection(host, port)
    data = json.dumps(body).encode() if body is not None else b""
    head = (f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            f"Connection: close\r\nContent-Length: {len(data)}\r\n")
    if body is not None:
        head += "Content-Type: application/json\r\n"
    writer.write(head.encode() + b"\r\n" + data)
    await writer.drain()
    if local is not None:
        local.append(writer.get_extra_info("sockname")[1])
    if sent is not None:
        sent()
    raw = await reader.read(-1)
    writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, payload


async def full(host, port, token, pid):
    start = time.perf_counter()
    cursor, pages, rows, largest_page = None, 0, 0, 0
    rss_before, peak_before = rss_kib(pid), rss_kib(pid, "VmHWM")
    reset_peak(pid)  # the sign-ins before (password hashing) set a peak of their own
    while True:
        path = "/v1/sync?limit=1000" + (f"&since={urllib.parse.quote(cursor)}" if cursor else "")
        status, payload = await request(host, port, "GET", path, token)
        assert status == 200, (status, payload[:200])
        page = json.loads(payload)
        pages += 1
        largest_page = max(largest_page, len(payload))
        rows += sum(len(v) for k, v in page.items() if isinstance(v, list))
        cursor = page["next_since"]
        if not page["has_more"]:
            break
    elapsed = time.perf_counter() - start
    print(f"full_sync_rows={rows} pages={pages} wall_s={elapsed:.3f} largest_page_bytes={largest_page}")
    print(f"server_rss_before_kib={rss_before} server_rss_after_kib={rss_kib(pid)} "
          f"server_peak_rss_before_kib={peak_before} (reset) server_peak_rss_during_kib={rss_kib(pid, 'VmHWM')}")
    print(f"cursor={cursor}")


async def waiters(host, port, token, cursor, count, pid, write_path, write_body):
    path = f"/v1/sync?since={urllib.parse.quote(cursor)}&wait=60"
    rss_before = rss_kib(pid)
    done_at = []
    seen_at = {}
    sent = [0]
    all_sent = asyncio.Event()

    def one_sent():
        sent[0] += 1
        if sent[0] == count:
            all_sent.set()

    async def wait_one():
        local = []
        status, _ = await request(host, port, "GET", path, token, sent=one_sent, local=local)
        done_at.append((time.perf_counter(), status))
        seen_at[local[0]] = time.time()

    tasks = []
    for _ in range(count):  # in batches: a burst of 2,000 connects would overflow the listen backlog
        tasks.append(asyncio.create_task(wait_one()))
        if len(tasks) % 100 == 0:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(all_sent.wait(), timeout=60)
    await asyncio.sleep(3)  # every request read and parked on the server
    assert not done_at, f"{len(done_at)} waiters returned before any write"
    rss_waiting = rss_kib(pid)
    print(f"waiters={count} server_rss_before_kib={rss_before} server_rss_waiting_kib={rss_waiting} "
          f"per_waiter_bytes={(rss_waiting - rss_before) * 1024 // count}")
    wire = WireTimes(port)
    write_start, write_local = time.perf_counter(), []
    status, payload = await request(host, port, "PATCH", write_path, token, json.loads(write_body), local=write_local)
    assert status == 200, (status, payload[:200])
    committed = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=70)
    latencies = sorted((t - committed) * 1000 for t, _ in done_at)
    statuses = {s for _, s in done_at}
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"write_ms={(committed - write_start) * 1000:.1f} statuses={sorted(statuses)} "
          f"wake_ms_p50={pick(0.5):.1f} wake_ms_p99={pick(0.99):.1f} wake_ms_max={latencies[-1]:.1f}")
    print(wire_report(wire.collect(), write_local[0], seen_at))


async def spread(host, port, tokens_file, per_user, pid, writer_token, write_path, write_body, seen_by_file):
    users = [line.split() for line in open(tokens_file) if line.strip()]
    seen_text = open(seen_by_file).read().split()
    seen = {u for u, _ in users} if seen_text == ["*"] else set(seen_text)
    cursors = {}
    for user, token in users:  # each user's current cursor (a full sync; these users see little)
        cursor = None
        while True:
            path = "/v1/sync?limit=5000" + (f"&since={urllib.parse.quote(cursor)}" if cursor else "")
            status, payload = await request(host, port, "GET", path, token)
            assert status == 200, (status, payload[:200])
            page = json.loads(payload)
            cursor = page["next_since"]
            if not page["has_more"]:
                break
        cursors[user] = cursor
    rss_before = rss_kib(pid)
    done_at = {}
    seen_at = {}
    count = len(users) * per_user
    sent = [0]
    all_sent = asyncio.Event()

    def one_sent():
        sent[0] += 1
        if sent[0] == count:
            all_sent.set()

    async def wait_one(key, user, token):
        path = f"/v1/sync?since={urllib.parse.quote(cursors[user])}&wait=60"
        local = []
        status, _ = await request(host, port, "GET", path, token, sent=one_sent, local=local)
        done_at[key] = (time.perf_counter(), status, user)
        if user in seen:
            seen_at[local[0]] = time.time()

    tasks = []
    for round_ in range(per_user):
        for user, token in users:
            tasks.append(asyncio.create_task(wait_one((user, round_), user, token)))
            if len(tasks) % 100 == 0:
                await asyncio.sleep(0.05)
    await asyncio.wait_for(all_sent.wait(), timeout=120)
    await asyncio.sleep(3)
    assert not done_at, f"{len(done_at)} waiters returned before any write"
    rss_waiting = rss_kib(pid)
    print(f"waiters={count} users={len(users)} seen_by={len(seen)} users server_rss_before_kib={rss_before} "
          f"server_rss_waiting_kib={rss_waiting} per_waiter_bytes={(rss_waiting - rss_before) * 1024 // count}")
    wire = WireTimes(port)
    write_start, write_local = time.perf_counter(), []
    status, payload = await request(host, port, "PATCH", write_path, writer_token, json.loads(write_body),
                                    local=write_local)
    assert status == 200, (status, payload[:200])
    committed = time.perf_counter()
    expected = per_user * len(seen)
    deadline = time.perf_counter() + 60
    while len(done_at) < expected and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(1)  # anyone else woken would show up now
    woken = [(t, s, u) for t, s, u in done_at.values()]
    wrong = [u for _, _, u in woken if u not in seen]
    latencies = sorted((t - committed) * 1000 for t, _, u in woken if u in seen)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")
    print(f"write_ms={(committed - write_start) * 1000:.1f} woken={len(latencies)}/{expected} "
          f"woken_not_concerned={len(wrong)} statuses={sorted({s for _, s, _ in woken})} "
          f"wake_ms_p50={pick(0.5):.1f} wake_ms_p99={pick(0.99):.1f} wake_ms_max={latencies[-1] if latencies else float('nan'):.1f}")
    print(wire_report(wire.collect(), write_local[0], seen_at))


def main():
    mode, host, port, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if mode == "full":
        asyncio.run(full(host, port, token, int(sys.argv[5])))
    elif mode == "waiters":
        asyncio.run(waiters(host, port, token, sys.argv[5], int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], sys.argv[9]))
    elif mode == "spread":
        asyncio.run(spread(host, port, sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8],
                           sys.argv[9], sys.argv[10]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
