#!/usr/bin/env bash
# Deterministic simulation of the regional limiter: prints the Markdown table of every scenario
# (see docs/benchmarks.md "Simulation"). Exits 1 if any scenario exceeded its bound.
#
#   scripts/simulate.sh          # all scenarios and the policy / limiter-setting variants
#   scripts/simulate.sh --core   # the issue's scenarios only
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mvn -B -q -o -pl simulation -am install -DskipTests >/dev/null
cp_file="$(mktemp)"
trap 'rm -f "$cp_file"' EXIT
mvn -B -q -o -pl simulation dependency:build-classpath -Dmdep.outputFile="$cp_file" >/dev/null
exec java -cp "simulation/target/classes:$(cat "$cp_file")" dev.ration.simulation.SimulationMain "$@"
