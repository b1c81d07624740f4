import PropertyList

/// The generic, untyped view of any keyed archive: its objects, their classes and fields, and
/// the references between them, with no registration and no user type instantiated.
///
/// Objects are identified by their UID (their index in `$objects`), so sharing and cycles are
/// kept exactly as the file has them. Building a graph validates the archive's structure: the
/// header fields, every UID (in `$top`, in every field, at any nesting), and every `$class`
/// reference and class dictionary. What an object *means* is left to the caller (or to
/// ``KeyedUnarchiver`` with a registry).
public struct ArchiveGraph: Hashable, Sendable {
    /// One entry of `$objects`.
    public enum Object: Hashable, Sendable {
        /// `$null`, always at index 0: a reference to it means nil.
        case null
        /// A plain string (how NSString is archived).
        case string(String)
        /// A plain number (how NSNumber is archived).
        case integer(PropertyListInteger)
        /// A plain real number (how NSNumber archives a float or double).
        case real(PropertyListReal)
        /// A plain boolean (how NSNumber archives a `BOOL`).
        case bool(Bool)
        /// Plain bytes (how NSData is archived).
        case data([UInt8])
        /// A property-list date. NSKeyedArchiver writes NSDate as an instance with `NS.time`, but
        /// a date is a legal `$objects` entry.
        case date(PropertyListDate)
        /// An object with a class: a dictionary with `$class` plus its encoded fields.
        case instance(Instance)
        /// A class dictionary (`$classname`, `$classes`, optional `$classhints`).
        // Boxed: its 32 bytes would make every object 40 bytes rather than 32, and an archive
        // has one class dictionary per class against thousands of other objects.
        indirect case classDescriptor(ClassDescriptor)
        /// Anything else a property list can hold (an array, a set, a dictionary without
        /// `$class`): Apple's archiver never writes these, but they are legal property lists.
        case other(PropertyListValue)
    }

    /// An object with a class: its `$class` reference and its fields as stored.
    public struct Instance: Hashable, Sendable {
        /// UID of the class dictionary.
        public let classUID: PropertyListUID
        /// The stored dictionary, `$class` included, in file order. Keys are as stored, so a
        /// user key beginning with `$` appears escaped (`$$name`).
        public let storage: PropertyListDictionary

        /// The fields in file order, without `$class`.
        public var fields: [PropertyListDictionary.Entry] {
            storage.entries.filter { !$0.key.isExactlyEqual(to: ArchiveKeys.classKey) }
        }

        /// The stored value for a *user* key (escaped as the archiver escapes it).
        public func value(forKey key: String) -> PropertyListValue? {
            storage[ArchiveKeys.escape(key)]
        }

        /// The stored value for a key exactly as it appears in the file.
        public func value(forStoredKey storedKey: String) -> PropertyListValue? {
            storage[storedKey]
        }
    }

    /// A class dictionary.
    public struct ClassDescriptor: Hashable, Sendable {
        /// `$classname`: the archived class name.
        public let name: String
        /// `$classes`: the class followed by its superclasses, as the archive claims them (empty
        /// when the class dictionary has no `$classes`; see ``storesClasses``).
        public let classes: [String]
        /// `$classhints`, when present (alternative class names for the unarchiver; rare).
        public let hints: [String]?
        /// Whether the class dictionary stores `$classes`. Xcode's SpriteKit scene editor writes
        /// the classes of an app's own `GKComponent` subclasses as `$classname` alone; Apple's
        /// unarchiver looks a class up by `$classname` and needs `$classes` only for its
        /// fallbacks, so such a dictionary is read, and written back without `$classes`.
        public let storesClasses: Bool

        /// A class dictionary of the class `name`, its `$classes` chain `classes` and optional `$classhints`.
        public init(name: String, classes: [String], hints: [String]? = nil) {
            self.name = name
            self.classes = classes
            self.hints = hints
            self.storesClasses = true
        }

        /// A class dictionary of the class `name` with no `$classes` (``storesClasses`` false),
        /// and optional `$classhints`.
        public init(nameOnly name: String, hints: [String]? = nil) {
            self.name = name
            self.classes = []
            self.hints = hints
            self.storesClasses = false
        }

        /// Whether the dictionary holds more than `$classname` and `$classes`, the shape every
        /// `NSKeyedArchiver` writes.
        var isPlain: Bool { storesClasses && hints == nil }
    }

    /// One `$top` entry: a top-level key and what it holds — almost always a UID naming an
    /// object, but a top-level `encodeInt:forKey:` stores the number itself (compiled nibs do).
    public struct TopEntry: Hashable, Sendable {
        /// The top-level key (`root` for an archive made with `archivedData(withRootObject:)`).
        public let key: String
        /// What the key holds: a UID, or a value stored in place.
        public let value: PropertyListValue

        /// The object the entry names, when it holds a UID.
        public var uid: PropertyListUID? { value.uidValue }
    }

    /// `$archiver`: `NSKeyedArchiver`, or the name of a subclass that wrote the archive
    /// (SceneKit's `SCNKeyedArchiver`); Apple's unarchiver does not read it.
    public let archiver: String
    /// `$version` (always 100000 once validated).
    public let version: PropertyListInteger
    /// `$top`, in file order.
    public let top: [TopEntry]
    /// `$top` as a dictionary in file order (duplicate keys kept): the fields of the top level.
    public var topFields: PropertyListDictionary {
        PropertyListDictionary(entries: top.map { PropertyListDictionary.Entry(key: $0.key, value: $0.value) })
    }
    /// `$objects`; a UID's value is an index into it.
    public let objects: [Object]
    /// The root dictionary's keys in file order (the writer's era shows in it, format-notes §3.4).
    public let headerKeyOrder: [String]

    /// The UID of a top-level key (`root` for archives made with `archivedData(withRootObject:)`).
    public func topUID(forKey key: String) -> PropertyListUID? {
        var found: PropertyListUID?
        for entry in top where entry.key.isExactlyEqual(to: key) { found = entry.uid }
        return found
    }

    /// The object a UID refers to (validated UIDs are always in range).
    public func object(_ uid: PropertyListUID) -> Object? {
        guard uid.value < UInt64(objects.count) else { return nil }
        return objects[Int(uid.value)]
    }

    /// The class dictionary of an instance.
    public func classDescriptor(of uid: PropertyListUID) -> ClassDescriptor? {
        guard case .instance(let instance)? = object(uid),
              case .classDescriptor(let descriptor)? = object(instance.classUID) else { return nil }
        return descriptor
    }

    /// The archived class name of an instance (nil for plain values and `$null`).
    public func className(of uid: PropertyListUID) -> String? {
        classDescriptor(of: uid)?.name
    }

    /// The UIDs a value refers to, in stored order, at any nesting inside it.
    public static func references(in value: PropertyListValue) -> [PropertyListUID] {
        var result: [PropertyListUID] = []
        var stack: [PropertyListValue] = [value]
        while let next = stack.popLast() {
            switch next {
            case .uid(let uid): result.append(uid)
            case .array(let elements), .set(let elements):
                stack.append(contentsOf: elements.reversed())
            case .dictionary(let dictionary):
                stack.append(contentsOf: dictionary.entries.reversed().map { $0.value })
            default: break
            }
        }
        return result
    }

    /// The UIDs an object refers to, one per occurrence, in stored order. For an instance that is
    /// its entries in file order, `$class` among them wherever the file puts it: not necessarily
    /// first (XML writers sort keys; binary archives store them in hash-table order).
    public func references(of uid: PropertyListUID) -> [PropertyListUID] {
        switch object(uid) {
        case .instance(let instance)?:
            return Self.references(in: .dictionary(instance.storage))
        case .other(let value)?:
            return Self.references(in: value)
        default:
            return []
        }
    }
}

/// The reserved strings of the format.
enum ArchiveKeys {
    static let archiver = "$archiver"
    static let version = "$version"
    static let top = "$top"
    static let objects = "$objects"
    static let null = "$null"
    static let classKey = "$class"
    static let className = "$classname"
    static let classes = "$classes"
    static let classHints = "$classhints"
    static let archiverName = "NSKeyedArchiver"
    static let formatVersion: Int64 = 100_000
    static let rootKey = "root"

    /// Apple's escaping: a user key that begins with `$` gets one more `$`, so that no user
    /// key can pass for `$class` or an unkeyed `$0`.
    static func escape(_ key: String) -> String {
        needsEscape(key) ? "$" + key : key
    }

    /// Whether `key` begins with `$`. Asked at every field a model reads: an iterator's first
    /// step is a few instructions, where `utf8.first` went through generic index code (some 25
    /// instructions a call, 1 % of a fleet decode).
    @inline(__always)
    static func needsEscape(_ key: String) -> Bool {
        var bytes = key.utf8.makeIterator()
        return bytes.next() == UInt8(ascii: "$")
    }

    /// The user key a stored key stands for; nil for reserved keys (`$class`, `$0`, …).
    static func unescape(_ storedKey: String) -> String? {
        var iterator = storedKey.utf8.makeIterator()
        guard iterator.next() == UInt8(ascii: "$") else { return storedKey }
        guard iterator.next() == UInt8(ascii: "$") else { return nil }
        return String(storedKey.dropFirst())
    }
}

extension Array where Element == String {
    /// Whether both are the same array storage (so equal), without comparing their strings.
    func isSameStorage(as other: [String]) -> Bool {
        count == other.count && withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
    }

    /// Element-wise ``Swift/String/isExactlyEqual(to:)`` (key lists, class chains).
    func isExactlyEqual(to other: [String]) -> Bool {
        guard count == other.count else { return false }
        for index in indices where !self[index].isExactlyEqual(to: other[index]) { return false }
        return true
    }
}
