#!/usr/bin/env bash
# Generates Swift models with `keyedarchive schema --swift --public` for archives, builds them
# as a library target (`Models`) of a throwaway package (outside the repository) that depends
# on this one by path, used from another target (`Run`), and checks that every archive decodes
# with its models and round-trips to the same values and class names, compared through the
# generic view, and with `keyedarchive diff`: values, then sharing (Runner/main.swift).
# The fleet is also generated without --public into `Run` itself. Docs/Schema.md.
#
#   Tests/SchemaGeneration/run.sh            the CI set: the bundled fleet and 14 Apple-made archives
#   Tests/SchemaGeneration/run.sh --all      every archive of ../shared/fixtures/apple and Fixtures/
#   Tests/SchemaGeneration/run.sh FILE...    the given archives
# With SCHEMA_ROUNDTRIP_DIR set, each round trip is also written there as NAME.roundtrip.
# Apple-made archives come from ../shared/fixtures/apple; without it they are skipped, with a message.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
# SCHEMA_CORPUS points elsewhere (or nowhere, to try the skip).
CORPUS="${SCHEMA_CORPUS:-$(cd "$ROOT/.." && pwd)/shared/fixtures/apple}"

# Nibs, Core Data models (compiled and Xcode 3 sources), Xcode state files and device payloads,
# each with classes of its own; small enough to keep the build within a few minutes.
CI_SET=(
  apple-sample-code/AbstractTree_AbstractTree_DataModel.mom
  apple-sample-code/AbstractTree_AbstractTree_DataModel.xcdatamodel-elements
  apple-sample-code/AbstractTree_MainMenu_built-app.nib
  apple-sample-code/CocoaSlides_BrowserWindow.keyedobjects.nib
  apple-sample-code/FancyStickiesUsingCoreDataSync_Sticky.keyedobjects.nib
  apple-sample-code/RadiantColorPicker_RadiantColorPicker.keyedobjects.nib
  nib/AlanQuatermain_bdk_BackRow_English.keyedobjects.nib
  nib/Grayson_compress.app_main_English.keyedobjects.nib
  xcdatamodel/beepscore_CarLot_MyDocument.xcdatamodel-layout
  xcdatamodel/cheebow_TreeMemo_MyDocument.xcdatamodel-elements
  xcuserstate/Cuiqj_GDBEHMMobileBeiErHuan.xcuserstate
  xcuserstate/stephaniechiu_Climate.xcuserstate
  go-ios/device-captured/xctestidentifier.bin.plist
  nskeyedunarchiver-rs/circularReference.plist
)

files=()
# Strict diff (sharing compared) must find every round trip of the CI set equal, and at least
# 90 % of all of them with --all (Docs/Schema.md says which are not, and why); a list of files
# given is only reported.
strict_percent=""
if [ "${1:-}" = "--all" ]; then
  strict_percent=90
  files+=("$ROOT/Fixtures/fleet.plist" "$ROOT/Fixtures/fleet.xml" "$ROOT/Fixtures/schema/unkeyed-drawing.plist" "$ROOT/Fixtures/schema/transform-drawing.plist" "$ROOT/Fixtures/schema/nested-mutable.plist" "$ROOT/Fixtures/apple-shapes/classname-only-components.plist" "$ROOT/Fixtures/apple-shapes/classhints.plist" "$ROOT/Fixtures/apple-shapes/scenekit-archiver-top-first.plist")
  if [ -f "$CORPUS/MANIFEST.tsv" ]; then
    while IFS=$'\t' read -r file _; do
      [ "$file" = "file" ] && continue
      files+=("$CORPUS/../../$file")
    done < "$CORPUS/MANIFEST.tsv"
  else
    echo "schema generation: $CORPUS is absent; only the bundled fixtures are checked"
  fi
elif [ $# -gt 0 ]; then
  files=("$@")
else
  strict_percent=100
  files+=("$ROOT/Fixtures/fleet.plist" "$ROOT/Fixtures/fleet.xml" "$ROOT/Fixtures/schema/unkeyed-drawing.plist" "$ROOT/Fixtures/schema/transform-drawing.plist" "$ROOT/Fixtures/schema/nested-mutable.plist" "$ROOT/Fixtures/apple-shapes/classname-only-components.plist" "$ROOT/Fixtures/apple-shapes/classhints.plist" "$ROOT/Fixtures/apple-shapes/scenekit-archiver-top-first.plist")
  if [ -f "$CORPUS/MANIFEST.tsv" ]; then
    for file in "${CI_SET[@]}"; do files+=("$CORPUS/$file"); done
  else
    echo "schema generation: $CORPUS is absent; the Apple-made archives are skipped, only the bundled fixtures are checked"
  fi
fi

TOOL="$ROOT/.build/debug/keyedarchive"
if [ ! -x "$TOOL" ]; then (cd "$ROOT" && swift build --product keyedarchive); fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/schema-generation.XXXXXX")"
if [ -z "${KEEP_SCHEMA_WORK:-}" ]; then trap 'rm -rf "$WORK"' EXIT; else echo "work folder: $WORK"; fi
mkdir -p "$WORK/Sources/Run" "$WORK/Sources/Models"
PACKAGE_NAME="$(basename "$ROOT")"
cat > "$WORK/Package.swift" <<PACKAGE
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "SchemaRun",
    // KeyedArchive's own minimums (README, Platforms), which a client on a Mac must declare too.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [.package(path: "$ROOT")],
    targets: [
        // The generated models, public, as a library another target uses.
        .target(name: "Models", dependencies: [
            .product(name: "KeyedArchive", package: "$PACKAGE_NAME"),
            .product(name: "PropertyList", package: "$PACKAGE_NAME"),
        ]),
        .executableTarget(name: "Run", dependencies: [
            "Models",
            .product(name: "KeyedArchive", package: "$PACKAGE_NAME"),
            .product(name: "PropertyList", package: "$PACKAGE_NAME"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
PACKAGE
cp "$ROOT/Tests/SchemaGeneration/Runner/main.swift" "$WORK/Sources/Run/main.swift"
# Docs/Schema.md's decode, on AbstractTree's compiled Core Data model, when the corpus is there.
EXAMPLE_ARCHIVE="$CORPUS/apple-sample-code/AbstractTree_AbstractTree_DataModel.mom"
if [ -f "$EXAMPLE_ARCHIVE" ]; then
  "$TOOL" schema "$EXAMPLE_ARCHIVE" --swift --public --name AbstractTreeModel > "$WORK/Sources/Models/AbstractTreeModel.swift"
  cp "$ROOT/Tests/SchemaGeneration/Runner/Example.swift" "$WORK/Sources/Run/Example.swift"
else
  echo 'let example: (@Sendable (String) throws -> Void)? = nil' > "$WORK/Sources/Run/Example.swift"
fi
# The fleet's models once more: internal, in the target that uses them, and public under a
# fixed name for the runner's check of the memberwise initializers.
"$TOOL" schema "$ROOT/Fixtures/fleet.plist" --swift --name InternalFleet > "$WORK/Sources/Run/InternalFleet.swift"
"$TOOL" schema "$ROOT/Fixtures/fleet.plist" --swift --public --name PublicFleet > "$WORK/Sources/Models/PublicFleet.swift"

generation_failures=0
{
  echo "// The archives and the round trip of the models generated from each (written by run.sh)."
  echo "import Models"
  echo "let cases: [(path: String, roundTrip: @Sendable ([UInt8]) throws -> [UInt8])] = ["
} > "$WORK/Sources/Run/Cases.swift"
index=0
for file in "${files[@]}"; do
  index=$((index + 1))
  # The first file keeps the default namespace, ArchiveSchema (the library's own type of that
  # name is then shadowed in this module, as in a user's).
  namespace="Schema$index"; name_option=(--name "$namespace")
  if [ "$index" -eq 1 ]; then namespace="ArchiveSchema"; name_option=(); fi
  if "$TOOL" schema "$file" --swift --public "${name_option[@]}" > "$WORK/Sources/Models/Schema$index.swift" 2> "$WORK/error.txt"; then
    printf '    (%s, %s.roundTrip),\n' "\"$(printf '%s' "$file" | sed 's/\\/\\\\/g; s/"/\\"/g')\"" "$namespace" >> "$WORK/Sources/Run/Cases.swift"
  else
    generation_failures=$((generation_failures + 1))
    echo "SCHEMA FAILED $(basename "$file"): $(cat "$WORK/error.txt")"
    rm -f "$WORK/Sources/Models/Schema$index.swift"
  fi
done
echo "]" >> "$WORK/Sources/Run/Cases.swift"
echo "schema generation: generated $((index - generation_failures)) model files ($(cat "$WORK"/Sources/Models/Schema*.swift | wc -l) lines); building"

start=$(date +%s)
if ! (cd "$WORK" && swift build 2>&1 > "$WORK/build.log"); then
  grep -E "error:" "$WORK/build.log" | head -40
  echo "schema generation: the generated models do not compile (log above)"
  exit 1
fi
if grep -E "warning:" "$WORK/build.log" | grep -v "$ROOT" | grep -q .; then
  grep -E "warning:" "$WORK/build.log" | grep -v "$ROOT" | sort -u | head -20
  echo "schema generation: the generated models compile with warnings"
  exit 1
fi
echo "schema generation: built in $(( $(date +%s) - start )) s"
strict_minimum=""
if [ -n "$strict_percent" ]; then strict_minimum=$(( (${#files[@]} * strict_percent + 99) / 100 )); fi
SCHEMA_STRICT_MINIMUM="$strict_minimum" "$WORK/.build/debug/Run"
if [ -f "$EXAMPLE_ARCHIVE" ]; then
  "$WORK/.build/debug/Run" --example "$EXAMPLE_ARCHIVE" > "$WORK/example.txt"
  if ! diff -u "$ROOT/Tests/SchemaGeneration/example-output.txt" "$WORK/example.txt"; then
    echo "schema generation: Docs/Schema.md's decode example prints something else (diff above)"
    exit 1
  fi
  echo "schema generation: Docs/Schema.md's decode example prints what the docs show"
fi
[ "$generation_failures" -eq 0 ]
