#!/usr/bin/env python3
"""Judges race rounds: what the loser changed (from its strace log of file syscalls) and whether
the files present before a round are intact after it, save what the winner itself did.
Usage: race-judge.py DIR [ORIG] (a scenario folder of race.sh; ORIG: the folder the strace
logs name, if it was moved since)."""
import os, re, sys

d = sys.argv[1]
orig = sys.argv[2] if len(sys.argv) > 2 else d  # the folder the strace logs name
logs = os.path.join(d, "logs")
MUT = re.compile(r'^(\d+)\s+(unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|rmdir|truncate|ftruncate|symlink|symlinkat|link|linkat)\((.*)\)\s+=\s+(-?\d+)')
# A call cut short by the SIGKILL (or interleaved with another thread's) has no result: counted as
# done, which is the cautious reading for a loser and the true one for a winner killed in dropOld.
CUT = re.compile(r'^(\d+)\s+(unlink|unlinkat|rename|renameat|renameat2|rmdir|truncate)\((.*) <unfinished \.\.\.>')
OPEN = re.compile(r'^(\d+)\s+openat\((.*)\)\s+=\s+(-?\d+)')


def events(path):
    out = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except FileNotFoundError:
        return out
    for ln in lines:
        m = CUT.match(ln)
        if m and orig in m.group(3):
            out.append(m.group(2) + "(" + m.group(3) + ")")
            continue
        m = MUT.match(ln)
        if m and int(m.group(4)) >= 0 and orig in m.group(3):
            out.append(m.group(2) + "(" + m.group(3) + ")")
            continue
        m = OPEN.match(ln)
        if m and int(m.group(3)) >= 0 and orig in m.group(2):
            args = m.group(2)
            if "O_CREAT" in args or "O_TRUNC" in args:
                out.append("openat(" + args + ")")
    return out


def state(path):
    s = {}
    for ln in open(path).read().splitlines():
        parts = ln.split(" ")
        if parts[0] == "F":
            if len(parts) < 4 or not parts[3]:
                continue  # vanished between listing and reading (a save's .tmp)
            s[parts[1]] = (parts[2], int(parts[3]))
        else:
            s[parts[1]] = ("link", " ".join(parts[2:]))
    return s


rounds = sorted((int(x[1:]) for x in os.listdir(logs) if x.startswith("r")))
problems = 0
counts = {"rounds": 0, "loser_events": 0, "winner_deleted_snapshots": 0}
for r in rounds:
    L = os.path.join(logs, "r%d" % r)
    if not os.path.exists(os.path.join(L, "wl")) or not os.path.exists(os.path.join(L, "after")):
        continue
    counts["rounds"] += 1
    wl = open(os.path.join(L, "wl")).read().split()
    if len(wl) != 2:
        errs = [open(os.path.join(L, "err%d" % i), errors="replace").read() for i in (1, 2)]
        if any("is refused, so the steward" in e for e in errs) and any(
            "is in use by" in e for e in errs
        ):
            # Two journals on one folder: the other journal's steward held the claim while this
            # one tried, then was refused by the snapshot it found there. Neither serves: the
            # folder's record of its journal now refuses that steward before it takes the claim.
            counts["none_other_journal_held_claim"] = counts.get("none_other_journal_held_claim", 0) + 1
            print("r%d: no winner (the claim held by the other journal's steward)" % r)
            problems += 1
        else:
            print("r%d: no winner" % r)
            problems += 1
        continue
    w, l = wl
    lev = events(os.path.join(L, "strace" + l))
    wev = events(os.path.join(L, "strace" + w))
    # What the loser may do: create (and remove again) a journal of its own that did not exist,
    # make the snapshot folder or its lock file if absent (both harmless, the winner locks it).
    before = state(os.path.join(L, "before"))
    mid = state(os.path.join(L, "mid"))
    after = state(os.path.join(L, "after"))
    for e in lev:
        counts["loser_events"] += 1
        name = re.search(r'"([^"]*)"', e)
        p = name.group(1) if name else ""
        rel = "./" + os.path.relpath(p, orig) if p.startswith(orig) else p
        harmless = False
        if e.startswith("openat(") and "O_TRUNC" not in e and rel not in before:
            harmless = True  # created something new (its own journal, the lock file)
        if e.startswith(("mkdir", "mkdirat")):
            harmless = True
        if e.startswith(("unlink", "unlinkat")) and rel not in before and rel.endswith(".journal"):
            harmless = True  # the journal it created itself
        if e.startswith("openat(") and "O_CREAT" in e and rel in before and "O_TRUNC" not in e and "O_EXCL" in e:
            harmless = True  # CREATE_NEW on an existing file fails; success here is impossible
        held_it = "is in use by" not in open(os.path.join(L, "err" + l)).read()
        if e.startswith(("unlink", "unlinkat")) and rel.endswith("steward.lock") and held_it:
            harmless = True  # it held the claim (refused later, by the snapshot), and let it go
            counts["loser_let_go_claim"] = counts.get("loser_let_go_claim", 0) + 1
        if not harmless:
            print("r%d: LOSER %s" % (r, e))
            problems += 1
    # Every file of before: unchanged after, or the winner's doing (journal grown, snapshots
    # dropped by its own saves, lock file removed at its close).
    wdel = set()
    for e in wev:
        if e.startswith(("unlink", "unlinkat", "rename")):
            for p in re.findall(r'"([^"]*)"', e):
                if p.startswith(orig):
                    wdel.add("./" + os.path.relpath(p, orig))
                    # A folder named through a symlink (snaplink): the listing names the real one.
                    real = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
                    wdel.add("./" + os.path.relpath(real, os.path.realpath(orig)))
    for f, v in before.items():
        a = after.get(f)
        if a == v:
            continue
        if f.endswith(".journal") and a is not None and a[1] >= v[1]:
            pre = open(os.path.join(L, "pre", os.path.basename(f)), "rb").read()
            nxt = os.path.join(logs, "r%d" % (r + 1), "pre", os.path.basename(f))
            src = nxt if os.path.exists(nxt) else os.path.join(d, f)
            now = open(src, "rb").read(len(pre))
            if now is None or now == pre:
                continue  # appended to by the winner
            print("r%d: %s rewritten, not appended to" % (r, f))
            problems += 1
            continue
        if f in wdel:
            counts["winner_deleted_snapshots"] += 1
            continue
        print("r%d: %s before %s after %s (not the winner's doing)" % (r, f, v, a))
        problems += 1
print("JUDGE", d, counts, "problems=%d" % problems)
