#!/usr/bin/env bash
# The cost of TLS + authorization: renew and acquire at 1, 16 and 64 in flight against two
# local 3-node clusters started side by side from config/cluster-3 on other ports, one as
# shipped (TLS on every port and security mode secure; the bench presents client.admin, the
# first administrator) and one with `tls: { mode: insecure }` and no security section
# (plaintext, no authorization), alternating secure and plaintext cell by cell (A B A B ...),
# ROUNDS times over all cells.
#
#   scripts/bench-tls.sh [WARMUP_SECONDS] [DURATION_SECONDS] [ROUNDS]   (defaults 10, 20, 3)
#
# Needs the build (mvn -B -q package -DskipTests). RATION_START_TIMEOUT (default 180 s) bounds
# each cluster's start. Work directory run/bench-tls/: the two
# clusters' configurations, data and logs, their own certificates (RATION_CERTS_DIR is set to
# run/bench-tls/certs), each run's JSON, and results.txt with one line per run: op, in flight,
# mode, the 1-minute load average, the node processes' CPU ticks (utime+stime, 1/100 s) over
# the measured window less 3 s at each end, that window in seconds, and the bench's JSON; and
# summary.txt, the median over the rounds of each cell's ops/s, p50, p99 and node CPU per op,
# with the secure/plaintext ratios of the medians. Both clusters are stopped at the end.
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every bin/ration call of this script runs directly: no resident CLI helper is left behind.
export RATION_HELPER=off
cd "$root"
warm="${1:-10}"
dur="${2:-20}"
rounds="${3:-3}"
((dur > 6)) || { echo "error: the duration must be above 6 s" >&2; exit 1; }
((rounds >= 1)) || { echo "error: ROUNDS must be at least 1" >&2; exit 1; }
work="$root/run/bench-tls"
mkdir -p "$work/tls-config" "$work/plain-config"
export RATION_CERTS_DIR="$work/certs"
for i in 1 2 3; do
  sed -e 's/127.0.0.1:71\([0-9][0-9]\)/127.0.0.1:65\1/g; s/127.0.0.1:72\([0-9][0-9]\)/127.0.0.1:66\1/g; s/127.0.0.1:73\([0-9][0-9]\)/127.0.0.1:67\1/g' \
    "config/cluster-3/n$i.yaml" >"$work/tls-config/n$i.yaml"
  sed -e 's/127.0.0.1:71\([0-9][0-9]\)/127.0.0.1:75\1/g; s/127.0.0.1:72\([0-9][0-9]\)/127.0.0.1:76\1/g; s/127.0.0.1:73\([0-9][0-9]\)/127.0.0.1:77\1/g' \
    -e '/^# Transport security/,$d' "config/cluster-3/n$i.yaml" >"$work/plain-config/n$i.yaml"
  printf 'tls:\n  mode: insecure\n' >>"$work/plain-config/n$i.yaml"
done
grep -q '^  mode: secure' "$work/tls-config/n1.yaml" && grep -q '^security:' "$work/tls-config/n1.yaml" ||
  { echo "error: config/cluster-3 no longer runs TLS and authorization" >&2; exit 1; }
! grep -q '^security:' "$work/plain-config/n1.yaml" ||
  { echo "error: the plaintext configuration kept a security section" >&2; exit 1; }
stop() {
  scripts/cluster.sh stop --run-dir "$work/run-tls" --config-dir "$work/tls-config" >/dev/null 2>&1 || true
  scripts/cluster.sh stop --run-dir "$work/run-plain" --config-dir "$work/plain-config" >/dev/null 2>&1 || true
}
trap stop EXIT
RATION_START_TIMEOUT="${RATION_START_TIMEOUT:-180}" scripts/cluster.sh start --run-dir "$work/run-tls" --config-dir "$work/tls-config"
RATION_START_TIMEOUT="${RATION_START_TIMEOUT:-180}" scripts/cluster.sh start --run-dir "$work/run-plain" --config-dir "$work/plain-config"
cpu() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo "$t"; }
: >"$work/results.txt"
for round in $(seq 1 "$rounds"); do
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
      --duration "${dur}s" --output json >"$work/$op-$n-$mode-$round.json" 2>"$work/$op-$n-$mode-$round.err" &
    bench=$!
    # shellcheck disable=SC2086
    { sleep $((warm + 3)); c0=$(cpu $pids); sleep $((dur - 6)); c1=$(cpu $pids); }
    wait "$bench" || true
    line="$op $n $mode round=$round load=$load cpu_ticks=$((c1 - c0)) cpu_window_s=$((dur - 6)) $(tr -d '\n' <"$work/$op-$n-$mode-$round.json")"
    echo "$line" >>"$work/results.txt"
    echo "${line:0:160}..."
  done
done
done
# Medians over the rounds. ops/s is the bench's throughput; node CPU µs per op is the node
# processes' CPU over the middle of the window divided by the operations in that time.
awk '
  function num(key,   m) { if (match($0, "\"" key "\":[0-9.]+")) { m = substr($0, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0 } return -1 }
  function med(list,   a, k, n, t, i) { n = split(list, a, " "); for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) if (a[k] < a[i]) { t = a[i]; a[i] = a[k]; a[k] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  {
    key = $1 " " $2 " " $3; if (!(key in seen)) { seen[key] = 1; order[++cells] = key }
    split($6, c, "="); split($7, w, "=")
    tput = num("throughputPerSecond"); p50 = num("p50"); p99 = num("p99"); err = num("errors")
    ops[key] = ops[key] " " tput; l50[key] = l50[key] " " p50 / 1000; l99[key] = l99[key] " " p99 / 1000
    cpu[key] = cpu[key] " " (tput > 0 ? c[2] * 10000 / (tput * w[2]) : 0); errs[key] += err; runs[key]++
  }
  END {
    printf "%-8s %9s %-6s %5s %10s %8s %8s %12s %7s\n", "op", "in-flight", "mode", "runs", "ops/s", "p50_ms", "p99_ms", "cpu_us/op", "errors"
    for (i = 1; i <= cells; i++) { k = order[i]; split(k, f, " ")
      m_ops[k] = med(ops[k]); m_50[k] = med(l50[k]); m_99[k] = med(l99[k]); m_cpu[k] = med(cpu[k])
      printf "%-8s %9s %-6s %5d %10.1f %8.2f %8.2f %12.0f %7d\n", f[1], f[2], f[3], runs[k], m_ops[k], m_50[k], m_99[k], m_cpu[k], errs[k] }
    printf "\n%-8s %9s %14s %14s %14s %16s\n", "op", "in-flight", "ops/s tls/pl", "p50 tls/pl", "p99 tls/pl", "cpu/op tls/pl"
    for (i = 1; i <= cells; i++) { k = order[i]; split(k, f, " "); if (f[3] != "tls") continue
      p = f[1] " " f[2] " plain"; if (!(p in m_ops) || m_ops[p] == 0 || m_50[p] == 0 || m_99[p] == 0 || m_cpu[p] == 0) continue
      printf "%-8s %9s %14.2f %14.2f %14.2f %16.2f\n", f[1], f[2], m_ops[k] / m_ops[p], m_50[k] / m_50[p], m_99[k] / m_99[p], m_cpu[k] / m_cpu[p] }
  }' "$work/results.txt" | tee "$work/summary.txt"
echo "results: $work/results.txt, medians: $work/summary.txt"
