#!/usr/bin/env python3
"""Claim storm: every (task, user) pair of a plan claims at the same moment.

usage: claim_storm.py HOST PORT PLAN_JSON PASSWORD
PLAN_JSON: [{"task": "<uuid>", "users": ["email", ...]}, ...] — users who all see the task.
Signs every user in once, opens one connection per claim, releases all requests together,
and checks contract §3: exactly one 200 per task, every other answer 409 claim_conflict.
Prints a JSON summary; exit 1 when the outcome is wrong.
"""
import asyncio, http.client, json, random, sys, time


def login(host, port, email, password):
    connection = http.client.HTTPConnection(host, port, timeout=60)
    connection.request("POST", "/v1/auth/login", json.dumps({"email": email, "password": password}),
                       {"Content-Type": "application/json"})
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"login {email}: {response.status} {body[:200]!r}")
    return json.loads(body)["access_token"]


async def claim(host, port, task, token, start):
    reader, writer = await asyncio.open_connection(host, port)
    await start.wait()
    began = time.perf_counter()
    writer.write((f"POST /v1/tasks/{task}/claim HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
                  "Content-Length: 0\r\nConnection: close\r\n\r\n").encode())
    await writer.drain()
    data = await reader.read()
    finished = time.perf_counter()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    code = None
    if status != 200 and body:
        try:
            code = json.loads(body).get("code")
        except ValueError:
            code = "unparseable"
    return status, code, began, finished


async def storm(host, port, pairs):
    start = asyncio.Event()
    jobs = [asyncio.create_task(claim(host, port, task, token, start)) for task, token in pairs]
    await asyncio.sleep(1.0)  # let every connection be accepted before anyone sends
    t0 = time.perf_counter()
    start.set()
    results = await asyncio.gather(*jobs)
    return t0, results


def main():
    host, port, plan_path, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    plan = json.load(open(plan_path))
    emails = sorted({u for item in plan for u in item["users"]})
    began = time.perf_counter()
    tokens = {email: login(host, port, email, password) for email in emails}
    login_seconds = time.perf_counter() - began
    pairs = [(item["task"], tokens[u], u) for item in plan for u in item["users"]]
    random.Random(5).shuffle(pairs)
    t0, results = asyncio.run(storm(host, port, [(t, tok) for t, tok, _ in pairs]))
    end = max(r[3] for r in results)
    statuses = {}
    winners = {}
    for (task, _, user), (status, code, _, _) in zip(pairs, results):
        key = f"{status} {code}" if code else str(status)
        statuses[key] = statuses.get(key, 0) + 1
        if status == 200:
            winners.setdefault(task, []).append(user)
    latencies = sorted((r[3] - r[2]) * 1000 for r in results)
    ok = (len(winners) == len(plan) and all(len(w) == 1 for w in winners.values())
          and statuses.get("200", 0) == len(plan) and statuses.get("409 claim_conflict", 0) == len(pairs) - len(plan))
    print(json.dumps({
        "claims": len(pairs), "tasks": len(plan), "users": len(emails), "statuses": statuses,
        "winners": {t: w[0] for t, w in winners.items() if len(w) == 1},
        "storm_seconds": round(end - t0, 3), "claims_per_second": round(len(pairs) / (end - t0), 1),
        "latency_ms_p50": round(latencies[len(latencies) // 2], 1),
        "latency_ms_p99": round(latencies[int(len(latencies) * 0.99) - 1], 1),
        "login_seconds": round(login_seconds, 1), "ok": ok,
    }))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
