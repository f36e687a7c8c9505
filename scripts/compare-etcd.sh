#!/usr/bin/env bash
# Ration against etcd on this machine: the same closed-loop shapes, alternating, in one run.
#
#   scripts/compare-etcd.sh [--runs N] [--in-flight 1,16,64] [--shapes renew,acquire,reserve,reserve-hot]
#                           [--warmup-seconds S] [--duration-seconds S] [--prewarm-seconds S]
#                           [--ration-config-dir DIR] [--etcd-port-base P] [--json FILE]
#                           [--server-cpus LIST] [--driver-cpus LIST]
#
# Starts a three-member etcd on loopback (client ports P+1..P+3, peer ports P+11..P+13; P
# defaults to 23790) in a temporary directory and a three-node Ration cluster
# (scripts/cluster.sh, config/cluster-3 or --ration-config-dir), runs the comparison driver
# (etcd-compare: jetcd in process for etcd, `bin/ration bench` for Ration), prints a table of
# medians (ops/s, p50/p99, the servers' CPU per operation), and stops both clusters (by the
# pids it started) on exit. Shapes, Ration / etcd:
#   renew        renewal of the slot's lease (durable)          / LeaseKeepAliveOnce
#   acquire      new 2 s lease                                  / LeaseGrant, 2 s TTL
#   reserve      reserve 1 + complete, project per slot (mod 8) / get + txn CAS, key per slot
#   reserve-hot  the same on one project                        / the same on one key
# --server-cpus / --driver-cpus (taskset CPU lists, e.g. 0 and 1) pin every thread of both
# clusters' servers, and the driver with the load generators it starts, to those CPUs: on a
# small virtual machine, where a thread woken on another vCPU costs an inter-processor
# interrupt, this separates that cost from the systems' own (docs/benchmarks.md).
# Needs: Java 17, the build (mvn -B -q package -DskipTests), curl, and etcd 3.4 (Debian:
# apt-get install etcd-server). Each cell: warm-up (default 5 s) then the window (default 15 s).
set -euo pipefail

root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every bin/ration call of this script runs directly: no resident CLI helper is left behind.
export RATION_HELPER=off
usage() {
  sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 1
}

runs=3 in_flight=1,16,64 shapes=renew,acquire,reserve,reserve-hot warmup=5 duration=15 prewarm=60
config_dir="$root/config/cluster-3" port_base=23790 json="" server_cpus="" driver_cpus=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="${2:?}"; shift 2 ;;
    --in-flight) in_flight="${2:?}"; shift 2 ;;
    --shapes) shapes="${2:?}"; shift 2 ;;
    --warmup-seconds) warmup="${2:?}"; shift 2 ;;
    --duration-seconds) duration="${2:?}"; shift 2 ;;
    --prewarm-seconds) prewarm="${2:?}"; shift 2 ;;
    --ration-config-dir) config_dir="${2:?}"; shift 2 ;;
    --etcd-port-base) port_base="${2:?}"; shift 2 ;;
    --json) json="${2:?}"; shift 2 ;;
    --server-cpus) server_cpus="${2:?}"; shift 2 ;;
    --driver-cpus) driver_cpus="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
for n in "$runs" "$warmup" "$duration" "$prewarm" "$port_base"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "error: '$n' is not a whole number" >&2; exit 1; }
done

for cpus in "$server_cpus" "$driver_cpus"; do
  [[ -z "$cpus" ]] || taskset -c "$cpus" true 2>/dev/null || {
    echo "error: '$cpus' is not a CPU list taskset accepts on this machine (CPUs 0-$(( $(nproc) - 1 )))" >&2; exit 1; }
done

# Servers start pinned, so each runtime sizes its thread pools for the CPUs it really has.
server_prefix=()
[[ -z "$server_cpus" ]] || server_prefix=(taskset -c "$server_cpus")

command -v etcd >/dev/null 2>&1 || {
  echo "error: etcd not found on PATH; on Debian: apt-get install etcd-server" >&2; exit 1; }
command -v curl >/dev/null 2>&1 || { echo "error: curl not found on PATH" >&2; exit 1; }
driver="$root/etcd-compare/target/etcd-compare.jar"
for f in "$driver" "$root/cli/target/ration-cli.jar"; do
  [[ -f "$f" ]] || { echo "error: $f not found; build first: mvn -B -q package -DskipTests" >&2; exit 1; }
done

work="$(mktemp -d -t ration-etcd-compare.XXXXXX)"
etcd_pids=()
ration_started=false
cleanup() {
  local pid
  for pid in "${etcd_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${etcd_pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if $ration_started; then
    "$root/scripts/cluster.sh" stop --run-dir "$work/ration" --config-dir "$config_dir" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# etcd: three members on loopback.
cluster="" endpoints=""
for i in 1 2 3; do
  cluster="$cluster${cluster:+,}e$i=http://127.0.0.1:$((port_base + 10 + i))"
  endpoints="$endpoints${endpoints:+,}http://127.0.0.1:$((port_base + i))"
done
for i in 1 2 3; do
  for port in $((port_base + i)) $((port_base + 10 + i)); do
    if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
      echo "error: port $port is taken; pick another --etcd-port-base" >&2; exit 1
    fi
  done
  "${server_prefix[@]}" etcd --name "e$i" --data-dir "$work/etcd/e$i" \
    --listen-client-urls "http://127.0.0.1:$((port_base + i))" \
    --advertise-client-urls "http://127.0.0.1:$((port_base + i))" \
    --listen-peer-urls "http://127.0.0.1:$((port_base + 10 + i))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((port_base + 10 + i))" \
    --initial-cluster "$cluster" --initial-cluster-state new \
    --initial-cluster-token ration-compare >"$work/etcd-e$i.log" 2>&1 </dev/null &
  etcd_pids+=("$!")
done
healthy=false
for _ in $(seq 1 120); do
  ok=0
  for i in 1 2 3; do
    curl -fsS --max-time 2 "http://127.0.0.1:$((port_base + i))/health" 2>/dev/null | grep -q '"health":"true"' && ok=$((ok + 1))
  done
  if [[ $ok == 3 ]]; then healthy=true; break; fi
  sleep 0.5
done
$healthy || { echo "error: etcd not healthy after 60 s; logs in $work" >&2; tail -n 5 "$work"/etcd-e*.log >&2; exit 1; }
echo "etcd up: $endpoints (pids ${etcd_pids[*]})" >&2

# Ration: three nodes through scripts/cluster.sh.
ration_started=true
RATION_START_TIMEOUT="${RATION_START_TIMEOUT:-120}" \
  "${server_prefix[@]}" "$root/scripts/cluster.sh" start --run-dir "$work/ration" --config-dir "$config_dir" >&2
ration_pids="$(cat "$work"/ration/n1.pid "$work"/ration/n2.pid "$work"/ration/n3.pid | paste -sd, -)"
servers=""
for i in 1 2 3; do
  address="$(sed -n "s/.*{ *id: *n$i *,.*client: *\([^ ,}]*\).*/\1/p" "$config_dir/n$i.yaml" | sed -n 1p)"
  servers="$servers${servers:+,}$address"
done

# A Ration configuration without TLS is driven in plaintext: point the generators at an empty
# certificates directory, so they do not try the development certificates they would find.
if ! grep -q '^ *mode: *secure' "$config_dir/n1.yaml"; then
  mkdir -p "$work/no-certs"
  export RATION_CERTS_DIR="$work/no-certs"
  echo "ration: plaintext (no 'mode: secure' in $config_dir/n1.yaml)" >&2
fi
driver_prefix=()
[[ -z "$server_cpus" ]] || echo "servers pinned to CPUs $server_cpus" >&2
if [[ -n "$driver_cpus" ]]; then
  driver_prefix=(taskset -c "$driver_cpus")
  echo "driver and load generators pinned to CPUs $driver_cpus" >&2
fi
echo "machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" >&2
"${driver_prefix[@]}" java -Xmx512m -jar "$driver" \
  --etcd-endpoints "$endpoints" --etcd-pids "$(IFS=,; echo "${etcd_pids[*]}")" \
  --ration-servers "$servers" --ration-pids "$ration_pids" --ration-cli "$root/bin/ration" \
  --shapes "$shapes" --in-flight "$in_flight" --runs "$runs" \
  --warmup-seconds "$warmup" --duration-seconds "$duration" --prewarm-seconds "$prewarm" \
  ${json:+--json "$json"}
