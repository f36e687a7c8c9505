#!/usr/bin/env bash
# Soak run: a local three-node cluster under steady mixed load for a bounded time, sampling
# every node's disk, heap and open files into a CSV, to show whether anything grows.
#
#   scripts/soak.sh [--duration 1h] [--interval 60s] [--port-base 7400] [--run-dir DIR]
#                   [--out FILE.csv] [--in-flight N] [--retention 10m] [--keep-cluster]
#
# The cluster is config/cluster-3 with TLS off and its ports moved to the block of --port-base
# P, a multiple of 10 (client P+1..P+3, raft P+11..P+13, admin P+21..P+23), written to
# RUN/config, so a soak runs beside the default cluster; its data lives in RUN (default
# run/soak). Settlements, usage event ids and usage log records are kept for --retention
# (default 10m) instead of the shipped 1h / 1h / 24h..168h, so that within an hour as many are
# forgotten as are added. Load, each a `ration
# bench` loop restarted every 5 minutes until the end: lease acquires and renewals (--op mixed),
# reservations each followed by a complete with usage (--op reserve) and TTL puts over 10000
# keys with a 30 s TTL (--op ttl-put), each with --in-flight N outstanding requests (default 4).
# Every --interval the script forces a full GC on each node (jcmd GC.run) and writes one row
# per node: time, elapsed seconds, node, pid, bytes of the data directory, of its RocksDB
# state (state/) and its Raft log (raft/), heap used after that GC, open file descriptors
# (/proc/PID/fd), threads, resident set size, the node's applied index and the usage log's
# records. Needs jcmd (from the JDK) and curl. At the end (or on Ctrl-C) the load stops, the
# cluster stops unless --keep-cluster, and a summary of first and last rows per node is printed.
set -euo pipefail

root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every bin/ration call of this script runs directly: no resident CLI helper is left behind.
export RATION_HELPER=off
ration="$root/bin/ration"

usage() {
  sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 1
}

seconds_of() {
  local v="$1"
  case "$v" in
    *h) echo $(( ${v%h} * 3600 )) ;;
    *m) echo $(( ${v%m} * 60 )) ;;
    *s) echo "${v%s}" ;;
    *[!0-9]*|"") echo "error: bad duration '$v' (use e.g. 90s, 10m, 1h)" >&2; exit 1 ;;
    *) echo "$v" ;;
  esac
}

duration=3600
interval=60
port_base=7400
retention=10m
run_dir="$root/run/soak"
out=""
in_flight=4
keep=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration) duration="$(seconds_of "${2:?--duration needs a value}")"; shift 2 ;;
    --interval) interval="$(seconds_of "${2:?--interval needs a value}")"; shift 2 ;;
    --port-base) port_base="${2:?--port-base needs a port}"; shift 2 ;;
    --run-dir) run_dir="${2:?--run-dir needs a directory}"; shift 2 ;;
    --out) out="${2:?--out needs a file}"; shift 2 ;;
    --in-flight) in_flight="${2:?--in-flight needs a number}"; shift 2 ;;
    --retention) retention="${2:?--retention needs a duration}"; shift 2 ;;
    --keep-cluster) keep=true; shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
[[ "$duration" =~ ^[0-9]+$ && "$duration" -ge 60 ]] || { echo "error: --duration must be at least 60s" >&2; exit 1; }
[[ "$interval" =~ ^[0-9]+$ && "$interval" -ge 5 ]] || { echo "error: --interval must be at least 5s" >&2; exit 1; }
[[ "$port_base" =~ ^[0-9]+0$ && "$port_base" -ge 1030 && "$port_base" -le 65490 ]] \
  || { echo "error: --port-base must be a multiple of 10 in 1030..65490" >&2; exit 1; }
[[ "$retention" =~ ^[0-9]+[smh]$ ]] || { echo "error: --retention must be like 10m, 600s or 1h" >&2; exit 1; }
[[ "$in_flight" =~ ^[0-9]+$ && "$in_flight" -ge 1 ]] || { echo "error: --in-flight must be >= 1" >&2; exit 1; }
for tool in jcmd curl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool not found on PATH" >&2; exit 1; }
done
mkdir -p "$run_dir"
run_dir="$(cd "$run_dir" && pwd)"
out="${out:-$run_dir/soak.csv}"
config_dir="$run_dir/config"
mkdir -p "$config_dir"

# The cluster-3 configuration, plaintext, on this soak's ports.
# Settlements, event ids and usage records are kept for --retention (default 10m) so that a
# soak of an hour reaches the steady state where as many are forgotten as are added.
for i in 1 2 3; do
  sed -e "s/127.0.0.1:710\([1-3]\)/127.0.0.1:$((port_base / 10))\1/g" \
      -e "s/127.0.0.1:720\([1-3]\)/127.0.0.1:$((port_base / 10 + 1))\1/g" \
      -e "s/127.0.0.1:730\([1-3]\)/127.0.0.1:$((port_base / 10 + 2))\1/g" \
      -e "s/^\( *settled-retention:\).*/\1 $retention\n    usage-retention: $retention\n    usage-max-retention: $retention/" \
      -e "s/^\( *dedup-retention:\).*/\1 $retention/" \
      -e '/^# Transport security/,$d' -e '/^tls:/,$d' \
      "$root/config/cluster-3/n$i.yaml" >"$config_dir/n$i.yaml"
done
servers="127.0.0.1:$((port_base + 1)),127.0.0.1:$((port_base + 2)),127.0.0.1:$((port_base + 3))"
# A loaded machine can take well over a minute to start three JVMs and elect a leader.
export RATION_START_TIMEOUT="${RATION_START_TIMEOUT:-240}"
cluster=("$root/scripts/cluster.sh")
cluster_args=(--config-dir "$config_dir" --run-dir "$run_dir")

load_pids=()
stop_all() {
  local pid
  for pid in "${load_pids[@]}"; do
    kill -- "-$pid" 2>/dev/null || true
  done
  for pid in "${load_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if [[ "$keep" == false ]]; then
    "${cluster[@]}" stop "${cluster_args[@]}" || true
  fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

"${cluster[@]}" start "${cluster_args[@]}"

start_s=$SECONDS
end_s=$((start_s + duration))

# One load: `ration bench` runs of at most 5 minutes each until the end of the soak. Each
# bench run is a child of this loop, so killing the loop's process group ends it.
load_loop() {
  local name="$1"
  shift
  local left run
  while true; do
    left=$((end_s - SECONDS))
    [[ "$left" -gt 5 ]] || break
    run=$((left < 300 ? left : 300))
    "$ration" bench --insecure --servers "$servers" --warmup 0s --duration "${run}s" \
      --in-flight "$in_flight" --progress-interval 60s "$@" >>"$run_dir/load-$name.log" 2>&1 || {
      echo "$(date -u +%FT%TZ) bench $name exited $?" >>"$run_dir/load-$name.log"
      sleep 2
    }
  done
}

setsid bash -c "$(declare -f load_loop); end_s=$((end_s - SECONDS + 0)); SECONDS=0; ration='$ration'; servers='$servers'; in_flight='$in_flight'; run_dir='$run_dir'; load_loop mixed --op mixed --limits 16" &
load_pids+=("$!")
setsid bash -c "$(declare -f load_loop); end_s=$((end_s - SECONDS + 0)); SECONDS=0; ration='$ration'; servers='$servers'; in_flight='$in_flight'; run_dir='$run_dir'; load_loop reserve --op reserve --reserve-projects 8" &
load_pids+=("$!")
setsid bash -c "$(declare -f load_loop); end_s=$((end_s - SECONDS + 0)); SECONDS=0; ration='$ration'; servers='$servers'; in_flight='$in_flight'; run_dir='$run_dir'; load_loop ttl --op ttl-put --ttl-keys 10000 --ttl 30000" &
load_pids+=("$!")

bytes_of() {
  if [[ -e "$1" ]]; then du -sb "$1" 2>/dev/null | cut -f1; else echo 0; fi
}

# Heap used (bytes) right after a full collection: GC.run, then the used figures of every
# space GC.heap_info prints (young and old generation; metaspace is not heap).
heap_after_gc() {
  local pid="$1"
  local info
  jcmd "$pid" GC.run >/dev/null 2>&1 || { echo -1; return 0; }
  info="$(jcmd "$pid" GC.heap_info 2>/dev/null || true)"
  awk '
    /generation|garbage-first heap|region/ && /used/ {
      for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); gsub(/[^0-9KMG]/, "", v);
        m = 1; if (v ~ /K$/) m = 1024; else if (v ~ /M$/) m = 1048576; else if (v ~ /G$/) m = 1073741824;
        sub(/[KMG]$/, "", v); total += v * m } }
    END { printf "%d\n", total + 0 }' <<<"$info"
}

# A gauge from the node's admin /metrics (Prometheus text), or -1.
metric() {
  local admin="$1" name="$2" text
  text="$(curl -fsS --max-time 5 "http://$admin/metrics" 2>/dev/null || true)"
  awk -v n="$name" '!found && ($1 == n || index($1, n "{") == 1) { printf "%d\n", $2; found = 1 }
      END { if (!found) print -1 }' <<<"$text"
}

echo "time,elapsed_s,node,pid,data_bytes,state_bytes,raft_bytes,heap_after_gc_bytes,open_fds,threads,rss_bytes,applied_index,usage_log_sequence" >"$out"
echo "soak: $((duration / 60)) min, a row per node every ${interval}s into $out; load logs in $run_dir/load-*.log"

# A sample never ends the soak: a node that just died shows as -1 in its row.
sample() {
  local i id pid admin fds threads rss heap applied usage
  set +e
  for i in 1 2 3; do
    id="n$i"
    pid="$(cat "$run_dir/$id.pid" 2>/dev/null || echo 0)"
    admin="127.0.0.1:$((port_base + 20 + i))"
    if [[ "$pid" != 0 && -d "/proc/$pid" ]]; then
      fds="$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)"
      threads="$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")"
      rss="$(awk '/^VmRSS:/ {print $2 * 1024}' "/proc/$pid/status")"
      heap="$(heap_after_gc "$pid")"
    else
      fds=-1 threads=-1 rss=-1 heap=-1
    fi
    applied="$(metric "$admin" ration_raft_applied_index)"
    usage="$(metric "$admin" ration_quota_usage_log_sequence)"
    echo "$(date -u +%FT%TZ),$((SECONDS - start_s)),$id,$pid,$(bytes_of "$run_dir/$id"),$(bytes_of "$run_dir/$id/state"),$(bytes_of "$run_dir/$id/raft"),$heap,$fds,$threads,$rss,$applied,$usage" >>"$out"
  done
  set -e
}

while [[ $SECONDS -lt $end_s ]]; do
  sample
  next=$((SECONDS + interval))
  while [[ $SECONDS -lt $next && $SECONDS -lt $end_s ]]; do sleep 1; done
done
sample

echo "soak done; first and last sample per node (data, state, raft, heap after GC, fds):"
awk -F, 'NR > 1 { if (!($3 in first)) first[$3] = $0; last[$3] = $0 }
  END { for (n in first) { split(first[n], a, ","); split(last[n], b, ",");
    printf "%s  data %d -> %d  state %d -> %d  raft %d -> %d  heap %d -> %d  fds %d -> %d\n",
      n, a[5], b[5], a[6], b[6], a[7], b[7], a[8], b[8], a[9], b[9] } }' "$out" | sort
