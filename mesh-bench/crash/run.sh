#!/usr/bin/env bash
# SIGKILL crash loops against `mesh serve` (see README.md here). Builds mesh-cli if needed,
# compiles CrashDriver.java (with ../soak/SoakClient.java) against its jars and runs it.
# Usage: run.sh DIR PORT CYCLES [SHIFTS]
#   SHIFTS: seconds, comma separated (e.g. -40,0,6,30): each server start reads its wall clock
#   moved by one of them, through an LD_PRELOAD shim (clockshift.c; needs gcc, Linux only).
set -euo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir=$1 port=$2 cycles=$3 shifts=${4:-}
mkdir -p "$dir"
"$root/mesh" --version >/dev/null # builds mesh-cli once, if needed
cp="$root/mesh-cli/target/lib/*"
# The request bodies and how they are sent are the soak client's: compiled beside the driver.
javac -cp "$cp" -d "$dir/classes" "$here/CrashDriver.java" "$here/CrashPostgres.java" \
  "$here/CrashFaults.java" "$here/../soak/SoakClient.java"
if [ -n "$shifts" ]; then
  gcc -shared -fPIC -O2 -o "$dir/libclockshift.so" "$here/clockshift.c" -ldl
  export CRASH_SHIFT_LIB="$dir/libclockshift.so" CRASH_SHIFTS="$shifts"
fi
exec nice java -cp "$dir/classes:$cp" CrashDriver "$root" "$dir/run" "$port" "$cycles"
