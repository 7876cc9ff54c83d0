#!/usr/bin/env bash
# Samples one running `mesh serve` every INTERVAL seconds until it exits (see README.md here):
# open descriptors, threads, heap after a full GC, native memory (when tracked), the journal's
# and its snapshot folder's size and file count, temporary entries the process holds open
# under /tmp, and how many series /metrics answers.
# Usage: sample.sh PID PORT JOURNAL_FILE_OR_- [INTERVAL]
set -uo pipefail
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export PATH="$JAVA_HOME/bin:$PATH"
pid=$1 port=$2 journal=$3 interval=${4:-30}
echo "time fds threads heap_used_kb nmt_committed_kb journal_bytes snap_files snap_bytes tmp_open metrics_lines"
while kill -0 "$pid" 2>/dev/null; do
  fds=$(ls /proc/"$pid"/fd 2>/dev/null | wc -l)
  threads=$(awk '/^Threads/{print $2}' /proc/"$pid"/status 2>/dev/null)
  jcmd "$pid" GC.run >/dev/null 2>&1
  heap=$(jcmd "$pid" GC.heap_info 2>/dev/null | sed -n 's/.*used \([0-9]*\)K.*/\1/p' | head -n1)
  nmt=$(jcmd "$pid" VM.native_memory summary 2>/dev/null | sed -n 's/^Total: reserved=[0-9]*KB, committed=\([0-9]*\)KB.*/\1/p')
  if [ "$journal" != - ]; then
    jb=$(stat -c %s "$journal" 2>/dev/null || echo 0)
    sf=$(ls "$journal.snapshots" 2>/dev/null | wc -l)
    sb=$(du -sk "$journal.snapshots" 2>/dev/null | cut -f1)
  else
    jb=- sf=- sb=-
  fi
  tmpo=$(ls -l /proc/"$pid"/fd 2>/dev/null | grep -c ' /tmp/')
  ml=$(curl -s --max-time 10 "http://127.0.0.1:$port/metrics" | grep -vc '^#')
  echo "$(date -u +%H:%M:%S) $fds $threads ${heap:-?} ${nmt:--} $jb $sf ${sb:-0} $tmpo $ml"
  sleep "$interval"
done
