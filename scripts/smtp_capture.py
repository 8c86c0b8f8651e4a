#!/usr/bin/env python3
"""A real SMTP server for tests (aiosmtpd, pinned in scripts/smtp-capture), on loopback only,
that captures every message it accepts instead of delivering it.

Each accepted message is appended as one JSON line to DIR/messages.jsonl:
    {"mail_from": ..., "rcpt_tos": [...], "data": <the message, str>, "tls": bool,
     "auth_user": str|null, "received_at": <unix seconds>}
Lines are written whole and flushed before the reply, so a reader that sees a line sees it
complete, and a message the sender was told is accepted is already on disk.

Started as a subprocess (Swift tests, scripts/supabase-test); when ready it writes
DIR/ready.json {"port", "ca_file", "pid"} and prints `SMTP_CAPTURE_READY port=<port>`.
TLS uses a throw-away self-signed certificate made with `openssl req` in DIR (reused when
the server restarts on the same DIR): point SMTP_CA_FILE at ca_file.

Options:
  --dir DIR           where messages.jsonl, ready.json and the certificate go (required)
  --port N            0 (default): a free port; give the old port to restart "the same relay"
  --tls MODE          starttls (default: STARTTLS required before MAIL), implicit, none
  --auth USER:PASS    require AUTH (PLAIN/LOGIN, over TLS only)
  --reject PREFIX     answer RCPT with 550 for recipients starting with PREFIX (permanent failure)
  --reject-once PREFIX  the same, but only for the first mail to each such recipient

Python helpers for pytest: `read_messages(dir)` and `wait_for_messages(dir, count, timeout)`.
"""
import argparse
import email
import email.policy
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time


def read_messages(directory):
    """Every captured message so far, oldest first (complete lines only)."""
    path = os.path.join(directory, "messages.jsonl")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f.read().split("\n") if line.strip()]


def wait_for_messages(directory, count, timeout=20.0, to=None):
    """Waits until at least `count` messages (to `to`, when given) are captured; returns them."""
    deadline = time.monotonic() + timeout
    while True:
        messages = [m for m in read_messages(directory) if to is None or to.lower() in [r.lower() for r in m["rcpt_tos"]]]
        if len(messages) >= count or time.monotonic() > deadline:
            return messages
        time.sleep(0.05)


def plain_text(message):
    """The decoded text/plain part of a captured message (codes are read from here)."""
    parsed = email.message_from_string(message["data"], policy=email.policy.default)
    part = parsed.get_body(preferencelist=("plain",))
    return part.get_content() if part is not None else ""


def make_certificate(directory):
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    if not (os.path.exists(cert) and os.path.exists(key)):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                        "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls", choices=["starttls", "implicit", "none"], default="starttls")
    parser.add_argument("--auth")
    parser.add_argument("--reject")
    parser.add_argument("--reject-once")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    out_path = os.path.join(args.dir, "messages.jsonl")
    lock = threading.Lock()
    rejected_once = set()

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if args.reject and address.lower().startswith(args.reject.lower()):
                return "550 5.1.1 mailbox unavailable (smtp-capture --reject)"
            if args.reject_once and address.lower().startswith(args.reject_once.lower()) and address.lower() not in rejected_once:
                rejected_once.add(address.lower())
                return "550 5.1.1 mailbox unavailable (smtp-capture --reject-once)"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            record = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "data": envelope.original_content.decode("utf-8", "replace"),
                "tls": args.tls == "implicit" or session.ssl is not None,
                "auth_user": session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None,
                "received_at": time.time(),
            }
            with lock, open(out_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
                f.flush()
                os.fsync(f.fileno())
            return "250 2.0.0 accepted"

    kwargs = {}
    cert = None
    if args.tls != "none":
        cert, key = make_certificate(args.dir)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        if args.tls == "starttls":
            kwargs.update(tls_context=context, require_starttls=True)
        else:
            kwargs.update(ssl_context=context)
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=ok, auth_data=auth_data)

        kwargs.update(authenticator=authenticator, auth_required=True, auth_require_tls=args.tls != "none")
    port = args.port or free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port, server_hostname="localhost", **kwargs)
    controller.start()
    ready = {"port": port, "ca_file": cert, "pid": os.getpid()}
    tmp = os.path.join(args.dir, "ready.json.tmp")
    with open(tmp, "w") as f:
        json.dump(ready, f)
    os.replace(tmp, os.path.join(args.dir, "ready.json"))
    print(f"SMTP_CAPTURE_READY port={port}", flush=True)

    stop = threading.Event()
    # A parent's worker thread may have SIGTERM blocked (libdispatch blocks signals), and a
    # blocked mask is inherited: unblock, or `kill` would never reach the handler.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    # Exit with the parent: a test that crashes must not leave a relay behind.
    parent = os.getppid()
    while not stop.wait(0.5):
        if os.getppid() != parent:
            break
    controller.stop()


if __name__ == "__main__":
    sys.exit(main())
