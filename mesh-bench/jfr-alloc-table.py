#!/usr/bin/env python3
"""What the mesh side of an in-process HttpServeBenchmark run allocates, by part of a serve.

Record with JFR's allocation sampler (each sample weighs the bytes it stands for), then:

  java -XX:FlightRecorderOptions:stackdepth=256 \
    -XX:StartFlightRecording=delay=22s,duration=8s,settings=profile,jdk.ObjectAllocationSample#throttle=20000/s,filename=a.jfr \
    -cp mesh-bench/target/benchmarks.jar org.meshjava.bench.HttpServeBenchmark 20 10 proxied:64
  jfr print --stack-depth 64 --json --events jdk.ObjectAllocationSample a.jfr > a.json
  mesh-bench/jfr-alloc-table.py a.json KB_PER_REQ   # the run's "KB/req" figure
  mesh-bench/jfr-alloc-table.py a.json KB_PER_REQ --sites 15   # and the top allocation sites
  mesh-bench/jfr-alloc-table.py a.json KB_PER_REQ --sites      # the same, the top 15

A site (--sites) is the innermost frame of ours (org.meshjava) with its line, or the allocating
frame where no frame of ours is on the stack (Jetty's own), with the class most of its bytes were.

Each sample of a mesh-side thread (not load-*, fake-upstream*, JFR's or Common-Cleaner, the JDK's
HTTP server; main only while it serves, see mesh_side in jfr_mesh_side.py) goes to the first part
below whose pattern matches a frame of its stack, else to Jetty's own work; the shares of sampled
bytes are scaled to the run's measured KB per request. The seal is split finer than in
jfr-serve-table.py, since most of what a serve allocates is there.

A KB_PER_REQ that is not a finite number, 0 or more, is a usage line and exit code 2. A
recording that is missing, not JSON, not jfr print --json's shape (a weight that is not a
finite number of bytes, 0 or more, included), or without a mesh-side byte sampled (no such event,
or weights of 0 only) stops with one line naming the file and what is wrong, and exit code 1.
"""
import argparse
import collections
import math
import os
import re
import sys

# The mesh side's rule and the recording's read, shared with jfr-serve-table.py; no __pycache__
# is left beside the scripts.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jfr_mesh_side import events_of, fail, figure, mesh_side, parse_with_count  # noqa: E402

PROG = "jfr-alloc-table.py"

PARTS = [
    ("Ed25519 signature (SigningKey.sign)", r"SigningKey\.sign$"),
    ("signed core: built as a CBOR map (toSignedCore)", r"MeshReceipt\.toSignedCore$"),
    ("COSE_Sign1: Sig_structure, envelope encoding, envelope id", r"CoseSign1\.|receipt\.Envelope\."),
    ("signed core: encoded to bytes", r"Jcr1\$Sealer\.seal$"),
    ("request id, output commitment, opening (CBOR + BLAKE3)",
     r"ServeRequest\.id$|OutputCommitment\.|Opening\$Key|core\.ContentId\."),
    ("journal record (encode, chain)", r"\.journal\."),
    ("transparency log", r"LogKeeper\.|TransparencyLog\."),
    ("rest of the seal (receipt builder, chain lock)", r"steward\.Sealer\.seal$|ReceiptLog\."),
    ("upstream exchange (KeepAliveHttp, deadlines)", r"KeepAliveHttp|ExchangeDeadlines"),
    ("upstream request render (Prompt, UpstreamEngine.body)", r"UpstreamEngine\.body$|openai\.Prompt\."),
    ("upstream reply read (JSON, text, tokens)", r"UpstreamEngine\.serve$"),
    ("response JSON: tree (Completions, usage.energy, receipt JSON)",
     r"Completions\.reply$|EnergyUsage\.|ReceiptJson\."),
    ("response JSON: to bytes (JsonBytes, HexText)", r"JsonBytes\.|HexText\."),
    ("request JSON parse + ServeRequest",
     r"Endpoints\.parse$|GrantedServeRequest\.|UnservedOptions\.|StreamSettings\.|DecisionBody\.|PromptText\."),
    ("routing", r"\.router\.|Steward\.route$"),
    ("steward, other", r"steward\.Steward\."),
    ("response write (Jetty send)", r"OpenAiServer\.write$"),
    ("body read (BodyReader)", r"BodyReader\."),
    ("binding, other (request id, headers, scope)", r"OpenAiServer\$|openai\.RequestId|openai\.Endpoints"),
    ("floor proxy (the floor scenarios)", r"meshjava\.bench\."),
]
JETTY = "Jetty, outside our handler"


def site(v):
    """The innermost frame of ours with its line, else the allocating frame: where to cut."""
    frames = v["stackTrace"]["frames"]
    ours = next((f for f in frames if f["method"]["type"]["name"].startswith("org/meshjava/")), frames[0])
    m = ours["method"]
    return m["type"]["name"].replace("/", ".").split(".")[-1] + "." + m["name"] + ":" + str(ours["lineNumber"])


def arguments(argv):
    """The recording, its KB per request, and how many sites to list (none without --sites)."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="What a serve allocates, by part and by site.")
    parser.add_argument("recording", help="jfr print --json of jdk.ObjectAllocationSample events")
    parser.add_argument("kb_per_request", type=figure, help='the run\'s "KB/req" figure')
    return parse_with_count(parser, argv, "--sites", 15, "allocation sites")


def main():
    args = arguments(sys.argv[1:])
    n_sites = args.sites
    events = events_of(PROG, args.recording)
    kb = args.kb_per_request
    sites = collections.Counter()
    site_class = collections.defaultdict(collections.Counter)
    parts = [(n, re.compile(p)) for n, p in PARTS]
    weights = collections.Counter()
    total = 0
    for i, e in enumerate(events):
        try:
            v = e["values"]
            thread = v.get("eventThread")
            if thread is None or not v["stackTrace"]:
                continue
            m = [f["method"] for f in v["stackTrace"]["frames"]]
            frames = [f["type"]["name"].replace("/", ".") + "." + f["name"] for f in m]
            if not mesh_side(thread["javaName"] or "", frames):
                continue
            part = next((n for n, p in parts if any(p.search(f) for f in frames)), JETTY)
            weight = v["weight"] + 0
            if isinstance(v["weight"], bool) or not 0 <= weight < math.inf:
                # A sample stands for the bytes allocated since the last one: a count. A negative,
                # NaN or infinite one (JSON allows them, jfr never writes them) made shares that
                # were negative or nan, or summed with another to a total of 0.
                raise TypeError(weight)
            where = site(v)
            allocated = v["objectClass"]["name"]
        except (KeyError, TypeError, IndexError, AttributeError):
            fail(PROG, f"{args.recording}: event {i} is not a jdk.ObjectAllocationSample as jfr print --json writes it")
        weights[part] += weight
        total += weight
        sites[where] += weight
        site_class[where][allocated] += weight
    if total == 0:
        # Every share is a fraction of the total: with nothing sampled (no mesh-side event, or
        # only weights of 0) there is no share to give, and --sites divided by zero.
        fail(PROG, f"{args.recording}: no mesh-side bytes sampled ({len(events)} events, total weight 0);"
             " record the measured window with jdk.ObjectAllocationSample enabled")
    print("| part | share of bytes | KB per request |")
    print("|---|---|---|")
    for n in [n for n, _ in PARTS] + [JETTY]:
        if weights[n]:
            print(f"| {n} | {100 * weights[n] / total:.1f}% | {kb * weights[n] / total:.2f} |")
    if n_sites:
        print("\n| site (innermost frame of ours, line) | mostly | share of bytes | bytes per request |")
        print("|---|---|---|---|")
        for where, w in sites.most_common(n_sites):
            cls = site_class[where].most_common(1)[0][0]
            print(f"| `{where}` | `{cls}` | {100 * w / total:.1f}% | {1024 * kb * w / total:.0f} |")


if __name__ == "__main__":
    main()
