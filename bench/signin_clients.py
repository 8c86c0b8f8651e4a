#!/usr/bin/env python3
"""Sign-in load for bench/signin (stdlib only).

  sequential HOST PORT EMAIL PASSWORD N      N sign-ins one after another, each must answer 200
  storm HOST PORT EMAILS_FILE PASSWORD       every email of the file signs in at once (a thread
                                             each, released together by a barrier); prints the
                                             time until all were answered and the spread
"""
import http.client, json, sys, threading, time


def sign_in(host, port, email, password, timeout=300):
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    body = json.dumps({"email": email, "password": password})
    connection.request("POST", "/v1/auth/login", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def sequential(host, port, email, password, count):
    for _ in range(count):
        status = sign_in(host, port, email, password)
        if status != 200:
            sys.exit(f"sign-in answered {status}")
    print(f"signed_in={count}")


def storm(host, port, emails_file, password):
    emails = [line.strip() for line in open(emails_file) if line.strip()]
    barrier = threading.Barrier(len(emails) + 1)
    finished, statuses = [0.0] * len(emails), [0] * len(emails)

    def agent(index, email):
        barrier.wait()
        try:
            statuses[index] = sign_in(host, port, email, password)
        except Exception as error:  # a refused or timed-out sign-in is counted, not fatal
            statuses[index] = f"{type(error).__name__}"
        finished[index] = time.monotonic()

    threads = [threading.Thread(target=agent, args=(i, e)) for i, e in enumerate(emails)]
    for thread in threads:
        thread.start()
    start = time.monotonic()
    barrier.wait()
    for thread in threads:
        thread.join()
    waits = sorted(f - start for f in finished)
    ok = sum(1 for s in statuses if s == 200)
    pick = lambda q: waits[min(len(waits) - 1, int(q * len(waits)))]
    print(f"agents={len(emails)} ok={ok} all_answered_s={waits[-1]:.2f} p50_s={pick(0.5):.2f} "
          f"p90_s={pick(0.9):.2f} first_s={waits[0]:.3f}")
    if ok != len(emails):
        print(f"not 200: {[s for s in statuses if s != 200][:10]}", file=sys.stderr)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "sequential":
        sequential(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6]))
    elif mode == "storm":
        storm(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        sys.exit(__doc__)
