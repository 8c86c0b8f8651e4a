#!/usr/bin/env python3
"""Open N keep-alive connections to a server, send one request on each, read the answer,
then hold them idle and report the server's RSS growth.

usage: idle_connections.py HOST PORT N SERVER_PID [PATH]
Prints one line: `idle_connections=N rss_before_kib=... rss_after_kib=... delta_mib=...`.
"""
import os
import resource
import socket
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main():
    host, port, count, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    path = sys.argv[5] if len(sys.argv) > 5 else "/healthz"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1024), hard))
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    before = rss_kib(pid)
    sockets = []
    for i in range(count):
        s = socket.create_connection((host, port), timeout=10)
        s.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                raise RuntimeError(f"connection {i} closed early")
            data += chunk
        if not data.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"connection {i}: {data[:60]!r}")
        sockets.append(s)
    time.sleep(2)  # let the server settle (buffers freed, allocator quiet)
    after = rss_kib(pid)
    print(f"idle_connections={count} rss_before_kib={before} rss_after_kib={after} "
          f"delta_mib={(after - before) / 1024:.1f}")
    for s in sockets:
        s.close()


if __name__ == "__main__":
    main()
