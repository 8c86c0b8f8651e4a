#!/usr/bin/env python3
"""Realtime benchmark client (stdlib only), driven by bench/realtime.

  realtime_clients.py HOST PORT USERS_FILE PER_USER SERVER_PID POSTMASTER_PID ADMIN_ID ROUNDS_10 ROUNDS_ALL

USERS_FILE has one user id a line; user i's tasks are tagged (`description`) `rt-g<i // 10>`
(one task) and `rt-all` (one task), so an admin's `PATCH /rest/v1/tasks?description=eq.rt-g<k>`
is one transaction seen by 10 users, and `...=eq.rt-all` one seen by all of them. PER_USER
WebSockets per user (vsn 1.0.0) each join `realtime:tasks` with postgres_changes on tasks
(access tokens minted like the server's: HS256 with $JWT_SECRET).

Phases: connect and join everyone (then VmRSS of the server per idle subscriber); one
warm-up write seen by all (lines up each user's channels on one cursor); ROUNDS_10 writes
seen by 10 users, then ROUNDS_ALL seen by everyone.

Timing. The client is one thread on raw non-blocking sockets and epoll: each recv is
timestamped (time.time()) as it returns, frames are only split there, JSON is parsed after
the round (bench/realtime_protocol.py). `client_ms` runs from reading the write's response (so after its commit) to reading
each subscriber's event. `wire_ms` is the server's side: the kernel's timestamps of the
packets leaving the server's port on `lo` (bench/sync_clients.WireTimes; needs root), from the
write's response packet to each subscriber's event packet. `lag` is, per event, client minus
wire: this client's own delay. CPU per delivered event: user+system of dispatchd and every
process of the benchmark's PostgreSQL cluster (bench/lib/cpu.sh's method) from just before
the write to the last expected event, divided by the events delivered.
"""
import json, os, sys, time
from datetime import datetime
from sync_clients import WireTimes, rss_kib
from realtime_protocol import EVENT_MARK, Bench, Writer, frame, token

HZ = os.sysconf("SC_CLK_TCK")


def cpu_ticks(server, postmaster):
    """(user+system ticks of dispatchd, of the cluster: postmaster incl. reaped children, live children)."""
    def fields(pid):
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].split()
    server_ticks = sum(int(x) for x in fields(server)[11:13])
    pg = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            f = fields(pid)
        except (OSError, IndexError):
            continue
        if pid == str(postmaster):
            pg += sum(int(x) for x in f[11:15])
        elif f[1] == str(postmaster):
            pg += sum(int(x) for x in f[11:13])
    return server_ticks, pg


def pick(values, q):
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def memory_sample(server):
    """(VmRSS KiB, RssAnon KiB, kernel TCP buffer pages, bytes of TCP and socket-inode slab objects)."""
    tcp = 0
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                parts = line.split()
                tcp = int(parts[parts.index("mem") + 1])
    slab = 0
    try:
        with open("/proc/slabinfo") as f:
            for line in f:
                parts = line.split()
                if parts and parts[0] in ("TCP", "sock_inode_cache"):
                    slab += int(parts[1]) * int(parts[3])  # active objects x object size
    except OSError:
        pass
    return rss_kib(server), rss_kib(server, "RssAnon"), tcp, slab


def heartbeat(bench, subscribers):
    before = [s.replies for s in subscribers]
    for s in subscribers:
        s.sock.sendall(frame('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"hb"}'))
    if not bench.pump(lambda: all(s.replies > b for s, b in zip(subscribers, before)), 30):
        missing = [s for s, b in zip(subscribers, before) if s.replies <= b]
        sys.exit(f"{len(missing)} heartbeat replies missing after 30 s; closed: {[s.closed for s in missing if s.closed][:3]}")


def one_round(bench, writer, wire, subscribers, tag, concerned, title, pids, timeout):
    """One write; returns (expected, delivered, unexpected, client_ms, wire_ms, lag_ms, commit_ms, ticks, write_ms, others)."""
    marker = json.dumps(title).encode()  # the quoted title; unique per round
    for s in subscribers:
        s.events, s.want, s.hit = 0, marker, None
    expected = [s for s in subscribers if s.user in concerned]
    wire.collect()  # drop what was captured before
    ticks_before = cpu_ticks(*pids)
    sent = time.time()
    writer.patch(tag, title)
    got = lambda: writer.done is not None and all(s.hit for s in expected)
    bench.pump(got, timeout)
    ticks = tuple(after - before for after, before in zip(cpu_ticks(*pids), ticks_before))
    bench.pump(lambda: False, 0.3)  # anything sent to users who do not see the row shows up now
    assert writer.done is not None, f"no answer to the write within {timeout} s"
    delivered = [s for s in expected if s.hit]
    unexpected = sum(s.hit is not None for s in subscribers if s.user not in concerned)
    client, commit, lag, wire_ms = [], [], [], []
    captured = wire.collect()
    start = captured.get(writer.sock.getsockname()[1])
    for s in delivered:
        at, payload = s.hit
        data = json.loads(payload)["payload"]["data"]
        assert data["type"] == "UPDATE" and data["record"]["title"] == title and data["record"]["declared_by"] == s.user, data
        client.append((at - writer.done) * 1000)
        commit.append((at - datetime.fromisoformat(data["commit_timestamp"].replace("Z", "+00:00")).timestamp()) * 1000)
        port = s.sock.getsockname()[1]
        if start is not None and port in captured:
            wire_ms.append((captured[port] - start) * 1000)
            lag.append((at - captured[port]) * 1000)
    others = sum(s.events - (s.hit is not None) for s in subscribers)  # duplicates, or late ones of an earlier round
    return len(expected), len(delivered), unexpected, client, wire_ms, lag, commit, ticks, (writer.done - sent) * 1000, others


def report(name, rounds):
    client, wire_ms, lag, commit = [], [], [], []
    expected = delivered = unexpected = server_ticks = pg_ticks = others = 0
    for e, d, u, c, w, l, m, (st, pt), _, o in rounds:
        expected, delivered, unexpected, others = expected + e, delivered + d, unexpected + u, others + o
        server_ticks, pg_ticks = server_ticks + st, pg_ticks + pt
        client += c; wire_ms += w; lag += l; commit += m
    for values in (client, wire_ms, lag, commit):
        values.sort()
    per_round = " ".join(f"{pick(sorted(r[3]), 0.99):.0f}" for r in rounds)
    writes = " ".join(f"{r[8]:.0f}" for r in rounds)
    print(f"{name}: rounds={len(rounds)} delivered={delivered}/{expected} unexpected={unexpected} other_events={others} "
          f"(load {open('/proc/loadavg').read().split()[0]})")
    per_event = lambda ticks: ticks * 1e6 / HZ / max(delivered, 1)
    print(f"  cpu_us_per_event={per_event(server_ticks + pg_ticks):.0f} (dispatchd {per_event(server_ticks):.0f}, "
          f"PostgreSQL {per_event(pg_ticks):.0f}; the write itself included)")
    print(f"  client_ms p50={pick(client, 0.5):.1f} p99={pick(client, 0.99):.1f} max={client[-1] if client else float('nan'):.1f}"
          f" | wire_ms p50={pick(wire_ms, 0.5):.1f} p99={pick(wire_ms, 0.99):.1f} ({len(wire_ms)} captured)"
          f" | client lag p50={pick(lag, 0.5):.1f} p99={pick(lag, 0.99):.1f}"
          f" | from commit_timestamp p50={pick(commit, 0.5):.1f} p99={pick(commit, 0.99):.1f}")
    print(f"  per-round client p99 ms: {per_round}; write response ms: {writes}")


def main():
    host, port, users_file, per_user, server, postmaster, admin, rounds_10, rounds_all = sys.argv[1:10]
    port, per_user, rounds_10, rounds_all = int(port), int(per_user), int(rounds_10), int(rounds_all)
    users = [line.strip() for line in open(users_file) if line.strip()]
    pids = (int(server), int(postmaster))
    bench = Bench(host, port)
    tokens = {user: token(user) for user in users}
    order = [user for _ in range(per_user) for user in users]
    memory = [memory_sample(server)]
    subscribers, started = [], time.time()
    for half in (order[:len(order) // 2], order[len(order) // 2:]):  # the second half shows the marginal cost
        for user in half:
            subscribers.append(bench.connect(len(subscribers), user, tokens[user]))
            if len(subscribers) % 50 == 0:  # a burst would overflow the listen backlog
                bench.pump(lambda: False, 0.02)
        joined = bench.pump(lambda: all(s.subscribed or s.closed for s in subscribers), 120)
        refused = [s for s in subscribers if not s.subscribed]
        assert joined and not refused, f"{len(refused)} subscribers not subscribed: {refused[0].closed if refused else ''}"
        heartbeat(bench, subscribers)
        bench.pump(lambda: False, 3)  # settled: every join handled, nothing in flight
        memory.append(memory_sample(server))
    print(f"subscribers={len(subscribers)} users={len(users)} joined_in_s={time.time() - started:.1f}")
    (rss0, anon0, tcp0, slab0), (rss1, _, _, _), (rss2, anon2, tcp2, slab2) = memory
    n, half = len(subscribers), len(subscribers) - len(subscribers) // 2
    print(f"idle: server VmRSS {rss0} -> {rss2} KiB: {(rss2 - rss0) * 1024 / n:.0f} bytes per subscriber "
          f"(RssAnon {(anon2 - anon0) * 1024 / n:.0f}; second half alone {(rss2 - rss1) * 1024 / half:.0f})")
    print(f"idle, kernel (not in RSS; both ends of each socket are on this machine): TCP buffers (/proc/net/sockstat) "
          f"{(tcp2 - tcp0) * 4096 / n:.0f} bytes per subscriber; TCP and socket-inode slab objects {(slab2 - slab0) / n:.0f} bytes per subscriber")

    wire = WireTimes(port, match=lambda p: p.startswith(b"HTTP/1.") or EVENT_MARK in p, snap=512)
    writer = Writer(host, port, token(admin))
    bench.add(writer)
    everyone = set(users)
    groups = [set(users[k:k + 10]) for k in range(0, len(users), 10)]
    beat = time.time()

    def run(tag, concerned, title, timeout=30):
        nonlocal beat
        if time.time() - beat > 15:  # Phoenix clients send one every 25-30 s; never inside a round
            heartbeat(bench, subscribers)
            beat = time.time()
        result = one_round(bench, writer, wire, subscribers, tag, concerned, title, pids, timeout)
        bench.pump(lambda: False, 0.2)
        return result

    warm = run("rt-all", everyone, "warm-up", timeout=120)
    print(f"warm-up (seen by everyone): delivered={warm[1]}/{warm[0]} other_events={warm[9]} client p99={pick(sorted(warm[3]), 0.99):.0f} ms")
    ten = [run(f"rt-g{r % len(groups)}", groups[r % len(groups)], f"ten {r}") for r in range(rounds_10)]
    report(f"write seen by 10 users ({len(groups[0]) * per_user} subscribers)", ten)
    all_ = [run("rt-all", everyone, f"all {r}") for r in range(rounds_all)]
    report(f"write seen by everyone ({len(subscribers)} subscribers)", all_)
    closed = [s for s in subscribers if s.closed]
    print(f"subscribers closed by the server during the run: {len(closed)}")


if __name__ == "__main__":
    main()
