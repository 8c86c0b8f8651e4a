#!/usr/bin/env python3
"""Sync benchmark clients (stdlib only), driven by bench/sync.

  full    HOST PORT TOKEN PID            follow a full-sync chain; wall time, rows, pages, peak RSS
  waiters HOST PORT TOKEN CURSOR N PID   N idle long-polls (wait=60); RSS, then wake-up latency
          WRITE_PATH WRITE_BODY          after one PATCH (as TOKEN) that every waiter can see
"""
import asyncio, json, sys, time, urllib.parse


def rss_kib(pid, field="VmRSS"):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


async def request(host, port, method, path, token, body=None):
    reader, writer = await asyncio.open_connection(host, port)
    data = json.dumps(body).encode() if body is not None else b""
    head = (f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            f"Connection: close\r\nContent-Length: {len(data)}\r\n")
    if body is not None:
        head += "Content-Type: application/json\r\n"
    writer.write(head.encode() + b"\r\n" + data)
    await writer.drain()
    raw = await reader.read(-1)
    writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, payload


async def full(host, port, token, pid):
    start = time.perf_counter()
    cursor, pages, rows, largest_page = None, 0, 0, 0
    rss_before = rss_kib(pid)
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
    print(f"server_rss_before_kib={rss_before} server_rss_after_kib={rss_kib(pid)} server_peak_rss_kib={rss_kib(pid, 'VmHWM')}")
    print(f"cursor={cursor}")


async def waiters(host, port, token, cursor, count, pid, write_path, write_body):
    path = f"/v1/sync?since={urllib.parse.quote(cursor)}&wait=60"
    rss_before = rss_kib(pid)
    done_at = []

    async def wait_one():
        status, _ = await request(host, port, "GET", path, token)
        done_at.append((time.perf_counter(), status))

    tasks = [asyncio.create_task(wait_one()) for _ in range(count)]
    await asyncio.sleep(3)  # every waiter connected and parked on the server
    assert not done_at, f"{len(done_at)} waiters returned before any write"
    rss_waiting = rss_kib(pid)
    print(f"waiters={count} server_rss_before_kib={rss_before} server_rss_waiting_kib={rss_waiting} "
          f"per_waiter_bytes={(rss_waiting - rss_before) * 1024 // count}")
    write_start = time.perf_counter()
    status, payload = await request(host, port, "PATCH", write_path, token, json.loads(write_body))
    assert status == 200, (status, payload[:200])
    committed = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=70)
    latencies = sorted((t - committed) * 1000 for t, _ in done_at)
    statuses = {s for _, s in done_at}
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"write_ms={(committed - write_start) * 1000:.1f} statuses={sorted(statuses)} "
          f"wake_ms_p50={pick(0.5):.1f} wake_ms_p99={pick(0.99):.1f} wake_ms_max={latencies[-1]:.1f}")


def main():
    mode, host, port, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if mode == "full":
        asyncio.run(full(host, port, token, int(sys.argv[5])))
    elif mode == "waiters":
        asyncio.run(waiters(host, port, token, sys.argv[5], int(sys.argv[6]), int(sys.argv[7]), sys.argv[8], sys.argv[9]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
