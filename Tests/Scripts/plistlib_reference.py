#!/usr/bin/env python3
"""Independent reference reader for the KeyedArchive tests.

Compares what our `keyedarchive plist` JSON says a file holds with what Python's plistlib
reads from the same file. Input: a TSV file of lines `PLIST_PATH<TAB>OUR_JSON_PATH<TAB>FORMAT`.
Prints one line per mismatch and a closing 'N matched, M mismatched' line; exit 1 on any mismatch.

Known departure handled here: plistlib (expat) turns a raw CR or CRLF inside XML text into LF,
where Core Foundation keeps it; for XML inputs our strings are normalised the same way before
comparing. plistlib keeps XML `CF$UID` dicts as dicts; Core Foundation (and we) read them as UIDs.
"""
import base64
import datetime
import json
import math
import plistlib
import struct
import sys

REFERENCE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)
TAGS = {"$real", "$real32", "$data", "$date", "$uid", "$dict"}


def canon_plist(value, xml):
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("real", value)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, bytes):
        return ("data", value)
    if isinstance(value, plistlib.UID):
        return ("uid", value.data)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        return ("date", (value - REFERENCE).total_seconds())
    if isinstance(value, list):
        return ("array", [canon_plist(v, xml) for v in value])
    if isinstance(value, dict):
        if xml and list(value.keys()) == ["CF$UID"] and isinstance(value["CF$UID"], int) \
                and not isinstance(value["CF$UID"], bool):
            return ("uid", value["CF$UID"] & 0xFFFFFFFF)
        return ("dict", [(k, canon_plist(v, xml)) for k, v in value.items()])
    raise TypeError("unexpected plistlib type %r" % type(value))


def canon_json(value, xml):
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        raise ValueError("bare JSON fraction: reals must be tagged")
    if isinstance(value, str):
        if xml:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        return ("str", value)
    if isinstance(value, list):
        if len(value) == 1 and isinstance(value[0], tuple):
            pass
        return ("array", [canon_json(v, xml) for v in value])
    if isinstance(value, Pairs):
        pairs = value.pairs
        if len(pairs) == 1 and pairs[0][0] in TAGS:
            tag, body = pairs[0]
            if tag == "$real":
                if isinstance(body, str):
                    return ("real", {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[body])
                return ("real", float(body))
            if tag == "$real32":
                # Version 2: a 32-bit real, its shortest decimal read as a float and widened as
                # plistlib widens the stored float.
                if isinstance(body, str):
                    return ("real", {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[body])
                return ("real", struct.unpack("<f", struct.pack("<f", float(body)))[0])
            if tag == "$data":
                return ("data", base64.b64decode(body, validate=True))
            if tag == "$date":
                return ("date", float(body))
            if tag == "$uid":
                return ("uid", int(body))
            if tag == "$dict":
                if not isinstance(body, Pairs):
                    raise ValueError("$dict must wrap an object")
                return ("dict", [(k, canon_json(v, xml)) for k, v in body.pairs])
        return ("dict", [(k, canon_json(v, xml)) for k, v in pairs])
    raise TypeError("unexpected JSON type %r" % type(value))


class Pairs:
    def __init__(self, pairs):
        self.pairs = pairs


def same(a, b, path):
    if a[0] != b[0]:
        return "%s: plistlib has %s, ours has %s" % (path, a[0], b[0])
    kind = a[0]
    if kind == "real":
        if math.isnan(a[1]) and math.isnan(b[1]):
            return None
        return None if a[1] == b[1] else "%s: real %r vs %r" % (path, a[1], b[1])
    if kind == "date":
        # plistlib's datetime keeps microseconds only.
        return None if abs(a[1] - b[1]) < 1e-3 else "%s: date %r vs %r" % (path, a[1], b[1])
    if kind in ("array",):
        if len(a[1]) != len(b[1]):
            return "%s: array of %d vs %d" % (path, len(a[1]), len(b[1]))
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            r = same(x, y, "%s[%d]" % (path, i))
            if r:
                return r
        return None
    if kind == "dict":
        ka = [k for k, _ in a[1]]
        kb = [k for k, _ in b[1]]
        if ka != kb:
            return "%s: keys %r vs %r" % (path, ka[:8], kb[:8])
        for (k, x), (_, y) in zip(a[1], b[1]):
            r = same(x, y, "%s.%s" % (path, k))
            if r:
                return r
        return None
    return None if a[1] == b[1] else "%s: %r vs %r" % (path, a[1], b[1])


def main():
    sys.setrecursionlimit(100000)
    matched = mismatched = 0
    with open(sys.argv[1], encoding="utf-8") as listing:
        for line in listing:
            plist_path, json_path, fmt = line.rstrip("\n").split("\t")
            xml = fmt == "xml"
            try:
                with open(plist_path, "rb") as f:
                    ref = canon_plist(plistlib.load(f), xml)
                with open(json_path, "rb") as f:
                    ours = canon_json(json.loads(f.read().decode("utf-8"), object_pairs_hook=Pairs), xml)
                problem = same(ref, ours, "root")
            except Exception as error:  # any failure is a mismatch to report, not a crash
                problem = "error: %s" % error
            if problem:
                mismatched += 1
                print("MISMATCH %s: %s" % (plist_path, problem))
            else:
                matched += 1
    print("%d matched, %d mismatched" % (matched, mismatched))
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
