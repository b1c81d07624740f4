#!/usr/bin/env python3
"""Writes unkeyed-drawing.plist with Python's plistlib (not with this package's writer): an
archive whose classes store all their data without keys (`$0`, `$1`, …, as `encodeObject:` on a
keyed archiver does), for `keyedarchive schema --swift` to type like any other field
(Docs/Schema.md §3, Tests/SchemaGeneration/run.sh). Each Shape refers back to its Drawing.

    python3 Fixtures/schema/make_unkeyed_drawing.py
"""
import os
import plistlib

UID = plistlib.UID
objects = [
    "$null",
    {"$class": UID(2), "$0": 3, "$1": UID(3), "$2": UID(4), "$3": UID(6)},  # 1 Drawing
    {"$classname": "Drawing", "$classes": ["Drawing", "NSObject"]},            # 2
    "a drawing stored without keys",                                          # 3
    {"$class": UID(5), "$0": 7, "$1": UID(1)},                                 # 4 Shape, back to its drawing
    {"$classname": "Shape", "$classes": ["Shape", "NSObject"]},                # 5
    {"$class": UID(5), "$0": 8, "$1": UID(1)},                                 # 6 another Shape
]
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "unkeyed-drawing.plist"), "wb") as f:
    plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY)
