#!/usr/bin/env python3
"""Writes nested-mutable.plist with Python's plistlib (not with this package's writer): mutable
collections where a 2011 Cocoa document and an Instruments template hold them (issue 51): an
NSMutableArray of layers each holding an NSMutableDictionary as its unkeyed value `$0`
(`root.Layers[0].$0`), a context object whose unkeyed values are an NSMutableString, an
NSMutableArray and an NSMutableDictionary (`contextRepresentation.$2`), and a keyed NSDictionary
of NSMutableArrays. `keyedarchive schema --swift` models must write each with its own class chain
and read the file back equal (Tests/SchemaGeneration/run.sh). Objects in NSKeyedArchiver's order;
each object's keys in Core Foundation's hash-table order as our writer lays them
(Docs/KeyedArchiveFormat.md §3).

    python3 Fixtures/schema/make_nested_mutable.py
"""
import os
import plistlib

UID = plistlib.UID

objects = ["$null"]
classes = {}


def add(value):
    objects.append(value)
    return len(objects) - 1


def class_uid(chain):
    if chain[0] not in classes:
        classes[chain[0]] = add({"$classname": chain[0], "$classes": chain})
    return UID(classes[chain[0]])


MARRAY = ["NSMutableArray", "NSArray", "NSObject"]
MDICT = ["NSMutableDictionary", "NSDictionary", "NSObject"]


def mutable_dictionary(pairs):
    uid = add(None)
    keys, values = [], []
    for key, value in pairs:
        keys.append(add(key))
        values.append(add(value))
    objects[uid] = {"NS.keys": [UID(k) for k in keys], "NS.objects": [UID(v) for v in values], "$class": class_uid(MDICT)}
    return uid


def mutable_array(items):
    uid = add(None)
    elements = [add(item) for item in items]
    objects[uid] = {"NS.objects": [UID(e) for e in elements], "$class": class_uid(MARRAY)}
    return uid


document = add(None)
layers = add(None)
layer_uids = []
for name, blend in (("Background", "normal"), ("Sketch", "multiply")):
    layer = add(None)
    settings = mutable_dictionary([("name", name), ("blend", blend)])
    objects[layer] = {"$0": UID(settings), "$class": class_uid(["DocLayer", "NSObject"])}
    layer_uids.append(layer)
objects[layers] = {"NS.objects": [UID(u) for u in layer_uids], "$class": class_uid(MARRAY)}
context = add(None)
title = add(None)
title_text = "Template"
objects[title] = {"NS.string": title_text, "$class": class_uid(["NSMutableString", "NSString", "NSObject"])}
tracks = mutable_array(["cpu", "memory"])
options = mutable_dictionary([("rate", "fast")])
objects[context] = {"$0": UID(title), "$1": UID(tracks), "$2": UID(options), "$class": class_uid(["XRContext", "NSObject"])}
recent = add(None)
recent_keys = [add("recent")]
recent_values = [mutable_array(["a", "b"])]
objects[recent] = {"NS.keys": [UID(k) for k in recent_keys], "NS.objects": [UID(v) for v in recent_values],
                   "$class": class_uid(["NSDictionary", "NSObject"])}
objects[document] = {"Layers": UID(layers), "contextRepresentation": UID(context), "recent": UID(recent),
                     "$class": class_uid(["DocModel", "NSObject"])}

archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(document)}, "$objects": objects}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "nested-mutable.plist"), "wb") as file:
    plistlib.dump(archive, file, fmt=plistlib.FMT_BINARY, sort_keys=False)
