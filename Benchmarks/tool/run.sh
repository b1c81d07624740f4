#!/usr/bin/env bash
# The command-line tool as a user meets it: every command of `keyedarchive` timed and measured as
# a whole process (start, read, work, write, exit) on the 24 MB Foundation-made fleet archive and
# on the largest Apple-made archives, beside the Rust `plist` crate (read + write) and Foundation's
# PropertyListSerialization doing what `convert` does. Docs/Performance.md, "The command-line tool".
#
#   Benchmarks/tool/run.sh [--rounds N] [--baseline OLD_KEYEDARCHIVE] [--no-foundation] [--work DIR]
#
# --rounds N      interleaved rounds (default 5): each round runs every command once, in turn,
#                 so that a machine busy with other work slows all of them alike
# --baseline B    also run the tool binary B (an older build) in the same rounds: before/after
# --no-foundation skip Foundation's conversions (about 40 s each for the 24 MB archive)
# --work DIR      where inputs and outputs go (default: a new temporary directory)
# --apple-only    only the rows of the Apple-made archives (small files: process start-up)
#
# Needs: a Swift toolchain; for the Rust anchor, cargo and Debian's librust-plist-dev (offline:
# cargo reads Debian's crates from /usr/share/cargo/registry; `apt-get install librust-plist-dev`
# as root installs them); python3 and GNU time (/usr/bin/time) for the measurements.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)

ROUNDS=5
BASELINE=""
FOUNDATION=1
WORK=""
APPLE_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2; shift 2 ;;
        --baseline) BASELINE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
        --no-foundation) FOUNDATION=0; shift ;;
        --work) WORK=$2; shift 2 ;;
        --apple-only) APPLE_ONLY=1; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
WORK=${WORK:-$(mktemp -d -t keyedarchive-tool-bench.XXXXXX)}
mkdir -p "$WORK"

echo "== build (release)"
swift build -c release --product keyedarchive >/dev/null
swift build -c release --product keyedarchive-fleet-benchmark >/dev/null
if [ $FOUNDATION = 1 ]; then swift build -c release --product keyedarchive-benchmark >/dev/null; fi
TOOL=$ROOT/.build/release/keyedarchive

echo "== Rust anchor (the plist crate from Debian's librust-plist-dev, offline)"
RUST=""
if command -v cargo >/dev/null && [ -d /usr/share/cargo/registry ] && ls -d /usr/share/cargo/registry/plist-1.* >/dev/null 2>&1; then
    RUST_DIR=$WORK/rust-anchor
    mkdir -p "$RUST_DIR/src" "$RUST_DIR/.cargo"
    cp Benchmarks/tool/rust-anchor/Cargo.toml "$RUST_DIR/"
    cp Benchmarks/tool/rust-anchor/src/main.rs "$RUST_DIR/src/"
    cat > "$RUST_DIR/.cargo/config.toml" <<'EOF'
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
EOF
    (cd "$RUST_DIR" && cargo build --release --quiet)
    RUST=$RUST_DIR/target/release/plist-anchor
else
    echo "   skipped: needs cargo and librust-plist-dev (apt-get install librust-plist-dev)"
fi

echo "== inputs"
if [ ! -f "$WORK/fleet/foundation.bplist" ]; then
    # 17,000 pilots: 339,461 objects; Foundation's binary archive of them is 24.4 MB.
    "$ROOT/.build/release/keyedarchive-fleet-benchmark" --prepare 17000 "$WORK/fleet" >/dev/null
fi
cp "$WORK/fleet/foundation.bplist" "$WORK/FLEET.bplist"
cp "$WORK/FLEET.bplist" "$WORK/FLEET-copy.bplist"
"$TOOL" convert "$WORK/FLEET.bplist" --to xml -o "$WORK/FLEET.xml"
CORPUS=$ROOT/../shared/fixtures/apple
APPLE_XML=$CORPUS/xcuserstate/lancemc85_Trainme.xcuserstate
APPLE_BINARY=$CORPUS/xcuserstate/leaderman77_Perfectum.xcworkspace.xcuserstate
if [ ! -f "$APPLE_XML" ]; then
    echo "   the Apple corpus is not at ../shared/fixtures/apple: its rows are skipped"
    APPLE_XML=""; APPLE_BINARY=""
fi
echo "   work directory: $WORK"

FOUNDATION_TOOL=""
if [ $FOUNDATION = 1 ]; then FOUNDATION_TOOL=$ROOT/.build/release/keyedarchive-benchmark; fi

export APPLE_ONLY ROUNDS TOOL BASELINE RUST FOUNDATION_TOOL WORK APPLE_XML APPLE_BINARY
echo "== machine"
echo "   $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 Benchmarks/tool/measure.py
