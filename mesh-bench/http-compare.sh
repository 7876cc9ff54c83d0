#!/usr/bin/env bash
# The HTTP serve benchmark with `mesh serve` of an older commit and of this checkout side by side,
# in one run: each scenario runs against the old commit's server, then this one's, and the
# benchmark prints this checkout's figures as ratios to the old one's (and both to the direct
# upstream). See mesh-bench/README.md, "The HTTP serve path".
#
#   mesh-bench/http-compare.sh OLD_COMMIT [warm-up s] [measure s] [scenario:c,c ...]
#   mesh-bench/http-compare.sh 185dd4b 40 10 direct:64 reference:64 proxied:64 reference-file:8
#
# A fresh `mesh serve` on 2 loaded cores compiles for tens of seconds; short warm-ups measure the
# JIT (each figure's JIT column; a WARM-UP line above 5%), so compare with 30-40 s warm-ups.
# The old commit is exported with `git archive` into $MESH_COMPARE_DIR (default: a directory under
# the system temp dir, kept, so a second run reuses the build) and built there with its own Maven
# wrapper; nothing is installed into ~/.m2. Only ungranted scenarios run this way (the granted one
# needs a client that signs with the steward's grant, which only the in-process mode has).
# This checkout's reference backend gets "max_waiting_serves": 1024 (since issue 21 a local engine
# under `mesh serve` runs one serve per core and queues none, so c=64 would be answered 429); the
# old commit's configuration is left as it was, unless MESH_OLD_KEYS gives it members too (an old
# commit from after issue 21 needs MESH_OLD_KEYS='"max_waiting_serves": 1024', or it answers most of
# c=64 with 429). Exits non-zero if either side answered any request with anything but 200 (the
# benchmark prints the statuses).
#
# The order matters on a loaded machine: the second process of a pair has compiled later in every
# run of session 40 (mesh-bench/README.md), so its figures lean. MESH_COMPARE_ORDERS=both runs the
# whole plan twice, the old commit first and then this checkout first, and prints this checkout's
# ratios to the old commit's for each order (throughput, mesh CPU per request); the default
# (old-first) runs once, as before. Either way the run ends with a JIT WARNING for each mesh figure
# whose process spent more than 1% of its CPU compiling in the measured window: a lean is worth
# reading only where it holds in both orders with both JIT shares at or under 1%.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old="$(git -C "$here" rev-parse --short "$1")"
shift
warm="${1:-5}"
measure="${2:-5}"
shift $(($# < 2 ? $# : 2))
plan=("$@")
[ ${#plan[@]} -gt 0 ] || plan=(direct:1,8,64 proxied:1,8,64 reference:64 reference-file:8)

orders="${MESH_COMPARE_ORDERS:-old-first}"
case "$orders" in
  old-first) firsts=("$old") ;;
  both) firsts=("$old" this) ;;
  *)
    echo "MESH_COMPARE_ORDERS is old-first (the default) or both, not '$orders'" >&2
    exit 2
    ;;
esac

# A JDK 25 for the builds and the load generator (as the launcher looks for one).
for j in "${JAVA_HOME:-}" /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
  if [ -n "$j" ] && [ -x "$j/bin/java" ] && grep -qs '^JAVA_VERSION="25' "$j/release"; then
    export JAVA_HOME="$j"
    break
  fi
done
export PATH="$JAVA_HOME/bin:$PATH"

base="${MESH_COMPARE_DIR:-${TMPDIR:-/tmp}/mesh-compare}"
dir="$base/$old"
if [ ! -f "$dir/.built" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  git -C "$here" archive "$old" | tar -x -C "$dir"
  echo "building $old in $dir ..." >&2
  (cd "$dir" && ./mvnw -q -B -ntp -DskipTests -pl mesh-cli -am package)
  touch "$dir/.built"
fi
echo "building this checkout's mesh-cli and mesh-bench ..." >&2
(cd "$here" && ./mvnw -q -B -ntp -DskipTests -pl mesh-cli,mesh-bench -am package)

# The launchers must not rebuild while they are measured.
export MESH_NO_BUILD=1
outs=()
status=0
trap 'rm -f "${outs[@]}"' EXIT
for first in "${firsts[@]}"; do
  if [ "$first" = this ]; then
    meshes=(--mesh "this=$here/mesh" --mesh "$old=$dir/mesh")
  else
    meshes=(--mesh "$old=$dir/mesh" --mesh "this=$here/mesh")
  fi
  out="$(mktemp)"
  outs+=("$out")
  echo "== $first first; uptime before: $(uptime)"
  java -cp "$here/mesh-bench/target/benchmarks.jar" org.meshjava.bench.HttpServeBenchmark \
    "$warm" "$measure" "${meshes[@]}" \
    --local-keys 'this="max_waiting_serves": 1024' \
    ${MESH_OLD_KEYS:+--local-keys "$old=$MESH_OLD_KEYS"} "${plan[@]}" | tee "$out" &&
    run=0 || run=$?
  [ "$run" -eq 0 ] || status="$run"
  echo "uptime after: $(uptime)"
done

# This checkout against the old commit, per order, from the figure lines (LABEL c=N R req/s ...
# mesh M µs/req ... JIT J%); and each figure whose process was still compiling.
echo
echo "this / $old by order (throughput, mesh CPU per request; JIT share of $old, of this):"
awk -v old="$old" -v orders="${firsts[*]}" '
  FNR == 1 { n++ }
  $4 == "req/s" && index($1, "@") > 0 {
    at = index($1, "@")
    label = substr($1, at + 1)
    key = substr($1, 1, at - 1) " " $2
    if (!(key in seen)) { seen[key] = 1; keys[++k] = key }
    rps[n, label, key] = $3
    cpu = ""; jit = ""
    for (i = 5; i < NF; i++) {
      if ($i == "mesh") cpu = $(i + 1)
      if ($i == "JIT") { jit = $(i + 1); sub(/%$/, "", jit) }
    }
    meshCpu[n, label, key] = cpu
    jitShare[n, label, key] = jit
    if (jit == "") warn[++w] = key " " label " (" first(n) " first): JIT share unknown"
    else if (jit + 0 > 1.0)
      warn[++w] = key " " label " (" first(n) " first): the JIT used " jit "% of its CPU"
  }
  function first(o,   f) { split(orders, f, " "); return f[o] }
  function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "?" : sprintf("%.3f", a / b) }
  END {
    for (j = 1; j <= k; j++) {
      line = sprintf("%-24s", keys[j])
      for (o = 1; o <= n; o++) {
        line = line sprintf("  %s first: %sx, %sx (JIT %s%%, %s%%)", first(o),
          ratio(rps[o, "this", keys[j]], rps[o, old, keys[j]]),
          ratio(meshCpu[o, "this", keys[j]], meshCpu[o, old, keys[j]]),
          jitShare[o, old, keys[j]], jitShare[o, "this", keys[j]])
      }
      print line
    }
    for (j = 1; j <= w; j++)
      print "JIT WARNING: " warn[j] " in the measured window (over 1%: still compiling;" \
        " lengthen the warm-up before reading a lean)"
  }' "${outs[@]}"
exit "$status"
