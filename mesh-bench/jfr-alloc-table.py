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

Each sample of a mesh-side thread (not load-*, fake-upstream*, the JDK's HTTP server; main only
while it serves, see mesh_side) goes to the first part below whose pattern matches a frame of its stack, else to Jetty's own work; the shares of sampled
bytes are scaled to the run's measured KB per request. The seal is split finer than in
jfr-serve-table.py, since most of what a serve allocates is there.

A recording that is missing, not JSON, not jfr print --json's shape (a weight that is not a
finite number of bytes, 0 or more, included), or without a mesh-side byte sampled (no such event,
or weights of 0 only) stops with one line naming the file and what is wrong, and exit code 1.
"""
import argparse
import collections
import json
import math
import re
import sys

NOT_MESH = ("load-", "fake-upstream", "JFR", "Common-Cleaner")
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


# The JDK's HTTP server is ServeAbTiming's fake upstream (threads HTTP-Dispatcher, pool-N-thread-M);
# no module of ours serves with it, so a sample with its frames is never the mesh side's.
JDK_HTTP_SERVER = ("sun.net.httpserver.", "com.sun.net.httpserver.")
# The bench's untimed work on main: a worker's set-up and close, and the granted bodies (signed
# presentations) readied before a batch is timed (ServeAbTiming, GrantedServeTiming). Their frames
# are in org.meshjava.openai, so "a frame of ours outside mesh-bench" alone counted them as serves.
READYING = re.compile(r"^org\.meshjava\.openai\.(ServeAbWorker\.(open|prepare|close|<init>)"
                      r"|GrantedBodies\.(next|presentationHex|steward|<init>))$")


def mesh_side(thread_name, frames):
    """Whether a sample of this thread, with these frames (innermost first, dotted class names), is
    the mesh side's. Thread main drives and times the load in HttpServeBenchmark, but ServeAbTiming
    serves on it in-process: it is mesh-side while a frame of ours outside mesh-bench (the binding,
    the steward) is on its stack and the bench is not readying (READYING). Dropping main by name
    left a ServeAbTiming recording's serves out. A sample of the JDK's HTTP server never is."""
    if any(f.startswith(JDK_HTTP_SERVER) for f in frames):
        return False
    if thread_name == "main":
        return (any(f.startswith("org.meshjava.") and not f.startswith("org.meshjava.bench.") for f in frames)
                and not any(READYING.match(f) for f in frames))
    return not thread_name.startswith(NOT_MESH)


def site(v):
    """The innermost frame of ours with its line, else the allocating frame: where to cut."""
    frames = v["stackTrace"]["frames"]
    ours = next((f for f in frames if f["method"]["type"]["name"].startswith("org/meshjava/")), frames[0])
    m = ours["method"]
    return m["type"]["name"].replace("/", ".").split(".")[-1] + "." + m["name"] + ":" + str(ours["lineNumber"])


def arguments(argv):
    """The recording, its KB per request, and how many sites to list (none without --sites)."""
    parser = argparse.ArgumentParser(
        prog="jfr-alloc-table.py", description="What a serve allocates, by part and by site.")
    parser.add_argument("recording", help="jfr print --json of jdk.ObjectAllocationSample events")
    parser.add_argument("kb_per_request", type=float, help='the run\'s "KB/req" figure')
    # A bare --sites lists the top 15: it used to read the next word as the count, so at the end
    # of the line it stopped with an IndexError.
    parser.add_argument("--sites", type=int, nargs="?", const=15, default=None, metavar="N",
                        help="also list the top N allocation sites (15 when N is left out)")
    args = parser.parse_args(argv)
    if args.sites is not None and args.sites < 1:
        parser.error("--sites: N must be at least 1")
    return args


def events_of(path):
    """The recording's events; a missing, unreadable or non-JSON file, or JSON that is not jfr print
    --json's shape, stops with one line naming the file and what is wrong, and exit code 1."""
    try:
        with open(path, encoding="utf-8") as f:
            events = json.load(f)["recording"]["events"]
    except OSError as e:
        fail(f"{path}: cannot read the recording: {e.strerror or e}")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(f"{path}: not JSON ({e}); make it with jfr print --json")
    except RecursionError:
        # json nests one Python frame per array or object: a file of many "[" would end in a
        # traceback, not a line.
        fail(f"{path}: JSON nested too deeply to be a recording; make it with jfr print --json")
    except (KeyError, TypeError):
        fail(f"{path}: JSON without recording.events; make it with jfr print --json")
    if not isinstance(events, list):
        fail(f"{path}: recording.events is not a list")
    return events


def fail(message):
    print(f"jfr-alloc-table.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    args = arguments(sys.argv[1:])
    n_sites = args.sites
    events = events_of(args.recording)
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
            fail(f"{args.recording}: event {i} is not a jdk.ObjectAllocationSample as jfr print --json writes it")
        weights[part] += weight
        total += weight
        sites[where] += weight
        site_class[where][allocated] += weight
    if total == 0:
        # Every share is a fraction of the total: with nothing sampled (no mesh-side event, or
        # only weights of 0) there is no share to give, and --sites divided by zero.
        fail(f"{args.recording}: no mesh-side bytes sampled ({len(events)} events, total weight 0);"
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
