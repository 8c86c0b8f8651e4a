"""What bench/phones_clients.py reports (stdlib only): CPU and memory of the server and of the
benchmark's PostgreSQL cluster, and the deliveries of the office's writes to the phones."""
import os, re, time
from realtime_clients import cpu_ticks
from sync_clients import rss_kib

HZ = os.sysconf("SC_CLK_TCK")
MARKER = re.compile(rb'"(w\d{5}-[a-z]+)"')


def pick(values, q):
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def spread(values, unit="ms", scale=1000):
    values = sorted(values)
    if not values:
        return "none"
    return (f"p50 {pick(values, 0.5) * scale:.0f} p99 {pick(values, 0.99) * scale:.0f} "
            f"max {values[-1] * scale:.0f} {unit}")


def cluster_pids(postmaster):
    pids = [postmaster]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(") ", 1)[1].split()[1] == str(postmaster):
                    pids.append(int(pid))
        except (OSError, IndexError):
            pass
    return pids


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return sum(int(line.split()[1]) for line in f if line.startswith("Pss:"))
    except OSError:
        return 0


def memory(server, postmaster):
    """One line: server RSS (anon), PostgreSQL's PSS (every process of the cluster, shared
    buffers counted once), kernel TCP buffers and TCP/socket slab objects (both ends)."""
    tcp = 0
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                parts = line.split()
                tcp, inuse = int(parts[parts.index("mem") + 1]), int(parts[parts.index("inuse") + 1])
    slab = 0
    with open("/proc/slabinfo") as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in ("TCP", "sock_inode_cache", "tcp_bind_bucket", "request_sock_TCP"):
                slab += int(parts[1]) * int(parts[3])
    pg = cluster_pids(postmaster)
    return {"rss": rss_kib(server), "anon": rss_kib(server, "RssAnon"), "pg_pss": sum(pss_kib(p) for p in pg),
            "pg_procs": len(pg), "tcp_mem": tcp * 4, "slab": slab // 1024, "tcp_inuse": inuse}


def describe(m):
    return (f"server VmRSS {m['rss'] / 1024:.1f} MiB (RssAnon {m['anon'] / 1024:.1f}); PostgreSQL PSS "
            f"{m['pg_pss'] / 1024:.1f} MiB ({m['pg_procs']} processes); kernel TCP buffers {m['tcp_mem'] / 1024:.1f} MiB, "
            f"TCP+socket slab {m['slab'] / 1024:.1f} MiB, {m['tcp_inuse']} TCP sockets in use")


def listen_drops():
    """The kernel's count of SYNs dropped because an accept queue was full (machine-wide)."""
    with open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            fields = dict(zip(names.split(), values.split()))
            return int(fields["ListenDrops"])  # overflows of the accept queue, and other drops
    return 0


class CPU:
    """CPU seconds of the server, the cluster and this client over a window, and the load."""

    def __init__(self, server, postmaster):
        self.server, self.postmaster = server, postmaster
        self.start = self.sample()

    def sample(self):
        server, pg = cpu_ticks(self.server, self.postmaster)
        times = os.times()
        return time.time(), server / HZ, pg / HZ, times.user + times.system

    def stop(self, restarted=None):
        """`restarted`: the pid of the server that replaced the sampled one; its whole life is
        counted (the old one's last moments, after the start sample, are not)."""
        if restarted:
            self.server = restarted
        end = self.sample()
        wall, server, pg, client = (b - a for a, b in zip(self.start, end))
        return wall, (end[1] if restarted else server), pg, client

    @staticmethod
    def line(window, phones):
        wall, server, pg, client = window
        per = (server + pg) * 1000 / max(phones, 1) / (wall / 60)
        return (f"{wall:.0f} s: dispatchd {server:.2f} s CPU, PostgreSQL {pg:.2f} s ({(server + pg) / wall * 100:.1f} % of a core); "
                f"{per:.3f} ms CPU per phone per minute; client {client / wall * 100:.0f} % of its core; "
                f"load {open('/proc/loadavg').read().split()[0]}")


def sightings(phones, since, until):
    """{(phone index, marker): first time seen} from what the phones received in [since, until]."""
    seen = {}
    for phone in phones:
        for at, payload in phone.received:
            if since <= at <= until:
                # A Realtime event's old_record (after its record) may name the previous write.
                for marker in MARKER.findall(payload.split(b'"old_record"', 1)[0]):
                    key = (phone.index, marker.decode())
                    if key not in seen:
                        seen[key] = at
    return seen


def deliveries(name, writes, phones, seen, late=1.0):
    """Every (write, phone of a recipient) pair: delivered in time, late, or missing; per kind."""
    by_marker = {w.marker: w for w in writes}
    lines = []
    ok_writes = [w for w in writes if w.status in (200, 201)]
    failed = [(w.marker, w.status) for w in writes if w.status not in (200, 201)]
    response = sorted(w.done - w.sent for w in ok_writes)
    lines.append(f"{name}: {len(writes)} writes ({len(failed)} failed{': ' + str(failed[:3]) if failed else ''}); "
                 f"write response {spread(response)}; sent late against schedule: "
                 f"{spread([w.sent - w.scheduled for w in writes if w.sent])}")
    for kind in ("longpoll", "realtime"):
        group = [p for p in phones if p.kind == kind]
        expected = missing = late_count = 0
        from_sent, from_done = [], []
        for w in ok_writes:
            for p in group:
                if p.user not in w.recipients:
                    continue
                expected += 1
                at = seen.get((p.index, w.marker))
                if at is None:
                    missing += 1
                    continue
                from_sent.append(at - w.sent)
                from_done.append(at - w.done)
                late_count += at - w.sent > late
        unexpected = sum(1 for (i, m) in seen if m in by_marker and phones[i].kind == kind
                         and phones[i].user not in by_marker[m].recipients)
        lines.append(f"  {kind}: {expected - missing}/{expected} delivered, missing {missing}, late (> {late:.0f} s) {late_count}, "
                     f"to a phone that may not see it {unexpected}; write sent -> phone {spread(from_sent)}; "
                     f"write answered -> phone {spread(from_done)}")
    return lines
