#!/usr/bin/env python3
"""The phones and the office of bench/phones (stdlib only), in one thread on one epoll.

  phones_clients.py HOST PORT SEED_DIR SERVER_PID POSTMASTER_PID START_SERVER_SCRIPT PSQL_CONNINFO

SEED_DIR holds users.txt (one user id a line: the 40 office agents, then the admins, then
everyone else), office.tsv (agent, listing, its staff, its task ids comma-separated),
admins.txt and cursor.txt (a /v1/sync cursor every phone starts from). Each user has a
long-polling phone and a Realtime phone. Phases (settings from the environment, see
bench/phones): connect the long-polling phones, idle; connect the Realtime phones, idle (CPU
per phone per minute, memory per phone of each kind); the office's writes at its rate; a burst;
then a restart of the server with a write made while it is down (psql), and the reconnect
storm. Prints the report.
"""
import os, signal, subprocess, sys, time
from phones_protocol import Loop, LongPollPhone, RealtimePhone
from phones_writers import Agent, Writers
from phones_measure import CPU, memory, describe, sightings, deliveries, spread, listen_drops

env = lambda name, default: type(default)(os.environ.get(name, default))
PHONES, SOURCES, WAIT, HEARTBEAT = env("PHONES", 10000), env("SOURCES", 40), env("WAIT", 30), env("HEARTBEAT", 25.0)
IDLE_S, OFFICE_S, RATE = env("IDLE_S", 60.0), env("OFFICE_S", 120.0), env("WRITES_PER_AGENT_MIN", 1.0)
BURST, BURST_S, RETRY, CONNECT_RATE = env("BURST", 200), env("BURST_S", 2.0), env("RETRY", 0.5), env("CONNECT_RATE", 2000)


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ramp(loop, phones, what):
    """Connects `phones` at CONNECT_RATE a second; returns when each is ready (or 120 s passed)."""
    started, drops = time.time(), listen_drops()
    for n, phone in enumerate(phones):
        loop.at(started + n / CONNECT_RATE, phone.connect)
    ready = (lambda: all(p.open and p.polls for p in phones)) if what == "longpoll" else (lambda: all(p.ready_at for p in phones))
    done = loop.run(ready, 120 + len(phones) / CONNECT_RATE)
    loop.run(lambda: False, 3)  # settled: every request parked, every join handled
    waits = [p.connects[0][1] for p in phones if p.connects]
    resent = sum(1 for p in phones if p.connects and p.connects[0][2])
    not_ready = sum(1 for p in phones if not (p.open and (p.polls if what == "longpoll" else p.ready_at)))
    errors = [e for p in phones for e in p.errors + getattr(p, "join_errors", [])]
    print(f"{len(phones)} {what} phones connected in {time.time() - started - 3:.1f} s ({'all ready' if done else f'{not_ready} NOT ready'}); "
          f"connect {spread(waits)}, >= 0.9 s: {sum(w >= 0.9 for w in waits)}, SYN sent again (TCP_INFO): {resent}; SYNs dropped on a full accept queue "
          f"(TcpExt ListenDrops) {listen_drops() - drops}; errors {len(errors)} {errors[:2]}")


def main():
    host, port, seed, server, postmaster, start_script, conninfo = sys.argv[1:8]
    port, server, postmaster = int(port), int(server), int(postmaster)
    users = open(f"{seed}/users.txt").read().split()[:max(PHONES // 2, 1)]
    admins = set(open(f"{seed}/admins.txt").read().split())
    cursor = open(f"{seed}/cursor.txt").read().strip()
    agents = []
    for line in open(f"{seed}/office.tsv"):
        user, listing, staff, tasks = line.split()
        agents.append(Agent(user, listing, staff, tasks.split(",")))
    loop = Loop()
    source = lambda i: f"127.0.{(i % SOURCES) // 250}.{2 + (i % SOURCES) % 250}"
    longpoll = [LongPollPhone(loop, i, u, source(i), host, port, cursor, RETRY, wait=WAIT) for i, u in enumerate(users)]
    realtime = [RealtimePhone(loop, len(users) + i, u, source(len(users) + i), host, port, cursor, RETRY,
                              heartbeat=HEARTBEAT, apikey=os.environ["PUBLISHABLE_KEY"]) for i, u in enumerate(users)]
    phones = longpoll + realtime
    print(f"# {len(phones)} phones: {len(longpoll)} long-polling (wait={WAIT}), {len(realtime)} on Realtime (heartbeat {HEARTBEAT:.0f} s), "
          f"{len(users)} users ({len(agents)} office agents, {len(admins)} admins), from {SOURCES} source addresses")
    base = memory(server, postmaster)
    print(f"before: {describe(base)}")

    ramp(loop, longpoll, "longpoll")
    with_longpoll = memory(server, postmaster)
    cpu = CPU(server, postmaster)
    loop.run(lambda: False, IDLE_S)
    print(f"idle, long-polling phones only, {CPU.line(cpu.stop(), len(longpoll))}")
    ramp(loop, realtime, "realtime")
    with_all = memory(server, postmaster)
    per = lambda a, b, key, n: (b[key] - a[key]) * 1024 / max(n, 1)
    print(f"with every phone: {describe(with_all)}")
    print(f"per long-polling phone: server {per(base, with_longpoll, 'rss', len(longpoll)):.0f} B RSS "
          f"(anon {per(base, with_longpoll, 'anon', len(longpoll)):.0f}), PostgreSQL {per(base, with_longpoll, 'pg_pss', len(longpoll)):.0f} B, "
          f"kernel {per(base, with_longpoll, 'tcp_mem', len(longpoll)) + per(base, with_longpoll, 'slab', len(longpoll)):.0f} B (both ends)")
    print(f"per Realtime phone: server {per(with_longpoll, with_all, 'rss', len(realtime)):.0f} B RSS "
          f"(anon {per(with_longpoll, with_all, 'anon', len(realtime)):.0f}), PostgreSQL {per(with_longpoll, with_all, 'pg_pss', len(realtime)):.0f} B, "
          f"kernel {per(with_longpoll, with_all, 'tcp_mem', len(realtime)) + per(with_longpoll, with_all, 'slab', len(realtime)):.0f} B (both ends)")
    cpu = CPU(server, postmaster)
    loop.run(lambda: False, IDLE_S)
    print(f"idle, every phone, {CPU.line(cpu.stop(), len(phones))}")

    writers = Writers(loop, host, port, agents, admins)
    # The office: each agent writes WRITES_PER_AGENT_MIN times a minute at random moments.
    start = time.time() + 1
    count = int(len(agents) * RATE * OFFICE_S / 60)
    office = [writers.schedule(start + OFFICE_S * int.from_bytes(os.urandom(4), "big") / 2**32, agents[n % len(agents)], "office")
              for n in range(count)]
    cpu = CPU(server, postmaster)
    loop.run(lambda: False, OFFICE_S + 1)
    loop.run(lambda: all(w.done for w in office), 10)
    loop.run(lambda: False, 5)
    print(f"office ({len(agents)} agents, {RATE:g} write per agent per minute), {CPU.line(cpu.stop(), len(phones))}")
    print("\n".join(deliveries("office", office, phones, sightings(phones, start, time.time()))))

    start = time.time() + 0.5
    burst = [writers.schedule(start + n * BURST_S / BURST, agents[n % len(agents)], "burst") for n in range(BURST)]
    cpu = CPU(server, postmaster)
    loop.run(lambda: all(w.done for w in burst), BURST_S + 30)
    loop.run(lambda: False, 5)
    print(f"burst ({BURST} writes in {BURST_S:g} s), {CPU.line(cpu.stop(), len(phones))}")
    print("\n".join(deliveries("burst", burst, phones, sightings(phones, start, time.time()))))
    before_restart = memory(server, postmaster)
    print(f"after the burst: {describe(before_restart)}")

    restart(loop, phones, server, postmaster, start_script, conninfo, agents, admins, set(users))


def restart(loop, phones, server, postmaster, start_script, conninfo, agents, admins, everyone):
    """SIGTERM, a write while the server is down, start it again; every phone reconnects and must see the write."""
    cpu, drops = CPU(server, postmaster), listen_drops()
    t0 = time.time()
    os.kill(server, signal.SIGTERM)
    loop.run(lambda: not alive(server), 30)
    t_down = time.time()
    agent = agents[0]
    sql = (f"UPDATE users SET name = 'w99901-restart' WHERE id = '{sorted(admins)[0]}'; "
           f"UPDATE tasks SET title = 'w99902-restart' WHERE id = '{agent.tasks[-1]}';")
    psql = subprocess.Popen(["psql", "-X", "-Atq", conninfo, "-v", "ON_ERROR_STOP=1", "-c", sql])
    loop.run(lambda: psql.poll() is not None, 30)
    assert psql.returncode == 0, "the write during the restart failed"
    t_start = time.time()
    new = subprocess.Popen([start_script], start_new_session=True)
    with open(f"{os.path.dirname(start_script)}/server.pid", "w") as f:
        f.write(str(new.pid))
    task_users = {agent.user, agent.staff, *admins}
    want = lambda p: {"w99901-restart"} | ({"w99902-restart"} if p.user in task_users else set())
    seen = lambda: sightings(phones, t0, time.time())
    done = lambda: all(p.ready_at and p.ready_at[-1] > t_start for p in phones)
    loop.run(done, 300)
    checked = {"next": 0.0, "ok": False}

    def all_saw():  # a scan of everything received: once a second
        if time.time() >= checked["next"]:
            s = seen()
            checked["ok"] = all((p.index, m) in s for p in phones for m in want(p))
            checked["next"] = time.time() + 1
        return checked["ok"]
    loop.run(all_saw, 120)
    t_end = time.time()
    loop.run(lambda: False, 3)
    print(f"restart: SIGTERM -> exited {(t_down - t0) * 1000:.0f} ms; write made (psql) {(t_start - t_down) * 1000:.0f} ms; "
          f"{CPU.line(cpu.stop(new.pid), len(phones))} (from SIGTERM to 3 s after the last phone saw the write)")
    first = min((c[0] for p in phones for c in p.connects if c[0] > t_start), default=float("nan"))
    print(f"  new server accepting {(first - t_start) * 1000:.0f} ms after its start; SYNs dropped on a full accept "
          f"queue (TcpExt ListenDrops) {listen_drops() - drops}")
    s = seen()
    for kind in ("longpoll", "realtime"):
        group = [p for p in phones if p.kind == kind]
        after = [[c for c in p.connects if c[0] > t_start] for p in group]
        waits = [a[0][1] for a in after if a]
        reconnected = [a[0][0] - first for a in after if a]
        ready = [min(r for r in p.ready_at if r > t_start) - first for p in group if any(r > t_start for r in p.ready_at)]
        saw = [max(s[(p.index, m)] for m in want(p)) - first for p in group if all((p.index, m) in s for m in want(p))]
        refused = sum(p.refused for p in group)
        resent = sum(1 for a in after if a and a[0][2])
        late = [a[0][3] for a in after if a]
        print(f"  {kind}: the reconnecting attempt started late against its retry timer (this client's own loop) {spread(late)}")
        print(f"  {kind}: reconnected {len(waits)}/{len(group)}, after the server accepted {spread(reconnected)}; "
              f"connect {spread(waits)} (as this client saw it), >= 0.9 s: {sum(w >= 0.9 for w in waits)}, "
              f"SYN sent again (TCP_INFO, a dropped SYN): {resent}; refused attempts while down {refused}")
        print(f"  {kind}: ready again (answered / subscribed) {len(ready)}/{len(group)} {spread(ready)}; "
              f"saw the write made while down {len(saw)}/{len(group)} {spread(saw)}")
    print(f"  storm over (every phone saw the write) {(t_end - first) * 1000:.0f} ms after the server accepted; "
          f"errors after the start {sum(1 for p in phones for at, _ in p.errors if at > t_start)} "
          f"{[e for p in phones for at, e in p.errors if at > t_start][:2]}, "
          f"join errors {sum(len(getattr(p, 'join_errors', [])) for p in phones)}")
    print(f"after the restart: {describe(memory(new.pid, postmaster))}")


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    main()
