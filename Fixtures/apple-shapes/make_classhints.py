#!/usr/bin/env python3
"""Writes classhints.plist with Python's plistlib (not with this package's writer): a class
dictionary with `$classhints`, which NSKeyedArchiver writes when the class answers
`+classFallbacksForKeyedArchiver` (here an app's NSMutableArray subclass naming NSMutableArray,
as PyObjC- and app-written archives hold; issue 51). Keys of the class dictionary in the order
`$classname`, `$classes`, `$classhints`; objects in NSKeyedArchiver's order, each object's keys
in Core Foundation's hash-table order.

    python3 Fixtures/apple-shapes/make_classhints.py
"""
import os
import plistlib

UID = plistlib.UID

objects = [
    "$null",
    {"NS.objects": [UID(2), UID(3)], "$class": UID(4)},                                     # 1 MyApp.TagList
    "red",                                                                                    # 2
    "blue",                                                                                   # 3
    {"$classname": "MyApp.TagList",
     "$classes": ["MyApp.TagList", "NSMutableArray", "NSArray", "NSObject"],
     "$classhints": ["NSMutableArray"]},                                                     # 4
]
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "classhints.plist"), "wb") as file:
    plistlib.dump(archive, file, fmt=plistlib.FMT_BINARY, sort_keys=False)
