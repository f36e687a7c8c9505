#!/usr/bin/env bash
# Records the class-data archive shipped with this build (docs/CLI.md, "Start time"), run by
# `mvn package` after target/lib/ is complete: target/lib/ration-cli.jsa, the class path it was
# recorded with (target/lib/ration-cli.classpath: the library jars after the CLI's, one name per
# line) and what it depends on (target/lib/ration-cli.jsa.id: size and modification time of the
# JVM's libjvm.so and of every jar, in class-path order). The release archive carries all three.
#
# The JVM maps an archive only under the class path it was recorded with, byte for byte, so the
# path may not name where the jars are. It names two descriptors instead: /proc/self/fd/57 is
# the directory of ration-cli.jar, /proc/self/fd/58 the library directory. bin/ration opens both
# on the installation it runs from, in either layout (a source checkout's cli/target and
# cli/target/lib, a release's lib and lib), so one archive serves every copy of this build.
# The training run is dev.ration.cli.CdsTraining.
set -euo pipefail
target="$(cd "$1" && pwd)"
lib="$target/lib"
[[ -f "$target/ration-cli.jar" && -d "$lib" ]] || { echo "error: $target has no ration-cli.jar and lib/" >&2; exit 1; }
rm -f "$lib"/ration-cli.jsa "$lib"/ration-cli.jsa.id "$lib"/ration-cli.classpath
if [[ ! -d /proc/self/fd ]]; then
  echo "class-data archive: skipped (no /proc/self/fd)"
  exit 0
fi
mapfile -t names < <(cd "$lib" && LC_ALL=C ls -- *.jar)
cp="/proc/self/fd/57/ration-cli.jar"
files=("$target/ration-cli.jar")
for n in "${names[@]}"; do
  cp+=":/proc/self/fd/58/$n"
  files+=("$lib/$n")
done
java_real="$(readlink -f "$(command -v java)")"
libjvm="${java_real%/bin/java}/lib/server/libjvm.so"
[[ -f "$libjvm" ]] || { echo "class-data archive: skipped (no $libjvm)"; exit 0; }
tmp="$lib/ration-cli.jsa.$$.tmp"
exec 57<"$target" 58<"$lib"
# The launcher's options for admin commands (bin/ration): the archive is used only with them.
java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ArchiveClassesAtExit="$tmp" \
  -Xlog:cds=off -Xlog:cds+dynamic=off -cp "$cp" dev.ration.cli.CdsTraining 2>"$target/cds-training.log" || {
  rm -f "$tmp"
  echo "error: the class-data training run failed; its log: $target/cds-training.log" >&2
  tail -20 "$target/cds-training.log" >&2
  exit 1
}
exec 57<&- 58<&-
[[ -s "$tmp" ]] || { echo "error: the training run wrote no archive" >&2; exit 1; }
printf '%s\n' "${names[@]}" >"$lib/ration-cli.classpath"
stat -L -c '%s %Y' "$libjvm" "${files[@]}" >"$lib/ration-cli.jsa.id"
mv -f "$tmp" "$lib/ration-cli.jsa"
echo "class-data archive: $lib/ration-cli.jsa ($(stat -c %s "$lib/ration-cli.jsa") bytes)"
