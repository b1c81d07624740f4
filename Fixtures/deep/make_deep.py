#!/usr/bin/env python3
"""Writes the deep-nesting fixtures of StackSafetyTests, independently of the Swift encoder.

Keyed archives are written with plistlib (their property lists are flat: nesting lives in the
UIDs). Plain property lists that nest are written byte by byte here, since plistlib's writer
recurses per level and Python's recursion limit stops it long before 100,000 levels.

    python3 Fixtures/deep/make_deep.py        # rewrites every file in this folder
"""
import os
import plistlib
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ARRAY_CLASS = {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}
DICTIONARY_CLASS = {"$classname": "NSMutableDictionary", "$classes": ["NSMutableDictionary", "NSDictionary", "NSObject"]}


def archive(objects, top):
    return plistlib.dumps({"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": top, "$objects": objects},
                          fmt=plistlib.FMT_BINARY, sort_keys=False)


def node_chain(levels):
    """`Node` objects, each with a label and (but the last) a child: the linked-list model."""
    objects = ["$null", {"$classname": "Node", "$classes": ["Node"]}]
    first = len(objects)
    for level in range(levels):
        node = len(objects)
        fields = {"$class": plistlib.UID(1), "label": plistlib.UID(node + 1)}
        if level + 1 < levels:
            fields["child"] = plistlib.UID(node + 2)
        objects.append(fields)
        objects.append("n%d" % level)
    return archive(objects, {"root": plistlib.UID(first)})


def nested_arrays(levels):
    """An NSArray holding an NSArray, `levels` deep, the innermost holding the string "leaf"."""
    objects = ["$null", ARRAY_CLASS]
    first = len(objects)
    for level in range(levels):
        index = len(objects)
        objects.append({"$class": plistlib.UID(1), "NS.objects": [plistlib.UID(index + 1)]})
    objects.append("leaf")
    return archive(objects, {"root": plistlib.UID(first)})


def codable_tree(levels):
    """What encodeEncodable writes for a `Box { label, child }` chain: NSMutableDictionaries."""
    objects = ["$null", DICTIONARY_CLASS, "label", "child"]
    first = len(objects)
    for level in range(levels):
        index = len(objects)
        keys = [plistlib.UID(2)]
        values = [plistlib.UID(index + 1)]
        if level + 1 < levels:
            keys.append(plistlib.UID(3))
            values.append(plistlib.UID(index + 2))
        objects.append({"$class": plistlib.UID(1), "NS.keys": keys, "NS.objects": values})
        objects.append("b%d" % level)
    return archive(objects, {"root": plistlib.UID(first)})


def binary_plist(objects, top):
    """A bplist00 of `objects`, each an ('array', [refs]) or ('string', ascii); 4-byte refs and offsets."""
    body = bytearray(b"bplist00")
    offsets = []
    for kind, payload in objects:
        offsets.append(len(body))
        if kind == "string":
            data = payload.encode("ascii")
            assert len(data) < 15
            body.append(0x50 | len(data))
            body += data
        else:
            count = len(payload)
            if count < 15:
                body.append(0xA0 | count)
            else:
                body += bytes([0xAF, 0x12]) + struct.pack(">I", count)
            for reference in payload:
                body += struct.pack(">I", reference)
    table = len(body)
    for offset in offsets:
        body += struct.pack(">I", offset)
    body += struct.pack(">6xBBQQQ", 4, 4, len(objects), top, table)
    return bytes(body)


def plist_nested_arrays(levels):
    """A plain property list: an array in an array, `levels` deep."""
    objects = [("array", [index + 1]) for index in range(levels)]
    objects.append(("string", "leaf"))
    return binary_plist(objects, 0)


def plist_shared_chain(segment, segments):
    """Nesting that the walk never sees: each segment is `segment` arrays deep and ends in the
    previous segment, which is finished by then. Each walk stays under `segment` + 2 levels, but
    the value nests about `segment` * `segments` deep."""
    objects = [("array", [])]  # the top, filled in below
    heads = []
    previous = None
    for _ in range(segments):
        head = len(objects)
        for level in range(segment):
            index = len(objects)
            if level + 1 < segment:
                objects.append(("array", [index + 1]))
            else:
                objects.append(("array", [previous] if previous is not None else []))
        heads.append(head)
        previous = head
    objects[0] = ("array", heads)
    return binary_plist(objects, 0)


FILES = {
    "node-chain-10000.plist": lambda: node_chain(10000),
    "nested-arrays-10000.plist": lambda: nested_arrays(10000),
    "codable-tree-3000.plist": lambda: codable_tree(3000),
    "plist-nested-arrays-100000.bplist": lambda: plist_nested_arrays(100000),
    "plist-shared-chain.bplist": lambda: plist_shared_chain(400, 50),
}

if __name__ == "__main__":
    for name, make in FILES.items():
        with open(os.path.join(HERE, name), "wb") as out:
            out.write(make())
