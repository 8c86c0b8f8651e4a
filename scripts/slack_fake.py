#!/usr/bin/env python3
"""A fake Slack for tests, on loopback only: an incoming webhook (and response_url) receiver,
and a request signer that is Slack's own SDK (slack_sdk, pinned in scripts/slack-fake), not
the server's code.

  slack_fake.py serve --dir DIR [--answer STATUS:BODY[:RETRY_AFTER]]...
      HTTP/1.1 on 127.0.0.1, a free port. Every POST is appended as one JSON line to
      DIR/requests.jsonl {"path", "body", "content_type", "received_at" (unix seconds, float)},
      written and flushed before the answer. The n-th request gets the n-th --answer (e.g.
      429:rate_limited:2 or 410:channel_is_archived); after the list, 200 "ok". When ready it
      writes DIR/ready.json {"port", "pid"}.

  slack_fake.py sign --secret S --timestamp T  < body
      prints `v0=<hex>` from slack_sdk.signature.SignatureVerifier.generate_signature, and
      exits 1 unless SignatureVerifier.is_valid accepts it (at the current time).
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(args):
    # The test process's threads block SIGTERM and children inherit the mask: unblock it, or
    # `terminate()` would leave the fake running.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    answers = []
    for spec in args.answer or []:
        parts = spec.split(":")
        answers.append((int(parts[0]), parts[1] if len(parts) > 1 else "", parts[2] if len(parts) > 2 else None))
    lock = threading.Lock()
    state = {"count": 0}
    log_path = os.path.join(args.dir, "requests.jsonl")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            with lock:
                index = state["count"]
                state["count"] += 1
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"path": self.path, "body": body, "received_at": time.time(),
                                          "content_type": self.headers.get("Content-Type")}) + "\n")
                    log.flush()
            status, text, retry_after = answers[index] if index < len(answers) else (200, "ok", None)
            payload = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *_):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ready = os.path.join(args.dir, "ready.json")
    with open(ready + ".tmp", "w") as out:
        json.dump({"port": server.server_address[1], "pid": os.getpid()}, out)
    os.replace(ready + ".tmp", ready)
    server.serve_forever()


def sign(args):
    from slack_sdk.signature import SignatureVerifier

    body = sys.stdin.buffer.read().decode("utf-8")
    verifier = SignatureVerifier(signing_secret=args.secret)
    signature = verifier.generate_signature(timestamp=args.timestamp, body=body)
    print(signature)
    if abs(time.time() - int(args.timestamp)) <= 300 and not verifier.is_valid(body=body, timestamp=args.timestamp,
                                                                               signature=signature):
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--dir", required=True)
    serve_parser.add_argument("--answer", action="append")
    sign_parser = commands.add_parser("sign")
    sign_parser.add_argument("--secret", required=True)
    sign_parser.add_argument("--timestamp", required=True)
    args = parser.parse_args()
    serve(args) if args.command == "serve" else sign(args)


if __name__ == "__main__":
    main()
