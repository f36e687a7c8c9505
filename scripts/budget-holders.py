#!/usr/bin/env python3
"""Many budgets on one cluster, and what keeping them costs it.

    scripts/budget-holders.py [--rounds N] [--holders H] [--pairs P] [--checks-per-second N]
                              [--warmup S] [--duration S]

Each round starts a fresh three-node cluster on config/cluster-3 (as shipped: TLS and
authorization) in a temporary run directory, measures its idle CPU for 5 s, runs
`bin/ration bench --op budget-holders` (H limiters × P projects of budgets, taken, then held and
renewed by the limiters for the window while one thread checks them in turn), reads the three
server processes' CPU time (/proc/PID/stat) at the start and the end of the measured window
(from the bench's "budgets held" line plus its warm-up), and stops the cluster by its pids.
Prints per round and as medians over rounds: seconds to take every budget, checks admitted
and refused in the window, renewal rounds, and the nodes' CPU during the window (cores, all
three nodes together) against the idle cluster's. Needs the build (mvn -B -q package
-DskipTests) and the configuration's ports free.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ration = os.path.join(root, "bin/ration")
cluster = os.path.join(root, "scripts/cluster.sh")
p = argparse.ArgumentParser()
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--holders", type=int, default=100)
p.add_argument("--pairs", type=int, default=100)
p.add_argument("--checks-per-second", type=int, default=1000)
p.add_argument("--warmup", type=int, default=10)
p.add_argument("--duration", type=int, default=30)
a = p.parse_args()
if not 1 <= a.rounds <= 10 or not 5 <= a.duration <= 300 or not 0 <= a.warmup <= 120:
    sys.exit("error: --rounds 1..10, --duration 5..300, --warmup 0..120")


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


env = dict(os.environ, RATION_HELPER="off")
servers = ["--servers", "127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103"]
rows = []
for r in range(a.rounds):
    run_dir = tempfile.mkdtemp(prefix="ration-budgets-")
    try:
        subprocess.run([cluster, "start", "--run-dir", run_dir], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        pids = [int(open(os.path.join(run_dir, f"n{i}.pid")).read().split()[0]) for i in (1, 2, 3)]
        c0 = cpu_seconds(pids)
        time.sleep(5)
        idle = (cpu_seconds(pids) - c0) / 5
        bench = subprocess.Popen([ration, "bench", "--op", "budget-holders", "--holders", str(a.holders),
                                  "--pairs", str(a.pairs), "--checks-per-second", str(a.checks_per_second),
                                  "--warmup", f"{a.warmup}s", "--duration", f"{a.duration}s",
                                  "--output", "json"] + servers,
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        window = {}

        def watch():
            for line in bench.stderr:
                if "budgets held after" in line and "start" not in window:
                    start = time.monotonic() + a.warmup
                    window["start"] = start
                    time.sleep(max(0, start - time.monotonic()))
                    window["cpu0"] = cpu_seconds(pids)
                    time.sleep(a.duration - 1)  # one second short of the window's end
                    window["cpu1"] = cpu_seconds(pids)
                    window["seconds"] = a.duration - 1

        t = threading.Thread(target=watch, daemon=True)
        t.start()
        # stderr is the watcher's alone (its "budgets held" line starts the window); stdout is
        # the JSON line.
        out = bench.stdout.read()
        bench.wait(timeout=a.warmup + a.duration + 600)
        t.join(timeout=a.duration + 5)
        if bench.returncode != 0 or "cpu1" not in window:
            sys.exit(f"error: round {r + 1}: bench exited {bench.returncode}: {out.strip()}")
        j = json.loads(out)
        busy = (window["cpu1"] - window["cpu0"]) / window["seconds"]
        row = (j["grantSeconds"], j["okPerSecond"], j["rejected"], j["renewalRounds"], busy, idle)
        rows.append(row)
        print(f"round {r + 1}: {a.holders * a.pairs} budgets held after {row[0]:.1f} s; "
              f"{row[1]:.0f} checks/s admitted, {row[2]} refused; {row[3]} renewal rounds; "
              f"nodes' CPU {row[4]:.3f} cores (idle {row[5]:.3f})", flush=True)
    finally:
        subprocess.run([cluster, "stop", "--run-dir", run_dir], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(run_dir, ignore_errors=True)

med = [statistics.median(x[i] for x in rows) for i in range(6)]
print(f"\nmedians over {len(rows)} rounds: all held after {med[0]:.1f} s; {med[1]:.0f} checks/s; "
      f"{med[2]:.0f} refused; {med[3]:.0f} renewal rounds; nodes' CPU {med[4]:.3f} cores "
      f"(idle {med[5]:.3f}): {med[4] - med[5]:.3f} cores for the budgets")
