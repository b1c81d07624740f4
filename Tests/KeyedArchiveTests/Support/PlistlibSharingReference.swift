import Foundation

/// An independent account of an archive's sharing, by Python's `plistlib`: which objects with
/// identity (instances and containers in `$objects`, not strings, numbers, data or dates, whose
/// sharing no reader can see, nor class dictionaries) are referred to from more than one place,
/// each reference named by the path it is reached at (breadth-first from `$top`, keys in sorted
/// order, array elements by index) and the path its object was first reached at. Two archives
/// share alike exactly when their accounts are equal. (An XML archive with raw control
/// characters in its text, which expat refuses, is read with them replaced.)
enum PlistlibSharingReference {
    static let script = #"""
import collections, hashlib, plistlib, re, sys

def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    try:
        return plistlib.loads(data)
    except Exception:
        # Three xcuserstate files hold raw control characters in <string>, which XML 1.0 (and
        # so expat) refuses and Core Foundation wrote anyway; text plays no part in sharing.
        if not data.lstrip().startswith(b'<'):
            raise
        return plistlib.loads(re.sub(rb'[\x00-\x08\x0b\x0c\x0e-\x1f]', b'?', data))

def account(path):
    archive = load(path)
    objects = archive['$objects']
    first = {}
    references = []
    queue = collections.deque(('$top.' + key, value) for key, value in sorted(archive['$top'].items()))
    while queue:
        where, value = queue.popleft()
        if isinstance(value, plistlib.UID):
            uid = value.data
            if uid == 0 or uid >= len(objects):
                continue
            target = objects[uid]
            if not isinstance(target, (dict, list)):
                continue
            references.append((where, uid))
            if uid in first:
                continue
            first[uid] = where
            queue.append((where, target))
        elif isinstance(value, dict):
            for key in sorted(value):
                if key != '$class':
                    queue.append((where + '.' + key, value[key]))
        elif isinstance(value, list):
            for index, element in enumerate(value):
                queue.append((where + '[%d]' % index, element))
    counts = collections.Counter(uid for _, uid in references)
    shared = sorted((where, first[uid]) for where, uid in references if counts[uid] > 1)
    return '%d %s' % (len(shared), hashlib.sha256(repr(shared).encode()).hexdigest())

for path in sys.argv[1:]:
    try:
        print(path + '\t' + account(path))
    except Exception as error:
        print(path + '\tERROR ' + type(error).__name__ + ': ' + str(error).replace('\n', ' '))
"""#

    /// Path → "N sha256" (N references to shared objects), or "ERROR …"; nil without Python.
    static func accounts(_ paths: [String]) throws -> [String: String]? {
        try PlistlibArchiveReference.runPython(script, over: paths)
    }
}
