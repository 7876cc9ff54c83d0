#!/usr/bin/env bash
# One soak run of `mesh serve` (see README.md here): starts it niced with native memory tracking,
# drives SoakClient.java at RATE requests/s for SECONDS, samples every 30 s, then stops it with
# SIGTERM while the load still runs and checks that it exits, leaves nothing in /tmp and restarts
# on its journal.
# Usage: run.sh DIR PORT SECONDS RATE file|memory [granted|fresh]
# SOAK_CLI=DIR runs the mesh-cli.jar and lib/ in DIR (a copy of another build's mesh-cli/target)
# instead of this tree's launcher, to compare two builds side by side. Copy this folder elsewhere
# before editing it during a run: bash reads a script as it runs it.
set -uo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/../.."
dir=$1 port=$2 seconds=$3 rate=$4 kind=$5 grants=${6:-granted}
mkdir -p "$dir"
cp="$root/mesh-cli/target/lib/*"
javac -cp "$cp" -d "$dir/classes" "$here/SoakClient.java" || exit 1
ls -a /tmp >"$dir/tmp-before"
export JAVA_TOOL_OPTIONS="-XX:NativeMemoryTracking=summary -Xmx1g -Djava.io.tmpdir=$dir/tmp"
mkdir -p "$dir/tmp"
# SOAK_SERVE_ARGS: more flags for mesh serve (word-split), e.g. --metrics-grant-ids.
# shellcheck disable=SC2206
args=(serve --port "$port" --port-file "$dir/port" ${SOAK_SERVE_ARGS:-})
if [ "$kind" = file ]; then
  [ -f "$dir/steward.key" ] || "$root/mesh" key generate --out "$dir/steward.key" >/dev/null
  # SOAK_SNAPSHOTS: the configuration's "snapshots" object (snapshots often race appends more).
  printf '{"snapshots": %s}\n' "${SOAK_SNAPSHOTS:-{\"every_records\": 5000, \"every_s\": 60\}}" >"$dir/mesh.json"
  args+=(--key "$dir/steward.key" --journal "$dir/steward.journal" --config "$dir/mesh.json" --fresh-chain)
  journal="$dir/steward.journal"
else
  journal=-
fi
if [ -n "${SOAK_CLI:-}" ]; then
  # Another build's mesh-cli (its mesh-cli.jar and lib/), started as the launcher starts serve.
  cmd=(java --enable-native-access=org.meshjava.energy,com.microsoft.onnxruntime,ai.djl.tokenizers,com.sun.jna
    --add-modules=jdk.incubator.vector -p "$SOAK_CLI/mesh-cli.jar:$SOAK_CLI/lib"
    -m org.meshjava.cli/org.meshjava.cli.Mesh)
else
  cmd=(env MESH_NO_BUILD=1 "$root/mesh")
fi
nice "${cmd[@]}" "${args[@]}" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 120); do [ -s "$dir/port" ] && break; sleep 1; done
"$here/sample.sh" "$pid" "$port" "$journal" 30 >"$dir/samples.txt" 2>&1 &
jcmd "$pid" GC.class_histogram >"$dir/histo-start.txt" 2>&1
nice java -cp "$dir/classes:$cp" SoakClient "$port" "$((seconds + 20))" "$rate" "$grants" >"$dir/client.log" 2>&1 &
client=$!
sleep "$seconds"
jcmd "$pid" GC.class_histogram >"$dir/histo-end.txt" 2>&1
jcmd "$pid" VM.native_memory summary >"$dir/nmt-end.txt" 2>&1
ls -l /proc/"$pid"/fd >"$dir/fds-end.txt" 2>&1
jcmd "$pid" Thread.print >"$dir/threads-end.txt" 2>&1
# Stop under load: the client runs 20 s longer than this.
t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid"; rc=$?
t1=$(date +%s.%N)
echo "serve exit rc=$rc after $(echo "$t1 - $t0" | bc) s" | tee "$dir/stop.txt"
wait "$client"
ls -a /tmp >"$dir/tmp-after"
diff "$dir/tmp-before" "$dir/tmp-after" | grep -i -e onnx -e mesh -e jna -e djl -e jlama >>"$dir/stop.txt"
echo "left in java.io.tmpdir: $(ls -A "$dir/tmp" | tr "\n" " ")" >>"$dir/stop.txt"
if [ "$kind" = file ]; then
  unset JAVA_TOOL_OPTIONS
  "${cmd[@]}" serve --key "$dir/steward.key" --journal "$journal" \
    --config "$dir/mesh.json" --port "$port" --port-file "$dir/port2" >"$dir/restart.log" 2>&1 &
  p2=$!
  for _ in $(seq 120); do [ -s "$dir/port2" ] && break; kill -0 $p2 2>/dev/null || break; sleep 1; done
  echo "restart: $(curl -s "http://127.0.0.1:$port/readyz")" >>"$dir/stop.txt"
  kill -TERM "$p2"; wait "$p2"; echo "restart exit rc=$?" >>"$dir/stop.txt"
  "${cmd[@]}" journal verify "$journal" >>"$dir/stop.txt" 2>&1
fi
