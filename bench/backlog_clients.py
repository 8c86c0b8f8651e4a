#!/usr/bin/env python3
"""A connection burst against one server, and an ordinary client right behind it (bench/backlog).

  burst HOST PORT CONNECTIONS BURSTS SOURCES

Each burst opens CONNECTIONS non-blocking connects at once (spread over SOURCES loopback source
addresses, 127.0.0.2 ..., as many phones would come from many addresses), then at once an
ordinary client connects and asks GET /healthz. Every connection of the burst asks
GET /healthz too, as soon as it is connected, as reconnecting phones do. A SYN the kernel drops because the listener's
accept queue is full is retransmitted only after 1 s, so a connect that takes ~1 s or more is
such a drop. Per burst it reports: the ordinary client's connect and request time, and how many
of the burst's connects took >= 0.9 s. All sockets are closed and the server given 2 s before
the next burst. Prints one line per burst, then a summary.
"""
import errno, os, select, socket, sys, threading, time

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"


def source(index, sources):
    return f"127.0.{(index % sources) // 250}.{2 + (index % sources) % 250}" if sources > 1 else "127.0.0.1"


def one_burst(host, port, count, sources):
    sockets, started = [], {}
    poller = select.epoll()
    # Sockets made and bound first, so the connects themselves leave in one tight loop.
    for index in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.bind((source(index, sources), 0))
        sockets.append(sock)
    # Each phone asks at once, as a reconnecting app does: the server parses and answers the
    # early ones while the rest are still arriving. One whose handshake is not complete yet
    # (its SYN dropped) asks when it connects.
    unsent = set()
    for index, sock in enumerate(sockets):
        started[sock.fileno()] = time.monotonic()
        code = sock.connect_ex((host, port))
        if code not in (0, errno.EINPROGRESS):
            raise OSError(code, f"connect {index}")
        try:
            sock.send(REQUEST)
        except OSError:
            unsent.add(sock.fileno())
    # The ordinary client, right behind the burst, on its own thread so the burst's own
    # connects are timed meanwhile: a blocking connect and one request.
    result = {}

    def ordinary_client():
        begin = time.monotonic()
        ordinary = socket.create_connection((host, port), timeout=10)
        result["connect"] = time.monotonic() - begin
        ordinary.sendall(REQUEST)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = ordinary.recv(4096)
            if not chunk:
                break
            answer += chunk
        result["request"] = time.monotonic() - begin
        ordinary.close()
        result["status"] = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none"

    ordinary = threading.Thread(target=ordinary_client)
    ordinary.start()
    # The burst's own connects: how long each took to complete (a connected socket is writable).
    for sock in sockets:
        poller.register(sock.fileno(), select.EPOLLOUT)
    waits, pending = [], set(started)
    deadline = time.monotonic() + 8
    while pending and time.monotonic() < deadline:
        for fd, _ in poller.poll(0.5):
            if fd in pending:
                pending.discard(fd)
                waits.append(time.monotonic() - started[fd])
                poller.unregister(fd)
                if fd in unsent:
                    try:
                        os.write(fd, REQUEST)
                    except OSError:
                        pass
    ordinary.join()
    for sock in sockets:
        sock.close()
    poller.close()
    slow = sum(1 for w in waits if w >= 0.9) + len(pending)
    return result["connect"], result["request"], result["status"], slow, len(pending)


def main():
    host, port, count, bursts, sources = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    connects, requests, slows = [], [], []
    for burst in range(bursts):
        connect, request, status, slow, unfinished = one_burst(host, port, count, sources)
        connects.append(connect); requests.append(request); slows.append(slow)
        print(f"burst {burst + 1}: ordinary connect_ms={connect * 1000:.1f} healthz_ms={request * 1000:.1f} "
              f"status={status} burst_connects_over_0.9s={slow} unfinished_after_8s={unfinished}")
        time.sleep(2)
    connects.sort(); requests.sort()
    mid = len(connects) // 2
    print(f"summary: ordinary connect_ms min={connects[0] * 1000:.1f} median={connects[mid] * 1000:.1f} "
          f"max={connects[-1] * 1000:.1f}; healthz_ms median={requests[mid] * 1000:.1f} max={requests[-1] * 1000:.1f}; "
          f"ordinary waits >= 0.9 s: {sum(1 for c in connects if c >= 0.9)} of {len(connects)}; "
          f"burst connects >= 0.9 s per burst: {sorted(slows)}")


if __name__ == "__main__":
    if len(sys.argv) != 7 or sys.argv[1] != "burst":
        sys.exit(__doc__)
    main()
