"""What jfr-serve-table.py and jfr-alloc-table.py share: which samples are the mesh side's, and how
a recording is read (one line and exit code 1 for one that cannot be, never a traceback).

Both scripts import this module from their own folder; it is not run on its own.
"""
import argparse
import json
import math
import re
import sys

# Threads that are never the mesh side's: the load generator, the fake upstream, and the JVM's own
# (JFR's recorder threads, the cleaner of unreachable buffers), which a recording samples too.
NOT_MESH = ("load-", "fake-upstream", "JFR", "Common-Cleaner")

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
    left a ServeAbTiming recording's serves out. A sample of the JDK's HTTP server never is, nor
    one of a thread NOT_MESH names."""
    if any(f.startswith(JDK_HTTP_SERVER) for f in frames):
        return False
    if thread_name == "main":
        return (any(f.startswith("org.meshjava.") and not f.startswith("org.meshjava.bench.") for f in frames)
                and not any(READYING.match(f) for f in frames))
    return not thread_name.startswith(NOT_MESH)


def parse_with_count(parser, argv, flag, default_count, what):
    """parser's arguments from argv, with the option flag (a count N of what to list, at least 1):
    a bare flag lists default_count, left out it is None. A bare one read the next word as the
    count, so at the end of the line it stopped with an IndexError; a count under 1 is a usage line
    and exit 2. The flag may stand between the positionals (recording --top 30 97.5): parsed in one
    pass, an optional positional before the flag took nothing, and the one after it was refused."""
    parser.add_argument(flag, type=int, nargs="?", const=default_count, default=None, metavar="N",
                        help=f"also list the top N {what} ({default_count} when N is left out)")
    args = parser.parse_intermixed_args(argv)
    count = getattr(args, flag.lstrip("-"))
    if count is not None and count < 1:
        parser.error(f"{flag}: N must be at least 1")
    return args


def figure(text):
    """An argparse type for a run's per-request figure (mesh µs, KB): a finite number, 0 or more.
    float() alone took "nan", "inf" and "-3", and every share printed from them read nan, inf or
    negative, with exit code 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"not a finite number, 0 or more: {text!r}")
    return value


def fail(prog, message):
    """Stops the script named prog with one line on stderr and exit code 1."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(1)


def events_of(prog, path):
    """The recording's events; a missing, unreadable or non-JSON file, or JSON that is not jfr print
    --json's shape, stops prog with one line naming the file and what is wrong, and exit code 1."""
    try:
        with open(path, encoding="utf-8") as f:
            events = json.load(f)["recording"]["events"]
    except OSError as e:
        fail(prog, f"{path}: cannot read the recording: {e.strerror or e}")
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        fail(prog, f"{path}: not JSON ({e}); make it with jfr print --json")
    except RecursionError:
        # json nests one Python frame per array or object: a file of many "[" would end in a
        # traceback, not a line.
        fail(prog, f"{path}: JSON nested too deeply to be a recording; make it with jfr print --json")
    except (KeyError, TypeError):
        fail(prog, f"{path}: JSON without recording.events; make it with jfr print --json")
    if not isinstance(events, list):
        fail(prog, f"{path}: recording.events is not a list")
    return events
