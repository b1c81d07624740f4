#!/usr/bin/env bash
# Builds and runs the libFuzzer targets.
#
#   FuzzTesting/run.sh [seconds-per-target] [target...]      (default: 60 seconds, every target)
#
# Targets: binary (FuzzTesting/BinaryPlistFuzzer.swift), xml (FuzzTesting/XMLPlistFuzzer.swift),
# archive (FuzzTesting/ArchiveGraphFuzzer.swift: ArchiveGraph and its renderers), typed
# (FuzzTesting/TypedFleetFuzzer.swift: the fleet models through their ArchiveRegistry).
# Targets run one after the other. Each is compiled as one module with
# `swiftc -sanitize=fuzzer,address -parse-as-library -O` over its sources plus
# FuzzTesting/FuzzSupport.swift into .build-fuzz/ (gitignored): binary and xml as module
# PropertyListFuzz over Sources/PropertyList; archive and typed as module KeyedArchive over
# Sources/PropertyList + Sources/KeyedArchive (their `import PropertyList` lines dropped in the
# snapshot) + FuzzTesting/FuzzArchiveSupport.swift, and typed also over the test suite's
# Tests/KeyedArchiveTests/Models/FleetModels.swift (its `import KeyedArchive` then names its own
# module, which Swift ignores with a warning). Each target is
# seeded with every plist under Fixtures/ (the hostile archives of Fixtures/hostile/archive and
# the inputs of Fixtures/fuzz-findings whatever their extension; less
# FuzzTesting/seed-exclude.txt: known open findings) and, when present,
# ../shared/fixtures/apple — copied into a temporary folder outside
# the repository, never into it — and run with -max_total_time, -rss_limit_mb=2048 and
# -timeout=10. Logs are kept in .build-fuzz/logs/; crash, leak, timeout and OOM inputs in
# .build-fuzz/findings/ (minimize them and move them to Fixtures/fuzz-findings/ with a named
# regression test: Docs/Development/Fuzzing.md). Exits non-zero if any target found anything.
#
# To add a target: give it a harness file and a source list in sources_for/harness_for below.
# Environment: FUZZ_SOURCE=worktree fuzzes uncommitted sources (default: HEAD);
# FUZZ_EXTRA adds libFuzzer flags (e.g. "-seed=1").
set -euo pipefail
cd "$(dirname "$0")/.."
# A failed check is a fatalError: let libFuzzer and ASan report it, not Swift's backtracer.
export SWIFT_BACKTRACE=enable=no
# AddressSanitizer's use-after-return checks move locals to a heap "fake stack", where the
# package's stack guard (ThreadStackLimit) cannot see how much thread stack is left: the typed
# target decodes on a 512 KiB thread to find stack exhaustion, so locals stay on the stack.
export ASAN_OPTIONS="detect_stack_use_after_return=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

seconds="${1:-60}"
if [ $# -gt 0 ]; then shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(binary xml archive typed); fi

harness_for() {
  case "$1" in
    binary) echo FuzzTesting/BinaryPlistFuzzer.swift ;;
    xml) echo FuzzTesting/XMLPlistFuzzer.swift ;;
    archive) echo FuzzTesting/ArchiveGraphFuzzer.swift ;;
    typed) echo FuzzTesting/TypedFleetFuzzer.swift ;;
    *) echo "unknown fuzz target '$1' (known: binary xml archive typed)" >&2; return 2 ;;
  esac
}
for target in "${targets[@]}"; do harness_for "$target" > /dev/null; done

module_for() {
  case "$1" in
    binary | xml) echo PropertyListFuzz ;;
    archive | typed) echo KeyedArchive ;;
  esac
}

# Sources are compiled from a snapshot in the temporary folder: the committed tree (HEAD, the
# default, so that a run names the commit it tested) or the working tree (FUZZ_SOURCE=worktree).
sources_for() {
  case "$1" in
    binary | xml) find "$work/src/Sources/PropertyList" -name '*.swift' | LC_ALL=C sort ;;
    archive)
      find "$work/src/Sources/PropertyList" "$work/src/Sources/KeyedArchive" -name '*.swift' | LC_ALL=C sort
      echo FuzzTesting/FuzzArchiveSupport.swift ;;
    typed)
      find "$work/src/Sources/PropertyList" "$work/src/Sources/KeyedArchive" -name '*.swift' | LC_ALL=C sort
      echo "$work/src/Tests/KeyedArchiveTests/Models/FleetModels.swift"
      echo FuzzTesting/FuzzArchiveSupport.swift ;;
  esac
}

mkdir -p .build-fuzz/logs .build-fuzz/findings
work=$(mktemp -d "${TMPDIR:-/tmp}/plist-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/src"
if [ "${FUZZ_SOURCE:-HEAD}" = worktree ]; then
  cp -R Sources "$work/src/"
  mkdir -p "$work/src/Tests/KeyedArchiveTests/Models"
  cp Tests/KeyedArchiveTests/Models/FleetModels.swift "$work/src/Tests/KeyedArchiveTests/Models/"
  echo "== sources: working tree (based on $(git rev-parse --short HEAD))"
else
  git archive HEAD Sources Tests/KeyedArchiveTests/Models/FleetModels.swift | tar -x -C "$work/src"
  echo "== sources: commit $(git rev-parse --short HEAD)"
fi
# The keyed-archive targets compile both libraries as one module.
find "$work/src/Sources/KeyedArchive" -name '*.swift' -exec sed -i -e 's/^import PropertyList$/\/\/ import PropertyList (one module when fuzzing)/' -e 's/^@_exported import PropertyList$/\/\/ @_exported import PropertyList (one module when fuzzing)/' -e 's/^@_spi(\([A-Za-z]*\)) import PropertyList$/\/\/ @_spi(\1) import PropertyList (one module when fuzzing)/' {} +

# Seed corpus: our fixtures, and the Apple corpus beside the repository when it is there.
seeds="$work/seeds"
mkdir -p "$seeds"
find Fixtures -type f \( -name '*.plist' -o -name '*.bplist' -o -name '*.xml' \
  -o \( \( -path 'Fixtures/hostile/archive/*' -o -path 'Fixtures/fuzz-findings/*' \) \
        ! -name '*.md' ! -name '*.tsv' ! -name '*.py' ! -name '*.txt' \) \) -size -1024k | while read -r path; do
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
  build_start=$(date +%s)
  # shellcheck disable=SC2046
  swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name KeyedArchive -module-name "$(module_for "$target")" \
    $(sources_for "$target") FuzzTesting/FuzzSupport.swift "$harness" -o "$binary" 2>&1 |
    { grep -v -e "ld.gold: warning: Cannot export local symbol" -e "is part of module 'KeyedArchive'; ignoring import" \
        -e "^ *[0-9]* | " -e "^ *| " -e "^ *\`- warning" || true; }
  [ -x "$binary" ] && [ "$binary" -nt "$harness" ] || { echo "!! $target: build failed" >&2; exit 2; }
  echo "== built $binary in $(( $(date +%s) - build_start ))s"

  corpus="$work/$target-corpus"
  mkdir -p "$corpus" "$work/$target-artifacts"
  cp "$seeds"/* "$corpus/"
  log=".build-fuzz/logs/$target-$(date -u +%Y%m%dT%H%M%SZ).log"
  echo "== fuzzing $target for ${seconds}s (log: $log)"
  run_status=0
  # The timeout is the judge of slowness: libFuzzer's own "slow unit" report (default: 10 s, the
  # same as the timeout) only echoes a load spike on a shared machine, so it is set past it.
  # shellcheck disable=SC2086
  "$binary" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -report_slow_units=11 -max_len=262144 \
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
