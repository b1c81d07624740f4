"""The work of .ci/api-check (which finds the tools and the debug build, then runs this).

Environment (set by .ci/api-check): API_CHECK_DIGESTER, API_CHECK_SWIFTC, API_CHECK_MODULES_DIR
(empty when not on Linux), API_CHECK_MODULES (space-separated), API_CHECK_START (epoch seconds).

Modes: no argument (check), --update-baseline, --self-test (check, then the self-test).
Exit 0 when it passes, 1 on a finding (a source-breaking change, a history-rule violation, a
self-test plant not caught), 2 when a tool fails.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE_REL = ".ci/api-baseline"
BASELINE_DIR = ROOT / BASELINE_REL
WORK = ROOT / ".build" / "api-check"
CACHE = WORK / "ModuleCache"
DIGESTER = os.environ.get("API_CHECK_DIGESTER", "swift-api-digester")
SWIFTC = os.environ.get("API_CHECK_SWIFTC", "swiftc")
MODULES_DIR = os.environ.get("API_CHECK_MODULES_DIR", "")
MODULES = os.environ.get("API_CHECK_MODULES", "PropertyList KeyedArchive KeyedArchiveTesting").split()
START = float(os.environ.get("API_CHECK_START") or time.time())

FIX = ("  If the change is intended: run `.ci/api-check --update-baseline`, add an entry to CHANGELOG.md\n"
       "  (what changed and how a client adapts), and commit both in the same commit. If it is not\n"
       "  intended, restore the declaration. Docs/PublicAPI.md, \"The API check\".")


class ToolError(Exception):
    pass


def run(args, cwd=None):
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)


# ---------------------------------------------------------------------------------------------
# Dumping and comparing

def dump(module, include_dir, out):
    """The digester's source-level (not ABI) dump of `module` as found in `include_dir`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    r = run([DIGESTER, "-dump-sdk", "-module", module, "-I", include_dir, "-o", out,
             "-avoid-location", "-avoid-tool-args", "-abort-on-module-fail",
             "-module-cache-path", CACHE])
    if r.returncode != 0 or not out.exists():
        raise ToolError(f"swift-api-digester -dump-sdk {module} failed:\n{r.stdout}{r.stderr}")
    root = json.loads(out.read_text())["ABIRoot"]
    if root.get("name") != module or not any(c.get("declKind") not in (None, "Import") for c in root.get("children", [])):
        raise ToolError(f"the dump of {module} from {include_dir} declares nothing public: {out}")


def diagnose(baseline, current, out):
    """Source-breaking changes from `baseline` to `current` (two dumps): [(section, message)].

    The digester's exit status does not tell (it is 0 with breakages in API mode): its report
    lists each under a /* Section */ heading, and every line there is one.
    """
    if out.exists():
        out.unlink()
    # The package's own SPI (`@_spi(KeyedArchiveInternals)`, for its modules to share inlinable
    # helpers) is not API: Docs/PublicAPI.md leaves it out of the promise.
    r = run([DIGESTER, "-diagnose-sdk", "-input-paths", baseline, "-input-paths", current,
             "-ignore-spi-group", "KeyedArchiveInternals", "-o", out, "-module-cache-path", CACHE])
    if r.returncode != 0 or not out.exists():
        raise ToolError(f"swift-api-digester -diagnose-sdk {baseline} {current} failed:\n{r.stdout}{r.stderr}")
    findings, section = [], "?"
    for line in out.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        heading = re.fullmatch(r"/\*\s*(.*?)\s*\*/", line)
        if heading:
            section = heading.group(1)
        else:
            findings.append((section, line))
    return findings


def declarations(path):
    """{(kind, dotted path): {usr: description}} of a dump's declarations and conformances."""
    found = {}

    def walk(node, prefix):
        for child in node.get("children", []):
            kind = child.get("declKind")
            if kind is None or kind == "Import":
                continue
            names = prefix + [child.get("printedName", child.get("name", "?"))]
            dotted = ".".join(names)
            found.setdefault((kind, dotted), {})[child.get("usr", dotted)] = f"{kind} {dotted}"
            for conformance in child.get("conformances", []):
                p = conformance.get("printedName", "?")
                found.setdefault(("Conformance", f"{dotted}: {p}"), {})[p] = f"{kind} {dotted}: conformance to {p}"
            walk(child, names)

    walk(json.loads(pathlib.Path(path).read_text())["ABIRoot"], [])
    return found


def public_declarations(path):
    """{(kind, dotted path)} of a dump's declarations a client can use: neither they nor a type
    that holds them `package` or internal (the dump marks those `isInternal`), nor SPI."""
    found = set()

    def walk(node, prefix):
        for child in node.get("children", []):
            kind = child.get("declKind")
            if kind is None or kind == "Import":
                continue
            if child.get("isInternal") or child.get("spi_group_names"):
                continue
            names = prefix + [child.get("printedName", child.get("name", "?"))]
            found.add((kind, ".".join(names)))
            walk(child, names)

    walk(json.loads(pathlib.Path(path).read_text())["ABIRoot"], [])
    return found


def narrowed(baseline, current):
    """Public declarations of `baseline` that `current` still declares but not publicly (made
    `package`, internal or SPI): the digester's dumps hold `package` declarations too, marked
    `isInternal`, and its diagnosis does not report the change. [(section, message)]."""
    still = declarations(current)
    lost = sorted(key for key in public_declarations(baseline) - public_declarations(current) if key in still)
    # A type made package hides its members too: report the type, not each member.
    types = {dotted for kind, dotted in lost if kind in ("Class", "Struct", "Enum", "Protocol", "TypeAlias")}
    return [("Access Narrowed", f"{kind} {dotted} is no longer public (package, internal or SPI now)")
            for kind, dotted in lost if not any(dotted.startswith(t + ".") for t in types)]


def additions(baseline, current):
    """What `current` declares that `baseline` does not (the digester does not list additions)."""
    old, new = declarations(baseline), declarations(current)
    public = public_declarations(current)
    public_paths = {dotted for _, dotted in public}
    added = []
    for key, usrs in new.items():
        # Package, internal or SPI declarations (and their conformances) are not API.
        if key[0] == "Conformance":
            if key[1].split(": ", 1)[0] not in public_paths:
                continue
        elif key not in public:
            continue
        if key not in old:
            added.append(next(iter(usrs.values())))
        elif len(usrs) > len(old[key]):  # a new overload of a name that was there
            added += [f"{d} (new overload)" for u, d in usrs.items() if u not in old[key]]
    return sorted(added)


def compare_module(module, baseline, current):
    findings = diagnose(baseline, current, WORK / f"{module}.diagnose.txt") + narrowed(baseline, current)
    return findings, additions(baseline, current)


def dump_all():
    if not MODULES_DIR:
        raise ToolError("no debug build found")
    dumps = {}
    for module in MODULES:
        out = WORK / "current" / f"{module}.json"
        dump(module, MODULES_DIR, out)
        dumps[module] = out
    return dumps


def api_check():
    """Returns (breaks, added, problems) after printing each finding."""
    dumps = dump_all()
    breaks, added, problems = {}, 0, []
    known = {f"{m}.json" for m in MODULES}
    for stray in sorted(p.name for p in BASELINE_DIR.glob("*.json") if p.name not in known):
        problems.append(f"{BASELINE_REL}/{stray} is the baseline of no module this check dumps "
                        f"({', '.join(MODULES)}): remove it, or add the module to .ci/api-check")
    for module in MODULES:
        baseline = BASELINE_DIR / f"{module}.json"
        if not baseline.exists():
            problems.append(f"{module}: no baseline ({BASELINE_REL}/{module}.json): run "
                            "`.ci/api-check --update-baseline` and add a CHANGELOG.md entry in the same commit")
            continue
        findings, new = compare_module(module, baseline, dumps[module])
        breaks[module] = len(findings)
        added += len(new)
        if findings:
            print(f"api-check: {module}: {len(findings)} source-breaking change(s) against {BASELINE_REL}/{module}.json:")
            for section, message in findings:
                print(f"  BREAKING {module}: {message}    [{section}]")
        for line in new:
            print(f"  added    {module}: {line}")
    for p in problems:
        print(f"api-check: {p}")
    return breaks, added, problems


def update_baseline():
    dumps = dump_all()
    created = not any(BASELINE_DIR.glob("*.json"))
    BASELINE_DIR.mkdir(parents=True, exist_ok=True)
    changed = []
    for module in MODULES:
        baseline = BASELINE_DIR / f"{module}.json"
        if baseline.exists():
            if baseline.read_bytes() == dumps[module].read_bytes():
                continue
            findings, new = compare_module(module, baseline, dumps[module])
            for _, message in findings:
                print(f"  accepted breaking {module}: {message}")
            for line in new:
                print(f"  accepted added    {module}: {line}")
        else:
            print(f"  new baseline: {BASELINE_REL}/{module}.json")
        shutil.copyfile(dumps[module], baseline)
        changed.append(module)
    for stray in sorted(p for p in BASELINE_DIR.glob("*.json") if p.stem not in MODULES):
        stray.unlink()
        changed.append(stray.stem)
        print(f"  removed baseline of a module no longer checked: {stray.name}")
    took = time.time() - START
    if created:
        print(f"api-check: baseline created for {', '.join(changed)} ({took:.1f} s); the commit that "
              "creates it is the one baseline commit that needs no CHANGELOG.md entry.")
    elif changed:
        print(f"api-check: baseline updated for {', '.join(changed)} ({took:.1f} s). Add an entry to "
              "CHANGELOG.md and commit it with the baseline, in the same commit (the history rule).")
    else:
        print(f"api-check: baseline already up to date ({took:.1f} s)")
    return 0


# ---------------------------------------------------------------------------------------------
# The history rule: a change that breaks clients updates the baseline and CHANGELOG.md in the same
# commit. Every commit that changed a file under .ci/api-baseline/ must change CHANGELOG.md,
# except the one that created the baseline; so must the work tree.

def git(repo, *args):
    return run(["git", "-C", repo, *args])


EXEMPTIONS_REL = ".ci/api-history-exemptions.txt"


def exemptions(repo):
    """Commits already pushed without their CHANGELOG.md entry, listed as `<hash> <why>` lines in
    EXEMPTIONS_REL (history cannot be rewritten once shared)."""
    path = pathlib.Path(repo, EXEMPTIONS_REL)
    if not path.exists():
        return []
    return [line.split()[0].lower() for line in path.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def check_history(repo):
    """Returns (commits checked, violations, notes)."""
    notes, violations = [], []
    if git(repo, "rev-parse", "--git-dir").returncode != 0:
        return 0, [], ["not a git repository: the history rule is not checked"]
    exempt = exemptions(repo)
    has_head = git(repo, "rev-parse", "-q", "--verify", "HEAD^{commit}").returncode == 0
    boundary = set()
    if has_head and git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
        shallow = pathlib.Path(repo, git(repo, "rev-parse", "--git-path", "shallow").stdout.strip())
        boundary = set(shallow.read_text().split()) if shallow.exists() else set()
        count = git(repo, "rev-list", "--count", "HEAD").stdout.strip()
        notes.append(f"shallow clone: the history rule is checked on the {count} commit(s) fetched only "
                     "(`git fetch --unshallow` for all of it)")
    commits = []  # newest first: (hash, parents, subject, files)
    if has_head:
        log = git(repo, "log", "--no-merges", "--full-history", "--format=%x01%H%x02%P%x02%s", "--name-only",
                  "HEAD", "--", BASELINE_REL, "CHANGELOG.md")
        if log.returncode != 0:
            raise ToolError(f"git log failed: {log.stderr}")
        for record in log.stdout.split("\x01")[1:]:
            head, _, names = record.partition("\n")
            sha, parents, subject = head.split("\x02", 2)
            files = {n for n in names.splitlines() if n}
            if any(f.startswith(BASELINE_REL + "/") for f in files):
                commits.append((sha, parents.split(), subject, files))
    checked = 0
    for index, (sha, parents, subject, files) in enumerate(commits):
        name = f"{sha[:10]} \"{subject[:70]}\""
        if sha in boundary:
            notes.append(f"{name} is the oldest commit fetched (its parent is not here): not judged")
            continue
        oldest = index == len(commits) - 1
        if oldest and (not parents or git(repo, "cat-file", "-e", f"{parents[0]}:{BASELINE_REL}").returncode != 0):
            notes.append(f"{name} created the baseline: exempt")
            continue
        checked += 1
        if "CHANGELOG.md" not in files:
            if any(len(e) >= 7 and sha.startswith(e) for e in exempt):
                notes.append(f"{name} has no CHANGELOG.md change: exempt ({EXEMPTIONS_REL})")
                continue
            violations.append(f"commit {name} changed {BASELINE_REL}/ but not CHANGELOG.md")
    status = git(repo, "status", "--porcelain", "--untracked-files=all", "--", BASELINE_REL).stdout.strip()
    if status:
        if not has_head or git(repo, "cat-file", "-e", f"HEAD:{BASELINE_REL}").returncode != 0:
            notes.append("the work tree creates the baseline (none is committed): exempt")
        elif not git(repo, "status", "--porcelain", "--", "CHANGELOG.md").stdout.strip():
            violations.append(f"the work tree changes {BASELINE_REL}/ but not CHANGELOG.md")
    return checked, violations, notes


def report_history(repo):
    checked, violations, notes = check_history(repo)
    for n in notes:
        print(f"  history: {n}")
    for v in violations:
        print(f"api-check: history rule broken: {v}")
    if violations:
        print("  A change that breaks clients updates the API baseline and CHANGELOG.md in the same commit.\n"
              "  Work tree: add the CHANGELOG.md entry before committing. A commit not yet pushed: amend it\n"
              "  (git rebase -i) to add the entry. One already on a shared branch: add the missing entry and\n"
              f"  a line `<hash> <why>` to {EXEMPTIONS_REL}, in one commit.")
    return checked, violations


# ---------------------------------------------------------------------------------------------
# Self-test: plants in a copy of Sources/PropertyList, each compiled alone (emit-module only).

WITNESS_NAMES = {"hash", "encode", "decode", "makeIterator", "index", "distance", "formIndex", "next",
                 "write", "callAsFunction", "encodeNil", "container", "nestedContainer", "superEncoder",
                 "superDecoder", "unkeyedContainer", "singleValueContainer"}
FUNC_RE = re.compile(r"^[ \t]*(?:@[\w.]+(?:\([^()\n]*\))?[ \t]+)*public[ \t]+"
                     r"(?:(?:static|class|final|mutating|nonmutating|nonisolated|override|borrowing|consuming|dynamic)[ \t]+)*"
                     r"func[ \t]+([A-Za-z]\w*)", re.M)


def skip_string(text, i):
    """`text[i]` opens a string literal (", \"\"\", #\"...); returns the index after it."""
    hashes = 0
    while text[i] == "#":
        hashes += 1
        i += 1
    quote = '"""' if text.startswith('"""', i) else '"'
    i += len(quote)
    close = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    while i < len(text):
        if text.startswith(close, i):
            return i + len(close)
        if text.startswith(escape, i):
            i += len(escape)
            if i < len(text) and text[i] == "(":
                i = skip_code(text, i + 1, ")") + 1
            else:
                i += 1
            continue
        i += 1
    raise ValueError("unterminated string")


def skip_code(text, i, closer):
    """The index of the `closer` that closes the code starting at i (strings, comments skipped)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    while i < len(text):
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if text.startswith("/*", i):
            depth, i = 1, i + 2
            while depth and i < len(text):
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            continue
        if c == '"' or (c == "#" and re.match(r'#+"', text[i:i + 8])):
            i = skip_string(text, i)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
        elif not stack and c == closer:
            return i
        i += 1
    raise ValueError(f"no closing {closer}")


def func_span(text, match):
    """(start, end) of the declaration `match` found: its doc comment and attribute lines, through
    the closing brace of its body and the end of that line."""
    start = match.start()
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1
        line = text[previous:start].strip()
        if line.startswith("///") or line.startswith("@"):
            start = previous
        else:
            break
    i = match.end()
    depth = 0
    while i < len(text):  # the body's `{`: the first one outside the parameter list and types
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == '"':
            i = skip_string(text, i)
            continue
        elif c == "{" and depth == 0:
            break
        i += 1
    end = skip_code(text, i + 1, "}")
    newline = text.find("\n", end)
    return start, (len(text) if newline < 0 else newline + 1)


def plant_candidates(texts, baseline):
    """Public funcs that are in the baseline, whose name occurs once in the module's sources (so
    nothing in the module calls them): [(file, match)], in file order."""
    public_funcs = {k[1].rsplit(".", 1)[-1].split("(")[0] for k in declarations(baseline) if k[0] == "Func"}
    candidates = []
    for rel, text in sorted(texts.items()):
        # A file that declares SPI (`@_spi(...) public`) is left alone: the check ignores the
        # package's SPI group, so a plant there would rightly not be reported.
        if "@_spi(" in text:
            continue
        for m in FUNC_RE.finditer(text):
            name = m.group(1)
            if name in WITNESS_NAMES or name not in public_funcs:
                continue
            pattern = re.compile(rf"\b{re.escape(name)}\b")
            if sum(len(pattern.findall(t)) for t in texts.values()) == 1:
                candidates.append((rel, m))
    return candidates


def compile_and_compare(kind, texts, baseline):
    """Writes `texts` as a copy of Sources/PropertyList, emits its module alone, dumps it and
    compares it with `baseline`: (findings, seconds) or raises ToolError on a compile error."""
    base = WORK / "self-test" / kind
    shutil.rmtree(base, ignore_errors=True)
    sources = []
    for rel, text in texts.items():
        path = base / "PropertyList" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        sources.append(path)
    out = base / "module"
    out.mkdir(parents=True)
    started = time.time()
    r = run(["nice", "-n", "10", SWIFTC, "-emit-module", "-parse-as-library", "-module-name", "PropertyList",
             "-swift-version", "6", "-package-name", "keyedarchive", "-Onone", "-enable-testing",
             "-DSWIFT_PACKAGE", "-DDEBUG", "-Xfrontend", "-experimental-skip-non-inlinable-function-bodies",
             "-emit-module-path", out / "PropertyList.swiftmodule", "-module-cache-path", CACHE,
             *sorted(sources)])
    if r.returncode != 0:
        raise ToolError(f"compiling the {kind} copy failed:\n{(r.stdout + r.stderr)[-3000:]}")
    dump("PropertyList", out, base / "PropertyList.json")
    findings = diagnose(baseline, base / "PropertyList.json", base / "diagnose.txt") + narrowed(baseline, base / "PropertyList.json")
    return findings, time.time() - started


def planted(kind, texts, baseline, candidates):
    """Tries the candidates in turn (the next one if a plant does not compile)."""
    errors = []
    for rel, m in candidates[:3]:
        text = texts[rel]
        name = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        if kind == "removed":
            try:
                start, end = func_span(text, m)
            except ValueError as e:
                errors.append(f"{rel}:{line}: {e}")
                continue
            changed = text[:start] + text[end:]
            what = f"Sources/PropertyList/{rel}:{line}: public func {name} deleted (lines {text.count(chr(10), 0, start) + 1}-{text.count(chr(10), 0, end)})"
        elif kind == "renamed":
            changed = text[:m.start(1)] + name + "Renamed" + text[m.end(1):]
            what = f"Sources/PropertyList/{rel}:{line}: public func {name} renamed {name}Renamed"
        else:
            header = text[m.start():m.end()]
            changed = text[:m.start()] + re.sub(r"\bpublic\b", "package", header, count=1) + text[m.end():]
            what = f"Sources/PropertyList/{rel}:{line}: public func {name} made package"
        try:
            findings, seconds = compile_and_compare(kind, {**texts, rel: changed}, baseline)
        except ToolError as e:
            errors.append(f"{what}: {e}")
            continue
        return what, name, findings, seconds
    raise ToolError(f"no {kind} plant compiled:\n" + "\n".join(errors))


def case_plant(texts, baseline):
    """A case added to a public `@nonexhaustive` enum (the first one, in file order): it cannot
    break a client's `switch` once the attribute is enforced, but the digester reports it, so the
    set of cases still changes only with the baseline and a CHANGELOG.md line. (what, name,
    findings, seconds)."""
    enum_re = re.compile(r"@nonexhaustive\s*\n#endif\s*\npublic enum (\w+)[^{\n]*\{\n", re.M)
    for rel, text in sorted(texts.items()):
        if "@_spi(" in text:
            continue
        m = enum_re.search(text)
        if not m:
            continue
        name = "plantedSelfTestCase"
        changed = text[:m.end()] + f"    case {name}\n" + text[m.end():]
        line = text.count("\n", 0, m.end()) + 1
        what = f"Sources/PropertyList/{rel}:{line}: case {name} added to the @nonexhaustive enum {m.group(1)}"
        try:
            findings, seconds = compile_and_compare("case-added", {**texts, rel: changed}, baseline)
        except ToolError:
            continue  # a switch in the module over this enum: try the next file
        return what, name, findings, seconds
    raise ToolError("no @nonexhaustive enum of PropertyList took a planted case")


def history_self_test():
    """The history rule on a throwaway repository: a commit changing the baseline alone, and a work
    tree doing so, must each be named; the creating commit and a commit with CHANGELOG.md not."""
    with tempfile.TemporaryDirectory(prefix="api-check-history-") as repo:
        ident = ["-c", "user.name=api-check", "-c", "user.email=api-check@invalid", "-c", "commit.gpgsign=false"]
        base = pathlib.Path(repo, BASELINE_REL)
        base.mkdir(parents=True)
        changelog = pathlib.Path(repo, "CHANGELOG.md")

        def commit(message):
            git(repo, "add", "-A")
            r = run(["git", "-C", repo, *ident, "commit", "-q", "-m", message])
            if r.returncode != 0:
                raise ToolError(f"git commit in the history self-test failed: {r.stderr}")
            return git(repo, "rev-parse", "HEAD").stdout.strip()

        git(repo, "init", "-q")
        (base / "M.json").write_text("1\n")
        changelog.write_text("# Changelog\n")
        commit("create the baseline")
        (base / "M.json").write_text("2\n")
        changelog.write_text("# Changelog\n- 2\n")
        commit("with changelog")
        (base / "M.json").write_text("3\n")
        bad = commit("baseline alone")
        (base / "M.json").write_text("4\n")
        _, violations, _ = check_history(repo)
        results = []
        results.append(("a commit changing the baseline without CHANGELOG.md",
                        len(violations) == 2 and bad[:10] in violations[0] and "work tree" in violations[1]))
        changelog.write_text("# Changelog\n- 2\n- 4\n")
        checked, violations, _ = check_history(repo)
        results.append(("the work tree changing both, the creating and the compliant commits pass",
                        checked == 2 and len(violations) == 1 and bad[:10] in violations[0]))
        pathlib.Path(repo, EXEMPTIONS_REL).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(repo, EXEMPTIONS_REL).write_text(f"# pushed without its entry\n{bad[:12]} the entry came later\n")
        _, violations, _ = check_history(repo)
        results.append((f"a commit listed in {EXEMPTIONS_REL} passes", not violations))
        return results


def self_test():
    started = time.time()
    baseline = BASELINE_DIR / "PropertyList.json"
    if not baseline.exists():
        raise ToolError(f"the self-test needs {BASELINE_REL}/PropertyList.json")
    source = ROOT / "Sources" / "PropertyList"
    texts = {str(p.relative_to(source)): p.read_text() for p in sorted(source.rglob("*.swift"))}
    candidates = plant_candidates(texts, baseline)
    if len(candidates) < 2:
        raise ToolError("the self-test found fewer than two public funcs of PropertyList to plant "
                        "(in the baseline, named once in the module)")
    print(f"== self-test: {len(candidates)} public funcs could be planted; compiling five copies of "
          "Sources/PropertyList alone (emit-module, no function bodies but inlinable ones)")
    ok = True
    with ThreadPoolExecutor(max_workers=3) as pool:
        unmodified = pool.submit(compile_and_compare, "unmodified", texts, baseline)
        removed = pool.submit(planted, "removed", texts, baseline, candidates)
        renamed = pool.submit(planted, "renamed", texts, baseline, list(reversed(candidates)))
        made_package = pool.submit(planted, "narrowed", texts, baseline, candidates[1:] + candidates[:1])
        case_added = pool.submit(case_plant, texts, baseline)
        findings, seconds = unmodified.result()
        if findings:
            ok = False
            print(f"  FAILED: the unmodified copy does not match the baseline ({len(findings)} change(s)); "
                  "run the check first, or the compile flags differ from the build's:")
            for _, message in findings:
                print(f"    {message}")
        else:
            print(f"  ok: the unmodified copy passes ({seconds:.1f} s)")
        caught = 0
        for future in (removed, renamed, made_package, case_added):
            what, name, findings, seconds = future.result()
            named = [message for _, message in findings if re.search(rf"\b{re.escape(name)}\b", message)]
            if named:
                caught += 1
                print(f"  ok: {what} ({seconds:.1f} s) is reported as breaking:")
            else:
                ok = False
                print(f"  FAILED: {what} ({seconds:.1f} s) is not reported as breaking; the digester said:")
            for _, message in findings or [("", "(nothing)")]:
                print(f"    {message}")
    history = history_self_test()
    for what, passed in history:
        print(f"  {'ok' if passed else 'FAILED'}: history rule, {what}")
        ok = ok and passed
    took = time.time() - started
    return ok, f"self-test: {caught}/4 plants caught, unmodified copy {'passes' if not unmodified.result()[0] else 'FAILS'}, " \
               f"history plants {sum(p for _, p in history)}/{len(history)} ({took:.1f} s)"


# ---------------------------------------------------------------------------------------------

def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    WORK.mkdir(parents=True, exist_ok=True)
    try:
        if mode == "--update-baseline":
            if not MODULES_DIR:
                raise ToolError("the baseline is dumped on Linux (Foundation's types are FoundationEssentials' there)")
            return update_baseline()
        failed = False
        parts = []
        if MODULES_DIR:
            print(f"== API of {', '.join(MODULES)} against {BASELINE_REL}/ "
                  f"(modules in {os.path.relpath(MODULES_DIR, ROOT)})")
            breaks, added, problems = api_check()
            total = sum(breaks.values())
            detail = ", ".join(f"{m} {n}" for m, n in breaks.items() if n)
            parts.append(f"{len(MODULES)} modules, {total} breaking" + (f" ({detail})" if detail else "")
                         + f", {added} added" + (f", {len(problems)} baseline problem(s)" if problems else ""))
            if total or problems:
                failed = True
                if total:
                    print(FIX)
        else:
            print(f"api-check: the API comparison is skipped on {os.uname().sysname}: the baseline is Linux's")
            parts.append("API comparison skipped (not Linux)")
        checked, violations = report_history(ROOT)
        parts.append(f"history: {checked} baseline commit(s) checked, {len(violations)} violation(s)")
        failed = failed or bool(violations)
        if mode == "--self-test":
            if not MODULES_DIR:
                raise ToolError("the self-test runs on Linux")
            ok, summary = self_test()
            parts.append(summary)
            failed = failed or not ok
    except ToolError as e:
        print(f"api-check: {e}", file=sys.stderr)
        return 2
    print(f"api-check: {'FAILED' if failed else 'passed'}: {'; '.join(parts)}; {time.time() - START:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
