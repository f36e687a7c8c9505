#!/usr/bin/env bash
# Local Ration cluster on loopback: start | stop | status | logs | kill-leader.
#
#   scripts/cluster.sh start       [--nodes 3|5] [--run-dir DIR] [--config-dir DIR]
#   scripts/cluster.sh stop        [--nodes 3|5] [--run-dir DIR] [--config-dir DIR]
#   scripts/cluster.sh status      [--nodes 3|5] [--run-dir DIR] [--config-dir DIR]
#   scripts/cluster.sh logs        [--nodes 3|5] [--run-dir DIR] [--follow]
#   scripts/cluster.sh kill-leader [--nodes 3|5] [--run-dir DIR] [--config-dir DIR]
#
# `kill-leader` asks the cluster which node leads and sends that node's recorded pid SIGKILL (a
# crash, not a shutdown); `start` brings it back.
# Nodes come from config/cluster-N/nI.yaml (or DIR/nI.yaml with --config-dir: a copy with
# other ports lets two clusters run side by side) and run `bin/ration server --config ...
# --data-dir RUN/nI`. The run directory (default run/cluster-N) holds each node's data (nI/), log (nI.log)
# and pid (nI.pid). When the node configurations turn TLS on (tls: mode: secure), `start` first
# creates whatever development certificates are missing in ${RATION_CERTS_DIR:-~/.ration/certs}
# (a CA, node.nI for each node, client.admin for the CLI), so the nodes and `bin/ration` find
# them without flags; existing files are kept, except a node certificate without its node name
# (urn:ration:node:nI), which is made again with the same CA. `start` waits (bounded by RATION_START_TIMEOUT seconds, default 60) until
# every node's admin /health answers and /ready says a leader is known; it refuses to start if a
# node's raft, client or admin port is already taken. `stop` signals only the
# recorded pids: TERM, then KILL after RATION_STOP_TIMEOUT seconds (default 30).
set -euo pipefail

root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Every bin/ration call of this script runs directly: no resident CLI helper is left behind.
export RATION_HELPER=off
ration="$root/bin/ration"

usage() {
  sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 1
}

command="${1:-}"
[[ -n "$command" ]] || usage
shift
nodes=3
run_dir=""
config_dir=""
follow=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) nodes="${2:?--nodes needs 3 or 5}"; shift 2 ;;
    --nodes=*) nodes="${1#*=}"; shift ;;
    --run-dir) run_dir="${2:?--run-dir needs a directory}"; shift 2 ;;
    --run-dir=*) run_dir="${1#*=}"; shift ;;
    --config-dir) config_dir="${2:?--config-dir needs a directory}"; shift 2 ;;
    --config-dir=*) config_dir="${1#*=}"; shift ;;
    --follow|-f) follow=true; shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
done
[[ "$nodes" == 3 || "$nodes" == 5 ]] || { echo "error: --nodes must be 3 or 5, not '$nodes'" >&2; exit 1; }
config_dir="${config_dir:-$root/config/cluster-$nodes}"
[[ -f "$config_dir/n1.yaml" ]] || { echo "error: no n1.yaml in config directory '$config_dir'" >&2; exit 1; }
config_dir="$(cd "$config_dir" && pwd)"
run_dir="${run_dir:-$root/run/cluster-$nodes}"
mkdir -p "$run_dir"
run_dir="$(cd "$run_dir" && pwd)"
start_timeout="${RATION_START_TIMEOUT:-60}"
stop_timeout="${RATION_STOP_TIMEOUT:-30}"

# The address of role ($2: raft|client|admin) of node $1, read from its own config file's peer line.
address_of() {
  local id="$1" role="$2"
  sed -n "s/.*{ *id: *$id *,.*$role: *\([^ ,}]*\).*/\1/p" "$config_dir/$id.yaml" | sed -n 1p
}

node_ids() {
  local i
  for ((i = 1; i <= nodes; i++)); do echo "n$i"; done
}

client_servers() {
  local id list=""
  for id in $(node_ids); do list="$list${list:+,}$(address_of "$id" client)"; done
  echo "$list"
}

# The pid recorded for a node if that process is alive and is a Ration server; else nothing.
# bin/ration runs ration-cli.jar (before the CLI was a module of its own, ration-server.jar: a
# node started by an older checkout is still recognised).
live_pid() {
  local pid_file="$run_dir/$1.pid" pid
  [[ -f "$pid_file" ]] || return 0
  pid="$(cat "$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE 'ration-(cli|server)\.jar'; then
    echo "$pid"
  fi
}

certs_dir="${RATION_CERTS_DIR:-$HOME/.ration/certs}"

# True if the node configurations run with TLS.
tls_on() {
  grep -q '^ *mode: *secure' "$config_dir/n1.yaml"
}

# --insecure for a cluster without TLS, so the CLI does not try the certificates it would find.
cli_tls_flag() {
  tls_on || echo --insecure
}

# Whether PEM certificate $1 carries the node name urn:ration:node:$2 (the URI is stored as
# plain ASCII inside the DER, so decoding the base64 body is enough).
names_node() {
  awk '/-----BEGIN CERTIFICATE-----/{f=1;next} /-----END CERTIFICATE-----/{exit} f' "$1" \
    | base64 -d 2>/dev/null | grep -aq "urn:ration:node:$2"
}

# Creates the development certificates that are missing (idempotent).
ensure_certs() {
  tls_on || return 0
  local id list=""
  if [[ ! -f "$certs_dir/ca.crt" && ! -f "$certs_dir/ca.key" ]]; then
    # No CA yet, so no usable certificate either: the whole set in one JVM start, replacing
    # any node or client files a former CA signed.
    for id in $(node_ids); do list="$list${list:+,}$id"; done
    "$ration" cert create-cluster --nodes "$list" --host localhost,127.0.0.1 --certs-dir "$certs_dir" --overwrite
    return 0
  fi
  if [[ ! -f "$certs_dir/ca.crt" ]]; then
    if [[ -f "$certs_dir/ca.key" ]]; then
      echo "error: $certs_dir/ca.key exists without ca.crt; move it away or restore ca.crt" >&2
      exit 1
    fi
    "$ration" cert create-ca --certs-dir "$certs_dir"
  fi
  for id in $(node_ids); do
    # A development node certificate made before nodes carried their URI name
    # (urn:ration:node:ID) is refused by its peers: made again, with the same CA.
    [[ -f "$certs_dir/node.$id.crt" && -f "$certs_dir/node.$id.key" ]] \
      && names_node "$certs_dir/node.$id.crt" "$id" && continue
    "$ration" cert create-node "$id" --host localhost,127.0.0.1 --certs-dir "$certs_dir" --overwrite
  done
  if [[ ! -f "$certs_dir/client.admin.crt" || ! -f "$certs_dir/client.admin.key" ]]; then
    "$ration" cert create-client admin --certs-dir "$certs_dir" --overwrite
  fi
}

http_ok() {
  if tls_on; then
    if command -v curl >/dev/null 2>&1; then
      curl -fsS -o /dev/null --max-time 2 --cacert "$certs_dir/ca.crt" "https://$1$2" 2>/dev/null
    else
      # Without curl, the admin port accepting connections stands in for /health and /ready;
      # the cluster status below still shows whether a leader is known.
      listening "$1"
    fi
  elif command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 2 "http://$1$2" 2>/dev/null
  else
    # Fallback without curl: a bare HTTP/1.0 request over bash's /dev/tcp.
    local host="${1%:*}" port="${1##*:}" status
    exec 3<>"/dev/tcp/$host/$port" 2>/dev/null || return 1
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$2" "$1" >&3
    status="$(timeout 2 head -n 1 <&3 || true)"
    exec 3<&-
    [[ "$status" == *" 200 "* ]]
  fi
}

# True if something accepts TCP connections on host:port.
listening() {
  local host="${1%:*}" port="${1##*:}"
  timeout 2 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null
}

tail_logs() {
  local id
  for id in "$@"; do
    echo "---- $run_dir/$id.log (last 20 lines)" >&2
    tail -n 20 "$run_dir/$id.log" >&2 2>/dev/null || echo "(no log)" >&2
  done
}

start() {
  [[ -f "$root/cli/target/ration-cli.jar" ]] || {
    echo "error: cli/target/ration-cli.jar not found; build first: mvn -B -q package -DskipTests" >&2
    exit 1
  }
  local id pid started=0 role address taken=()
  # A port already taken (another cluster on the same config, say) would let the health checks
  # below pass against somebody else's node while ours exits on bind: refuse up front.
  for id in $(node_ids); do
    [[ -n "$(live_pid "$id")" ]] && continue
    for role in raft client admin; do
      address="$(address_of "$id" "$role")"
      if listening "$address"; then taken+=("$id $role $address"); fi
    done
  done
  if [[ ${#taken[@]} -gt 0 ]]; then
    for address in "${taken[@]}"; do
      echo "error: ${address% *} address ${address##* } is already in use by another process" >&2
    done
    echo "error: not starting; stop the other cluster first (scripts/cluster.sh stop --run-dir ITS-RUN-DIR) or free the ports" >&2
    exit 1
  fi
  ensure_certs
  for id in $(node_ids); do
    pid="$(live_pid "$id")"
    if [[ -n "$pid" ]]; then
      echo "$id already running (pid $pid)"
      continue
    fi
    rm -f "$run_dir/$id.pid"
    mkdir -p "$run_dir/$id"
    nohup "$ration" server --config "$config_dir/$id.yaml" --data-dir "$run_dir/$id" \
      >>"$run_dir/$id.log" 2>&1 </dev/null &
    echo "$!" >"$run_dir/$id.pid"
    local scheme=http
    tls_on && scheme=https
    echo "$id started (pid $!): client $(address_of "$id" client), admin $scheme://$(address_of "$id" admin), log $run_dir/$id.log"
    started=$((started + 1))
  done

  echo "waiting up to ${start_timeout}s for every node to be healthy and to know a leader..."
  local deadline=$((SECONDS + start_timeout)) pending
  while true; do
    pending=()
    for id in $(node_ids); do
      if [[ -z "$(live_pid "$id")" ]]; then
        echo "error: $id is not running (exited during start)" >&2
        tail_logs "$id"
        exit 1
      fi
      local admin
      admin="$(address_of "$id" admin)"
      if ! http_ok "$admin" /health || ! http_ok "$admin" /ready; then
        pending+=("$id")
      fi
    done
    if [[ ${#pending[@]} -eq 0 ]]; then
      echo "cluster-$nodes is up ($nodes nodes, run directory $run_dir)"
      "$ration" cluster status --servers "$(client_servers)" --timeout 3s $(cli_tls_flag) || true
      return 0
    fi
    if ((SECONDS >= deadline)); then
      echo "error: not healthy or no leader known after ${start_timeout}s: ${pending[*]}" >&2
      tail_logs "${pending[@]}"
      exit 1
    fi
    sleep 0.5
  done
}

stop() {
  local id pid any=false
  declare -A signalled=()
  for id in $(node_ids); do
    pid="$(live_pid "$id")"
    if [[ -n "$pid" ]]; then
      kill -TERM "$pid"
      signalled[$id]="$pid"
      any=true
      echo "$id: sent TERM to pid $pid"
    else
      [[ -f "$run_dir/$id.pid" ]] && echo "$id: not running (stale pid file removed)"
      rm -f "$run_dir/$id.pid"
    fi
  done
  $any || { echo "cluster-$nodes is not running (run directory $run_dir)"; return 0; }

  local deadline=$((SECONDS + stop_timeout))
  while true; do
    local alive=()
    for id in "${!signalled[@]}"; do
      kill -0 "${signalled[$id]}" 2>/dev/null && alive+=("$id")
    done
    [[ ${#alive[@]} -eq 0 ]] && break
    if ((SECONDS >= deadline)); then
      for id in "${alive[@]}"; do
        echo "$id: still running after ${stop_timeout}s; sending KILL to pid ${signalled[$id]}" >&2
        kill -KILL "${signalled[$id]}" 2>/dev/null || true
      done
      break
    fi
    sleep 0.2
  done
  for id in "${!signalled[@]}"; do rm -f "$run_dir/$id.pid"; done
  echo "cluster-$nodes stopped"
}

status() {
  local id pid
  for id in $(node_ids); do
    pid="$(live_pid "$id")"
    echo "$id: ${pid:+running (pid $pid)}${pid:-not running}"
  done
  exec "$ration" cluster status --servers "$(client_servers)" $(cli_tls_flag)
}

logs() {
  local files=() id
  for id in $(node_ids); do files+=("$run_dir/$id.log"); done
  if $follow; then
    exec tail -n 20 -F "${files[@]}"
  fi
  for id in $(node_ids); do
    echo "==== $run_dir/$id.log"
    tail -n 40 "$run_dir/$id.log" 2>/dev/null || echo "(no log)"
  done
}

# SIGKILL to the node the cluster says leads: a crash for tours, drills and fault tests.
kill_leader() {
  local json leader pid
  json="$("$ration" --output json cluster status --servers "$(client_servers)" 2>/dev/null || true)"
  leader="$(printf '%s' "$json" | grep -o '"id":"[^"]*","role":"LEADER"' | sed -n 's/"id":"\([^"]*\)".*/\1/p' | sed -n 1p)"
  if [[ -z "$leader" ]]; then
    echo "error: no node of cluster-$nodes reports itself LEADER" >&2
    exit 1
  fi
  pid="$(live_pid "$leader")"
  if [[ -z "$pid" ]]; then
    echo "error: the leader $leader has no live pid recorded in $run_dir" >&2
    exit 1
  fi
  kill -9 "$pid"
  echo "killed leader $leader (pid $pid)"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  logs) logs ;;
  kill-leader) kill_leader ;;
  *) echo "error: unknown command '$command'" >&2; usage ;;
esac
