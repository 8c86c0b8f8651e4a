#!/usr/bin/env python3
"""gzip benchmark client (stdlib only), driven by bench/gzip.

  sync HOST PORT TOKEN SERVER_PID POSTMASTER_PID REPEATS ACCEPT_ENCODING

Follows REPEATS full /v1/sync chains (limit=1000) on one keep-alive connection, sending
ACCEPT_ENCODING ("identity" or "gzip"). Prints the bytes on the wire per full sync (status
line + headers + body, as received) and the CPU per request: user+system time of the
dispatchd process and of every PostgreSQL backend (children of the postmaster) over the run,
from /proc/PID/stat, divided by the number of requests.
"""
import gzip, http.client, json, os, sys, urllib.parse

TICK = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def backends(postmaster):
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                        children.append(int(entry))
            except OSError:
                pass
    return children


def postgres_ticks(postmaster):
    total = 0
    for pid in backends(postmaster):
        try:
            total += cpu_ticks(pid)
        except OSError:
            pass
    return total


def main():
    host, port, token, server_pid, postmaster, repeats, encoding = sys.argv[2:9]
    server_pid, postmaster, repeats = int(server_pid), int(postmaster), int(repeats)
    connection = http.client.HTTPConnection(host, int(port))
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": encoding}
    server_before, pg_before = cpu_ticks(server_pid), postgres_ticks(postmaster)
    wire, requests, rows = 0, 0, 0
    for _ in range(repeats):
        since = None
        while True:
            path = "/v1/sync?limit=1000" + (f"&since={urllib.parse.quote(since)}" if since else "")
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            head = f"HTTP/1.1 {response.status} {response.reason}\r\n" + "".join(
                f"{name}: {value}\r\n" for name, value in response.getheaders()) + "\r\n"
            wire += len(head.encode()) + len(body)
            requests += 1
            if response.status != 200:
                sys.exit(f"status {response.status}: {body[:200]!r}")
            if response.getheader("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            page = json.loads(body)
            rows += sum(len(page[k]) for k in ("users", "listings", "tasks", "activities", "notes",
                                                "subtasks", "claim_events", "status_changes"))
            since = page["next_since"]
            if not page["has_more"]:
                break
    server_cpu = (cpu_ticks(server_pid) - server_before) / TICK
    pg_cpu = (postgres_ticks(postmaster) - pg_before) / TICK
    print(f"accept_encoding={encoding} full_syncs={repeats} rows_per_sync={rows // repeats} "
          f"requests={requests} wire_bytes_per_sync={wire // repeats} "
          f"server_cpu_ms_per_request={1000 * server_cpu / requests:.2f} "
          f"postgres_cpu_ms_per_request={1000 * pg_cpu / requests:.2f} "
          f"total_cpu_ms_per_request={1000 * (server_cpu + pg_cpu) / requests:.2f}")


if __name__ == "__main__":
    main()
