#!/usr/bin/env python3
"""Writes the graph tests' archives with Python's plistlib alone (an independent writer).

hostile-strings.plist: a valid keyed archive whose class names, keys and string values
hold markup, script, DOT escapes and bidirectional controls, for the graph page and DOT tests
(Tests/Browser, GraphCommandTests, GraphPageTests).
fleet-changed.plist: ../fleet.plist with the Cub's registration number changed (N3918K -> N3918X)
and Bessie's glider a copy of its own rather than Amelia's (a sharing change), for the diff page.
Run from this directory: python3 make_fixtures.py"""
import plistlib

SCRIPT = '<script>document.title="pwned"</script>'
CLOSE = '</script><img src=x onerror="document.title=\'pwned\'">'
BIDI = 'abc\u202egnp.exe\u2066x\u2069 \u200f'
DOT = 'a" -> evil [label="x"]; \\N \\G \\l'
objects = [
    '$null',
    {'$class': plistlib.UID(7), 'title': plistlib.UID(2), 'bidi': plistlib.UID(3), '<b onclick="x()">key</b>': plistlib.UID(4),
     'dot': plistlib.UID(5), 'friend': plistlib.UID(6), 'comment': plistlib.UID(8)},
    SCRIPT,
    BIDI,
    CLOSE,
    DOT,
    {'$class': plistlib.UID(7), 'back': plistlib.UID(1), 'name': 'line\nbreak\u2028sep & <!-- -->'},
    {'$classname': 'Evil<script>alert(1)</script>"Class', '$classes': ['Evil<script>alert(1)</script>"Class', 'NSObject']},
    '\u202e<iframe src="https://example.com/"></iframe>',
]
archive = {'$archiver': 'NSKeyedArchiver', '$version': 100000, '$top': {'root': plistlib.UID(1)}, '$objects': objects}
with open('hostile-strings.plist', 'wb') as f:
    plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY, sort_keys=False)

fleet = plistlib.load(open('../fleet.plist', 'rb'))
objects = fleet['$objects']
objects[objects.index('N3918K')] = 'N3918X'
# Bessie's airplanes list (the Pilot whose name is "Bessie") refers to glider #11: give it a copy.
bessie = next(o for o in objects if isinstance(o, dict) and 'name' in o and objects[o['name'].data] == 'Bessie')
planes = objects[bessie['airplanes'].data]
copy = dict(objects[planes['NS.objects'][0].data])
objects.append(copy)
planes['NS.objects'][0] = plistlib.UID(len(objects) - 1)
with open('fleet-changed.plist', 'wb') as f:
    plistlib.dump(fleet, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
