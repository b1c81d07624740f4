#!/usr/bin/env python3
"""Builds a stand-in Apple SDK of Swift modules for one Apple target, from this Linux toolchain,
so that `.ci/darwin-check` can type-check the package against Apple platforms' availability.

  build-sdk.py --target x86_64-apple-macosx26.0 --out DIR

What it builds, and where each module's declarations come from:
- Swift, SwiftOnoneSupport, _Concurrency, _StringProcessing, Synchronization, Testing: the
  toolchain's own .swiftinterface files, retargeted. They carry every `@available(macOS …, iOS …)`
  of the standard library and Swift Testing, so a use of a newer API fails as it does in Xcode
  (the method of ../shared/tools/darwin-availability/build-modules.sh, extended).
- Darwin: .ci/darwin/Darwin.swiftinterface, the C library calls the package makes, declared with
  Darwin's signatures.
- Foundation: the Linux Foundation's API (FoundationEssentials, FoundationInternationalization and
  swift-corelibs-foundation, printed by swift-synthesize-interface with their availability) as one
  module that re-exports Darwin, as Apple's Foundation does; declarations that cannot exist on an
  Apple platform (they name Glibc types) are dropped, and the macOS-only classes are marked
  unavailable on the other platforms (.ci/darwin/foundation-platform-only.txt).
- XCTest: swift-corelibs-xctest's API, printed the same way.
What it cannot check is listed by `.ci/darwin-check`.
"""
import argparse, os, re, subprocess, sys, shutil

here = os.path.dirname(os.path.abspath(__file__))
swift_bin = os.path.dirname(os.path.realpath(shutil.which('swift')))
frontend = os.path.join(swift_bin, 'swift-frontend')
linux_lib = os.path.join(swift_bin, '..', 'lib', 'swift', 'linux')
linux_triple = 'x86_64-unknown-linux-gnu'


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def compile_interface(name, path, target, out, extra=()):
    result = run([frontend, '-compile-module-from-interface', '-target', target, '-module-name', name,
                  path, '-o', os.path.join(out, name + '.swiftmodule'), '-I', out,
                  '-module-cache-path', os.path.join(out, 'cache'), *extra])
    return result


def compile_pruning(name, path, target, out, extra=(), max_rounds=4):
    """Compiles a toolchain interface; where an inlinable body calls what only Linux x86_64 has
    (the `long double` shims of Float80 on arm64), the member is dropped and the compile retried."""
    for _ in range(max_rounds):
        result = compile_interface(name, path, target, out, extra)
        if result.returncode == 0:
            return result
        lines = open(path).read().split('\n')
        bad = {int(m.group(1)) - 1 for m in re.finditer(r'^' + re.escape(path) + r':(\d+):\d+: error:', result.stderr, re.M)}
        bad.discard(0)
        if not bad:
            return result
        lines, _ = drop_declarations(lines, bad)
        open(path, 'w').write('\n'.join(lines))
    return result


def retarget_toolchain_interface(name, target, out):
    """A toolchain module's interface, retargeted (build-modules.sh's edits), Glibc → Darwin."""
    src = os.path.join(linux_lib, name + '.swiftmodule', linux_triple + '.swiftinterface')
    lines = []
    for line in open(src).read().split('\n'):
        line = line.replace('-target ' + linux_triple, '-target ' + target)
        line = line.replace('-target-min-inlining-version min', '')
        if re.match(r'^\s*@backDeployed\(.*\)\s*$', line):
            continue
        if '@_implements(' in line and 'Failure)' in line:
            if lines and lines[-1].strip().startswith('@available'):
                lines.pop()
            continue
        if re.match(r'^(public |internal |private )?import Glibc$', line.strip()):
            line = line.replace('Glibc', 'Darwin')
        lines.append(line)
    if name == 'Synchronization':
        # Mutex's Linux lock calls a shim function of glibc's world; its API and availability
        # are what the check needs, so the shim is given a body here.
        lines.append('@usableFromInline internal func _swift_stdlib_gettid() -> Swift.UInt32 { 0 }')
    dst = os.path.join(out, 'interfaces', name + '.swiftinterface')
    open(dst, 'w').write('\n'.join(lines))
    return dst


def synthesize(name):
    result = run([os.path.join(swift_bin, 'swift-synthesize-interface'), '-module-name', name,
                  '-target', linux_triple])
    if result.returncode != 0:
        sys.exit(f'swift-synthesize-interface {name} failed:\n{result.stderr}')
    return result.stdout


def top_level_blocks(text):
    """Splits a synthesized interface into top-level declarations: (first line index, lines)."""
    lines = text.split('\n')
    blocks, current, start = [], [], 0
    for index, line in enumerate(lines):
        if line.startswith('import '):
            continue
        if current and line and not line[0].isspace() and not line.startswith('}') and not current[-1].rstrip().startswith('@') and current[-1].strip() == '':
            blocks.append(current)
            current = []
        current.append(line)
    if current:
        blocks.append(current)
    return blocks


def build_synthesized(name, sources, target, out, header_imports, platform_only, max_rounds=12):
    """One module made of the synthesized API of `sources`, compiled from an interface; each round
    drops the members and declarations the compiler rejects, until it compiles."""
    body = []
    for source in sources:
        body.append(f'// ---- {source}')
        for line in synthesize(source).split('\n'):
            if re.match(r'^(@_exported )?import ', line):
                continue
            body.append(line)
    text = '\n'.join(body)
    # A setter's access level means nothing without the setter, which the synthesizer leaves out.
    text = re.sub(r'\b(?:private|fileprivate|internal|package)\(set\) ', '', text)
    # The synthesizer prints a constant as `let x: T { get }`, which only a `var` may be.
    text = re.sub(r'^(\s*(?:@\S+ )*(?:public |open |static |class |final |nonisolated )*)let (\w+: .*\{ get \})\s*$', r'\1var \2', text, flags=re.M)
    # A type alias of a C type is printed without its type: NSRange is Core Foundation's C
    # structure on both platforms; others are dropped.
    text = text.replace('\npublic typealias NSRange\n', '\npublic struct _NSRange {\n    public var location: Int\n    public var length: Int\n    public init()\n    public init(location: Int, length: Int)\n}\npublic typealias NSRange = _NSRange\n')
    text = re.sub(r'^\s*(?:public )?typealias \w+\s*$', '', text, flags=re.M)
    # The synthesizer prints a subscript without its accessors, which an interface must have.
    text = re.sub(r'^(\s*(?:@\S+ )*(?:public |open |override |static |class |final |nonisolated |mutating )*subscript\b.*?)\s*$',
                  lambda m: m.group(1) if m.group(1).rstrip().endswith('}') else m.group(1) + ' { get set }', text, flags=re.M)
    # Swift-corelibs-only Objective-C shims and Linux names that Apple's Foundation lacks.
    lines = text.split('\n')
    lines = mark_platform_only(lines, platform_only, target)
    header = ['// swift-interface-format-version: 1.0',
              f'// swift-module-flags: -target {target} -enable-library-evolution -disable-objc-interop -swift-version 5 -enable-experimental-feature Lifetimes -enable-experimental-feature LifetimeDependence -enable-experimental-feature NonescapableTypes -module-name {name} -parse-as-library',
              *header_imports]
    path = os.path.join(out, 'interfaces', name + '.swiftinterface')
    dropped = 0
    for round_ in range(max_rounds):
        open(path, 'w').write('\n'.join(header + lines))
        result = compile_interface(name, path, target, out)
        if result.returncode == 0:
            return dropped
        bad = set()
        for match in re.finditer(r'^' + re.escape(path) + r':(\d+):\d+: error:', result.stderr, re.M):
            bad.add(int(match.group(1)) - len(header) - 1)
        if not bad:
            sys.exit(f'{name} does not compile, and no line to drop:\n{result.stderr[-4000:]}')
        with open(os.path.join(out, name + '.dropped.txt'), 'a') as log:
            log.write(f'# round {round_ + 1}\n' + ''.join(m.group(0) + '\n' for m in re.finditer(r'^' + re.escape(path) + r':\d+:\d+: error:.*$', result.stderr, re.M)))
        lines, count = drop_declarations(lines, bad)
        dropped += count
    sys.exit(f'{name} still does not compile after {max_rounds} rounds:\n{result.stderr[-4000:]}')


def declaration_span(lines, index):
    """The lines of the declaration that contains line `index`: a member (one line and the
    attribute lines above it, or its braces) or, at the top level, the whole declaration."""
    indent = len(lines[index]) - len(lines[index].lstrip())
    start = index
    while start > 0 and lines[start - 1].strip().startswith('@') and (len(lines[start - 1]) - len(lines[start - 1].lstrip())) == indent:
        start -= 1
    end = index
    if lines[index].rstrip().endswith('{'):
        depth = 0
        for j in range(index, len(lines)):
            depth += lines[j].count('{') - lines[j].count('}')
            if depth <= 0:
                end = j
                break
    if indent == 0:
        # A top-level line: its whole declaration.
        return start, end
    return start, end


def drop_declarations(lines, bad):
    spans = []
    for index in sorted(bad):
        if 0 <= index < len(lines):
            if lines[index].strip() in ('}', ''):
                # An error reported at a closing brace belongs to its opening line.
                depth = 0
                for j in range(index, -1, -1):
                    depth += lines[j].count('}') - lines[j].count('{')
                    if depth <= 0:
                        index = j
                        break
            spans.append(declaration_span(lines, index))
    keep = [True] * len(lines)
    for start, end in spans:
        for j in range(start, end + 1):
            keep[j] = False
    return [line for line, k in zip(lines, keep) if k], len(spans)


def mark_platform_only(lines, platform_only, target):
    """Marks the classes and members listed in foundation-platform-only.txt unavailable on
    the platforms Apple's Foundation does not have them on."""
    if 'apple-macosx' in target:
        return lines
    names = set()
    for entry in open(platform_only).read().split('\n'):
        entry = entry.split('#')[0].strip()
        if entry:
            names.add(entry)
    result = []
    attribute = '@available(iOS, unavailable) @available(tvOS, unavailable) @available(watchOS, unavailable) @available(visionOS, unavailable)'
    for line in lines:
        stripped = line.strip()
        for name in names:
            if re.match(r'^(@\S+\s+)*(open |public |final )*(class|struct|enum|protocol|typealias) ' + re.escape(name) + r'\b', stripped) \
               or (name.startswith('func ') and stripped.startswith(('public ' + name, 'open ' + name))) \
               or (name.startswith('init(') and stripped.startswith(('public convenience ' + name, 'public ' + name))):
                indent = line[:len(line) - len(line.lstrip())]
                result.append(indent + attribute)
                break
        result.append(line)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--target', required=True)
    parser.add_argument('--out', required=True)
    args = parser.parse_args()
    out = args.out
    os.makedirs(os.path.join(out, 'interfaces'), exist_ok=True)
    target = args.target

    def step(name, result):
        if result.returncode != 0:
            sys.exit(f'{name}: the module does not compile for {target}:\n{result.stderr[-4000:]}')
        print(f'  {name}', flush=True)

    for name in ['Swift', 'SwiftOnoneSupport', '_Concurrency', '_StringProcessing']:
        if os.path.exists(os.path.join(out, name + '.swiftmodule')) and os.environ.get('DARWIN_SDK_REUSE'):
            continue
        path = retarget_toolchain_interface(name, target, out)
        step(name, compile_pruning(name, path, target, out, ['-parse-stdlib'] if name == 'Swift' else []))
    for name in ['_DarwinTypes', 'Darwin']:
        path = os.path.join(out, 'interfaces', name + '.swiftinterface')
        text = open(os.path.join(here, name + '.swiftinterface')).read()
        text = text.replace('// swift-module-flags: ', f'// swift-module-flags: -target {target} ', 1)
        open(path, 'w').write(text)
        step(name, compile_interface(name, path, target, out))
    for name in ['Synchronization', 'Testing']:
        path = retarget_toolchain_interface(name, target, out)
        step(name, compile_interface(name, path, target, out))
    platform_only = os.path.join(here, 'foundation-platform-only.txt')
    dropped = build_synthesized('Foundation', ['FoundationEssentials', 'FoundationInternationalization', 'Foundation', 'FoundationXML'],
                                target, out, ['@_exported import Darwin', 'import Swift', 'import _Concurrency', 'import _StringProcessing', 'import Synchronization'], platform_only)
    print(f'  Foundation ({dropped} Linux-only declarations dropped)', flush=True)
    dropped = build_synthesized('XCTest', ['XCTest'], target, out, ['import Foundation', 'import Swift', 'import _Concurrency'], platform_only)
    print(f'  XCTest ({dropped} Linux-only declarations dropped)', flush=True)


if __name__ == '__main__':
    main()
