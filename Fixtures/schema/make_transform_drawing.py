#!/usr/bin/env python3
"""Writes transform-drawing.plist with Python's plistlib and struct (not with this package's
writer): a drawing whose shapes hold NSAffineTransforms in every form Apple's Foundation writes
`NSTransformStruct` (its -[NSAffineTransform encodeWithCoder:]; Docs/KeyedArchiveFormat.md),
big-endian 32-bit floats, as few as the matrix needs:

    24 bytes  m11 m12 m21 m22 tX tY   (rotation or shear)
    16 bytes  m11 m22 tX tY           (scale and translation: a Cocoa drawing document of 2011
                                       held seven of these)
     9 bytes  02 m11 m22              (scale only)
     9 bytes  01 tX tY                (translation only)
     nothing                          (the identity)

One transform is shared by two shapes. `keyedarchive schema --swift` must type these fields as
transforms whose models read the file and write it back equal (Tests/SchemaGeneration/run.sh).

    python3 Fixtures/schema/make_transform_drawing.py
"""
import os
import plistlib
import struct

UID = plistlib.UID


def floats(*numbers):
    return struct.pack(">%df" % len(numbers), *numbers)


transforms = [
    floats(0.96363044, 0.26723838, -0.26723838, 0.96363044, 10.5, -3.25),  # rotation
    floats(2.0, 0.5, 100.0, 42.25),                                           # scale and translation
    bytes([2]) + floats(1.5, 1.5),                                            # scale
    bytes([1]) + floats(-7.0, 12.5),                                          # translation
    None,                                                                     # identity
]
objects = ["$null"]
drawing = {"$class": None, "shapes": None}
objects.append(drawing)                                                       # 1
objects.append({"$classname": "SKDrawing", "$classes": ["SKDrawing", "NSObject"]})  # 2
transform_class = len(objects)
objects.append({"$classname": "NSAffineTransform", "$classes": ["NSAffineTransform", "NSObject"]})
shape_class = len(objects)
objects.append({"$classname": "SKShape", "$classes": ["SKShape", "NSObject"]})
shape_uids = []
transform_uids = []
for index, stored in enumerate(transforms):
    transform = {"$class": UID(transform_class)}
    if stored is not None:
        transform["NSTransformStruct"] = stored
    transform_uids.append(len(objects))
    objects.append(transform)
for index, transform_uid in enumerate(transform_uids + [transform_uids[1]]):
    shape_uids.append(len(objects))
    objects.append({"$class": UID(shape_class), "name": UID(len(objects) + 1), "transform": UID(transform_uid)})
    objects.append("shape %d" % index)
array_class = len(objects)
objects.append({"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]})
array_uid = len(objects)
objects.append({"$class": UID(array_class), "NS.objects": [UID(uid) for uid in shape_uids]})
drawing["$class"] = UID(2)
drawing["shapes"] = UID(array_uid)
archive = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "transform-drawing.plist"), "wb") as f:
    plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY)
