#!/usr/bin/env python3
"""Ratis settings measured A/B on one build: fresh local clusters, variants alternating.

    scripts/ratis-ab.py [--rounds N] [--cells acquire:1,renew:1,acquire:16] [--warmup S]
                        [--duration S] [--prewarm S] [--config-dir DIR] VARIANT...

A VARIANT is NAME or NAME=KEY=VALUE[;KEY=VALUE...]: the Ratis properties passed to every node
as -Dration.ratis.KEY=VALUE (docs/CONFIGURATION.md, "Ratis overrides"); NAME alone runs the
build's own settings. NAME@DIR runs another build instead, DIR being its checkout (built with
mvn package): its scripts/cluster.sh and bin/ration start the nodes and drive the load, e.g. an
earlier commit in a git worktree, measured against this one in the same rounds. Each round starts, for every variant in turn (the order reversed every
other round, so load drift hits all alike), a fresh three-node cluster on config/cluster-3 in
a temporary run directory, loads it unmeasured for --prewarm seconds (its JIT warms up),
runs `bin/ration bench` for each cell, first 4 s unmeasured (that cell's code paths compiled),
then measured (OP:IN_FLIGHT[:OPTION=VALUE...], e.g.
renew:16:renewals=direct passes --renewals direct), reads the
three server processes' CPU time (/proc/PID/stat) around each bench run, and stops the
cluster by its pids. Prints per variant and cell the medians over rounds of successes/s and p50
in the measured window, and the nodes' CPU per operation: all three nodes over the whole bench run (warm-up and window
completions), less what the idle cluster used per second (measured for 3 s just before) over
the run's length. --config-dir runs the nodes on DIR/n1..n3.yaml instead of config/cluster-3
(this build's variants only); --plaintext runs each build's config/cluster-3 without its tls:
and security: blocks (the load then runs with --insecure), as etcd runs in the etcd comparison. Needs the build (mvn -B -q package -DskipTests) and the
configuration's ports (default 7101-7303) free.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

def cpu_text(x):
    """CPU per op with the digits it has: whole µs for Raft entries, fractions for local checks."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}" if abs(x) >= 1 else f"{x:.4f}"


root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ration = os.path.join(root, "bin/ration")
p = argparse.ArgumentParser()
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--cells", default="acquire:1,renew:1,acquire:16")
p.add_argument("--warmup", type=int, default=3)
p.add_argument("--duration", type=int, default=10)
p.add_argument("--prewarm", type=int, default=20, help="seconds of unmeasured load on each fresh cluster first")
p.add_argument("--config-dir", default=None)
p.add_argument("--plaintext", action="store_true",
               help="run each build's config/cluster-3 without its tls: and security: blocks")
p.add_argument("--threads", action="store_true",
               help="also print the nodes' CPU per op by thread group (Ratis log, appenders, ...)")
p.add_argument("variants", nargs="+")
a = p.parse_args()
if not 1 <= a.rounds <= 20 or not 1 <= a.duration <= 120 or not 0 <= a.warmup <= 60:
    sys.exit("error: --rounds 1..20, --duration 1..120, --warmup 0..60")
variants = []
for v in a.variants:
    name, _, props = v.partition("=")
    name, _, build = name.partition("@")
    build = os.path.abspath(build) if build else root
    if not os.access(os.path.join(build, "bin/ration"), os.X_OK):
        sys.exit(f"error: no bin/ration in {build}")
    opts = []
    for kv in filter(None, props.split(";")):
        key, eq, value = kv.partition("=")
        if not eq or not key.startswith("raft."):
            sys.exit(f"error: '{kv}' is not raft.KEY=VALUE")
        opts.append(f"-Dration.ratis.{key}={value}")
    variants.append((name, build, opts))
cells = []
for c in a.cells.split(","):
    parts = c.split(":")
    if len(parts) < 2 or not parts[1].isdigit():
        sys.exit(f"error: cell '{c}' is not OP:IN_FLIGHT[:OPTION=VALUE...]")
    extra = []
    for o in parts[2:]:
        k, eq, v = o.partition("=")
        if not eq:
            sys.exit(f"error: '{o}' in cell '{c}' is not OPTION=VALUE")
        extra += [f"--{k}", v]
    cells.append((c, parts[0], int(parts[1]), extra))
env_base = dict(os.environ, RATION_HELPER="off")


def config_of(build):
    """The configuration directory a build's nodes run on, and the load generator's options."""
    if a.config_dir and build == root:
        config = os.path.abspath(a.config_dir)
    else:
        config = os.path.join(build, "config/cluster-3")
    if a.plaintext:
        plain = tempfile.mkdtemp(prefix="ration-ab-plain-")
        for i in (1, 2, 3):
            with open(os.path.join(config, f"n{i}.yaml")) as f:
                text = f.read()
            with open(os.path.join(plain, f"n{i}.yaml"), "w") as f:
                f.write(text.split("# Transport security")[0])
        config = plain
    servers = []
    for i in (1, 2, 3):
        text = open(os.path.join(config, f"n{i}.yaml")).read()
        line = next(l for l in text.splitlines() if f"id: n{i}," in l and "client:" in l)
        servers.append(line.split("client:")[1].split(",")[0].split("}")[0].strip())
    opts = ["--servers", ",".join(servers)]
    if not any(l.strip() == "mode: secure" for l in open(os.path.join(config, "n1.yaml"))):
        # Plaintext: the load generator must not try the development certificates it would find.
        opts.append("--insecure")
    return config, opts


configs = {build: config_of(build) for build in {v[1] for v in variants}}
for build, (config, opts) in configs.items():
    print(f"{build}: nodes on {config}, load {' '.join(opts)}", flush=True)


# Thread groups of a node, by the thread's Java name (from jstack): the stages an entry passes.
THREAD_GROUPS = [
    ("ratis log worker", ("RaftLogWorker",)),
    ("ratis appenders", ("LogAppender", "->")),
    ("ratis state machine", ("StateMachineUpdater",)),
    ("ratis server threads", ("-server-thread", "-impl-thread", "groupManagement", "-client-thread")),
    ("ratis other", ("@group-", "JvmPauseMonitor")),
    ("grpc", ("grpc-", "Grpc")),
    ("netty (ratis)", ("Netty", "nioEventLoop", "epollEventLoop")),
    ("ration endpoint", ("ration-client-io", "ration-accept")),
    ("ration proposer", ("ration-proposer",)),
    ("ration other", ("ration-",)),
    ("jit", ("CompilerThre",)),
    ("gc + vm", ("GC ", "VM ", "Reference Handler", "Finalizer", "Service Thread", "Sweeper")),
]


def thread_cpu(pids):
    """CPU seconds per (pid, tid) of the nodes' threads."""
    out = {}
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the thread ended
            out[(pid, int(tid))] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def thread_names(pids):
    names = {}
    for pid in pids:
        dump = subprocess.run(["jstack", str(pid)], capture_output=True, text=True).stdout
        for line in dump.splitlines():
            if line.startswith('"') and " nid=0x" in line:
                names[(pid, int(line.split(" nid=0x")[1].split()[0], 16))] = line[1:].split('"')[0]
    return names


def group_of(name):
    for group, marks in THREAD_GROUPS:
        if any(m in name for m in marks):
            return group
    return "other"


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


results = {}
stages = {}
for r in range(a.rounds):
    order = variants if r % 2 == 0 else list(reversed(variants))
    for name, build, opts in order:
        run_dir = tempfile.mkdtemp(prefix="ration-ab-")
        env = dict(env_base, RATION_JAVA_OPTS=" ".join(["-Xmx512m", "-XX:+UseSerialGC"] + opts))
        cluster = [os.path.join(build, "scripts/cluster.sh")]
        ration = os.path.join(build, "bin/ration")
        config_dir, server_opts = configs[build]
        config = ["--config-dir", config_dir]
        try:
            subprocess.run(cluster + ["start", "--run-dir", run_dir] + config, env=env, check=True,
                           stdout=subprocess.DEVNULL)
            pids = [int(open(os.path.join(run_dir, f"n{i}.pid")).read().split()[0]) for i in (1, 2, 3)]
            # A fresh JVM's servers interpret and compile for their first seconds: load them
            # before any cell is measured.
            subprocess.run([ration, "bench", "--op", "mixed", "--in-flight", "16", "--warmup", "0s",
                            "--duration", f"{a.prewarm}s", "--output", "json"] + server_opts, env=env_base, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for cell, op, n, extra in cells:
                # The cell's own code paths compiled before it is measured (a path the pre-warm
                # did not take was still being compiled in the first measured cell).
                subprocess.run([ration, "bench", "--op", op, "--in-flight", str(n), "--warmup", "0s",
                                "--duration", "4s", "--output", "json"] + extra + server_opts, env=env_base, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                bench = [ration, "bench", "--op", op, "--in-flight", str(n), "--warmup", f"{a.warmup}s",
                         "--duration", f"{a.duration}s", "--output", "json"] + extra + server_opts
                # The idle cluster's own CPU (heartbeats, timers), to take out of the cell's.
                idle_before, t0 = cpu_seconds(pids), time.monotonic()
                time.sleep(3)
                idle_rate = (cpu_seconds(pids) - idle_before) / (time.monotonic() - t0)
                threads_before = thread_cpu(pids) if a.threads else {}
                before, t1 = cpu_seconds(pids), time.monotonic()
                out = subprocess.run(bench, env=env_base, check=True, capture_output=True, text=True).stdout
                after, elapsed = cpu_seconds(pids), time.monotonic() - t1
                threads_after = thread_cpu(pids) if a.threads else {}
                j = json.loads(out)
                if op in j.get("ops", {}):
                    ok = j["ops"][op]["succeeded"]
                else:
                    ok = j["succeeded"] if "succeeded" in j else j["ok"]  # the TTL bench says "ok"
                rate = ok / j["windowSeconds"]
                # Over the whole bench process: warm-up and window completions alike.
                if "warmupCompletions" in j:
                    # The key-loop bench counts its window's answers as ok + rejected + errors.
                    replies = j["replies"] if "replies" in j else j["ok"] + j["rejected"] + j["errors"]
                    done = j["warmupCompletions"] + replies
                else:  # no warm-up count: the window's rate over the warm-up too
                    done = ok * (a.warmup + j["windowSeconds"]) / j["windowSeconds"]
                cpu_per_op = (after - before - idle_rate * elapsed) / done * 1e6 if done else float("nan")
                results.setdefault((name, cell), []).append((rate, j["latencyMicros"]["p50"], cpu_per_op))
                print(f"round {r + 1} {name:>12} {cell:<24} {rate:9.1f}/s p50 {j['latencyMicros']['p50'] / 1000:6.2f} ms"
                      f" nodes' CPU {cpu_text(cpu_per_op):>7} µs/op", flush=True)
                if a.threads and done:
                    names = thread_names(pids)
                    per_group = {}
                    for key, spent in threads_after.items():
                        g = group_of(names.get(key, ""))
                        per_group[g] = per_group.get(g, 0.0) + spent - threads_before.get(key, 0.0)
                    for g, spent in per_group.items():
                        stages.setdefault((name, cell, g), []).append(spent / done * 1e6)
                    print("      " + ", ".join(f"{g} {spent / done * 1e6:.0f}"
                                              for g, spent in sorted(per_group.items(), key=lambda x: -x[1])),
                          "µs/op", flush=True)
        finally:
            subprocess.run(cluster + ["stop", "--run-dir", run_dir] + config, env=env_base,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(run_dir, ignore_errors=True)

print("\nmedians over rounds")
print(f"{'variant':>12} {'cell':<24} {'ops/s':>9} {'p50 ms':>7} {'CPU µs/op':>10}")
for (name, cell), rows in results.items():
    print(f"{name:>12} {cell:<24} {statistics.median(x[0] for x in rows):9.1f}"
          f" {statistics.median(x[1] for x in rows) / 1000:7.2f} {cpu_text(statistics.median(x[2] for x in rows)):>10}")
if stages:
    print("\nnodes' CPU per op by thread group (medians over rounds, µs; not net of idle)")
    for (name, cell, g), rows in sorted(stages.items()):
        print(f"{name:>12} {cell:<24} {g:<22} {statistics.median(rows):8.0f}")
