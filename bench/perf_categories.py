#!/usr/bin/env python3
"""Where the CPU of a bench/create-cost run went: `perf script` of a cpu0 recording, each sample
put in the first category (most specific first) whose function is on its stack.

usage: bench/perf_categories.py FILE.perf [requests]
  requests: what wrk completed during the recording; with it, each share is also given as
  µs per request (samples are cpu-clock at perf's default 4 kHz: 250 µs each).

Only samples of the bench's own processes count: PostgreSQL (comm "postgres") and dispatchd
(every thread of a process whose stack runs through the dispatchd binary). Other processes on
cpu0 (another build, say) are reported as one line and left out of the shares.
"""
import re
import subprocess
import sys
from collections import Counter

# PostgreSQL: (category, functions that identify it). Order matters: a sample goes to the
# first match, so a trigger's index insert counts as the trigger's, not as "index inserts".
POSTGRES = [
    ("notify: pg_notify at statement end + commit-time queue (helper notify's)",
     ("Async_Notify", "PreCommit_Notify", "AtCommit_Notify", "SignalBackends", "asyncQueueAddEntries",
      "ProcessCompletedNotifies", "asyncQueueProcessPageEntries", "pg_notify")),
    ("commit: WAL flush (fdatasync)", ("XLogFlush", "XLogBackgroundFlush", "issue_xlog_fsync")),
    ("foreign-key checks (RI triggers, FOR KEY SHARE)", ("RI_FKey_check_ins", "RI_FKey_check", "ri_PerformCheck", "SPI_execute_snapshot")),
    ("PL/pgSQL row triggers (stamp, row JSON, access, history stamp)", ("plpgsql_exec_trigger",)),
    ("index inserts", ("ExecInsertIndexTuples",)),
    ("CHECK constraints", ("ExecConstraints",)),
    ("heap insert/update", ("heap_insert", "heap_update", "ExecUpdate")),
    ("planning (custom plans; the fan-out's audience query)", ("standard_planner",)),
    ("executor start/end (opening relations and indexes)", ("standard_ExecutorStart", "standard_ExecutorEnd",
                                                            "ExecCloseIndices", "ExecInitNode")),
    ("executor: the statements' reads (visibility, listing check, account check)", ("standard_ExecutorRun",)),
    ("commit: other (locks release, buffers)", ("CommitTransactionCommand", "CommitTransaction")),
    ("protocol: socket read/write, parse/bind", ("secure_read", "secure_write", "pq_getbyte", "pq_flush",
                                                 "exec_bind_message", "exec_parse_message", "__send", "recv")),
    ("background: WAL writer, checkpointer, autovacuum", ("WalWriterMain", "CheckpointerMain", "AutoVacWorkerMain",
                                                          "BackgroundWriterMain", "AutoVacLauncherMain")),
]
DISPATCHD = [
    ("libpq (send, wait, parse results)", ("PQ", "pqParseInput", "pqGetc", "pqsecure", "pqReadData", "pqSendSome")),
    ("JSON: request body decode", ("JSONDecoder", "JSONSerialization", "__JSONDecoder", "JSONScanner")),
    ("crypto: token signature (OpenSSL)", ("HMAC", "EVP_", "SHA256")),
    ("kernel: socket I/O, epoll, futex", ("do_syscall_64",)),
    ("memory: malloc/free, retain/release", ("malloc", "free", "swift_retain", "swift_release", "swift_allocObject",
                                            "swift_bridgeObject")),
]


def samples(path):
    text = subprocess.run(["perf", "script", "-i", path, "-F", "comm,pid,ip,sym,dso"], capture_output=True,
                          text=True, check=True).stdout
    comm, pid, frames = None, None, []
    for line in text.splitlines():
        if not line.strip():
            if comm is not None:
                yield comm, pid, frames
            comm, pid, frames = None, None, []
        elif not line[0].isspace():
            head = line.split()
            comm, pid = " ".join(head[:-1]), head[-1]
        else:
            m = re.match(r"\s*[0-9a-f]+ (.+?) \((.*)\)$", line)
            if m:
                frames.append((m.group(1).split("+0x")[0], m.group(2)))
    if comm is not None:
        yield comm, pid, frames


def classify(frames, table):
    names = [name for name, _ in frames]
    for category, keys in table:
        if any(name.startswith(key) or key in name for name in names for key in keys):
            return category
    return "other"


def main():
    path = sys.argv[1]
    requests = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    pg, server, others = Counter(), Counter(), Counter()
    dispatchd_pids = set()
    rows = list(samples(path))
    for comm, pid, frames in rows:
        if any("dispatchd" in dso for _, dso in frames):
            dispatchd_pids.add(pid)
    for comm, pid, frames in rows:
        if comm.startswith("postgres"):
            pg[classify(frames, POSTGRES)] += 1
        elif pid in dispatchd_pids:
            server[classify(frames, DISPATCHD)] += 1
        else:
            others[comm] += 1
    total = sum(pg.values()) + sum(server.values())
    print(f"{path}: {total} samples of the bench's processes, {sum(others.values())} of others "
          f"({', '.join(f'{c} {n}' for c, n in others.most_common(4))})")
    for title, counter in (("PostgreSQL", pg), ("dispatchd", server)):
        n = sum(counter.values())
        print(f"{title}: {100.0 * n / max(total, 1):.1f} % of the samples"
              + (f", {n * 250 / requests:.0f} µs/request" if requests else ""))
        for category, count in counter.most_common():
            per = f"{count * 250 / requests:7.0f} µs" if requests else ""
            print(f"  {100.0 * count / max(n, 1):5.1f} % {per}  {category}")


if __name__ == "__main__":
    main()
