#!/usr/bin/env python3
"""Start time of `bin/ration` admin commands: variants run alternately, medians printed.

    scripts/cli-start.py --servers HOST:PORT,... [--rounds N] [--baseline DIR] [-- ARGS...]

Each round runs every variant once, in turn, so a machine whose load drifts affects all of
them alike. Variants: 'jit' (the old default JVM options: C2, no class-data sharing), 'c1'
(C1 only, no sharing), 'cds' (C1 and class-data sharing, no helper; its archive is made by one
untimed run first) and 'helper' (the launcher's default: the resident helper answers; started by
one untimed run, which runs directly, and warmed by one more, and stopped at the end). Prints,
per variant, the median wall time and median CPU time (user + system) of the command, default
`cluster status`. CPU is the launcher's and its children's: for 'helper', bash and what it
starts, not the helper's own work (printed separately, from the helper's CPU time before and
after the rounds).

--first adds the variant 'first': the very first call of a build (an empty per-user archive
directory and an empty cache directory each time, so no leader is remembered, no helper: the call maps the archive shipped with the build, or records
one in that directory when the shipped one does not apply), what a fresh machine's first
`ration` call costs.

--baseline DIR adds the variant 'base': DIR/bin/ration (another build, e.g. an earlier
commit's checkout or unpacked release) with its own default options and class-data sharing
archive, run in the same rounds, so a change is measured against its baseline under the same
load.
"""
import argparse
import glob
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
p.add_argument("--first", action="store_true", help="add the variant 'first' (no archive yet, no helper)")
p.add_argument("args", nargs="*")
a = p.parse_args()
if not 1 <= a.rounds <= 100:
    sys.exit("error: --rounds must be 1..100")
cmd = [os.path.join(root, "bin/ration")] + (a.args or ["cluster", "status"]) + ["--servers", a.servers]
cds_dir = tempfile.mkdtemp(prefix="ration-cds-")
helper_dir = tempfile.mkdtemp(prefix="ration-helper-")
variants = {
    "jit": {"RATION_CDS": "off", "RATION_HELPER": "off", "RATION_JAVA_OPTS": "-Xmx512m -XX:+UseSerialGC"},
    "c1": {"RATION_CDS": "off", "RATION_HELPER": "off"},
    "cds": {"RATION_CDS_DIR": cds_dir, "RATION_HELPER": "off"},
    "helper": {"RATION_CDS_DIR": helper_dir, "RATION_HELPER": "on"},
}


if a.first:
    variants["first"] = {"RATION_HELPER": "off", "_fresh": "1"}

if a.baseline:
    base_cmd = [os.path.join(os.path.abspath(a.baseline), "bin/ration")] + cmd[1:]
    if not os.access(base_cmd[0], os.X_OK):
        sys.exit("error: %s is not executable" % base_cmd[0])
    variants["base"] = {"RATION_CDS_DIR": tempfile.mkdtemp(prefix="ration-cds-base-"), "RATION_HELPER": "off",
                        "_cmd": base_cmd}


load = " ".join(open("/proc/loadavg").read().split()[:3])


def run(env_extra):
    env = dict(os.environ)
    env.pop("RATION_JAVA_OPTS", None)
    env.update(env_extra)
    command = env.pop("_cmd", cmd)
    if env.pop("_fresh", None):
        env["RATION_CDS_DIR"] = tempfile.mkdtemp(prefix="ration-cds-first-")
        # Nothing remembered from earlier calls either (the leader hint in the cache directory).
        env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="ration-cache-first-")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    r = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("error: %s exited %d: %s" % (" ".join(command), r.returncode, r.stderr.decode()[-500:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def helper_pid():
    """The pid in the helper's state file (bin/ration, CliHelper), or None."""
    for f in glob.glob(os.path.join(helper_dir, "helpers", "helper-*.state")):
        with open(f) as h:
            return int(h.read().split()[3])
    return None


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


run(variants["cds"])  # makes the archive; not timed
run(variants["helper"])  # runs directly and starts the helper; not timed
deadline = time.monotonic() + 60
while helper_pid() is None:
    if time.monotonic() > deadline:
        sys.exit("error: the helper did not start within 60 s (see %s/helpers/*.log)" % helper_dir)
    time.sleep(0.2)
run(variants["helper"])  # the helper's first call; not timed
if "base" in variants:
    run(variants["base"])  # the baseline's archive; not timed
results = {name: [] for name in variants}
pid = helper_pid()
helper_cpu = cpu_seconds(pid)
try:
    for _ in range(a.rounds):
        for name, env in variants.items():
            results[name].append(run(env))
    helper_cpu = (cpu_seconds(pid) - helper_cpu) / a.rounds
finally:
    env = dict(os.environ, RATION_CDS_DIR=helper_dir, RATION_HELPER="off")
    subprocess.run([cmd[0], "helper", "stop"], env=env, stdout=subprocess.DEVNULL, timeout=60)
print("command: bin/ration %s" % " ".join(cmd[1:]))
print("rounds: %d (alternating); load average before: %s" % (a.rounds, load))
print("%-6s %12s %12s" % ("", "wall median", "cpu median"))
for name, rs in results.items():
    print("%-6s %11.3fs %11.3fs" % (name, statistics.median(w for w, _ in rs), statistics.median(c for _, c in rs)))
print("helper's own cpu per call (mean): %.3fs" % helper_cpu)
print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))
