#!/usr/bin/env bash
# Ration's Jepsen-style suite (jepsen/README.md).
#
#   scripts/jepsen.sh test --workload lease --nemesis partition-leader --time-limit 60 --seed 1 --nodes 3
#   scripts/jepsen.sh test-all [--matrix ci|full] [--nodes 3|5|3,5] [--time-limit 40]
#     full: every workload (lease, reservation, ttl, pool) x every nemesis (18; 20 with 5 nodes:
#     + partition-bridge, partition-ring); writes store/matrix-<matrix>-<time>.edn
#   scripts/jepsen.sh check jepsen/store/<test>/<time>/history.edn
#
# Builds what is missing from this checkout (package, never install: the node jar and the harness's
# classpath are this tree's build), then runs ration.jepsen.cli from jepsen/ (store: jepsen/store).
# Netns mode needs root; otherwise a loopback mode runs kill, pause and clock faults only.
# On Ctrl-C the JVM's shutdown hook removes the suite's namespaces, links, rules and node pids.
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ ! -f cli/target/ration-cli.jar ]]; then
  mvn -B -q package -DskipTests -Dfuzz.skip=true -Djavadoc.skip=true -pl cli -am
fi
if [[ ! -f jepsen/target/classpath.txt ]]; then
  mvn -B -q process-classes -Dfuzz.skip=true -Djavadoc.skip=true -pl jepsen -am
fi
cd "$root/jepsen"
exec java -Xmx768m -XX:+UseSerialGC -Dration.root="$root" \
  -cp "src/main/clojure:target/classes:$(cat target/classpath.txt)" clojure.main -m ration.jepsen.cli "$@"
