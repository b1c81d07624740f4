#!/usr/bin/env python3
"""Builds the hostile property-list corpus: hand-crafted binary and XML files, each with the
PropertyListError code the readers must raise (EXPECTED.tsv). Deterministic; our own script.
Run from this folder: python3 make_corpus.py
"""
import struct

cases = []  # (file name, bytes, expected code, why)


def trailer(offset_size, ref_size, count, top, table_offset, unused=b"\0" * 6):
    return unused + bytes([offset_size, ref_size]) + struct.pack(">QQQ", count, top, table_offset)


def bplist(objects, top=0, ref_size=1, offset_size=1):
    """objects: list of raw object bytes; returns a well-formed bplist00 file."""
    body = b"bplist00"
    offsets = []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    for off in offsets:
        body += off.to_bytes(offset_size, "big")
    return body + trailer(offset_size, ref_size, len(objects), top, table)


def add(name, data, code, why):
    cases.append((name, data, code, why))


valid = bplist([b"\xa2\x01\x02", b"\x51a", b"\x10\x05"])  # ["a", 5]

# Header and trailer
add("empty.bplist", b"", "unknownFormat", "no bytes at all")
add("header-only.bplist", b"bplist00", "truncated", "header without objects or trailer")
add("wrong-version.bplist", b"bplist17" + valid[8:], "invalidHeader", "bplist17 is not bplist00")
for cut in (9, 20, len(valid) - 1):
    add("truncated-at-%d.bplist" % cut, valid[:cut], "truncated" if cut < 41 else "invalidTrailer", "file cut at byte %d" % cut)
add("offset-size-0.bplist", valid[:-32] + trailer(0, 1, 3, 0, 15), "invalidTrailer", "offset entries of 0 bytes")
add("ref-size-9.bplist", valid[:-32] + trailer(1, 9, 3, 0, 15), "invalidTrailer", "references of 9 bytes")
add("object-count-0.bplist", valid[:-32] + trailer(1, 1, 0, 0, 15), "invalidTrailer", "no objects")
add("object-count-huge.bplist", valid[:-32] + trailer(1, 1, 1 << 63, 0, 15), "sizeLimitExceeded", "2^63 objects announced")
add("object-count-past-ref-width.bplist", valid[:-32] + trailer(1, 1, 300, 0, 15), "invalidTrailer", "300 objects with 1-byte references")
add("top-out-of-range.bplist", valid[:-32] + trailer(1, 1, 3, 3, 15), "invalidTrailer", "top object 3 of 3")
add("table-past-trailer.bplist", valid[:-32] + trailer(1, 1, 3, 0, 16), "invalidTrailer", "offset table runs into the trailer")
add("table-in-header.bplist", valid[:-32] + trailer(1, 1, 3, 0, 4), "invalidTrailer", "offset table inside the header")
# Offsets and references
bad_offset = bytearray(valid)
bad_offset[15] = 2  # first offset points into the header
add("offset-into-header.bplist", bytes(bad_offset), "invalidOffset", "object 0 at byte 2")
bad_offset = bytearray(valid)
bad_offset[16] = 200  # second offset past the table
add("offset-past-table.bplist", bytes(bad_offset), "invalidOffset", "object 1 at byte 200")
add("reference-out-of-range.bplist", bplist([b"\xa2\x01\x07", b"\x51a", b"\x10\x05"]), "invalidReference", "reference 7 of 3 objects")
add("array-contains-itself.bplist", bplist([b"\xa1\x00"]), "recursiveContainer", "array whose element is itself")
add("longer-cycle.bplist", bplist([b"\xa1\x01", b"\xd1\x02\x03", b"\x51k", b"\xa1\x00"]), "recursiveContainer", "array -> dict -> array -> first array")
# Lengths and counts
add("string-length-past-region.bplist", bplist([b"\x5e" + b"abc"]), "invalidLength", "14-byte string with 3 bytes present")
add("extended-count-absurd.bplist", bplist([b"\xaf\x13" + (1 << 62).to_bytes(8, "big")]), "invalidLength", "array of 2^62 elements")
add("extended-count-not-integer.bplist", bplist([b"\x5f\x51a"]), "invalidLength", "count of a string given as a string")
add("data-length-past-region.bplist", bplist([b"\x4f\x11\x10\x00" + b"x" * 10]), "invalidLength", "4096-byte data with 10 bytes present")
# Types
add("non-string-key.bplist", bplist([b"\xd1\x01\x01", b"\x10\x05"]), "nonStringKey", "dictionary keyed by an integer")
add("unpaired-surrogate.bplist", bplist([b"\x61\xd8\x00"]), "invalidText", "UTF-16 string holding a lone high surrogate")
add("non-ascii-in-ascii-string.bplist", bplist([b"\x52a\xff"]), "invalidText", "ASCII string with byte 0xFF")
for marker in (0x00, 0x0F, 0x70, 0x90, 0xB0, 0xE0, 0x15, 0x24):
    add("marker-%02x.bplist" % marker, bplist([bytes([marker]) + b"\0" * 16]), "invalidObjectMarker", "marker 0x%02X is not a bplist00 object" % marker)
# Nesting and expansion
deep = [b"\xa1" + (i + 1).to_bytes(4, "big") for i in range(100000)] + [b"\x08"]
add("nesting-100000.bplist", bplist(deep, ref_size=4, offset_size=4), "depthLimitExceeded", "100000 nested arrays")
laughs = [b"\xa2" + bytes([i + 1, i + 1]) for i in range(64)] + [b"\x51x"]
add("billion-laughs.bplist", bplist(laughs), "sizeLimitExceeded", "64 levels of arrays each holding the next twice: 2^64 values")

# XML
def xml(body):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n%s\n</plist>\n' % body).encode()

add("unclosed.xml", xml("<array><string>a</string>")[:-10], "truncated", "array never closed")
add("nesting-100000.xml", xml("<array>" * 100000 + "</array>" * 100000), "depthLimitExceeded", "100000 nested arrays")
add("bad-entity.xml", xml("<string>&bogus;</string>"), "invalidEntity", "undefined entity")
add("huge-integer.xml", xml("<integer>99999999999999999999999</integer>"), "invalidNumber", "integer above 2^64-1")
add("bad-date.xml", xml("<date>2020-01-01</date>"), "invalidDate", "date without time")
add("text-between-elements.xml", xml("<array>hello<true/></array>"), "xmlSyntax", "text inside an array")
add("unknown-element.xml", xml("<set><true/></set>"), "xmlUnexpectedElement", "<set> is not a plist element")
add("key-without-value.xml", xml("<dict><key>a</key></dict>"), "xmlSyntax", "dictionary key with no value")
add("internal-subset.xml", b'<!DOCTYPE plist [<!ENTITY a "b">]><plist><true/></plist>', "xmlSyntax", "DOCTYPE with an internal subset")
add("invalid-utf8.xml", xml("<string>x</string>").replace(b"x", b"\xc0\x80"), "invalidText", "overlong UTF-8")

with open("EXPECTED.tsv", "w") as listing:
    listing.write("file\tcode\twhy\n")
    for name, data, code, why in cases:
        with open(name, "wb") as f:
            f.write(data)
        listing.write("%s\t%s\t%s\n" % (name, code, why))
print("%d hostile files written" % len(cases))
