#!/usr/bin/env python3
"""Drives bench/push: timed writes whose audience owns the registered devices, then reads the
APNs fake's log to put every wake-up against the write that caused it.

Each round is one admin `PATCH /rest/v1/tasks?description=eq.rt-all` (one transaction: one
task of every realtor, so all 200 realtors, and all their devices, are in its audience). The
write's answer arrives just after its commit, so "commit -> receipt" is measured from the
moment the answer was read (it understates by the answer's own trip, well under a
millisecond on loopback) and, as an upper bound, from the moment the write was sent.

usage: push_driver.py rounds --port P --apikey K --token T --gap S --out FILE
       push_driver.py report --requests FILE --rounds FILE --devices N
"""
import argparse
import json
import statistics
import sys
import time
import urllib.request


def rounds(args):
    marks = []
    for n in range(args.rounds):
        body = json.dumps({"priority": ["low", "medium", "high"][n % 3], "title": "rt all %d" % n}).encode()
        request = urllib.request.Request(
            "http://127.0.0.1:%d/rest/v1/tasks?description=eq.rt-all" % args.port, data=body, method="PATCH",
            headers={"apikey": args.apikey, "Authorization": "Bearer " + args.token,
                     "Content-Type": "application/json", "Prefer": "return=minimal"})
        sent = time.time()
        with urllib.request.urlopen(request) as response:
            response.read()
            if response.status not in (200, 204):
                sys.exit("write answered %d" % response.status)
        answered = time.time()
        marks.append({"sent": sent, "answered": answered})
        time.sleep(args.gap)
    with open(args.out, "w") as f:
        json.dump(marks, f)


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def report(args):
    with open(args.rounds) as f:
        marks = json.load(f)
    received = []
    with open(args.requests) as f:
        for line in f:
            record = json.loads(line)
            if record.get("status") == 200:
                received.append(record["received_at"])
    received.sort()
    from_answer, from_sent, per_round = [], [], []
    for i, mark in enumerate(marks):
        end = marks[i + 1]["sent"] if i + 1 < len(marks) else float("inf")
        mine = [t for t in received if mark["sent"] <= t < end]
        per_round.append(len(mine))
        from_answer += [max(0.0, t - mark["answered"]) * 1000 for t in mine]
        from_sent += [(t - mark["sent"]) * 1000 for t in mine]
    missing = sum(max(0, args.devices - n) for n in per_round)
    extra = sum(max(0, n - args.devices) for n in per_round)
    print("rounds %d, devices %d, wake-ups received %d (missing %d, extra %d)"
          % (len(marks), args.devices, sum(per_round), missing, extra))
    for name, values in (("commit -> fake (from the write's answer)", from_answer),
                         ("write sent -> fake (upper bound)", from_sent)):
        if values:
            print("%-42s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms" % (name, percentile(values, 50), percentile(values, 99), max(values)))
    if per_round:
        spans = []
        for i, mark in enumerate(marks):
            end = marks[i + 1]["sent"] if i + 1 < len(marks) else float("inf")
            mine = [t for t in received if mark["sent"] <= t < end]
            if mine:
                spans.append((max(mine) - min(mine)) * 1000)
        print("first -> last wake-up of one write: median %.1f ms (%.0f wake-ups/s)"
              % (statistics.median(spans), args.devices / (statistics.median(spans) / 1000) if spans and statistics.median(spans) > 0 else 0))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("rounds")
    r.add_argument("rounds", type=int)
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--apikey", required=True)
    r.add_argument("--token", required=True)
    r.add_argument("--gap", type=float, default=3.0)
    r.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("--requests", required=True)
    p.add_argument("--rounds", required=True)
    p.add_argument("--devices", type=int, required=True)
    args = parser.parse_args()
    rounds(args) if args.command == "rounds" else report(args)


if __name__ == "__main__":
    main()
