#!/usr/bin/env python3
"""Start time of `bin/ration` admin commands: variants run alternately, medians printed.

    scripts/cli-start.py --servers HOST:PORT,... [--rounds N] [--baseline DIR] [-- ARGS...]

Each round runs every variant once, in turn, so a machine whose load drifts affects all of
them alike. Variants: 'jit' (the old default JVM options: C2, no class-data sharing), 'c1'
(C1 only, no sharing) and 'cds' (the launcher's default: C1 and class-data sharing; its
archive is made by one untimed run first). Prints, per variant, the median wall time and
median CPU time (user + system) of the command, default `cluster status`.

--baseline DIR adds the variant 'base': DIR/bin/ration (another build, e.g. an earlier
commit's checkout or unpacked release) with its own default options and class-data sharing
archive, run in the same rounds, so a change is measured against its baseline under the same
load.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
p = argparse.ArgumentParser()
p.add_argument("--servers", required=True)
p.add_argument("--rounds", type=int, default=10)
p.add_argument("--baseline", help="another build's directory holding bin/ration")
p.add_argument("args", nargs="*")
a = p.parse_args()
if not 1 <= a.rounds <= 100:
    sys.exit("error: --rounds must be 1..100")
cmd = [os.path.join(root, "bin/ration")] + (a.args or ["cluster", "status"]) + ["--servers", a.servers]
cds_dir = tempfile.mkdtemp(prefix="ration-cds-")
variants = {
    "jit": {"RATION_CDS": "off", "RATION_JAVA_OPTS": "-Xmx512m -XX:+UseSerialGC"},
    "c1": {"RATION_CDS": "off"},
    "cds": {"RATION_CDS_DIR": cds_dir},
}


if a.baseline:
    base_cmd = [os.path.join(os.path.abspath(a.baseline), "bin/ration")] + cmd[1:]
    if not os.access(base_cmd[0], os.X_OK):
        sys.exit("error: %s is not executable" % base_cmd[0])
    variants["base"] = {"RATION_CDS_DIR": tempfile.mkdtemp(prefix="ration-cds-base-"), "_cmd": base_cmd}


def run(env_extra):
    env = dict(os.environ)
    env.pop("RATION_JAVA_OPTS", None)
    env.update(env_extra)
    command = env.pop("_cmd", cmd)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("error: %s exited %d: %s" % (" ".join(command), r.returncode, r.stderr.decode()[-500:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


run(variants["cds"])  # makes the archive; not timed
if "base" in variants:
    run(variants["base"])  # the baseline's archive; not timed
results = {name: [] for name in variants}
for _ in range(a.rounds):
    for name, env in variants.items():
        results[name].append(run(env))
print("command: bin/ration %s" % " ".join(cmd[1:]))
print("rounds: %d (alternating)" % a.rounds)
print("%-4s %12s %12s" % ("", "wall median", "cpu median"))
for name, rs in results.items():
    print("%-4s %11.3fs %11.3fs" % (name, statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs)))
