#!/usr/bin/env bash
# Builds and runs the libFuzzer targets.
#
#   FuzzTesting/run.sh [seconds-per-target] [target...]      (default: 60 seconds, every target)
#
# Targets: binary (FuzzTesting/BinaryPlistFuzzer.swift), xml (FuzzTesting/XMLPlistFuzzer.swift).
# Targets run one after the other, never in parallel. Each is compiled with
# `swiftc -sanitize=fuzzer,address -parse-as-library -O` over its sources plus
# FuzzTesting/FuzzSupport.swift into .build-fuzz/ (gitignored), seeded with every plist under
# Fixtures/ (less FuzzTesting/seed-exclude.txt: known open findings) and, when present,
# ../shared/fixtures/apple — copied into a temporary folder outside
# the repository, never into it — and run with -max_total_time, -rss_limit_mb=2048 and
# -timeout=10. Logs are kept in .build-fuzz/logs/; crash, leak, timeout and OOM inputs in
# .build-fuzz/findings/ (minimize them and move them to Fixtures/fuzz-findings/ with a named
# regression test: Docs/Fuzzing.md). Exits non-zero if any target found anything.
#
# To add a target: give it a harness file and a source list in sources_for/harness_for below.
# Environment: FUZZ_SOURCE=worktree fuzzes uncommitted sources (default: HEAD);
# FUZZ_EXTRA adds libFuzzer flags (e.g. "-seed=1").
set -euo pipefail
cd "$(dirname "$0")/.."
# A failed check is a fatalError: let libFuzzer and ASan report it, not Swift's backtracer.
export SWIFT_BACKTRACE=enable=no

seconds="${1:-60}"
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(binary xml); fi

harness_for() {
  case "$1" in
    binary) echo FuzzTesting/BinaryPlistFuzzer.swift ;;
    xml) echo FuzzTesting/XMLPlistFuzzer.swift ;;
    *) echo "unknown fuzz target '$1' (known: binary xml)" >&2; return 2 ;;
  esac
}

# Sources are compiled from a snapshot in the temporary folder: the committed tree (HEAD, the
# default, so that a run names the commit it tested) or the working tree (FUZZ_SOURCE=worktree).
sources_for() {
  case "$1" in
    binary | xml) find "$work/src/Sources/PropertyList" -name '*.swift' | LC_ALL=C sort ;;
  esac
}

mkdir -p .build-fuzz/logs .build-fuzz/findings
work=$(mktemp -d "${TMPDIR:-/tmp}/plist-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/src"
if [ "${FUZZ_SOURCE:-HEAD}" = worktree ]; then
  cp -R Sources "$work/src/"
  echo "== sources: working tree (based on $(git rev-parse --short HEAD))"
else
  git archive HEAD Sources | tar -x -C "$work/src"
  echo "== sources: commit $(git rev-parse --short HEAD)"
fi

# Seed corpus: our fixtures, and the Apple corpus beside the repository when it is there.
seeds="$work/seeds"
mkdir -p "$seeds"
find Fixtures -type f \( -name '*.plist' -o -name '*.bplist' -o -name '*.xml' \) -size -1024k | while read -r path; do
  if grep -qxF "$(basename "$path")" FuzzTesting/seed-exclude.txt; then continue; fi
  cp "$path" "$seeds/$(echo "$path" | tr '/' '_')"
done
if [ -f ../shared/fixtures/apple/MANIFEST.tsv ]; then
  tail -n +2 ../shared/fixtures/apple/MANIFEST.tsv | cut -f1 | while read -r path; do
    [ -f "../shared/$path" ] && cp "../shared/$path" "$seeds/$(echo "$path" | tr '/' '_')"
  done
fi
echo "== $(ls "$seeds" | wc -l) seed files"

status=0
for target in "${targets[@]}"; do
  harness=$(harness_for "$target")
  binary=.build-fuzz/$target-fuzzer
  echo "== building $binary"
  # shellcheck disable=SC2046
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PropertyListFuzz \
    $(sources_for "$target") FuzzTesting/FuzzSupport.swift "$harness" -o "$binary" 2>&1 |
    { grep -v "ld.gold: warning: Cannot export local symbol" || true; }

  corpus="$work/$target-corpus"
  mkdir -p "$corpus" "$work/$target-artifacts"
  cp "$seeds"/* "$corpus/"
  log=".build-fuzz/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
  echo "== fuzzing $target for ${seconds}s (log: $log)"
  run_status=0
  # shellcheck disable=SC2086
  "$binary" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=262144 \
    -artifact_prefix="$work/$target-artifacts/" -print_final_stats=1 ${FUZZ_EXTRA:-} > "$log" 2>&1 || run_status=$?
  grep -E "^#[0-9]+[[:space:]]+DONE|^stat::|ERROR|SUMMARY|FUZZ FINDING" "$log" | tail -n 12 || true
  findings=$(find "$work/$target-artifacts" -type f | wc -l)
  if [ "$run_status" -ne 0 ] || [ "$findings" -ne 0 ]; then
    cp "$work/$target-artifacts"/* .build-fuzz/findings/ 2>/dev/null || true
    echo "!! $target: exit status $run_status, $findings artifact(s) copied to .build-fuzz/findings/" >&2
    status=1
  else
    echo "== $target: no findings"
  fi
done
exit "$status"
