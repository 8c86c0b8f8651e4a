"""Keep-alive request loop for bench/callgrind: sends one request N times on one connection and
checks every answer, so the server's instruction count divided by N is its cost per request.

usage: callgrind_client.py PORT PATH N [TOKEN [BODY]]
Without BODY: GET PATH, each answer must be 200. With BODY: POST it as JSON, each answer must
be 201 (a create: a 200 would be the replay of an earlier create, which costs something else).
One connection, one request at a time: every request pays the full event-loop wake-up and
worker hand-off (no batching across connections), which is the cost being profiled.
A /v1/sync path follows each answer's next_since, as a polling phone does (a stale cursor
that no longer covers the server's latest read is answered from the database, not memory)."""
import http.client
import json
import sys
import urllib.parse


def main():
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    headers = {"Authorization": f"Bearer {sys.argv[4]}"} if len(sys.argv) > 4 else {}
    body = sys.argv[5].encode() if len(sys.argv) > 5 else None
    method, expected = ("POST", 201) if body is not None else ("GET", 200)
    if body is not None:
        headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for _ in range(count):
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        answer = response.read()
        if response.status != expected:
            sys.exit(f"{method} {path}: HTTP {response.status}: {answer[:200]!r}")
        if path.startswith("/v1/sync?"):
            path = "/v1/sync?since=" + urllib.parse.quote(json.loads(answer)["next_since"])
    conn.close()


if __name__ == "__main__":
    main()
