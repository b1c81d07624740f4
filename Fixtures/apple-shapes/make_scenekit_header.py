#!/usr/bin/env python3
"""Writes scenekit-archiver-top-first.plist with Python's plistlib (not with this package's
writer): the header most SceneKit `.scn` files have (issue 51), `$archiver` SCNKeyedArchiver
(a subclass of NSKeyedArchiver, which writes its own class name there) and the root
dictionary's keys in the order `$top`, `$objects`, `$version`, `$archiver`. Apple's
NSKeyedUnarchiver checks `$version` and takes `$top` and `$objects`; it never reads `$archiver`.

The objects are a small scene in NSKeyedArchiver's order (an object's UID before its fields',
its class dictionary after them; keys in Core Foundation's hash-table order).

    python3 Fixtures/apple-shapes/make_scenekit_header.py
"""
import os
import plistlib

UID = plistlib.UID

objects = [
    "$null",
    {"rootNode": UID(2), "$class": UID(7)},                                         # 1 SCNScene
    {"name": UID(3), "childNodes": UID(4), "$class": UID(6)},                        # 2 SCNNode
    "ship",                                                                           # 3
    {"NS.objects": [], "$class": UID(5)},                                            # 4 NSArray
    {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},                  # 5
    {"$classname": "SCNNode", "$classes": ["SCNNode", "NSObject"]},                  # 6
    {"$classname": "SCNScene", "$classes": ["SCNScene", "NSObject"]},                # 7
]
archive = {"$top": {"root": UID(1)}, "$objects": objects, "$version": 100000, "$archiver": "SCNKeyedArchiver"}

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "scenekit-archiver-top-first.plist"), "wb") as file:
    plistlib.dump(archive, file, fmt=plistlib.FMT_BINARY, sort_keys=False)
