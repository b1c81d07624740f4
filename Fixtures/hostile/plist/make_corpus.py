#!/usr/bin/env python3
"""Builds the hostile property-list corpus in this folder (our own script, deterministic).

    cd Fixtures/hostile/plist && python3 make_corpus.py

Writes one file per case, named for the case, and three listings:

  EXPECTED.tsv  file<TAB>code<TAB>why   the PropertyListError code every reader entry point must
                                        raise (Sources/PropertyList/PropertyListError.swift)
  ANY.tsv       file<TAB>why            inputs whose outcome may be an error or a value (bit flips
                                        that land in a payload, say); they must only be handled
                                        quickly and consistently
  VALID.tsv     file<TAB>why            the well-formed files the damaged ones are made from

Expected codes are derived from the format (bplist00 as Core Foundation defines it, Apple's
XML plist DTD), not from our reader's output; where a case has two faults the file is built so
that the one named is the only one. Every case that depends on the layout of the valid base
file asserts that layout here, so a change to the base cannot silently change an expectation.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
expected = []  # (name, data, code, why)
anything = []  # (name, data, why)
valid = []  # (name, data, why)

# Reading defaults (PropertyListReadingOptions): the corpus is built against them.
MAX_OBJECT_COUNT = 64 << 20
MAX_COLLECTION_COUNT = 16 << 20
MAX_VALUE_LENGTH = 256 << 20
MAX_DEPTH = 512


def add(name, data, code, why):
    assert all(name != case[0] for case in expected + anything + valid), name
    expected.append((name, bytes(data), code, why))


def add_any(name, data, why):
    assert all(name != case[0] for case in expected + anything + valid), name
    anything.append((name, bytes(data), why))


# ---------------------------------------------------------------------------------------------
# bplist00 building blocks


def trailer(offset_size, ref_size, count, top, table_offset, unused=b"\0" * 6):
    return unused + bytes([offset_size, ref_size]) + struct.pack(">QQQ", count, top, table_offset)


def bplist(objects, top=0, ref_size=1, offset_size=1, count=None):
    """objects: raw object bytes in table order; returns (file, offsets, table offset)."""
    body = bytearray(b"bplist00")
    offsets = []
    for obj in objects:
        offsets.append(len(body))
        body += obj
    table = len(body)
    for off in offsets:
        body += off.to_bytes(offset_size, "big")
    body += trailer(offset_size, ref_size, len(objects) if count is None else count, top, table)
    return bytes(body), offsets, table


def simple(objects, **keywords):
    return bplist(objects, **keywords)[0]


def refs(*numbers, size=1):
    return b"".join(n.to_bytes(size, "big") for n in numbers)


def count_marker(high, count):
    """Marker with the count in its low nibble, or 0xF and an integer object after it."""
    if count < 15:
        return bytes([high << 4 | count])
    for exponent, width in ((0, 1), (1, 2), (2, 4), (3, 8)):
        if count < 1 << (8 * width):
            return bytes([high << 4 | 0xF, 0x10 | exponent]) + count.to_bytes(width, "big")
    raise ValueError(count)


def ascii_string(text):
    return count_marker(0x5, len(text)) + text.encode("ascii")


def utf16_string(text):
    units = text.encode("utf-16-be")
    return count_marker(0x6, len(units) // 2) + units


def integer(value):
    if 0 <= value < 1 << 8:
        return b"\x10" + value.to_bytes(1, "big")
    if 0 <= value < 1 << 16:
        return b"\x11" + value.to_bytes(2, "big")
    if 0 <= value < 1 << 32:
        return b"\x12" + value.to_bytes(4, "big")
    return b"\x13" + value.to_bytes(8, "big", signed=True)


def trailer_fault(data):
    """The first fault the format's trailer rules find (independent model of bplist00's
    header/trailer validation), or None if header and trailer are consistent."""
    if len(data) < 8:
        return "truncated"
    if data[:8] != b"bplist00":
        return "invalidHeader"
    if len(data) < 8 + 1 + 32:
        return "truncated"
    t = len(data) - 32
    offset_size, ref_size = data[t + 6], data[t + 7]
    count, top, table = struct.unpack(">QQQ", data[t + 8:t + 32])
    if not 1 <= offset_size <= 8 or not 1 <= ref_size <= 8:
        return "invalidTrailer"
    if count == 0:
        return "invalidTrailer"
    if count > MAX_OBJECT_COUNT:
        return "sizeLimitExceeded"
    if ref_size < 8 and count > 1 << (8 * ref_size):
        return "invalidTrailer"
    if top >= count:
        return "invalidTrailer"
    if not 8 < table < t:
        return "invalidTrailer"
    if count * offset_size > t - table:
        return "invalidTrailer"
    return None


# ---------------------------------------------------------------------------------------------
# The valid base file: one of every object type, 1-byte offsets and references.

BASE_ENTRIES = [
    ("str", ascii_string("hello")),
    ("int", integer(300)),
    ("real", b"\x23" + struct.pack(">d", 1.5)),
    ("date", b"\x33" + struct.pack(">d", 0.0)),
    ("utf16", utf16_string("\u58e9\u00e9")),
    ("uid", b"\x80\x07"),
    ("bool", b"\x09"),
    ("long", ascii_string("abcdefghijklmnopqrstuvwxyz")),
    ("arr", None),  # array [true, "hello"], filled in below
    ("data", b"\x43\x01\x02\x03"),  # last object before the offset table
]
KEYS = [name for name, _ in BASE_ENTRIES]
PAIRS = len(BASE_ENTRIES)
KEY_INDEX = {name: 1 + i for i, name in enumerate(KEYS)}
VALUE_INDEX = {name: 1 + PAIRS + i for i, name in enumerate(KEYS)}
base_objects = [count_marker(0xD, PAIRS) + refs(*KEY_INDEX.values()) + refs(*VALUE_INDEX.values())]
base_objects += [ascii_string(name) for name in KEYS]
for name, raw in BASE_ENTRIES:
    if name == "arr":
        raw = b"\xa2" + refs(VALUE_INDEX["bool"], VALUE_INDEX["str"])
    base_objects.append(raw)
BASE, BASE_OFFSETS, BASE_TABLE = bplist(base_objects)
assert trailer_fault(BASE) is None
valid.append(("valid-base.bplist", BASE, "one object of every type; the flips and cuts below start from it"))


def at(name, kind="value"):
    """Offset of a base object's marker."""
    index = (VALUE_INDEX if kind == "value" else KEY_INDEX)[name]
    return BASE_OFFSETS[index]


def flipped(data, offset, bit):
    out = bytearray(data)
    out[offset] ^= 1 << bit
    return bytes(out)


def replaced(data, offset, new):
    out = bytearray(data)
    out[offset:offset + len(new)] = new
    return bytes(out)


TRAILER = len(BASE) - 32
DICT_KEYS = BASE_OFFSETS[0] + 1  # first key reference of the top dictionary
DICT_VALUES = DICT_KEYS + PAIRS

# ---------------------------------------------------------------------------------------------
# Truncation: the base file cut at points in every region. Once the real trailer is gone the
# last 32 bytes are read as one; trailer_fault() says what the format makes of them.

regions = {
    "header": [1, 4, 7],
    "objects": [8, 9, 20, 40, BASE_OFFSETS[VALUE_INDEX["real"]] + 3, BASE_OFFSETS[-1] + 1],
    "table": [BASE_TABLE, BASE_TABLE + len(BASE_OFFSETS) // 2],
    "trailer": [TRAILER + 1, TRAILER + 8, TRAILER + 16, len(BASE) - 1],
}
for region, cuts in regions.items():
    for cut in cuts:
        data = BASE[:cut]
        fault = trailer_fault(data)
        name = "truncated-%s-at-%d.bplist" % (region, cut)
        if fault is None:
            add_any(name, data, "cut at byte %d leaves bytes that pass as a trailer" % cut)
        else:
            add(name, data, fault, "valid file cut at byte %d (in the %s)" % (cut, region))
add("empty.bplist", b"", "truncated", "no bytes at all")
add("header-only.bplist", b"bplist00", "truncated", "header without objects or trailer")
add("header-and-trailer-only.bplist", b"bplist00" + trailer(1, 1, 1, 0, 8), "truncated", "no room for one object")

# ---------------------------------------------------------------------------------------------
# Bit flips of the base file whose outcome is fixed by the format.

flips = [
    ("header-magic", 0, 0, "invalidHeader", "'b' of bplist00 becomes 'c'"),
    ("header-version", 7, 0, "invalidHeader", "bplist00 becomes bplist01"),
    ("trailer-offset-size-0", TRAILER + 6, 0, "invalidTrailer", "offset size 1 becomes 0"),
    ("trailer-offset-size-9", TRAILER + 6, 3, "invalidTrailer", "offset size 1 becomes 9"),
    ("trailer-ref-size-9", TRAILER + 7, 3, "invalidTrailer", "reference size 1 becomes 9"),
    ("trailer-count-bit63", TRAILER + 8, 7, "sizeLimitExceeded", "object count gains 2^63"),
    ("trailer-count-bit8", TRAILER + 14, 0, "invalidTrailer", "object count gains 256: more than 1-byte references address"),
    ("trailer-top-bit63", TRAILER + 16, 7, "invalidTrailer", "top object gains 2^63"),
    ("trailer-top-bit5", TRAILER + 23, 5, "invalidTrailer", "top object 32, past the object count"),
    ("trailer-table-bit63", TRAILER + 24, 7, "invalidTrailer", "offset table offset gains 2^63"),
    ("offset-entry-bit7", BASE_TABLE + VALUE_INDEX["int"], 7, "invalidOffset", "an object's offset points past the offset table"),
    ("marker-dict-to-0xf", BASE_OFFSETS[0], 5, "invalidObjectMarker", "top dictionary marker 0xDA becomes 0xFA"),
    ("marker-int-to-0x9", at("int"), 7, "invalidObjectMarker", "integer marker 0x11 becomes 0x91"),
    ("marker-int-width-32", at("int"), 2, "invalidObjectMarker", "integer marker 0x11 becomes 0x15 (a 32-byte integer)"),
    ("marker-real-to-0x2b", at("real"), 3, "invalidObjectMarker", "real marker 0x23 becomes 0x2B"),
    ("marker-date-to-0xb", at("date"), 7, "invalidObjectMarker", "date marker 0x33 becomes 0xB3"),
    ("marker-date-to-0x37", at("date"), 2, "invalidObjectMarker", "date marker 0x33 becomes 0x37"),
    ("marker-string-to-0x7", at("str"), 5, "invalidObjectMarker", "ASCII string marker 0x55 becomes 0x75"),
    ("marker-uid-to-0x9", at("uid"), 4, "invalidObjectMarker", "UID marker 0x80 becomes 0x90"),
    ("marker-uid-width-9", at("uid"), 3, "invalidNumber", "UID marker 0x80 becomes 0x88: 9 bytes, past 2^32 − 1 with the bytes after it"),
    ("marker-bool-to-0x0d", at("bool"), 2, "invalidObjectMarker", "true (0x09) becomes 0x0D, a marker bplist00 does not define"),
    ("marker-array-to-0xb", at("arr"), 4, "invalidObjectMarker", "array marker 0xA2 becomes 0xB2"),
    ("marker-data-to-0x0", at("data"), 6, "invalidObjectMarker", "data marker 0x43 becomes 0x03"),
    ("ascii-high-bit", at("str") + 3, 7, "invalidText", "'l' of hello becomes 0xEC"),
    ("ascii-high-bit-long", at("long") + 3 + 20, 7, "invalidText", "a letter of a 26-character string gains bit 7"),
    ("utf16-lone-surrogate", at("utf16") + 1, 7, "invalidText", "U+58E9 becomes U+D8E9, a high surrogate followed by U+00E9"),
    ("ref-out-of-range", DICT_VALUES + 1, 7, "invalidReference", "a dictionary value reference gains 128"),
    ("key-ref-out-of-range", DICT_KEYS, 6, "invalidReference", "a dictionary key reference gains 64"),
    ("array-ref-out-of-range", at("arr") + 2, 7, "invalidReference", "an array reference gains 128"),
    ("data-length-past-table", at("data"), 3, "invalidLength", "3-byte data (the last object) becomes 11 bytes, past the offset table"),
    ("count-int-marker-not-int", at("long") + 1, 6, "invalidLength", "the count of a 26-character string is marked 0x50 (a string), not an integer"),
    ("count-int-width-16", at("long") + 1, 2, "invalidLength", "the count of a 26-character string is a 16-byte integer"),
]
for name, offset, bit, code, why in flips:
    data = flipped(BASE, offset, bit)
    add("flip-%s.bplist" % name, data, code, why + " (byte %d, bit %d)" % (offset, bit))

# Reference flips that turn the graph into something invalid.
arr_index, true_index = VALUE_INDEX["arr"], VALUE_INDEX["bool"]
bit = (arr_index ^ true_index).bit_length() - 1
assert arr_index ^ true_index == 1 << bit, "base layout changed: the array's first element must be one bit from the array"
add("flip-array-refers-to-itself.bplist", flipped(BASE, at("arr") + 1, bit), "recursiveContainer",
    "the array's reference to true (object %d) becomes a reference to the array itself (object %d)" % (true_index, arr_index))
NON_STRING_VALUES = ["int", "real", "date", "uid", "bool", "arr", "data"]
key_name, value_name = next((k, v) for k in KEYS for v in NON_STRING_VALUES
                            if bin(KEY_INDEX[k] ^ VALUE_INDEX[v]).count("1") == 1)
bit = (KEY_INDEX[key_name] ^ VALUE_INDEX[value_name]).bit_length() - 1
add("flip-key-refers-to-%s.bplist" % value_name, flipped(BASE, DICT_KEYS + KEYS.index(key_name), bit), "nonStringKey",
    "the key reference to '%s' (object %d) becomes a reference to the %s value (object %d)"
    % (key_name, KEY_INDEX[key_name], value_name, VALUE_INDEX[value_name]))
add("flip-value-refers-to-dictionary.bplist", replaced(BASE, DICT_VALUES, b"\x00"), "recursiveContainer",
    "the first dictionary value refers to the top dictionary (object 0)")

# Every other single-bit flip is "any error or value": the full sweep is generated in memory by
# HostileInputTests; a deterministic sample of flips in payload bytes is kept as files.
for offset, bit, why in [
    (at("str") + 1, 0, "a letter of hello changes"),
    (at("int") + 2, 3, "the integer's value changes"),
    (at("real") + 1, 6, "the real's exponent changes"),
    (at("date") + 8, 0, "the date's last mantissa bit changes"),
    (at("data") + 2, 1, "a data byte changes"),
    (at("uid") + 1, 2, "the UID's value changes"),
    (DICT_KEYS + 1, 0, "a key reference moves to another string (duplicate or swapped key)"),
    (BASE_TABLE + 3, 0, "an offset moves one byte into another object"),
    (TRAILER + 0, 0, "an unused trailer byte changes"),
    (at("long"), 4, "extended string marker 0x5F becomes 0x4F (data)"),
]:
    add_any("flip-any-byte%d-bit%d.bplist" % (offset, bit), flipped(BASE, offset, bit), why)

# ---------------------------------------------------------------------------------------------
# Hand-made header and trailer faults

ARRAY2 = [b"\xa2\x01\x02", b"\x51a", b"\x10\x05"]  # ["a", 5]
small, small_offsets, small_table = bplist(ARRAY2)
body = small[:-32]
add("wrong-version.bplist", b"bplist17" + small[8:], "invalidHeader", "bplist17 is not bplist00")
add("version-1.bplist", b"bplist1" + small[7:], "invalidHeader", "bplist1x (the never-shipped version 1 format) is not read")
add("trailer-offset-size-0.bplist", body + trailer(0, 1, 3, 0, small_table), "invalidTrailer", "offset entries of 0 bytes")
add("trailer-offset-size-9.bplist", body + trailer(9, 1, 3, 0, small_table), "invalidTrailer", "offset entries of 9 bytes")
add("trailer-ref-size-0.bplist", body + trailer(1, 0, 3, 0, small_table), "invalidTrailer", "references of 0 bytes")
add("trailer-ref-size-9.bplist", body + trailer(1, 9, 3, 0, small_table), "invalidTrailer", "references of 9 bytes")
add("trailer-sizes-255.bplist", body + trailer(255, 255, 3, 0, small_table), "invalidTrailer", "offset and reference sizes of 255 bytes")
add("object-count-0.bplist", body + trailer(1, 1, 0, 0, small_table), "invalidTrailer", "no objects")
add("object-count-2^63.bplist", body + trailer(1, 1, 1 << 63, 0, small_table), "sizeLimitExceeded",
    "2^63 objects announced (above maximumObjectCount, checked before anything is allocated)")
add("object-count-2^64-1.bplist", body + trailer(8, 8, (1 << 64) - 1, 0, small_table), "sizeLimitExceeded", "2^64-1 objects announced with 8-byte sizes")
add("object-count-1M-in-small-file.bplist", body + trailer(4, 4, 1_000_000, 0, small_table), "invalidTrailer",
    "a million objects (within the limit) whose offset table cannot fit in the file")
add("object-count-past-ref-width.bplist", body + trailer(1, 1, 300, 0, small_table), "invalidTrailer", "300 objects cannot be addressed by 1-byte references")
add("object-count-past-ref-width-2.bplist", body + trailer(1, 2, 65537, 0, small_table), "invalidTrailer", "65537 objects cannot be addressed by 2-byte references")
add("top-out-of-range.bplist", body + trailer(1, 1, 3, 3, small_table), "invalidTrailer", "top object 3 of 3")
add("top-2^63.bplist", body + trailer(1, 1, 3, 1 << 63, small_table), "invalidTrailer", "top object 2^63")
add("top-2^64-1.bplist", body + trailer(1, 1, 3, (1 << 64) - 1, small_table), "invalidTrailer", "top object 2^64-1")
add("table-overlaps-trailer.bplist", body + trailer(1, 1, 3, small_table + 1, small_table), "invalidTrailer",
    "offset table starts one byte late and runs into the trailer")
add("table-in-trailer.bplist", body + trailer(1, 1, 3, 0, len(body) + 4), "invalidTrailer", "offset table inside the trailer")
add("table-past-eof.bplist", body + trailer(1, 1, 3, 0, 10_000), "invalidTrailer", "offset table past the end of the file")
add("table-2^64-1.bplist", body + trailer(1, 1, 3, 0, (1 << 64) - 1), "invalidTrailer", "offset table at 2^64-1")
add("table-in-header.bplist", body + trailer(1, 1, 3, 0, 4), "invalidTrailer", "offset table inside the header")
add("table-at-0.bplist", body + trailer(1, 1, 3, 0, 0), "invalidTrailer", "offset table at byte 0")
add("table-at-8.bplist", body + trailer(1, 1, 3, 0, 8), "invalidTrailer", "offset table right after the header: no object region")
add("table-overflow-count-times-size.bplist", body + trailer(8, 8, MAX_OBJECT_COUNT, 0, small_table), "invalidTrailer",
    "64 Mi objects of 8-byte offsets (table length overflows nothing, but cannot fit)")

# Offsets
def with_offsets(offsets, objects=ARRAY2, offset_size=1):
    data, _, table = bplist(objects, offset_size=offset_size)
    return replaced(data, table, b"".join(o.to_bytes(offset_size, "big") for o in offsets))


o = small_offsets
add("offset-0.bplist", with_offsets([0, o[1], o[2]]), "invalidOffset", "object 0 at byte 0, in the header")
add("offset-in-header.bplist", with_offsets([o[0], 7, o[2]]), "invalidOffset", "object 1 at byte 7, in the header")
add("offset-at-table.bplist", with_offsets([o[0], o[1], small_table]), "invalidOffset", "object 2 at the offset table itself")
add("offset-past-table.bplist", with_offsets([o[0], o[1], 200]), "invalidOffset", "object 2 at byte 200, past the table")
add("offset-in-trailer.bplist", with_offsets([o[0], o[1], len(small) - 10]), "invalidOffset", "object 2 inside the trailer")
add("offset-2^64-1.bplist", with_offsets([o[0], o[1], (1 << 64) - 1], offset_size=8), "invalidOffset",
    "8-byte offset 2^64-1 (negative as a signed integer)")
add("offset-2^63.bplist", with_offsets([1 << 63, o[1], o[2]], offset_size=8), "invalidOffset", "8-byte offset 2^63")
add("offset-3-byte-past-table.bplist", with_offsets([o[0], o[1], 0xFFFFFF], offset_size=3), "invalidOffset", "3-byte offset 0xFFFFFF")

# References
add("reference-out-of-range.bplist", simple([b"\xa2\x01\x07", b"\x51a", b"\x10\x05"]), "invalidReference", "array reference 7 of 3 objects")
add("reference-equal-to-count.bplist", simple([b"\xa2\x01\x03", b"\x51a", b"\x10\x05"]), "invalidReference", "array reference 3 of 3 objects")
add("reference-key-out-of-range.bplist", simple([b"\xd1\x09\x01", b"\x51a"]), "invalidReference", "dictionary key reference 9 of 2 objects")
add("reference-value-out-of-range.bplist", simple([b"\xd1\x01\x09", b"\x51a"]), "invalidReference", "dictionary value reference 9 of 2 objects")
add("reference-set-out-of-range.bplist", simple([b"\xc1\x05", b"\x51a"]), "invalidReference", "set reference 5 of 2 objects")
add("reference-2^64-1.bplist", simple([b"\xa1" + refs((1 << 64) - 1, size=8), b"\x51a"], ref_size=8), "invalidReference",
    "8-byte reference 2^64-1 (negative as a signed integer)")
add("reference-2^63.bplist", simple([b"\xa1" + refs(1 << 63, size=8), b"\x51a"], ref_size=8), "invalidReference", "8-byte reference 2^63")
add("reference-2-byte-out-of-range.bplist", simple([b"\xa1" + refs(0x1234, size=2), b"\x51a"], ref_size=2), "invalidReference", "2-byte reference 0x1234 of 2 objects")

# Cycles
add("array-contains-itself.bplist", simple([b"\xa1\x00"]), "recursiveContainer", "array whose element is itself")
add("dict-contains-itself.bplist", simple([b"\xd1\x01\x00", b"\x51k"]), "recursiveContainer", "dictionary whose value is itself")
add("set-contains-itself.bplist", simple([b"\xc1\x00"]), "recursiveContainer", "set whose member is itself")
add("array-contains-itself-second.bplist", simple([b"\xa2\x01\x00", b"\x08"]), "recursiveContainer", "array whose second element is itself")
add("longer-cycle.bplist", simple([b"\xa1\x01", b"\xd1\x02\x03", b"\x51k", b"\xa1\x00"]), "recursiveContainer",
    "array -> dict -> array -> first array")
add("cycle-below-top.bplist", simple([b"\xa1\x01", b"\xa1\x02", b"\xc1\x03", b"\xd1\x04\x01", b"\x51k"]), "recursiveContainer",
    "array -> array -> set -> dict -> second array (a cycle not through the top)")
cycle = [b"\xa1" + refs(i + 1, size=2) for i in range(299)] + [b"\xa1" + refs(0, size=2)]
add("cycle-of-300.bplist", simple(cycle, ref_size=2, offset_size=2), "recursiveContainer",
    "300 arrays each holding the next, the last the first (shallower than maximumDepth, so the cycle is what is found)")

# Lengths and counts past the object region
add("string-length-past-region.bplist", simple([b"\x5e" + b"abc"]), "invalidLength", "14-byte ASCII string with 3 bytes present")
add("utf16-length-past-region.bplist", simple([b"\x6e" + b"\x00a\x00b"]), "invalidLength", "14-unit UTF-16 string with 2 units present")
add("data-length-past-region.bplist", simple([b"\x4f\x11\x10\x00" + b"x" * 10]), "invalidLength", "4096-byte data with 10 bytes present")
add("array-count-past-region.bplist", simple([b"\xae\x00\x00"]), "invalidLength", "14-element array with 2 references present")
add("dict-count-past-region.bplist", simple([b"\xd7\x01\x01\x01\x01", b"\x51k"]), "invalidLength", "7-entry dictionary with 4 references present")
add("set-count-past-region.bplist", simple([b"\xcf\x10\x20\x01", b"\x51k"]), "invalidLength", "32-member set with 1 reference present")
add("string-reads-offset-table.bplist", simple([b"\x55ab"]), "invalidLength", "5-character string whose last bytes would be the offset table")
add("int-past-region.bplist", simple([b"\xa1\x01", b"\x13\x00\x00"]), "truncated", "8-byte integer with 2 bytes present")
add("int128-past-region.bplist", simple([b"\xa1\x01", b"\x14" + b"\x00" * 15]), "truncated", "16-byte integer with 15 bytes present")
add("real-past-region.bplist", simple([b"\xa1\x01", b"\x23\x00"]), "truncated", "8-byte real with 1 byte present")
add("real32-past-region.bplist", simple([b"\xa1\x01", b"\x22\x00"]), "truncated", "4-byte real with 1 byte present")
add("date-past-region.bplist", simple([b"\xa1\x01", b"\x33\x00\x00"]), "truncated", "date with 2 bytes present")
add("uid-past-region.bplist", simple([b"\xa1\x01", b"\x83\x00"]), "truncated", "4-byte UID with 1 byte present")
add("count-int-missing.bplist", simple([b"\xa1\x01", b"\x5f"]), "truncated", "string marker 0x5F with no count integer after it")
add("count-int-past-region.bplist", simple([b"\xa1\x01", b"\x4f\x13\x00\x00"]), "truncated", "data count is an 8-byte integer with 2 bytes present")

# Absurd counts in the 0xF extended-count form
for kind, high in (("ascii", 0x5), ("utf16", 0x6), ("data", 0x4), ("array", 0xA), ("dict", 0xD), ("set", 0xC)):
    add("extended-count-2^62-%s.bplist" % kind, simple([bytes([high << 4 | 0xF]) + b"\x13" + (1 << 62).to_bytes(8, "big")]),
        "invalidLength", "%s of 2^62 items announced in a 40-byte file" % kind)
    add("extended-count-negative-%s.bplist" % kind, simple([bytes([high << 4 | 0xF]) + b"\x13" + b"\xff" * 8]),
        "invalidLength", "%s whose 8-byte count is -1" % kind)
add("extended-count-2^31-data.bplist", simple([b"\x4f\x12\x80\x00\x00\x00"]), "invalidLength", "data of 2^31 bytes announced")
add("extended-count-above-value-limit.bplist", simple([b"\x4f\x12" + (MAX_VALUE_LENGTH + 1).to_bytes(4, "big")]), "sizeLimitExceeded",
    "data of 256 MiB + 1 bytes announced (above maximumValueLength)")
add("extended-count-above-collection-limit.bplist", simple([b"\xaf\x12" + (MAX_COLLECTION_COUNT + 1).to_bytes(4, "big")]), "sizeLimitExceeded",
    "array of 16 Mi + 1 elements announced (above maximumCollectionElementCount)")
add("extended-count-not-integer.bplist", simple([b"\x5f\x51a"]), "invalidLength", "count of a string given as a string")
add("extended-count-real.bplist", simple([b"\xaf\x23" + struct.pack(">d", 2.0) + b"\x00\x00"]), "invalidLength", "count of an array given as a real")
add("extended-count-int128.bplist", simple([b"\x4f\x14" + b"\x00" * 15 + b"\x02" + b"xy"]), "invalidLength", "count of data given as a 16-byte integer")
add("extended-count-nested-extended.bplist", simple([b"\x4f\x1f\x10\x02xy"]), "invalidLength", "count integer with marker 0x1F")

# Types
add("non-string-key-integer.bplist", simple([b"\xd1\x01\x01", b"\x10\x05"]), "nonStringKey", "dictionary keyed by an integer")
add("non-string-key-data.bplist", simple([b"\xd1\x01\x02", b"\x41x", b"\x08"]), "nonStringKey", "dictionary keyed by data")
add("non-string-key-uid.bplist", simple([b"\xd1\x01\x02", b"\x80\x01", b"\x08"]), "nonStringKey", "dictionary keyed by a UID")
add("non-string-key-bool.bplist", simple([b"\xd1\x01\x01", b"\x09"]), "nonStringKey", "dictionary keyed by true")
add("non-string-key-array.bplist", simple([b"\xd1\x01\x02", b"\xa0", b"\x08"]), "nonStringKey", "dictionary keyed by an empty array")
add("non-string-key-dict.bplist", simple([b"\xd1\x01\x02", b"\xd0", b"\x08"]), "nonStringKey", "dictionary keyed by an empty dictionary")
add("non-string-key-itself.bplist", simple([b"\xd1\x00\x01", b"\x08"]), "nonStringKey", "dictionary keyed by itself")
add("non-string-key-second.bplist", simple([b"\xd2\x01\x02\x03\x03", b"\x51a", b"\x23" + struct.pack(">d", 1.0), b"\x08"]), "nonStringKey",
    "second key of a dictionary is a real")
add("unpaired-surrogate-high.bplist", simple([b"\x61\xd8\x00"]), "invalidText", "UTF-16 string holding a lone high surrogate")
add("unpaired-surrogate-low.bplist", simple([b"\x62\x00a\xdc\x00"]), "invalidText", "UTF-16 string holding a lone low surrogate")
add("surrogate-high-then-letter.bplist", simple([b"\x62\xd8\x00\x00a"]), "invalidText", "high surrogate followed by a letter")
add("surrogates-reversed.bplist", simple([b"\x62\xdc\x00\xd8\x00"]), "invalidText", "low surrogate before high surrogate")
add("unpaired-surrogate-in-key.bplist", simple([b"\xd1\x01\x02", b"\x61\xd8\x00", b"\x08"]), "invalidText", "dictionary key with a lone surrogate")
add("non-ascii-in-ascii-string.bplist", simple([b"\x52a\xff"]), "invalidText", "ASCII string with byte 0xFF")
add("non-ascii-0x80-in-ascii-string.bplist", simple([b"\x51\x80"]), "invalidText", "ASCII string with byte 0x80")
add("non-ascii-in-long-ascii-string.bplist", simple([b"\x5f\x10\x14" + b"a" * 17 + b"\xc3\xa9" + b"a"]), "invalidText",
    "20-byte ASCII string holding UTF-8 (byte 17 is 0xC3)")
add("non-ascii-in-key.bplist", simple([b"\xd1\x01\x02", b"\x51\xe9", b"\x08"]), "invalidText", "dictionary key with byte 0xE9 in an ASCII string")
# (0x88…0x8F are UIDs of 9 to 16 bytes, which Core Foundation reads while the value fits 32 bits.)
unknown = [0x00, 0x01, 0x07, 0x0A, 0x0C, 0x0D, 0x0E, 0x0F, 0x15, 0x1F, 0x20, 0x21, 0x24, 0x2F, 0x30, 0x34, 0x70, 0x7F,
           0x90, 0x9F, 0xB0, 0xBF, 0xE0, 0xEF, 0xF0, 0xFF]
for marker in unknown:
    add("marker-%02x.bplist" % marker, simple([bytes([marker]) + b"\0" * 16]), "invalidObjectMarker",
        "top object with marker 0x%02X, which bplist00 does not define" % marker)
    add("marker-%02x-in-array.bplist" % marker, simple([b"\xa1\x01", bytes([marker]) + b"\0" * 16]), "invalidObjectMarker",
        "array element with marker 0x%02X" % marker)
# UIDs Core Foundation refuses by value: past 2^32 − 1, at any width (Foundation on Linux: "not in
# the correct format").
add("uid-8-bytes-2-to-the-32.bplist", simple([b"\x87" + (1 << 32).to_bytes(8, "big")]), "invalidNumber",
    "an 8-byte UID of 2^32, one past the largest Core Foundation reads")
add("uid-16-bytes-high-byte.bplist", simple([b"\xa1\x01", b"\x8f" + b"\x01" + b"\0" * 14 + b"\x05"]), "invalidNumber",
    "a 16-byte UID whose first byte is set")
add("marker-0x70-as-key.bplist", simple([b"\xd1\x01\x02", b"\x71a", b"\x08"]), "invalidObjectMarker",
    "dictionary key with marker 0x71: no object at all, so not 'a key of the wrong type'")

# Nesting and expansion
deep = [b"\xa1" + (i + 1).to_bytes(4, "big") for i in range(100_000)] + [b"\x08"]
add("nesting-100000.bplist", simple(deep, ref_size=4, offset_size=4), "depthLimitExceeded", "100000 nested arrays")
deep = [b"\xd1" + refs(10_001, i + 1, size=2) for i in range(10_000)] + [b"\x08", b"\x51k"]
add("nesting-10000-dicts.bplist", simple(deep, ref_size=2, offset_size=4), "depthLimitExceeded", "10000 nested dictionaries")
deep = [b"\xc1" + (i + 1).to_bytes(4, "big") for i in range(MAX_DEPTH + 1)] + [b"\x08"]
add("nesting-513-sets.bplist", simple(deep, ref_size=4, offset_size=4), "depthLimitExceeded", "513 nested sets, one past maximumDepth")
laughs = [b"\xa2" + bytes([i + 1, i + 1]) for i in range(64)] + [b"\x51x"]
add("billion-laughs.bplist", simple(laughs), "sizeLimitExceeded", "64 levels of arrays each holding the next twice: 2^64 values")
laughs = [b"\xd2" + bytes([65, 66, i + 1, i + 1]) for i in range(64)] + [b"\x51x", b"\x51a", b"\x51b"]
add("billion-laughs-dicts.bplist", simple(laughs, offset_size=2), "sizeLimitExceeded", "64 levels of dictionaries whose two values are the next level")
laughs = [b"\xaf\x10\xff" + bytes([i + 1]) * 255 for i in range(8)] + [b"\x08"]
add("billion-laughs-wide.bplist", simple(laughs, offset_size=2), "sizeLimitExceeded", "8 levels of arrays each holding the next 255 times: 255^8 values")
laughs = [b"\xc2" + refs(i + 1, i + 1, size=2) for i in range(30_000)] + [b"\x08"]
add("billion-laughs-30000-sets.bplist", simple(laughs, ref_size=2, offset_size=4), "depthLimitExceeded",
    "30000 levels of sets holding the next twice: the depth limit stops it before the expansion does")

# Memory amplification through shared bytes (report: docs/finding in Docs/Development/Fuzzing.md). The
# offset table may point many objects at the same bytes, or at overlapping bytes; each object is
# decoded separately, so a small file makes the reader allocate far more than it holds.
def aliased_data(length, copies):
    body = bytearray(b"bplist00")
    data_offset = len(body)
    body += b"\x4f\x12" + struct.pack(">I", length) + b"\xab" * length
    array_offset = len(body)
    body += b"\xaf\x12" + struct.pack(">I", copies) + b"".join(struct.pack(">I", i + 1) for i in range(copies))
    table = len(body)
    body += struct.pack(">I", array_offset) + struct.pack(">I", data_offset) * copies
    return bytes(body + trailer(4, 4, copies + 1, 0, table))


add("aliased-offsets-data.bplist", aliased_data(65_536, 2_048), "sizeLimitExceeded",
    "2048 offset-table entries all point at one 64 KiB data object: an 82 KB file decodes to 128 MiB of data")


def overlapping_data(region, step):
    """Data objects every `step` bytes, each running to the end of the region."""
    body = bytearray(b"bplist00")
    offsets = []
    start = len(body)
    total = region
    for k in range(0, region - step, step):
        length = region - k - 6
        offsets.append(start + k)
        body += b"\x4f\x12" + struct.pack(">I", length) + b"\xcd" * (step - 6)
    body = body[:start + region]
    body += b"\xcd" * (start + region - len(body))
    array_offset = len(body)
    body += b"\xaf\x12" + struct.pack(">I", len(offsets)) + b"".join(struct.pack(">I", i + 1) for i in range(len(offsets)))
    table = len(body)
    body += struct.pack(">I", array_offset) + b"".join(struct.pack(">I", o) for o in offsets)
    return bytes(body + trailer(4, 4, len(offsets) + 1, 0, table))


add("overlapping-data-objects.bplist", overlapping_data(49_152, 16), "sizeLimitExceeded",
    "3071 data objects every 16 bytes, each running to the end of a 48 KiB region: a 74 KB file decodes to 72 MiB")


def overlapping_arrays(region, count):
    """`count` arrays (1-byte references, so every byte is a reference below 256) every 6 bytes,
    each running to the end of the region; the top array holds only `true`, so none of them is
    reachable: only a reader that decodes the whole object table pays for them."""
    body = bytearray(b"bplist00")
    start = len(body)
    offsets = []
    for k in range(0, 6 * count, 6):
        offsets.append(start + k)
        body += b"\xaf\x12" + struct.pack(">I", region - k - 6)
    body += b"\x00" * (start + region - len(body))
    top = len(body)
    body += b"\xa1" + bytes([count + 1]) + b"\x09"
    table = len(body)
    entries = [top] + offsets + [top + 2]
    body += b"".join(struct.pack(">I", o) for o in entries)
    return bytes(body + trailer(4, 1, len(entries), 0, table))


add_any("overlapping-array-objects.bplist", overlapping_arrays(32_768, 254),
    "254 unreachable arrays every 6 bytes, each running to the end of a 32 KiB region: the object-table reader "
    "rejects it (sizeLimitExceeded, 63 MiB of references); the value reader never decodes unreachable objects and accepts it")

# ---------------------------------------------------------------------------------------------
# XML


def xml(body, declaration=True, doctype=True):
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n' if declaration else b""
    if doctype:
        head += b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
    if isinstance(body, str):
        body = body.encode()
    return head + b'<plist version="1.0">\n' + body + b"\n</plist>\n"


XML_BASE = xml("""<dict>
\t<key>array</key>
\t<array>
\t\t<string>a &amp; b</string>
\t\t<integer>-42</integer>
\t\t<real>1.5</real>
\t\t<true/>
\t</array>
\t<key>data</key>
\t<data>
\tAQID
\t</data>
\t<key>date</key>
\t<date>2001-01-01T00:00:00Z</date>
\t<key>uid</key>
\t<dict>
\t\t<key>CF$UID</key>
\t\t<integer>7</integer>
\t</dict>
</dict>""")
valid.append(("valid-base.xml", XML_BASE, "one element of every kind; the cuts below start from it"))


def xml_cut(marker, extra=0):
    return XML_BASE[:XML_BASE.index(marker) + extra]


# Truncation: every cut of an XML file is an input that ends before a structure it announces.
for name, marker, extra in [
    ("in-declaration", b"encoding", 0),
    ("in-doctype", b"PropertyList-1.0", 0),
    ("after-doctype", b"<plist", 0),
    ("in-plist-tag", b'version="1.0">', 0),
    ("after-plist-tag", b"<dict>", 0),
    ("in-start-tag", b"<dict>", 3),
    ("after-dict", b"<key>array", 0),
    ("in-key", b"<key>array", 7),
    ("in-string", b"a &amp;", 2),
    ("in-entity", b"&amp;", 3),
    ("in-end-tag", b"</string>", 4),
    ("in-integer", b"-42", 2),
    ("in-data", b"AQID", 2),
    ("in-date", b"2001-01-01T", 5),
    ("in-uid", b"<integer>7", 9),
    ("before-plist-end", b"</plist>", 0),
    ("in-plist-end", b"</plist>", 4),
]:
    add("xml-truncated-%s.xml" % name, xml_cut(marker, extra), "truncated",
        "valid XML plist cut %s" % name.replace("-", " "))
add("xml-empty.xml", b"", "truncated", "no bytes at all")
add("xml-declaration-only.xml", b'<?xml version="1.0" encoding="UTF-8"?>\n', "truncated", "declaration and no root element")
add("xml-unclosed-array.xml", xml("<array><string>a</string>")[:-10], "truncated", "array never closed")
add("xml-unclosed-dict.xml", b'<plist version="1.0"><dict><key>a</key><true/>', "truncated", "dictionary never closed")
add("xml-unclosed-string.xml", b'<plist version="1.0"><string>abc', "truncated", "string never closed")
add("xml-unclosed-comment.xml", b'<plist version="1.0"><!-- never closed <true/></plist>', "truncated", "comment never closed")
add("xml-unclosed-cdata.xml", b'<plist version="1.0"><string><![CDATA[abc</string></plist>', "truncated", "CDATA section never closed")
add("xml-unclosed-plist.xml", b'<plist version="1.0"><true/>', "truncated", "plist element never closed")

# Nesting
add("xml-nesting-100000.xml", xml("<array>" * 100_000 + "</array>" * 100_000), "depthLimitExceeded", "100000 nested arrays")
add("xml-nesting-10000-dicts.xml", xml("<dict><key>k</key>" * 10_000 + "<true/>" + "</dict>" * 10_000), "depthLimitExceeded",
    "10000 nested dictionaries")
add("xml-nesting-10000-unclosed.xml", b"<plist>" + b"<array>" * 10_000, "depthLimitExceeded",
    "10000 arrays opened and never closed: the depth limit is met first")
add("xml-nesting-513.xml", xml("<array>" * 513 + "</array>" * 513), "depthLimitExceeded", "513 nested arrays, one past maximumDepth")

# Entities
add("xml-bad-entity.xml", xml("<string>&bogus;</string>"), "invalidEntity", "undefined entity")
add("xml-entity-no-semicolon.xml", xml("<string>&amp b</string>"), "invalidEntity", "&amp without its semicolon")
add("xml-entity-empty.xml", xml("<string>&;</string>"), "invalidEntity", "empty entity")
add("xml-charref-surrogate.xml", xml("<string>&#xD800;</string>"), "invalidEntity", "character reference to a surrogate")
add("xml-charref-too-big.xml", xml("<string>&#x110000;</string>"), "invalidEntity", "character reference above U+10FFFF")
add("xml-charref-huge.xml", xml("<string>&#99999999999999999999;</string>"), "invalidEntity", "character reference with 20 digits")
add("xml-charref-not-hex.xml", xml("<string>&#xZZ;</string>"), "invalidEntity", "hex character reference with non-hex digits")
add("xml-entity-external.xml", xml("<string>&xxe;</string>"), "invalidEntity", "an external-entity name (XXE is never resolved)")
add("xml-internal-subset.xml", b'<!DOCTYPE plist [<!ENTITY a "b">]><plist><true/></plist>', "xmlSyntax", "DOCTYPE with an internal subset")
add("xml-billion-laughs.xml", b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + b"".join(b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10))
    + b"]>\n<plist><string>&lol9;</string></plist>\n", "xmlSyntax", "entity-expansion bomb in an internal subset, refused outright")

# Numbers and dates
add("xml-huge-integer.xml", xml("<integer>99999999999999999999999</integer>"), "invalidNumber", "integer above 2^64-1")
add("xml-integer-2^64.xml", xml("<integer>18446744073709551616</integer>"), "invalidNumber", "integer 2^64")
add("xml-integer-below-min.xml", xml("<integer>-9223372036854775809</integer>"), "invalidNumber", "integer below -2^63")
add("xml-integer-100000-digits.xml", xml("<integer>" + "9" * 100_000 + "</integer>"), "invalidNumber", "integer of 100000 digits")
add("xml-integer-hex-too-big.xml", xml("<integer>0x10000000000000000</integer>"), "invalidNumber", "hex integer 2^64")
add("xml-integer-letters.xml", xml("<integer>12abc</integer>"), "invalidNumber", "integer text with letters")
add("xml-integer-empty.xml", xml("<integer></integer>"), "invalidNumber", "integer with no text")
add("xml-integer-selfclosed.xml", xml("<integer/>"), "invalidNumber", "<integer/>")
add("xml-integer-only-sign.xml", xml("<integer>-</integer>"), "invalidNumber", "integer that is only a sign")
add("xml-integer-0x.xml", xml("<integer>0x</integer>"), "invalidNumber", "hex prefix and no digits")
add("xml-real-text.xml", xml("<real>abc</real>"), "invalidNumber", "real that is not a number")
add("xml-real-two-points.xml", xml("<real>1.2.3</real>"), "invalidNumber", "real with two points")
add("xml-real-empty-exponent.xml", xml("<real>1e</real>"), "invalidNumber", "real with an empty exponent")
add("xml-real-selfclosed.xml", xml("<real/>"), "invalidNumber", "<real/>")
add("xml-bad-date.xml", xml("<date>2020-01-01</date>"), "invalidDate", "date without time")
add("xml-date-no-z.xml", xml("<date>2020-01-01T00:00:00</date>"), "invalidDate", "date without Z")
add("xml-date-offset.xml", xml("<date>2020-01-01T00:00:00+01:00</date>"), "invalidDate", "date with a zone offset")
add("xml-date-fraction.xml", xml("<date>2020-01-01T00:00:00.5Z</date>"), "invalidDate", "date with fractional seconds")
add("xml-date-trailing.xml", xml("<date>2020-01-01T00:00:00Zjunk</date>"), "invalidDate", "date with text after Z")
add("xml-date-letters.xml", xml("<date>yyyy-mm-ddThh:mm:ssZ</date>"), "invalidDate", "date of letters")
add("xml-date-empty.xml", xml("<date></date>"), "invalidDate", "empty date")
add("xml-date-selfclosed.xml", xml("<date/>"), "invalidDate", "<date/>")

# Structure
add("xml-text-between-elements.xml", xml("<array>hello<true/></array>"), "xmlSyntax", "text inside an array")
add("xml-text-in-dict.xml", xml("<dict>hello<key>a</key><true/></dict>"), "xmlSyntax", "text inside a dictionary")
add("xml-text-in-true.xml", xml("<true>yes</true>"), "xmlSyntax", "text inside <true>")
add("xml-text-after-value.xml", xml("<true/>junk"), "xmlSyntax", "text after the value inside <plist>")
add("xml-text-before-root.xml", b"hello <plist><true/></plist>", "xmlSyntax", "text before the root element")
add("xml-two-values.xml", xml("<true/><false/>"), "xmlSyntax", "plist with two values")
add("xml-empty-plist.xml", xml(""), "xmlSyntax", "plist with no value")
add("xml-selfclosed-plist.xml", b"<plist/>", "xmlSyntax", "<plist/>")
add("xml-mismatched-end.xml", xml("<array><true/></dict>"), "xmlSyntax", "array closed by </dict>")
add("xml-mismatched-string-end.xml", xml("<string>a</key>"), "xmlSyntax", "string closed by </key>")
add("xml-unknown-element.xml", xml("<set><true/></set>"), "xmlUnexpectedElement", "<set> is not a plist element")
add("xml-null-element.xml", xml("<null/>"), "xmlUnexpectedElement", "<null/> is not a plist element")
add("xml-non-key-in-dict.xml", xml("<dict><string>a</string><true/></dict>"), "xmlUnexpectedElement", "<string> where a <key> belongs")
add("xml-key-without-value.xml", xml("<dict><key>a</key></dict>"), "xmlSyntax", "dictionary key with no value")
add("xml-empty-data.xml", xml("<data/>"), "xmlSyntax", "<data/>")
add("xml-data-non-ascii.xml", xml("<data>AQ\xc3\xa9ID</data>"), "xmlSyntax", "data with a non-ASCII byte")
add("xml-markup-in-string.xml", xml("<string>a<!ELEMENT x>b</string>"), "xmlSyntax", "markup declaration inside a string")
add("xml-unsupported-encoding.xml", b'<?xml version="1.0" encoding="EBCDIC-US"?><plist><true/></plist>', "xmlSyntax", "EBCDIC declared")
add("xml-tag-no-name.xml", xml("<array>< /></array>"), "xmlSyntax", "a tag with no name")

# Text encoding
add("xml-invalid-utf8.xml", xml(b"<string>\xc0\x80</string>"), "invalidText", "overlong UTF-8")
add("xml-utf8-surrogate.xml", xml(b"<string>\xed\xa0\x80</string>"), "invalidText", "UTF-8 encoding of a surrogate")
add("xml-utf8-above-max.xml", xml(b"<string>\xf4\x90\x80\x80</string>"), "invalidText", "UTF-8 above U+10FFFF")
add("xml-utf8-cut.xml", xml(b"<string>\xe4\xb8</string>"), "invalidText", "UTF-8 sequence cut short")
add("xml-utf8-lone-continuation.xml", xml(b"<string>a\x80b</string>"), "invalidText", "lone continuation byte")
add("xml-utf8-in-key.xml", xml(b"<dict><key>\xff</key><true/></dict>"), "invalidText", "byte 0xFF in a key")
add("xml-utf8-with-entity.xml", xml(b"<string>&amp;\xc0\x80</string>"), "invalidText", "overlong UTF-8 after an entity (slow text path)")
add("xml-utf16-unpaired.xml", b"\xfe\xff" + "<plist><string>".encode("utf-16-be") + b"\xd8\x00" + "</string></plist>".encode("utf-16-be"),
    "invalidText", "UTF-16 (big-endian BOM) file with an unpaired surrogate")
add("xml-utf16le-unpaired.xml", b"\xff\xfe" + "<plist><string>".encode("utf-16-le") + b"\x00\xdc" + "</string></plist>".encode("utf-16-le"),
    "invalidText", "UTF-16 (little-endian BOM) file with a lone low surrogate")

add_any("xml-charref-empty.xml", xml("<string>&#;</string>"),
        "character reference with no digits: Core Foundation reads U+0000 (xml-format-notes); an error is as good")
add_any("xml-date-year-13-digits.xml", xml("<date>1234567890123-01-01T00:00:00Z</date>"),
        "13-digit year: Core Foundation takes any number of year digits (and wraps); an error is as good")
add_any("xml-date-year-100000-digits.xml", xml("<date>" + "9" * 100_000 + "-01-01T00:00:00Z</date>"),
        "100000-digit year: must be handled in linear time, whatever the outcome")
add_any("xml-nested-plist.xml", xml("<array><plist><true/></plist></array>"),
        "<plist> inside an array: Core Foundation parses it like any element; an error is as good")
add_any("xml-key-outside-dict.xml", xml("<array><key>a</key></array>"),
        "<key> as an array element: Core Foundation reads it as a string; an error is as good")

# ---------------------------------------------------------------------------------------------


def main():
    for name in os.listdir(HERE):
        if name.endswith((".bplist", ".xml")) or name in ("EXPECTED.tsv", "ANY.tsv", "VALID.tsv"):
            os.remove(os.path.join(HERE, name))
    for name, data, *_ in expected + anything + valid:
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    with open(os.path.join(HERE, "EXPECTED.tsv"), "w") as f:
        f.write("file\tcode\twhy\n")
        for name, _, code, why in expected:
            f.write("%s\t%s\t%s\n" % (name, code, why))
    for listing, cases in (("ANY.tsv", anything), ("VALID.tsv", valid)):
        with open(os.path.join(HERE, listing), "w") as f:
            f.write("file\twhy\n")
            for name, _, why in cases:
                f.write("%s\t%s\n" % (name, why))
    print("%d expected-error files, %d any-outcome files, %d valid files" % (len(expected), len(anything), len(valid)))


if __name__ == "__main__":
    main()
