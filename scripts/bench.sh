#!/usr/bin/env bash
# Cluster benchmark series: start a local 3-node cluster, warm it up once, run `ration bench`
# for each (op, in-flight) pair, print a Markdown table, stop the cluster.
#
#   scripts/bench.sh [--ops "renew acquire"] [--in-flight "1 16 64"] [--warmup 90s]
#                    [--run-warmup 15s] [--duration 45s] [--run-dir DIR] [--out FILE]
#
# The cluster JVMs are warmed up once (--warmup, unmeasured) and each run then has its own
# short warm-up (--run-warmup) for the generator's JIT. Raw JSON lines go to --out
# (default DIR/results.jsonl). Only the cluster this script started is stopped.
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every bin/ration call of this script runs directly: no resident CLI helper is left behind.
export RATION_HELPER=off
ops="renew acquire"
in_flight="1 16 64"
warmup=90s
run_warmup=15s
duration=45s
run_dir=/tmp/ration-bench/run
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ops) ops="$2"; shift 2 ;;
    --in-flight) in_flight="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --run-warmup) run_warmup="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --run-dir) run_dir="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown option '$1'" >&2; exit 1 ;;
  esac
done
[[ -f "$root/cli/target/ration-cli.jar" ]] || { echo "error: build first: mvn -B -q package -DskipTests" >&2; exit 1; }
mkdir -p "$run_dir"
out="${out:-$run_dir/results.jsonl}"
: > "$out"

stop() { "$root/scripts/cluster.sh" stop --run-dir "$run_dir" >/dev/null 2>&1 || true; }
trap stop EXIT INT TERM
"$root/scripts/cluster.sh" start --run-dir "$run_dir"

echo "== warm-up: renew, 64 in flight, $warmup (unmeasured)" >&2
"$root/bin/ration" bench --op renew --in-flight 64 --warmup 0s --duration "$warmup" --output json >/dev/null

for op in $ops; do
  for n in $in_flight; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "== $op, $n in flight (load average $load)" >&2
    "$root/bin/ration" bench --op "$op" --in-flight "$n" --warmup "$run_warmup" --duration "$duration" --output json \
      | python3 -c 'import json,sys; d=json.load(sys.stdin); d["loadAverageBefore"]=float(sys.argv[1]); print(json.dumps(d))' "$load" >> "$out"
  done
done

python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| op | in flight | ops/s | p50 ms | p99 ms | p99.9 ms | errors | load avg before |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    lat = r["latencyMicros"]
    print(f"| {r['op']} | {r['inFlight']} | {r['throughputPerSecond']:,.0f} | {lat['p50']/1000:.1f} | "
          f"{lat['p99']/1000:.1f} | {lat['p999']/1000:.1f} | {r['errors']} | {r['loadAverageBefore']} |")
PY
