#!/usr/bin/env python3
"""Builds the hostile keyed-archive corpus in this folder (our own script, deterministic).

    cd Fixtures/hostile/archives && python3 make_corpus.py [OUTPUT_FOLDER]

Every case is a binary property list written by Python's plistlib (an independent writer), plus
two listings:

  EXPECTED.tsv  file, entry, code, key path, uid, why
                entry "graph": ArchiveGraph(bytes:) must throw ArchiveError(code);
                entry "typed:T@key[,T@key…]": KeyedUnarchiver with the test registry (the fleet
                classes, Foundation's value classes and the EagerNode test model) decodes each
                top-level key as T in turn; the last must throw code; earlier ones must succeed.
                key path and uid are what the error must name ("-" for none).
  VALID.tsv     file, entry, why: archives that must be read (graph, dump, json) and decoded as
                stated without error; the test checks what each decodes to.

Expected outcomes follow from the format and from the allowlist rules in Docs/Security.md, not
from our decoder's output.
"""
import os
import plistlib
import sys

UID = plistlib.UID
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
expected = []
valid = []


def archive(objects, top=None, **overrides):
    root = {"$archiver": "NSKeyedArchiver", "$version": 100000,
            "$top": top if top is not None else {"root": UID(1)}, "$objects": objects}
    for key, value in overrides.items():
        if value is None:
            root.pop(key, None)
        else:
            root[key] = value
    return root


def cls(*chain):
    return {"$classname": chain[0], "$classes": list(chain)}


def write(name, value):
    data = plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False)
    with open(os.path.join(OUT, name), "wb") as handle:
        handle.write(data)


def bad(name, value, entry, code, key_path, uid, why):
    assert all(name != case[0] for case in expected + valid), name
    write(name, value)
    expected.append((name, entry, code, key_path, "-" if uid is None else str(uid), why))


def good(name, value, entry, why):
    assert all(name != case[0] for case in expected + valid), name
    write(name, value)
    valid.append((name, entry, why))


def airplane(class_uid, strings=(0, 0), **fields):
    """An airplane object; `strings` are the UIDs of its model and registration strings (Apple
    stores strings as objects; 0 = $null where the case is refused before any field is read)."""
    base = {"$class": UID(class_uid), "model": UID(strings[0]), "registrationNumber": UID(strings[1]), "airframeHours": 1200}
    base.update(fields)
    return base


GLIDER = cls("Glider", "Airplane", "NSObject")
ARRAY = cls("NSArray", "NSObject")
DICTIONARY = cls("NSDictionary", "NSObject")

# --- header -------------------------------------------------------------------------------------
base_objects = ["$null", "text"]
for name, overrides, why in [
    ("header-archiver-missing.plist", {"$archiver": None}, "$archiver absent"),
    ("header-archiver-integer.plist", {"$archiver": 1}, "$archiver must be a string"),
    ("header-version-missing.plist", {"$version": None}, "$version absent"),
    ("header-version-string.plist", {"$version": "100000"}, "$version must be an integer"),
    ("header-version-other.plist", {"$version": 99999}, "$version must be 100000"),
    ("header-top-missing.plist", {"$top": None}, "$top absent"),
    ("header-top-array.plist", {"$top": [UID(1)]}, "$top must be a dictionary"),
    ("header-objects-missing.plist", {"$objects": None}, "$objects absent"),
    ("header-objects-dictionary.plist", {"$objects": {"a": "$null"}}, "$objects must be an array"),
    ("header-objects-empty.plist", {"$objects": []}, "$objects must start with $null"),
    ("header-objects-no-null.plist", {"$objects": ["null", "text"]}, "$objects[0] must be the string $null"),
]:
    bad(name, archive(list(base_objects), **overrides), "graph", "invalidArchiveHeader", "-",
        0 if name == "header-objects-no-null.plist" else None, why)
bad("header-root-array.plist", ["$null"], "graph", "invalidArchiveHeader", "-", None, "the property list is not a dictionary")
# Another archiver's name: Apple's NSKeyedUnarchiver never reads $archiver (SceneKit writes
# SCNKeyedArchiver), so the generic view reads it (issue 51).
good("header-archiver-other.plist", archive(list(base_objects), **{"$archiver": "NSArchiver"}), "graph,dump,json",
     "$archiver names another archiver: read, as Apple's unarchiver reads it")

# --- UIDs ---------------------------------------------------------------------------------------
bad("uid-top-out-of-range.plist", archive(["$null"], top={"root": UID(99)}), "graph", "invalidReference", "root", None,
    "$top names object 99 of 1")
bad("uid-field-absurd.plist", archive(["$null", airplane(2, (0xFFFFFFFF, 0)), GLIDER]), "graph", "invalidReference", "-", 1,
    "a field refers to object 2^32-1")
bad("uid-element-out-of-range.plist", archive(["$null", {"$class": UID(2), "NS.objects": [UID(3)]}, ARRAY]), "graph",
    "invalidReference", "-", 1, "NS.objects refers past $objects")

# --- $class and class dictionaries --------------------------------------------------------------
bad("class-missing.plist", archive(["$null", {"model": "x", "registrationNumber": "y", "airframeHours": 1}]),
    "typed:Airplane@root", "typeMismatch", "root", None, "no $class: a plain dictionary, not an object")
bad("class-null.plist", archive(["$null", airplane(0)]), "graph", "invalidClassReference", "-", 1, "$class points at $null")
bad("class-string.plist", archive(["$null", airplane(2), "Glider"]), "graph", "invalidClassReference", "-", 1,
    "$class points at a string")
bad("class-ordinary-object.plist", archive(["$null", airplane(2), airplane(3), GLIDER]), "graph", "invalidClassReference", "-", 1,
    "$class points at an ordinary object")
bad("class-integer.plist", archive(["$null", {"$class": 2, "model": "x"}, GLIDER]), "graph", "invalidClassReference", "-", 1,
    "$class is an integer, not a UID")
bad("classname-integer.plist", archive(["$null", airplane(2), {"$classname": 7, "$classes": ["Glider"]}]), "graph",
    "invalidClassDescriptor", "-", 2, "$classname must be a string")
bad("classes-string.plist", archive(["$null", airplane(2), {"$classname": "Glider", "$classes": "Glider"}]), "graph",
    "invalidClassDescriptor", "-", 2, "$classes must be an array")
bad("classes-integer-element.plist", archive(["$null", airplane(2), {"$classname": "Glider", "$classes": ["Glider", 3]}]), "graph",
    "invalidClassDescriptor", "-", 2, "$classes must hold strings only")
bad("classes-huge.plist", archive(["$null", airplane(2), cls("Glider", *["Base%d" % n for n in range(5000)])]), "graph",
    "budgetExceeded", "-", 2, "5001 names, more than maximumClassChainLength (1024)")

# --- the allowlist ------------------------------------------------------------------------------
bad("class-unregistered-claims-ancestor.plist", archive(["$null", airplane(2), cls("Evil", "Glider", "Airplane", "NSObject")]),
    "typed:Airplane@root", "classNotAllowed", "root", 1, "Evil is not registered; its $classes claiming Airplane admits nothing")
bad("class-runtime-internal-string.plist", archive(["$null", {"$class": UID(2), "NS.string": "x"}, cls("__NSCFString", "NSString", "NSObject")]),
    "typed:String@root", "classNotAllowed", "root", 1, "runtime-internal class names are just unregistered names")
bad("class-runtime-mangled.plist", archive(["$null", airplane(2), cls("_TtC4Main6Glider", "Airplane", "NSObject")]),
    "typed:Airplane@root", "classNotAllowed", "root", 1, "a mangled Swift name is not looked up")
bad("class-archiver-as-class.plist", archive(["$null", airplane(2), cls("NSKeyedUnarchiver", "NSCoder", "NSObject")]),
    "typed:Airplane@root", "classNotAllowed", "root", 1, "no class is found from an archive string")
bad("same-uid-two-classes.plist", archive(["$null", airplane(2, (3, 4), aerotowLaunchCount=1, winchLaunchCount=2), GLIDER, "ASK 21", "D-8721"],
                                          top={"plane": UID(1), "pilot": UID(1)}),
    "typed:Airplane@plane,Pilot@pilot", "classNotAllowed", "pilot", 1, "one object asked for as Airplane, then as Pilot: checked on every reference")
bad("pilot-holding-itself.plist", archive(["$null", {"$class": UID(2), "name": UID(5), "airplanes": UID(3)},
                                           cls("Pilot", "NSObject"), {"$class": UID(4), "NS.objects": [UID(1)]}, ARRAY, "Amelia"]),
    "typed:Pilot@root", "classNotAllowed", "root.airplanes[0]", 1, "root refers to itself where an Airplane is expected: refused by class before any cycle")
bad("root-refers-to-itself.plist", archive(["$null", {"$class": UID(2), "child": UID(1)}, cls("EagerNode", "NSObject")]),
    "typed:EagerNode@root", "cyclicReference", "root.child", 1, "an object that asks for itself while it is being decoded")
bad("dict-array-dict-cycle.plist", archive(["$null", {"$class": UID(2), "NS.keys": [UID(3)], "NS.objects": [UID(4)]}, DICTIONARY, "a",
                                            {"$class": UID(5), "NS.objects": [UID(1)]}, ARRAY]),
    "typed:[String:[String]]@root", "classNotAllowed", "root.a[0]", 1, "dict → array → dict: the dictionary where a string is expected")
bad("dollar-key-poses-as-class.plist", archive(["$null", {"$$class": UID(2), "model": "x", "registrationNumber": "y", "airframeHours": 1}, GLIDER]),
    "typed:Airplane@root", "typeMismatch", "root", None, "a user key $class is stored as $$class and never read as the real $class")

# --- wrong primitive types under known keys ------------------------------------------------------
bad("nsstring-number.plist", archive(["$null", {"$class": UID(2), "NS.string": 42}, cls("NSMutableString", "NSString", "NSObject")]),
    "typed:String@root", "typeMismatch", "root", 1, "NS.string holds a number")
bad("nsarray-objects-string.plist", archive(["$null", {"$class": UID(2), "NS.objects": "not an array"}, ARRAY]),
    "typed:[String]@root", "typeMismatch", "root", 1, "NS.objects holds a string")
bad("nsdate-time-string.plist", archive(["$null", {"$class": UID(2), "NS.time": "yesterday"}, cls("NSDate", "NSObject")]),
    "typed:Date@root", "typeMismatch", "root.NS.time", 1, "NS.time holds a string")
bad("nsdictionary-lengths-differ.plist", archive(["$null", {"$class": UID(2), "NS.keys": [UID(3), UID(4)], "NS.objects": [UID(3)]}, DICTIONARY, "a", "b"]),
    "typed:[String:String]@root", "valueOutOfRange", "root", 1, "NS.keys has 2 entries, NS.objects 1")
bad("nsuuid-short.plist", archive(["$null", {"$class": UID(2), "NS.uuidbytes": b"\x01" * 15}, cls("NSUUID", "NSObject")]),
    "typed:UUID@root", "valueOutOfRange", "root", 1, "NS.uuidbytes holds 15 bytes")
bad("nsuuid-string.plist", archive(["$null", {"$class": UID(2), "NS.uuidbytes": "0123456789abcdef"}, cls("NSUUID", "NSObject")]),
    "typed:UUID@root", "typeMismatch", "root.NS.uuidbytes", 1, "NS.uuidbytes holds a string")
# Payloads whose lengths and counts lie. The generic view shows each as stored (VALID below).
# NSIndexSet is mapped (ArchiveIndexSet): its count is checked against the bytes before anything
# is allocated. NSValue and NSDecimalNumber are not: typed decoding refuses them by class.
INDEX_SET = {"$class": UID(2), "NSRangeCount": 0x7FFFFFFFFFFF, "NSRangeData": b"\x00\x01"}
bad("nsindexset-lying-count.plist", archive(["$null", INDEX_SET, cls("NSIndexSet", "NSObject")]),
    "typed:ArchiveIndexSet@root", "valueOutOfRange", "root.NSRangeData", 1,
    "NSRangeCount 2^47-1 against 2 bytes of NSRangeData: refused before anything is allocated")
LYING = {
    "nsvalue-lying-length.plist": ({"$class": UID(2), "NS.special": 99, "NS.rangeval.length": 0xFFFFFFFFFFFFFFF, "NS.rangeval.location": -1},
                                   cls("NSValue", "NSObject")),
    "nsdecimalnumber-lying-length.plist": ({"$class": UID(2), "NS.mantissa": b"\x01\x02", "NS.length": 255, "NS.exponent": 127,
                                            "NS.mantissa.bo": 1, "NS.negative": False, "NS.compact": True},
                                           cls("NSDecimalNumber", "NSNumber", "NSValue", "NSObject")),
}
for name, (instance, descriptor) in LYING.items():
    bad(name, archive(["$null", instance, descriptor]), "typed:[String]@root", "classNotAllowed", "root", 1,
        "an unmapped Foundation class with a lying payload is refused by class, never interpreted")

# --- shapes -------------------------------------------------------------------------------------
# 64 levels of arrays, each holding the next twice: 2^64 paths.
levels = 64
objects = ["$null"]
for level in range(levels):
    nxt = UID(level + 2)
    objects.append({"$class": UID(levels + 1), "NS.objects": [nxt, nxt] if level + 1 < levels else []})
objects.append(ARRAY)
good("reference-explosion-64.plist", archive(objects), "graph,dump,json", "2^64 paths, 66 objects: rendered once each")
bad("reference-explosion-64-typed.plist", archive(objects), "typed:[String]@root", "classNotAllowed", "root[0]", 2,
    "the nested array is not a string; nothing expands")
# 100 000 arrays, each holding the next once.
depth = 100_000
objects = ["$null"]
for level in range(depth):
    objects.append({"$class": UID(depth + 1), "NS.objects": [UID(level + 2)] if level + 1 < depth else []})
objects.append(ARRAY)
good("deep-chain-100000.plist", archive(objects), "graph,dump,json", "100 000 nested objects: no recursion on the input")
# A plain array nested 100 000 deep inside $objects: the property-list reader's depth limit.
nested = []
for _ in range(100_000):
    nested = [nested]
sys.setrecursionlimit(1_000_000)
try:
    bad("plist-nesting-100000.plist", archive(["$null", nested]), "graph", "invalidPropertyList", "-", None,
        "100 000-deep plain arrays: refused by the plist reader's depth limit (512)")
except RecursionError:
    pass

# --- must decode --------------------------------------------------------------------------------
pilot_cycle = archive(["$null",
                       {"$class": UID(2), "name": UID(9), "airplanes": UID(3), "notes": UID(6)},
                       cls("Pilot", "NSObject"),
                       {"$class": UID(4), "NS.objects": [UID(5)]}, ARRAY,
                       airplane(7, (10, 11), owner=UID(1), aerotowLaunchCount=10, winchLaunchCount=20),
                       {"$class": UID(8), "NS.keys": [], "NS.objects": []}, GLIDER, DICTIONARY,
                       "Amelia", "ASK 21", "D-8721"])
# Objects: 1 the pilot, 3 its airplanes array, 5 the glider (owner: the pilot), 6 its notes.
good("pilot-airplane-cycle.plist", pilot_cycle, "typed:Pilot@root", "Pilot ↔ Airplane through the conditional owner: decodes, owner is the pilot")
good("empty-archive.plist", archive(["$null"], top={"root": UID(0)}), "typed:Pilot@root", "root is $null: decodes to nil")
inner = plistlib.dumps(archive(["$null", airplane(2), cls("Evil", "NSObject")]), fmt=plistlib.FMT_BINARY)
good("archive-in-nsdata.plist", archive(["$null", {"$class": UID(2), "NS.data": inner}, cls("NSMutableData", "NSData", "NSObject")]),
     "typed:Data@root", "an archive inside NS.data is bytes, never interpreted (its class Evil is not checked)")
for name in ["nsindexset-lying-count.plist", *LYING]:
    valid.append((name, "graph,dump,json", "the generic view shows a lying payload as stored"))
good("dollar-key-escaped.plist", archive(["$null", airplane(2, (4, 5), **{"$$class": UID(3), "aerotowLaunchCount": 1, "winchLaunchCount": 2}), GLIDER,
                                          cls("Pilot", "NSObject"), "ASK 21", "D-8721"]),
     "typed:Airplane@root", "a user key $class (stored $$class) beside the real $class: decodes as the real class, Glider")

with open(os.path.join(OUT, "EXPECTED.tsv"), "w") as handle:
    handle.write("file\tentry\tcode\tkey path\tuid\twhy\n")
    for row in expected:
        handle.write("\t".join(row) + "\n")
with open(os.path.join(OUT, "VALID.tsv"), "w") as handle:
    handle.write("file\tentry\twhy\n")
    for row in valid:
        handle.write("\t".join(row) + "\n")
