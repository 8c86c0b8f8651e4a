"""The tests' webhook receiver: a real HTTP/1.1 server on 127.0.0.1 that answers as scripted
and verifies each request's Standard Webhooks signature with the PyPI `standardwebhooks`
package (code we did not write).

The script is the request path: /s/<answer>,<answer>,... gives the answer to the 1st, 2nd, ...
request on that path (the last one repeats). Answers: a status (200, 500, 302, 410), 429-N
(429 with Retry-After: N), slow-N (wait N seconds, then 200), reset (close the connection
without answering).

The secrets to verify with are read, per request, from <dir>/secrets (one whsec_ per line), so
a test can register the endpoint (and learn its secret) after the receiver is up. Every request
is appended to <dir>/requests.jsonl: path, headers, body, which secrets verified it, the answer.
<dir>/ready.json holds the port once the server listens.
"""
import argparse
import json
import os
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

lock = threading.Lock()
counts = {}


def secrets(directory):
    try:
        with open(os.path.join(directory, "secrets")) as handle:
            return [line.strip() for line in handle if line.strip()]
    except FileNotFoundError:
        return []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with lock:
            number = counts.get(self.path, 0)
            counts[self.path] = number + 1
        script = self.path.split("/s/", 1)[1].split(",") if "/s/" in self.path else ["200"]
        answer = script[min(number, len(script) - 1)]
        headers = {name.lower(): value for name, value in self.headers.items()}
        verified = []
        for index, secret in enumerate(secrets(self.server.directory)):
            try:
                Webhook(secret).verify(body, headers)
                verified.append(index)
            except Exception:
                pass
        record = {"path": self.path, "headers": headers, "body": body.decode("utf-8", "replace"),
                  "verified": verified, "answer": answer, "received_at": time.time()}
        with lock:
            with open(os.path.join(self.server.directory, "requests.jsonl"), "a") as handle:
                handle.write(json.dumps(record) + "\n")
        if answer == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        status, extra = 200, {}
        if answer.startswith("slow-"):
            time.sleep(float(answer[5:]))
        elif answer.startswith("429-"):
            status, extra = 429, {"Retry-After": answer[4:]}
        else:
            status = int(answer)
        if status == 302:
            extra["Location"] = "http://127.0.0.1:9/elsewhere"
        reply = b"ok" if status < 300 else b"scripted failure"
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.directory = arguments.dir
    with open(os.path.join(arguments.dir, "ready.json.tmp"), "w") as handle:
        json.dump({"port": server.server_address[1]}, handle)
    os.rename(os.path.join(arguments.dir, "ready.json.tmp"), os.path.join(arguments.dir, "ready.json"))
    server.serve_forever()


if __name__ == "__main__":
    main()
