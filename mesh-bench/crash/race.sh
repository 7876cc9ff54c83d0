#!/usr/bin/env bash
# Lock races of two `mesh serve` started together (see README.md here, "Lock races").
# Usage: race.sh DIR SCENARIO ROUNDS PORT1 PORT2; then race-judge.py DIR/SCENARIO.
#   same     : one journal, one snapshot folder ("dir" in the configuration), by the same paths
#   twojour  : two journals, one snapshot folder
#   snaplink : two journals, one snapshot folder, the second steward's named through a symlink
#   symlink  : one journal, the second steward's named through a symlink; the default
#              snapshot folder, one since SPEC.md 60.8 follows the link (before: one per name)
# Each round: the folder's listing and hashes, both started at once under strace (file syscalls
# only), wait for one to listen and the other to exit, check the refusal, a few requests to the
# winner (records, snapshots), then the winner stopped (SIGKILL, every third round SIGTERM), so
# that the next round also starts over a claim its holder never let go. With RACE_FRESH=1 each
# round starts with no journal and no snapshot folder, so that both race to create them.
set -uo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH=$JAVA_HOME/bin:$PATH
export MESH_NO_BUILD=1
export JAVA_TOOL_OPTIONS=-XX:TieredStopAtLevel=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
base=$1 sc=$2 rounds=$3 p1=$4 p2=$5 cfg2=""
d=$base/$sc
mkdir -p "$d"
key=$base/k.key
[ -f "$key" ] || "$root/mesh" key generate --out "$key" >/dev/null
case $sc in
  same)
    cfg=$d/mesh.json
    printf '{"key_file":"%s","meter":"estimator","backends":[{"type":"reference","name":"small","fidelity":"F1","uj_per_token":40}],"snapshots":{"every_records":1,"dir":"%s"}}' "$key" "$d/snaps" >"$cfg"
    j1=$d/a.journal j2=$d/a.journal ;;
  twojour)
    cfg=$d/mesh.json
    printf '{"key_file":"%s","meter":"estimator","backends":[{"type":"reference","name":"small","fidelity":"F1","uj_per_token":40}],"snapshots":{"every_records":1,"dir":"%s"}}' "$key" "$d/snaps" >"$cfg"
    j1=$d/a.journal j2=$d/b.journal ;;
  snaplink)
    cfg=$d/mesh.json cfg2=$d/mesh2.json
    printf '{"key_file":"%s","meter":"estimator","backends":[{"type":"reference","name":"small","fidelity":"F1","uj_per_token":40}],"snapshots":{"every_records":1,"dir":"%s"}}' "$key" "$d/snaps" >"$cfg"
    printf '{"key_file":"%s","meter":"estimator","backends":[{"type":"reference","name":"small","fidelity":"F1","uj_per_token":40}],"snapshots":{"every_records":1,"dir":"%s"}}' "$key" "$d/snaps-link" >"$cfg2"
    mkdir -p "$d/snaps"; ln -sfn snaps "$d/snaps-link"
    j1=$d/a.journal j2=$d/b.journal ;;
  symlink)
    cfg=$d/mesh.json
    printf '{"key_file":"%s","meter":"estimator","backends":[{"type":"reference","name":"small","fidelity":"F1","uj_per_token":40}],"snapshots":{"every_records":1}}' "$key" >"$cfg"
    j1=$d/a.journal j2=$d/link.journal
    ln -sfn a.journal "$d/link.journal" ;;
esac
state() { # listing + hashes of everything under $d except our own logs
  (cd "$d" && find . -path ./logs -prune -o \( -type f -o -type l \) -print | sort | while read -r f; do
    # (a save's .tmp may go between the listing and the read: its line then has no size)
    if [ -L "$f" ]; then echo "L $f -> $(readlink "$f")"; else echo "F $f $(sha256sum <"$f" | cut -c1-16) $(stat -c %s "$f")"; fi
  done) 2>/dev/null
}
mkdir -p "$d/logs"
ok=0 fail=0 both=0 none=0 none_shared=0 held_journal=0 held_folder=0 by_snapshot=0 by_record=0
w1=0 w2=0
for r in $(seq 1 "$rounds"); do
  L=$d/logs/r$r; mkdir -p "$L"
  if [ -n "${RACE_FRESH:-}" ]; then
    # Every round a race to create: no journal, no snapshot folder (a symlink left dangling).
    rm -rf "$d"/*.journal.snapshots "$d/snaps" "$d"/receipted*
    find "$d" -maxdepth 1 -name '*.journal' -type f -delete
    [ "$sc" = snaplink ] && mkdir -p "$d/snaps"
  fi
  state >"$L/before"
  mkdir -p "$L/pre"; for jf in "$d"/*.journal; do [ -f "$jf" ] && [ ! -L "$jf" ] && cp "$jf" "$L/pre/"; done
  rm -f "$L"/port1 "$L"/port2
  for i in 1 2; do
    j=$j1; p=$p1; c=$cfg; [ $i = 2 ] && { j=$j2; p=$p2; c=${cfg2:-$cfg}; }
    # --fresh-chain only while this steward's journal records no receipt yet (with two journals,
    # each journal's own: the second's winning a round made the first's next start refuse it)
    fresh=()
    [ -s "$j" ] && grep -q . "$d/receipted-$(basename "$(readlink -f "$j")")" 2>/dev/null || fresh=(--fresh-chain)
    strace -f --seccomp-bpf -qq -e trace=openat,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,rmdir,truncate,ftruncate,symlink,symlinkat,link,linkat \
      -o "$L/strace$i" "$root/mesh" serve --config "$c" --journal "$j" --port "$p" --port-file "$L/port$i" "${fresh[@]}" \
      >"$L/out$i" 2>"$L/err$i" &
    eval "spid$i=$!"
  done
  # The JVMs are strace's children (the launcher execs java): signals go to them, not to strace,
  # whose own life (it ends when its child does) says whether the JVM runs.
  for i in 1 2; do
    sp=$(eval echo \$spid$i) c=""
    for _ in $(seq 1 400); do
      c=$(pgrep -P "$sp" | head -n1)
      [ -n "$c" ] && break
      kill -0 "$sp" 2>/dev/null || break
      sleep 0.05
    done
    [ -n "$c" ] || c=$(head -n1 "$L/strace$i" 2>/dev/null | cut -d' ' -f1)
    eval "pid$i=$c"
  done
  # Wait until one listens and the other has exited (or 240 s).
  winner="" loser="" t0=$SECONDS
  while [ $((SECONDS - t0)) -lt 240 ]; do
    alive1=0 alive2=0
    kill -0 "$spid1" 2>/dev/null && alive1=1
    kill -0 "$spid2" 2>/dev/null && alive2=1
    [ -s "$L/port1" ] && l1=1 || l1=0
    [ -s "$L/port2" ] && l2=1 || l2=0
    if [ $l1 = 1 ] && [ $l2 = 1 ]; then break; fi
    if [ $alive1 = 0 ] && [ $alive2 = 0 ]; then break; fi
    if { [ $l1 = 1 ] && [ $alive2 = 0 ]; } || { [ $l2 = 1 ] && [ $alive1 = 0 ]; }; then break; fi
    sleep 0.3
  done
  [ -s "$L/port1" ] && l1=1 || l1=0
  [ -s "$L/port2" ] && l2=1 || l2=0
  verdict=""
  if [ $l1 = 1 ] && [ $l2 = 1 ]; then verdict="FAIL both listen"; both=$((both+1));
  elif [ $l1 = 0 ] && [ $l2 = 0 ]; then
    wait "$spid1" 2>/dev/null; wait "$spid2" 2>/dev/null
    if grep -q "is refused, so the steward" "$L/err1" "$L/err2" && grep -q "is in use by another" "$L/err1" "$L/err2"; then
      # The other journal's steward held the claim as this one tried, then was refused by the
      # snapshot it found: neither serves (a folder shared by two journals; see README.md). The
      # folder's record of its journal now refuses that steward before it takes the claim.
      none_shared=$((none_shared+1)); verdict="FAIL none listens (the claim held by the other journal's steward)"
    else
      verdict="FAIL none listens"; none=$((none+1))
    fi
  else
    if [ $l1 = 1 ]; then winner=1 loser=2; w1=$((w1+1)); else winner=2 loser=1; w2=$((w2+1)); fi
    wpid=$(eval echo \$pid$winner); lpid=$(eval echo \$pid$loser)
    wait "$(eval echo \$spid$loser)"; lrc=$?
    msg=$(tr '\n' ' ' <"$L/err$loser")
    case "$msg" in
      *"is held by another steward process"*) held_journal=$((held_journal+1)) ;;
      *"snapshot folder"*"is in use by another steward"*) held_folder=$((held_folder+1)) ;;
      # Two journals on one folder: the folder records the other journal as its snapshots' own.
      *"snapshot folder"*"holds the snapshots of journal"*) by_record=$((by_record+1)) ;;
      # Two journals on one folder: the loser took the claim first and then found the other
      # journal's snapshot there (or the winner waited for it to let go).
      *"is refused, so the steward does not start from it"*) by_snapshot=$((by_snapshot+1)) ;;
      *) verdict="FAIL loser message: rc=$lrc $msg" ;;
    esac
    [ "$lrc" = 1 ] || verdict="${verdict:+$verdict; }FAIL loser rc=$lrc"
    # a few requests: records and snapshots
    wp=$(cat "$L/port$winner")
    n=$((2 + RANDOM % 5))
    for k in $(seq 1 $n); do
      curl -s -o /dev/null -w '%{http_code}\n' -m 30 -H 'content-type: application/json' \
        -d '{"model":"small","messages":[{"role":"user","content":"round '"$r"' hello"}],"max_tokens":8}' \
        "http://127.0.0.1:$wp/v1/chat/completions" >>"$L/codes"
    done
    grep -qv '^200$' "$L/codes" && verdict="${verdict:+$verdict; }FAIL winner answered $(sort "$L/codes" | uniq -c | tr '\n' ' ')"
    wj=$j1; [ "$winner" = 2 ] && wj=$j2
    echo yes >"$d/receipted-$(basename "$(readlink -f "$wj")")"
  fi
  state >"$L/mid"
  # stop the winner (and a stray)
  sig=KILL; [ $((r % 3)) = 0 ] && sig=TERM
  for pid in $pid1 $pid2; do [ -n "$pid" ] && kill -$sig "$pid" 2>/dev/null; done
  # a JVM not signalled (its pid not found) is found as strace's child now
  for sp in $spid1 $spid2; do for c in $(pgrep -P "$sp"); do kill -KILL "$c" 2>/dev/null; done; done
  wait "$spid1" 2>/dev/null; wait "$spid2" 2>/dev/null
  state >"$L/after"
  echo "$r sc=$sc winner=${winner:-none} loser_err=$(head -c 300 "$L/err${loser:-1}" | tr '\n' ' ') stop=$sig ${verdict:-ok}"
  if [ -n "$verdict" ]; then fail=$((fail+1)); else ok=$((ok+1)); fi
  echo "$winner $loser" >"$L/wl"
done
echo "END sc=$sc rounds=$rounds ok=$ok fail=$fail both=$both none=$none winner1=$w1 winner2=$w2" \
  "refused: journal-held=$held_journal folder-held=$held_folder by-record=$by_record by-snapshot=$by_snapshot" \
  "none-on-a-shared-folder=$none_shared"
