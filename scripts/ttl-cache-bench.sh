#!/usr/bin/env bash
# Ration's in-process TTL cache against Caffeine (JMH TtlCacheBenchmark): get hit, get miss and
# put at 1 and 2 threads, alternating the two caches run by run (Ration then Caffeine in odd
# rounds, Caffeine then Ration in even ones), ROUNDS times. Each run is one JVM per benchmark
# (-f 1), 3 warm-up and 5 measured iterations of 1 s.
#
#   scripts/ttl-cache-bench.sh [ROUNDS]   (default 3)
#
# Needs the benchmarks jar (mvn -B -q package -DskipTests -Dfuzz.skip=true -pl benchmarks -am).
# Writes run/ttl-cache-bench/: each run's JMH JSON, and summary.txt with, per benchmark and
# thread count, every round's score (ns/op), their median, and Ration's median over Caffeine's.
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"
jar="$root/benchmarks/target/benchmarks.jar"
out="$root/run/ttl-cache-bench"
mkdir -p "$out"
rm -f "$out"/*.json
run() { # IMPL THREADS ROUND
  java -jar "$jar" "TtlCacheBenchmark\\.$1" -t "$2" -f 1 -wi 3 -w 1s -i 5 -r 1s \
    -rf json -rff "$out/r$3-$1-t$2.json" >"$out/r$3-$1-t$2.log" 2>&1
  echo "round $3 $1 threads $2 done ($(cut -d' ' -f1 /proc/loadavg) load)"
}
for round in $(seq 1 "$rounds"); do
  for threads in 1 2; do
    if (( round % 2 == 1 )); then
      run ration "$threads" "$round"; run caffeine "$threads" "$round"
    else
      run caffeine "$threads" "$round"; run ration "$threads" "$round"
    fi
  done
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, statistics, sys, collections
scores = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + "/r*.json")):
    for b in json.load(open(f)):
        name = b["benchmark"].rsplit(".", 1)[1]
        scores[(name, b["threads"])].append(b["primaryMetric"]["score"])
print(f"{'benchmark':<18} {'threads':>7}  {'scores (ns/op)':<28} {'median':>8}")
medians = {}
for (name, t), s in sorted(scores.items(), key=lambda kv: (kv[0][0].replace("ration", "").replace("caffeine", ""), kv[0][1], kv[0][0])):
    medians[(name, t)] = statistics.median(s)
    print(f"{name:<18} {t:>7}  {' '.join(f'{x:.1f}' for x in s):<28} {medians[(name, t)]:>8.1f}")
print()
for (name, t), m in sorted(medians.items()):
    if name.startswith("ration"):
        other = ("caffeine" + name[len("ration"):], t)
        if other in medians:
            print(f"{name[len('ration'):]:<10} threads {t}: ration/caffeine = {m / medians[other]:.2f}")
PY
