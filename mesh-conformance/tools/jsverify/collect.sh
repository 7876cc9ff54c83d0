#!/usr/bin/env bash
# Collects real mesh-java artefacts for run.js: two `mesh serve` stewards (the default meter, and
# the estimator), generations at every floor, /v1/responses, typed decisions, streams, overlapping
# serves, grants (direct, delegated, a MaxCostUj breach, ModelIn on the decision model's weights),
# and a restart of the first steward, whose chain must continue.
# Usage: collect.sh OUT_DIR [PORT_A] [PORT_B]   (run from anywhere in a mesh-java checkout; needs
# curl and jq; builds mesh-cli through ./mesh if it has to). Then: node run.js OUT_DIR/art
set -u
OUT=${1:?usage: collect.sh OUT_DIR [PORT_A] [PORT_B]}; PA=${2:-8091}; PB=${3:-8092}
ROOT=$(git -C "$(dirname "$0")" rev-parse --show-toplevel); cd "$ROOT"
mkdir -p "$OUT"; T=$(cd "$OUT" && pwd); rm -rf "$T/art" "$T/keys"; mkdir -p "$T/art/A" "$T/art/B" "$T/keys"
ART=$T/art
M() { ./mesh "$@"; }
M key generate --out $T/keys/sA.key >/dev/null; M key generate --out $T/keys/sB.key >/dev/null
M key generate --out $T/keys/caller.key >/dev/null; MID=$(M key generate --out $T/keys/mid.key)
startA() { rm -f $T/portA; ./mesh serve --key $T/keys/sA.key --journal $T/A.journal --port $PA --port-file $T/portA "$@" > $T/A.log 2>&1 & echo $! > $T/A.pid
  while [ ! -s $T/portA ] && kill -0 $(cat $T/A.pid) 2>/dev/null; do sleep 0.3; done; }
rm -f $T/A.journal $T/B.journal
startA --fresh-chain
rm -f $T/portB; ./mesh serve --key $T/keys/sB.key --journal $T/B.journal --port $PB --port-file $T/portB --meter estimator --fresh-chain > $T/B.log 2>&1 & echo $! > $T/B.pid
while [ ! -s $T/portB ] && kill -0 $(cat $T/B.pid) 2>/dev/null; do sleep 0.3; done
n=0
post() { n=$((n+1)); curl -s -m 120 localhost:$1$2 -H 'Content-Type: application/json' -d "$3" > $4/$(printf %03d $n).json; }
gen() { echo "{\"model\":\"${4:-auto}\",\"max_tokens\":$2,\"messages\":[{\"role\":\"user\",\"content\":\"$1\"}],\"metadata\":{\"fidelity_floor\":\"$3\",\"joule_ceiling_uj\":\"${5:-500000}\"}}"; }
dec() { echo "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"$1\"}],\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"t\",\"schema\":{\"type\":\"object\",\"properties\":{\"duplicate\":{\"type\":\"boolean\",\"description\":\"Is this a duplicate?\"},\"team\":{\"type\":\"string\",\"enum\":[\"finance\",\"ops\",\"legal\"]}}}}},\"metadata\":{\"fidelity_floor\":\"$2\",\"joule_ceiling_uj\":\"500000\"}}"; }
for P in $PA $PB; do D=$ART/A; [ $P = $PB ] && D=$ART/B
  i=0; for F in F0 F1 F2 F3 F4 F1 F2 F0; do i=$((i+1)); post $P /v1/chat/completions "$(gen "question $i about joules $P" $((4*i)) $F)" $D; done
  post $P /v1/chat/completions "$(gen "named backend" 8 F1 reference)" $D
  post $P /v1/responses "{\"model\":\"auto\",\"max_output_tokens\":12,\"input\":\"a responses call $P\",\"metadata\":{\"fidelity_floor\":\"F1\",\"joule_ceiling_uj\":\"500000\"}}" $D
  for q in "Invoice 4411 same payee" "Invoice 9 new payee" "Contract renewal $P"; do post $P /v1/chat/completions "$(dec "$q" F1)" $D; done
  post $P /v1/chat/completions "{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"ticket 7\"}],\"mesh_decision\":{\"questions\":[{\"kind\":\"score\",\"text\":\"How urgent?\",\"rubric\":[\"low\",\"mid\",\"high\"]},{\"kind\":\"choice\",\"text\":\"Which team?\",\"options\":[\"a\",\"b\",\"c\",\"d\"]}]},\"metadata\":{\"fidelity_floor\":\"F1\",\"joule_ceiling_uj\":\"500000\"}}" $D
  for s in 1 2 3 4; do n=$((n+1)); curl -s -N -m 120 localhost:$P/v1/chat/completions -H 'Content-Type: application/json' -d "$(gen "stream $s" $((6*s)) F1 | sed 's/^{/{"stream":true,"stream_options":{"include_usage":true},/')" > $D/$(printf %03d $n).sse; done
  pids=""; for c in 1 2 3 4 5 6; do n=$((n+1)); curl -s -m 120 localhost:$P/v1/chat/completions -H 'Content-Type: application/json' -d "$(gen "parallel $c" 64 F2)" > $D/$(printf %03d $n).json & pids="$pids $!"; done; wait $pids
done
SA=$(curl -s localhost:$PA/v1/mesh/steward | jq -r .did)
WD=$(jq -r '.. | .weights_digest? // empty' $ART/A/*.json | head -1)
M grant issue --issuer-key $T/keys/caller.key --subject "$SA" --budget-uj 50000000 --expires PT2H --out $T/g-direct.hex
M grant issue --issuer-key $T/keys/caller.key --subject "$SA" --budget-uj 50000000 --expires PT2H --max-cost-uj 1000 --out $T/g-maxcost.hex
M grant issue --issuer-key $T/keys/caller.key --subject "$MID" --budget-uj 50000000 --expires PT2H --out $T/g-root.hex
M grant delegate --holder-key $T/keys/mid.key --chain $T/g-root.hex --subject "$SA" --budget-uj 20000000 --out $T/g-deleg.hex
[ -n "$WD" ] && M grant issue --issuer-key $T/keys/caller.key --subject "$SA" --budget-uj 50000000 --expires PT2H --model-in "$WD" --out $T/g-model.hex
k=0
grantreq() { # chain body caller-key: present, serve, keep the presentation beside the body
  k=$((k+1)); echo "$2" > $T/body$k.json
  if M grant present --caller-key $3 --chain $1 --body $T/body$k.json --out $T/p$k.hex --out-body $T/granted$k.json 2>>$T/present.err; then
    n=$((n+1)); curl -s -m 120 localhost:$PA/v1/chat/completions -H 'Content-Type: application/json' -d @$T/granted$k.json > $ART/A/$(printf %03d $n).json
    jq -n --slurpfile b $T/granted$k.json --rawfile p $T/p$k.hex '{granted_body: $b[0], presentation: ($p|rtrimstr("\n"))}' > $ART/A/present$k.json
  fi; }
for i in 1 2 3; do grantreq $T/g-direct.hex "$(gen "granted direct $i" 16 F1 auto 200000)" $T/keys/caller.key; done
grantreq $T/g-maxcost.hex "$(gen "granted breach" 64 F2 auto 200000)" $T/keys/caller.key
grantreq $T/g-maxcost.hex "$(gen "granted breach 2" 32 F1 auto 200000)" $T/keys/caller.key
for i in 1 2; do grantreq $T/g-deleg.hex "$(gen "granted delegated $i" 16 F1 auto 200000)" $T/keys/mid.key; done
[ -n "$WD" ] && grantreq $T/g-model.hex "$(dec "granted decision" F1)" $T/keys/caller.key
grantreq $T/g-direct.hex "$(dec "granted decision direct" F1)" $T/keys/caller.key
kill -TERM $(cat $T/A.pid); while kill -0 $(cat $T/A.pid) 2>/dev/null; do sleep 0.3; done
startA
for i in 1 2 3; do post $PA /v1/chat/completions "$(gen "after restart $i" 8 F1)" $ART/A; done
grantreq $T/g-direct.hex "$(gen "granted after restart" 16 F1 auto 200000)" $T/keys/caller.key
kill -TERM $(cat $T/A.pid) $(cat $T/B.pid)
echo "artefacts in $ART: node $(dirname "$0")/run.js $ART"
