#!/usr/bin/env python3
"""Where the mesh side of an in-process HttpServeBenchmark run spends its CPU, by part of a serve.

Record the proxied (or the reference) scenario with JDK 25's CPU-time sampler, which also samples
threads inside system calls (jdk.ExecutionSample sees only Java frames, and so overstates everything
in Java):

  java -XX:FlightRecorderOptions:stackdepth=256 \
    -XX:StartFlightRecording=delay=27s,duration=10s,settings=profile,jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=1ms,filename=p.jfr \
    -cp mesh-bench/target/benchmarks.jar org.meshjava.bench.HttpServeBenchmark 25 12 proxied:64
  jfr print --stack-depth 256 --json --events jdk.CPUTimeSample p.jfr > p.json
  mesh-bench/jfr-serve-table.py p.json MESH_US   # MESH_US: the run's "mesh" µs/req, optional
  mesh-bench/jfr-serve-table.py p.json MESH_US --top 25   # and the top methods by self and total

The same works on jdk.ExecutionSample (--events jdk.ExecutionSample): Java frames only.

Each sample of a mesh-side thread (not load-*, fake-upstream*, JFR's or Common-Cleaner, the JDK's
HTTP server; main only while it serves, see mesh_side in jfr_mesh_side.py) goes to the first part in the list below whose method is on its stack, else to Jetty's own read and dispatch; with MESH_US
the shares are also given in µs per request. The in-process steward has no metrics (see
"mesh serve processes: what the metrics cost" in README.md).

A recording that is missing, not JSON, not jfr print --json's shape, or without a mesh-side
sample stops with one line naming the file and what is wrong, and exit code 1; a bare --top lists
the top 25.
"""
import argparse
import collections
import os
import re
import sys

# The mesh side's rule and the recording's read, shared with jfr-alloc-table.py; no __pycache__
# is left beside the scripts.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jfr_mesh_side import events_of, fail, figure, mesh_side, parse_with_count  # noqa: E402

PROG = "jfr-serve-table.py"

PARTS = [
    ("Ed25519 signature (SigningKey.sign)", r"SigningKey\.sign$"),
    ("upstream: KeepAliveHttp exchange (socket write, read)", r"KeepAliveHttp\.exchange$"),
    ("upstream: request render + reply parse (UpstreamEngine)", r"UpstreamEngine\.serve$"),
    ("response JSON render (Completions.reply, usage.energy, receipt JSON, to bytes)",
     r"JsonBytes\.of$|Completions\.reply$|Endpoints\.whole$"),
    ("response write (Jetty send, kernel writev)", r"OpenAiServer\.write$"),
    ("request JSON parse + ServeRequest derive", r"Endpoints\.parse$|GrantedServeRequest\.derive$"),
    ("routing", r"org\.meshjava\.router\.|Steward\.route$"),
    ("journal (record encode, chain)", r"InMemoryJournal\.|journal\.internal\.|FileJournal\."),
    ("transparency log (leaf, checkpoint)", r"LogKeeper\.|TransparencyLog\."),
    ("chain lock (ReceiptLog.acquire, unlock)", r"ReceiptLog\.acquire$|ReentrantLock\.unlock$"),
    ("receipt build, CBOR, BLAKE3, envelope (the rest of the seal)", r"steward\.Sealer\.seal$"),
    ("reference engine: its rounds (ReferenceEngine.serve)", r"ReferenceEngine\.serve$"),
    ("steward serve, other (admission, metering)", r"steward\.Steward\.serve$"),
    ("binding, other (Endpoints, headers, body read)",
     r"OpenAiServer\$Api\.answer$|OpenAiServer\$Glue\.handle$"),
]
JETTY = "Jetty server read/dispatch (outside the handler)"
SYSCALL = re.compile(r"^sun\.nio\.ch\.(SocketDispatcher\.\w+0|Net\.poll|EPoll\.\w+|EventFD\.\w+)$")


def name(frame):
    m = frame["method"]
    return m["type"]["name"].replace("/", ".") + "." + m["name"]


def top(samples, n, us):
    """The n methods with the most samples on top of the stack (self) and anywhere on it (total)."""
    own = collections.Counter(frames[0] for frames in samples)
    anywhere = collections.Counter(f for frames in samples for f in set(frames))
    # The dispatch chain every request runs under (thread, Jetty, our handler's entry) is on half
    # the stacks or more; by total, the methods below it are the ones worth reading.
    for method in [m for m, k in anywhere.items() if k > len(samples) / 2]:
        del anywhere[method]
    for title, counter in (("self", own), ("total", anywhere)):
        print(f"\n| method, by {title} (total: under half the samples) | share of samples |" + (" µs/req |" if us else ""))
        print("|---|---|" + ("---|" if us else ""))
        for method, k in counter.most_common(n):
            share = 100 * k / len(samples)
            print(f"| `{method}` | {share:.1f}% |" + (f" {share * us / 100:.1f} |" if us else ""))


def arguments(argv):
    """The recording, the run's mesh µs per request (optional), and how many top methods to list."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Where a serve's CPU goes, by part and by method.")
    parser.add_argument("recording", help="jfr print --json of jdk.CPUTimeSample (or ExecutionSample) events")
    parser.add_argument("mesh_us", type=figure, nargs="?", default=None,
                        help='the run\'s "mesh" µs per request, to give each share in µs too')
    return parse_with_count(parser, argv, "--top", 25, "methods by self and by total")


def main():
    args = arguments(sys.argv[1:])
    n_top = args.top
    us = args.mesh_us
    events = events_of(PROG, args.recording)
    samples = []
    parts = [(n, re.compile(p)) for n, p in PARTS]
    counts = collections.Counter()
    syscalls = collections.Counter()
    total = 0
    for i, e in enumerate(events):
        try:
            v = e["values"]
            thread = v.get("eventThread") or v.get("sampledThread")
            if thread is None or not v["stackTrace"]:
                continue
            frames = [name(f) for f in v["stackTrace"]["frames"]]
            if not mesh_side(thread["javaName"] or "", frames):
                continue
            # The sampled method: a stack without one (frames []) ended here, or in --top's self
            # count, in an IndexError.
            innermost = frames[0]
        except (KeyError, TypeError, IndexError, AttributeError):
            fail(PROG, f"{args.recording}: event {i} is not a jdk.CPUTimeSample or jdk.ExecutionSample"
                 " as jfr print --json writes it")
        total += 1
        samples.append(frames)
        part = next((n for n, p in parts if any(p.search(f) for f in frames)), JETTY)
        counts[part] += 1
        if SYSCALL.match(innermost):
            syscalls[part] += 1
    if total == 0:
        # Every share is a fraction of the total: with no mesh-side sample there is none to give.
        fail(PROG, f"{args.recording}: no mesh-side samples ({len(events)} events); record the measured"
             " window with jdk.CPUTimeSample or jdk.ExecutionSample enabled")
    print(f"{total} samples of mesh-side threads")
    print("| part | share of samples | of which in socket/epoll calls |" + (" µs/req |" if us else ""))
    print("|---|---|---|" + ("---|" if us else ""))
    for n in [n for n, _ in PARTS] + [JETTY]:
        share = 100 * counts[n] / total
        sys_share = 100 * syscalls[n] / total
        row = f"| {n} | {share:.1f}% | {sys_share:.1f}% |"
        print(row + (f" {share * us / 100:.1f} |" if us else ""))
    all_sys = 100 * sum(syscalls.values()) / total
    print(f"| all parts: socket and epoll calls | {all_sys:.1f}% | |" + (f" {all_sys * us / 100:.1f} |" if us else ""))
    if n_top:
        top(samples, n_top, us)


if __name__ == "__main__":
    main()
