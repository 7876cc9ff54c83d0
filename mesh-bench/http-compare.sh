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
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ]; then
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old="$(git -C "$here" rev-parse --short "$1")"
shift
warm="${1:-5}"
measure="${2:-5}"
shift $(($# < 2 ? $# : 2))
plan=("$@")
[ ${#plan[@]} -gt 0 ] || plan=(direct:1,8,64 proxied:1,8,64 reference:64 reference-file:8)

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
echo "uptime before: $(uptime)"
java -cp "$here/mesh-bench/target/benchmarks.jar" org.meshjava.bench.HttpServeBenchmark \
  "$warm" "$measure" --mesh "$old=$dir/mesh" --mesh "this=$here/mesh" \
  --local-keys 'this="max_waiting_serves": 1024' \
  ${MESH_OLD_KEYS:+--local-keys "$old=$MESH_OLD_KEYS"} "${plan[@]}" && status=0 || status=$?
echo "uptime after: $(uptime)"
exit "$status"
