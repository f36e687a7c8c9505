#!/usr/bin/env bash
# Twenty leader kills in a row on a local 3-node cluster (the default ports): after each, the
# README tour's next lines must pass (cluster status, then a read that finds the new leader).
# Prints "N passed, M failed"; exit 0 only for 20 of 20. Builds what it needs first.
#
#   scripts/leader-kills.sh
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
exec mvn -B -q -pl cli -am verify -Dration.leaderKills=true -Dit.test=LeaderKillTourIT -Dtest=none \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Djazzer.skip=true
