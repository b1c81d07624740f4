"""Public symbols without a doc comment, from the symbol graphs .ci/docs extracts.

Usage: docs-coverage.py SYMBOLGRAPH_DIR BASELINE [--update-baseline]

A symbol counts when it is public or open, is not synthesized, and does not take its
documentation from a protocol requirement it implements (DocC shows the requirement's). Each is
named `Module path.to.symbol kind` (overloads share a line, so the baseline names a gap, not an
overload). Exit 1 when a symbol without a comment is not in BASELINE, or when BASELINE lists one
that has been documented since (so that the list only shrinks).
"""
import json
import pathlib
import sys


def undocumented(root: pathlib.Path) -> set[str]:
    names = set()
    for module_dir in sorted(root.iterdir()):
        for graph_file in sorted(module_dir.glob("*.symbols.json")):
            graph = json.loads(graph_file.read_text())
            for symbol in graph["symbols"]:
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or "sourceOrigin" in symbol:
                    continue
                if symbol.get("docComment"):
                    continue
                path = ".".join(symbol["pathComponents"])
                names.add(f"{module_dir.name} {path} {symbol['kind']['identifier']}")
    return names


def main() -> int:
    root, baseline_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    found = undocumented(root)
    if "--update-baseline" in sys.argv[3:]:
        baseline_path.write_text("".join(f"{name}\n" for name in sorted(found)))
        print(f"docs: baseline rewritten with {len(found)} undocumented symbols")
        return 0
    baseline = set(line.strip() for line in baseline_path.read_text().splitlines() if line.strip() and not line.startswith("#")) \
        if baseline_path.exists() else set()
    new = sorted(found - baseline)
    fixed = sorted(baseline - found)
    for name in new:
        print(f"undocumented: {name}")
    for name in fixed:
        print(f"documented now, remove from {baseline_path}: {name}")
    print(f"docs: {len(found)} undocumented public symbols, {len(baseline)} in the baseline, {len(new)} new, {len(fixed)} fixed")
    return 1 if new or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
