#!/usr/bin/env python3
"""Writes classname-only-components.plist (binary) with Python's plistlib (not with
this package's writer): the shape Xcode's SpriteKit scene editor gives the classes of an app's
own GKComponent subclasses, a class dictionary holding `$classname` alone, no `$classes`
(issue 51). Apple's NSKeyedUnarchiver looks a class up by `$classname`; `$classes` only feeds
the fallbacks (`$classhints`, then the delegate's `originalClasses`), so such a file reads.

The objects follow NSKeyedArchiver's order (an object's UID before its fields', its class
dictionary after them), and each object's keys Core Foundation's hash-table order for them
(Docs/KeyedArchiveFormat.md §3, item 4), so that a writer imitating Apple's lays the archive out
the same way. One component is shared by the array and the
entity's `primary`.

    python3 Fixtures/apple-shapes/make_classname_only.py
"""
import os
import plistlib

UID = plistlib.UID

objects = [
    "$null",
    {"primary": UID(3), "components": UID(2), "$class": UID(9)},                 # 1 GKEntity
    {"NS.objects": [UID(3), UID(6)], "$class": UID(8)},                          # 2 NSMutableArray
    {"name": UID(4), "maxHealth": 100, "$class": UID(5)},                        # 3 health
    "hero",                                                                       # 4
    {"$classname": "MyGame.HealthComponent"},                                     # 5 no $classes
    {"speed": 2.5, "$class": UID(7)},                                             # 6 move
    {"$classname": "MyGame.MoveComponent"},                                       # 7 no $classes
    {"$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]},  # 8
    {"$classname": "GKEntity", "$classes": ["GKEntity", "NSObject"]},             # 9
]
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "classname-only-components.plist"), "wb") as file:
    plistlib.dump(archive, file, fmt=plistlib.FMT_BINARY, sort_keys=False)
