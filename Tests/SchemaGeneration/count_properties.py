#!/usr/bin/env python3
"""Counts the properties of generated model files and how many are opaque (Docs/Schema.md §6).

    KEEP_SCHEMA_WORK=1 Tests/SchemaGeneration/run.sh --all     # prints "work folder: DIR"
    python3 Tests/SchemaGeneration/count_properties.py DIR/Sources/Models

A property is a stored `var` of a generated class (the …IsStored/…IsMutable/…IsFloat/…IsInline
flags are not counted). Opaque: `ArchiveValue`, optional or in a collection; those whose
`// Not more specific` reason says nothing was stored (only $null, no element) are counted apart.
"""
import collections
import glob
import re
import sys

FLAG = re.compile(r'(IsStored|IsMutable|IsFloat|IsInline) = (true|false)$')
PROPERTY = re.compile(r'^        (?:public )?(?:weak )?var ([A-Za-z0-9_]+): (.+)$')

files = sorted(glob.glob(sys.argv[1] + '/Schema*.swift'))
total = opaque = nothing = stored = raw = 0
reasons = collections.Counter()
for path in files:
    lines = open(path, encoding='utf-8').read().split('\n')
    for index, line in enumerate(lines):
        match = PROPERTY.match(line)
        if not match or FLAG.search(line):
            continue
        total += 1
        swift_type = match.group(2).rstrip('?')
        reason = ''
        above = index - 1
        while above >= 0 and lines[above].strip().startswith('//'):
            if 'Not more specific: ' in lines[above]:
                reason = lines[above].split('Not more specific: ', 1)[1]
            above -= 1
        base = re.sub(r'\[String: |\[|\]|Set<|>', '', swift_type)
        if base == 'ArchiveValue' and 'kept as stored' in reason:
            # A Foundation class no type maps, read as stored (an ArchiveValue.instance).
            stored += 1
        elif base == 'ArchiveValue':
            if reason.startswith(('only $null', 'no element was seen')):
                nothing += 1
            else:
                opaque += 1
                reasons[re.sub(r'\(.*', '(…)', reason)[:100]] += 1
        elif swift_type == 'PropertyListValue':
            raw += 1

def share(count):
    return f'{count} ({100 * count / total:.1f} %)' if total else str(count)

print(f'{len(files)} files, {total} properties')
print(f'ArchiveValue (or collections of it), values of several kinds: {share(opaque)}')
print(f'ArchiveValue where nothing was stored to type (only $null, or always empty): {share(nothing)}')
print(f'ArchiveValue kept as stored (a Foundation class the package does not map): {stored}; PropertyListValue (inline values of several kinds): {raw}')
for reason, count in reasons.most_common(15):
    print(f'  {count:5d}  {reason}')
