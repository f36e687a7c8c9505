#!/usr/bin/env bash
# Fuzzes one codec for longer than the build does (the build gives each fuzz test 10 s).
#
#   scripts/fuzz.sh TestClass [SECONDS]     e.g. scripts/fuzz.sh FrameDecoderFuzzTest 3600
#   scripts/fuzz.sh --list                  the fuzz tests, by module
#
# Runs the @FuzzTest of TestClass (a *FuzzTest class of the protocol or statemachine module) in
# fuzzing mode for SECONDS (default 600), after replaying its committed corpus. What the fuzzer
# learns is kept in <module>/.cifuzz-corpus/ (not committed; the next run resumes from it). A
# finding stops the run and is written next to the committed corpus as crash-<hash>, in
# <module>/src/test/resources/<package>/<TestClass>Inputs/<method>/ (docs/PROTOCOL.md "Fuzzing").
set -euo pipefail
root="$(cd -P "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
modules=(protocol statemachine)

fuzz_tests() {
  find "${modules[@]}" -path '*/src/test/java/*' -name '*FuzzTest.java' | sort
}

case "${1:-}" in
  ""|-h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --list) fuzz_tests | sed -E 's|^([^/]+)/.*/([^/]+)\.java$|\1 \2|'; exit 0 ;;
esac
class="$1"
seconds="${2:-600}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "error: SECONDS must be a positive whole number, got '$seconds'" >&2
  exit 1
fi
file="$(fuzz_tests | grep "/$class\.java$" | head -n 1 || true)"
if [[ -z "$file" ]]; then
  echo "error: no fuzz test class '$class'; scripts/fuzz.sh --list names them" >&2
  exit 1
fi
module="${file%%/*}"

# JAZZER_FUZZ selects fuzzing mode, -Dtest the one class (which also turns the build's
# bounded-fuzz run off), fuzz.hooks the instrumentation the fuzzer needs. The @FuzzTest's
# maxDuration is the build's bound and jazzer-junit 0.24.0 has no public setting to override it,
# so the time limit goes to libFuzzer through jazzer-junit's argument parameters
# (jazzer.internal.arg.N, argument 0 being a program name); libFuzzer takes the last
# -max_total_time it is given, which is this one.
JAZZER_FUZZ=1 exec mvn -B -pl "$module" -am test \
  -Dtest="$class" -Dsurefire.failIfNoSpecifiedTests=false -Dfuzz.hooks=true \
  -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-max_total_time="$seconds"
