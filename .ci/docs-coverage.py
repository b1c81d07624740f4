"""Documentation coverage of the library modules, from the symbol graphs .ci/docs extracts.

Usage: docs-coverage.py SYMBOLGRAPH_DIR BASELINE [--update-baseline]

SYMBOLGRAPH_DIR holds one folder per module, `<Module>/*.symbols.json` (the module's own graph and
its `<Module>@<Other>` extension graphs). Two checks:

1. Doc comments. A symbol counts when it is public or open, is not synthesized, and does not take
   its documentation from a protocol requirement it implements (DocC shows the requirement's).
   Each is named `Module path.to.symbol kind` (overloads share a line, so the baseline names a
   gap, not an overload). Fails when a symbol without a comment is not in BASELINE, or when
   BASELINE lists one that has been documented since (so that the list only shrinks).
   `--update-baseline` rewrites BASELINE.

2. Topics. Every public or open type of a module (symbol kinds swift.struct, swift.class,
   swift.enum, swift.protocol and swift.typealias; names starting with `_`, which DocC hides,
   excepted) must be reachable from a curated `## Topics` section of its module's catalog,
   Sources/<Module>/<Module>.docc:
   - a type is covered when a ``double-backtick`` symbol link to it appears under a `## Topics`
     heading (in any of its `###` groups, up to the next `#` or `##` heading) of any markdown
     file of the catalog: the module's root page, an article, or an extension page of a symbol
     (`# ``Outer```). A link resolves as DocC resolves it: relative to the page's symbol first
     (``Inner`` on the page of ``Outer`` is `Outer/Inner`), then to each enclosing symbol, then
     from the module (``Outer/Inner``, or ``Module/Outer/Inner``); a disambiguation suffix
     (``Entry-swift.struct``, ``value-1a2b3``) is ignored;
   - a nested type is also covered when the type that encloses it is covered, since DocC lists
     every nested type on its parent's page.
   Each type that is not is reported as `not in a Topics section: Module Type/Path`. Types are
   matched by their symbol path, so the rule needs no docc run, only the catalogs' markdown.

Exit 1 when either check fails.
"""
import json
import pathlib
import re
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
SYMBOL_LINK = re.compile(r"``([^`]+)``")
DISAMBIGUATION = re.compile(r"-(swift\.[a-z.]+|[0-9a-z]{4,6})$")


def public_symbols(module_dir: pathlib.Path):
    for graph_file in sorted(module_dir.glob("*.symbols.json")):
        graph = json.loads(graph_file.read_text())
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") in ("public", "open"):
                yield symbol


def undocumented(root: pathlib.Path) -> set[str]:
    names = set()
    for module_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        for symbol in public_symbols(module_dir):
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or "sourceOrigin" in symbol:
                continue
            if symbol.get("docComment"):
                continue
            path = ".".join(symbol["pathComponents"])
            names.add(f"{module_dir.name} {path} {symbol['kind']['identifier']}")
    return names


def link_path(link: str, module: str) -> list[str]:
    """The components of a symbol link, without a leading module name or disambiguations."""
    components = [DISAMBIGUATION.sub("", c) for c in link.strip().strip("/").split("/") if c]
    if components and components[0] == module:
        components = components[1:]
    return components


def topic_links(catalog: pathlib.Path, module: str, paths: set[str]) -> set[str]:
    """Every symbol path a `## Topics` section of the catalog links to, resolved as DocC would."""
    linked = set()
    for page in sorted(catalog.rglob("*.md")):
        lines = page.read_text().splitlines()
        page_symbol: list[str] = []
        if lines:
            title = SYMBOL_LINK.fullmatch(lines[0].removeprefix("# ").strip())
            if lines[0].startswith("# ") and title:
                page_symbol = link_path(title.group(1), module)
        in_topics = in_code = False
        for line in lines:
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                continue
            heading = re.match(r"(#+)\s+(.*)", line)
            if heading and len(heading.group(1)) <= 2:
                in_topics = len(heading.group(1)) == 2 and heading.group(2).strip() == "Topics"
                continue
            if not in_topics:
                continue
            for link in SYMBOL_LINK.findall(line):
                components = link_path(link, module)
                if not components:
                    continue
                scopes = [page_symbol[:n] for n in range(len(page_symbol), -1, -1)]
                candidates = ["/".join(scope + components) for scope in scopes]
                linked.add(next((c for c in candidates if c in paths), candidates[-1]))
    return linked


def not_in_topics(root: pathlib.Path) -> list[str]:
    missing = []
    for module_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        module = module_dir.name
        paths, types = set(), set()
        for symbol in public_symbols(module_dir):
            path = "/".join(symbol["pathComponents"])
            paths.add(path)
            if symbol["kind"]["identifier"] in TYPE_KINDS and not any(c.startswith("_") for c in symbol["pathComponents"]):
                types.add(path)
        catalog = REPOSITORY / "Sources" / module / f"{module}.docc"
        linked = topic_links(catalog, module, paths) if catalog.is_dir() else set()

        def covered(path: str) -> bool:
            if path in linked:
                return True
            parent = path.rpartition("/")[0]
            return parent in types and covered(parent)

        missing += [f"{module} {path}" for path in sorted(types) if not covered(path)]
        covered_count = sum(1 for path in types if covered(path))
        print(f"docs: {module}: {covered_count} of {len(types)} public types in a Topics section")
    return missing


def main() -> int:
    root, baseline_path = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    status = 0
    found = undocumented(root)
    if "--update-baseline" in sys.argv[3:]:
        baseline_path.write_text("".join(f"{name}\n" for name in sorted(found)))
        print(f"docs: baseline rewritten with {len(found)} undocumented symbols")
    else:
        baseline = set(line.strip() for line in baseline_path.read_text().splitlines() if line.strip() and not line.startswith("#")) \
            if baseline_path.exists() else set()
        new = sorted(found - baseline)
        fixed = sorted(baseline - found)
        for name in new:
            print(f"undocumented: {name}")
        for name in fixed:
            print(f"documented now, remove from {baseline_path}: {name}")
        print(f"docs: {len(found)} undocumented public symbols, {len(baseline)} in the baseline, {len(new)} new, {len(fixed)} fixed")
        if new or fixed:
            status = 1
    missing = not_in_topics(root)
    for name in missing:
        print(f"not in a Topics section: {name}")
    if missing:
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
