#!/usr/bin/env bash
# Twenty membership changes in a row on node processes under a renewal load (MembershipChangesIT):
# after each, every member must be a running, caught-up voter. About eight minutes.
# Exit 0 only if all twenty hold. Builds what it needs first.
#
#   scripts/membership-changes.sh
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
exec mvn -B -q -pl cli -am verify -Dration.membershipChanges=true -Dit.test=MembershipChangesIT -Dtest=none \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Djazzer.skip=true
