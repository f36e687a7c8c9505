#!/usr/bin/env bash
# The cost of TLS: renew and acquire at 1, 16 and 64 in flight against two local 3-node
# clusters started side by side from config/cluster-3 on other ports, one with TLS (as shipped)
# and one with `tls: { mode: insecure }`, alternating TLS and plaintext cell by cell.
#
#   scripts/bench-tls.sh [WARMUP_SECONDS] [DURATION_SECONDS]     (defaults 10 and 20)
#
# Needs the build (mvn -B -q package -DskipTests). Work directory run/bench-tls/: the two
# clusters' configurations, data and logs, their own certificates (RATION_CERTS_DIR is set to
# run/bench-tls/certs), each run's JSON, and results.txt with one line per run: op, in flight,
# mode, the 1-minute load average, the node processes' CPU ticks (utime+stime, 1/100 s) over
# the measured window less 3 s at each end, that window in seconds, and the bench's JSON.
# Both clusters are stopped at the end.
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
warm="${1:-10}"
dur="${2:-20}"
((dur > 6)) || { echo "error: the duration must be above 6 s" >&2; exit 1; }
work="$root/run/bench-tls"
mkdir -p "$work/tls-config" "$work/plain-config"
export RATION_CERTS_DIR="$work/certs"
for i in 1 2 3; do
  sed -e 's/127.0.0.1:71\([0-9][0-9]\)/127.0.0.1:65\1/g; s/127.0.0.1:72\([0-9][0-9]\)/127.0.0.1:66\1/g; s/127.0.0.1:73\([0-9][0-9]\)/127.0.0.1:67\1/g' \
    "config/cluster-3/n$i.yaml" >"$work/tls-config/n$i.yaml"
  sed -e 's/127.0.0.1:71\([0-9][0-9]\)/127.0.0.1:75\1/g; s/127.0.0.1:72\([0-9][0-9]\)/127.0.0.1:76\1/g; s/127.0.0.1:73\([0-9][0-9]\)/127.0.0.1:77\1/g' \
    -e '/^tls:/,$d' "config/cluster-3/n$i.yaml" >"$work/plain-config/n$i.yaml"
  printf 'tls:\n  mode: insecure\n' >>"$work/plain-config/n$i.yaml"
done
stop() {
  scripts/cluster.sh stop --run-dir "$work/run-tls" --config-dir "$work/tls-config" >/dev/null 2>&1 || true
  scripts/cluster.sh stop --run-dir "$work/run-plain" --config-dir "$work/plain-config" >/dev/null 2>&1 || true
}
trap stop EXIT
RATION_START_TIMEOUT=180 scripts/cluster.sh start --run-dir "$work/run-tls" --config-dir "$work/tls-config"
RATION_START_TIMEOUT=180 scripts/cluster.sh start --run-dir "$work/run-plain" --config-dir "$work/plain-config"
cpu() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo "$t"; }
: >"$work/results.txt"
for cell in renew:1 acquire:1 renew:16 acquire:16 renew:64 acquire:64; do
  op=${cell%:*} n=${cell#*:}
  for mode in tls plain; do
    if [[ $mode == tls ]]; then
      servers=127.0.0.1:6501,127.0.0.1:6502,127.0.0.1:6503 run="$work/run-tls" extra=()
    else
      servers=127.0.0.1:7501,127.0.0.1:7502,127.0.0.1:7503 run="$work/run-plain" extra=(--insecure)
    fi
    pids="$(cat "$run/n1.pid" "$run/n2.pid" "$run/n3.pid")"
    load="$(cut -d' ' -f1 /proc/loadavg)"
    bin/ration bench --servers "$servers" "${extra[@]}" --op "$op" --in-flight "$n" --warmup "${warm}s" \
      --duration "${dur}s" --output json >"$work/$op-$n-$mode.json" 2>"$work/$op-$n-$mode.err" &
    bench=$!
    # shellcheck disable=SC2086
    { sleep $((warm + 3)); c0=$(cpu $pids); sleep $((dur - 6)); c1=$(cpu $pids); }
    wait "$bench" || true
    line="$op $n $mode load=$load cpu_ticks=$((c1 - c0)) cpu_window_s=$((dur - 6)) $(tr -d '\n' <"$work/$op-$n-$mode.json")"
    echo "$line" >>"$work/results.txt"
    echo "${line:0:160}..."
  done
done
echo "results: $work/results.txt"
