#!/usr/bin/env bash
# Builds and runs the libFuzzer targets for the property-list readers.
# usage: FuzzTesting/run.sh [seconds-per-target] [target...]   (targets: binary xml)
# Each target is compiled with -sanitize=fuzzer,address over the PropertyList sources into
# .build-fuzz/, seeded from Fixtures/ and, when present, ../shared/fixtures/apple (copied into a
# temporary folder, never into the repository). Exits non-zero on any crash, leak, timeout or OOM.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(binary xml)

mkdir -p .build-fuzz
sources=$(find Sources/PropertyList -name '*.swift' | sort)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for target in "${targets[@]}"; do
  case "$target" in
    binary) harness=FuzzTesting/BinaryPlistFuzzer.swift; format=binary ;;
    xml) harness=FuzzTesting/XMLPlistFuzzer.swift; format=xml ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  binary=.build-fuzz/$target-fuzzer
  echo "== building $binary"
  # shellcheck disable=SC2086
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PropertyListFuzz $sources "$harness" -o "$binary"
  corpus="$work/$target-corpus"
  mkdir -p "$corpus"
  find Fixtures -type f \( -name '*.plist' -o -name '*.bplist' -o -name '*.xml' -o -name '*.bin' \) -exec cp {} "$corpus/" \; 2>/dev/null || true
  if [ -f ../shared/fixtures/apple/MANIFEST.tsv ]; then
    awk -F'\t' -v f="$format" 'NR > 1 && $4 == f { print $1 }' ../shared/fixtures/apple/MANIFEST.tsv | while read -r path; do
      cp "../shared/$path" "$corpus/$(echo "$path" | tr '/' '_')"
    done
  fi
  echo "== fuzzing $target for ${seconds}s (seeds: $(ls "$corpus" | wc -l))"
  status=0
  "$binary" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=262144 \
    -artifact_prefix="$work/$target-" -print_final_stats=1 > "$work/$target.log" 2>&1 || status=$?
  grep -E "^#[0-9]+.*(DONE|pulse)|stat::|ERROR|SUMMARY" "$work/$target.log" | tail -n 20
  if [ "$status" -ne 0 ] || ls "$work/$target-"crash-* "$work/$target-"leak-* "$work/$target-"timeout-* "$work/$target-"oom-* > /dev/null 2>&1; then
    mkdir -p Fixtures/fuzz-findings
    cp "$work/$target-"{crash,leak,timeout,oom}-* Fixtures/fuzz-findings/ 2>/dev/null || true
    echo "fuzzer $target found a problem; inputs copied to Fixtures/fuzz-findings/" >&2
    exit 1
  fi
done
echo "fuzzing finished with no findings"
