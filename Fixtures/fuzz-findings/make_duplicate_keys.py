#!/usr/bin/env python3
# Writes duplicate-class-key.bplist, duplicate-classname.bplist and duplicate-objects.bplist
# (fuzz finding F5: reserved keys twice), and duplicate-user-key.bplist,
# duplicate-string-payload.bplist and duplicate-top-key.bplist (user keys twice, which typed
# decoding refuses for the same reason): cd Fixtures/fuzz-findings && python3 make_duplicate_keys.py .
import struct, sys
class UID:
    def __init__(s, v): s.v = v
class D:  # dictionary as a list of (key, value) pairs, duplicates allowed
    def __init__(s, *pairs): s.pairs = list(pairs)
def write(root):
    objs = []
    def add(v):
        idx = len(objs); objs.append(None)
        if isinstance(v, D):
            ks = [add(k) for k, _ in v.pairs]; vs = [add(x) for _, x in v.pairs]
            n = len(v.pairs); assert n < 15
            objs[idx] = bytes([0xD0 | n] + ks + vs)
        elif isinstance(v, list):
            es = [add(x) for x in v]; assert len(es) < 15
            objs[idx] = bytes([0xA0 | len(es)] + es)
        elif isinstance(v, str):
            b = v.encode('ascii')
            objs[idx] = (bytes([0x50 | len(b)]) if len(b) < 15 else bytes([0x5F, 0x10, len(b)])) + b
        elif isinstance(v, UID):
            objs[idx] = bytes([0x80, v.v])
        elif isinstance(v, int):
            objs[idx] = b'\x12' + struct.pack('>i', v)
        return idx
    add(root)
    assert len(objs) < 256
    out = bytearray(b'bplist00'); offsets = []
    for o in objs: offsets.append(len(out)); out += o
    table = len(out); size = 2
    for x in offsets: out += struct.pack('>H', x)
    out += struct.pack('>6xBBQQQ', size, 1, len(objs), 0, table)
    return bytes(out)
def archive(objects, top=None, extra=()):
    return D(('$archiver', 'NSKeyedArchiver'), ('$version', 100000), ('$top', top or D(('root', UID(1)))), ('$objects', objects), *extra)
pilot = D(('$classname', 'Pilot'), ('$classes', ['Pilot', 'NSObject']))
glider = D(('$classname', 'Glider'), ('$classes', ['Glider', 'Airplane', 'NSObject']))
cases = {
    # object #1 names its class twice: Core Foundation's binary reader keeps the first (#3, Glider), ours kept the last (#2, Pilot)
    'duplicate-class-key.bplist': archive(['$null', D(('$class', UID(3)), ('name', 'A'), ('$class', UID(2))), pilot, glider]),
    # class dictionary #2 names two classes
    'duplicate-classname.bplist': archive(['$null', D(('$class', UID(2)), ('name', 'A')), D(('$classname', 'Glider'), ('$classname', 'Pilot'), ('$classes', ['Pilot', 'NSObject']))]),
    # two object tables
    'duplicate-objects.bplist': archive(['$null', D(('$class', UID(2)), ('name', 'A')), glider], extra=[('$objects', ['$null', D(('$class', UID(2)), ('name', 'A')), pilot])]),
    # Pilot #1 stores name twice: Core Foundation's binary reader decodes 'A', its XML reader 'B'
    'duplicate-user-key.bplist': archive(['$null', D(('$class', UID(2)), ('name', 'A'), ('name', 'B')), pilot]),
    # the NSString #3 that Pilot #1's name refers to stores NS.string twice
    'duplicate-string-payload.bplist': archive(['$null', D(('$class', UID(2)), ('name', UID(3))), pilot,
                                                D(('$class', UID(4)), ('NS.string', 'A'), ('NS.string', 'B')),
                                                D(('$classname', 'NSString'), ('$classes', ['NSString', 'NSObject']))]),
    # $top names two roots
    'duplicate-top-key.bplist': archive(['$null', D(('$class', UID(2)), ('name', 'A')), pilot, D(('$class', UID(2)), ('name', 'B'))],
                                        top=D(('root', UID(1)), ('root', UID(3)))),
}
for name, root in cases.items():
    open(sys.argv[1] + '/' + name, 'wb').write(write(root))
