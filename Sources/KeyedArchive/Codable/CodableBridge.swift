#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
@_spi(KeyedArchiveInternals) import PropertyList

// Two things, one mechanism:
// - `PropertyListValue` as an archived object: a tree of property-list values ↔ the Foundation
//   objects that hold them (NSDictionary, NSArray, NSSet, NSString, NSNumber, NSData, NSDate).
//   This is how an archive's untyped collections (a dictionary of strings and numbers) are read
//   with the typed API, and how such a tree is written.
// - The Codable bridge, as Apple's Foundation overlay builds it: `encodeEncodable(_:forKey:)`
//   encodes a value with `PropertyListEncoder` to a tree of NSMutableDictionary, NSMutableArray
//   and plist scalars and archives that tree under the key; `decodeDecodable(_:forKey:)` reads
//   the tree back and hands it to `PropertyListDecoder`. Our `PropertyListValueEncoder` and
//   `PropertyListValueDecoder` follow those coders' conventions ("$null" for nil, dates and
//   data as plist values), so an archive made either way decodes with the other.

extension PropertyListValue: ArchiveObjectCodable {
    /// Dictionaries as `NSDictionary`, arrays as `NSArray`, sets as `NSSet`, dates as `NSDate`,
    /// and scalars as the plain strings, numbers and data `NSKeyedArchiver` stores. A UID is not
    /// a value an archive can hold this way and is refused (``ArchiveError/Code/invalidState``).
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try PropertyListTreeArchiving.reference(for: self, mutableContainers: false, in: encoder)
    }

    /// Any tree of the Foundation property-list classes the registry admits (both the plain and
    /// the mutable names), and plain values as the registry's primitive policy admits them.
    /// A dictionary keeps the archive's key order. Any other class is refused before anything is
    /// decoded from it.
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> PropertyListValue {
        try PropertyListTreeArchiving.decode(reference: reference, decoder: decoder)
    }
}

/// A property-list tree to archive, with the plain or the mutable container classes (the
/// latter as Foundation's Codable bridge archives what its `PropertyListEncoder` made).
struct ArchivedPropertyListTree: ArchiveObjectEncodable {
    let value: PropertyListValue
    let mutableContainers: Bool

    func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try PropertyListTreeArchiving.reference(for: value, mutableContainers: mutableContainers, in: encoder)
    }
}

enum PropertyListTreeArchiving {
    static let requested = "PropertyListValue"

    static func reference(for value: PropertyListValue, mutableContainers: Bool, in encoder: KeyedArchiveEncoder) throws(ArchiveError) -> ArchiveReference {
        switch value {
        case .string(let string):
            return encoder.session.encodeString(string)
        case .integer, .real, .bool:
            return encoder.session.encodeNumber(value)
        case .data(let bytes):
            return encoder.session.encodeData(bytes)
        case .date(let date):
            return try encoder.reference(for: Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate))
        case .array(let elements), .set(let elements):
            let classes: [String]
            if case .set = value {
                classes = mutableContainers ? ArchiveArray.mutableSetClasses : FoundationClass.set.archivedChain
            } else {
                classes = mutableContainers ? ArchiveArray.mutableArrayClasses : FoundationClass.array.archivedChain
            }
            return try encoder.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(elements.map { ArchivedPropertyListTree(value: $0, mutableContainers: mutableContainers) }, forKey: "NS.objects")
            }
        case .dictionary(let dictionary):
            let classes = mutableContainers ? ArchiveDictionary.mutableDictionaryClasses : FoundationClass.dictionary.archivedChain
            return try encoder.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(dictionary.entries.map { $0.key }, forKey: "NS.keys")
                try fields.encodeReferenceArray(dictionary.entries.map { ArchivedPropertyListTree(value: $0.value, mutableContainers: mutableContainers) }, forKey: "NS.objects")
            }
        case .uid(let uid):
            throw ArchiveError(.invalidState, "a UID (\(uid.value)) is not a value an archive can store as an object", keyPath: encoder.keyPath)
        }
    }

    /// A decoded tree and how many values it expands to. A shared container is decoded once
    /// and then handed out again, so a small archive can hold a tree that expands
    /// exponentially (each array holding the next twice); comparing, describing or re-archiving
    /// such a value would walk every copy. So trees are refused beyond the reader's
    /// `maximumExpandedValueCount`, as a property list read from a file is: each tree as it is
    /// built, and all the trees handed out by one decode together.
    ///
    /// `height` counts the container levels in the tree (0 for a scalar): a shared container
    /// handed out again deep inside another nests as deep as that reference puts it, so it is
    /// checked there against `maximumDepth` — without that, chained shared containers build a
    /// value deeper than any limit, whose comparison, release or `Codable` decode would recurse
    /// past the end of the stack.
    struct Node {
        let value: PropertyListValue
        let expandedCount: Int
        var height = 0
    }

    /// A container being built by ``tree(uid:decoder:)``.
    private struct Frame {
        let uid: Int
        let kind: FoundationClass
        let keys: ArchiveReferenceList?
        let objects: ArchiveReferenceList
        var position = 0
        var elements: [PropertyListValue] = []
        var dictionary = PropertyListDictionary()
        var key = ""
        var total = 1
        /// Whether two of `dictionary`'s keys are equal (kept only under
        /// ``ArchiveReadingOptions/DuplicateDictionaryKeys/keepLast``).
        var holdsDuplicateKeys = false
        var childHeight = 0
    }

    /// Each key once, with the value stored last for it, at the place it was stored last (as
    /// Foundation's `NSDictionary` keeps the last of its initializer's equal keys).
    private static func keepingLastEntries(_ dictionary: PropertyListDictionary) -> PropertyListDictionary {
        var kept = PropertyListDictionary()
        for entry in dictionary.entries.reversed() where kept[entry.key] == nil { kept.append(key: entry.key, value: entry.value) }
        return PropertyListDictionary(entries: kept.entries.reversed())
    }

    private static let nodeType = ObjectIdentifier(Node.self)

    static func decode(reference: ArchiveReference, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> PropertyListValue {
        let uid = try decoder.session.index(reference)
        let node = try tree(uid: uid, decoder: decoder)
        try decoder.session.chargeTreeValues(node.expandedCount, uid: uid)
        return node.value
    }

    /// The tree at `uid`, walked with a stack of its own: an archive can nest containers as deep
    /// as `maximumDepth`, and a recursive walk would need several frames per level — more stack
    /// than a thread may have. Containers go through the session's container bookkeeping
    /// (cycles, element and depth budgets, one decode per object), as typed collections do.
    static func tree(uid root: Int, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> Node {
        let session = decoder.session
        var stack: [Frame] = []
        var pathDepth = 0
        do throws(ArchiveError) {
            var finished = try open(root, decoder: decoder, stack: &stack)
            while true {
                if let node = finished {
                    // Hand the finished node to the container waiting for it.
                    guard !stack.isEmpty else { return node }
                    let last = stack.count - 1
                    if pathDepth > last {
                        session.popPath()
                        pathDepth -= 1
                    }
                    try session.countTreeValues(node.expandedCount, into: &stack[last].total, uid: stack[last].uid)
                    stack[last].childHeight = max(stack[last].childHeight, node.height)
                    if stack[last].kind == .dictionary {
                        stack[last].dictionary.append(key: stack[last].key, value: node.value)
                    } else {
                        stack[last].elements.append(node.value)
                    }
                    stack[last].position += 1
                    finished = nil
                }
                let last = stack.count - 1
                let frame = stack[last]
                if frame.position == frame.objects.count {
                    let value: PropertyListValue
                    switch frame.kind {
                    case .dictionary: value = .dictionary(frame.holdsDuplicateKeys ? Self.keepingLastEntries(frame.dictionary) : frame.dictionary)
                    case .set: value = .set(frame.elements)
                    default: value = .array(frame.elements)
                    }
                    let node = Node(value: value, expandedCount: frame.total, height: frame.childHeight &+ 1)
                    stack.removeLast()
                    session.endContainer(uid: frame.uid, type: nodeType, value: node)
                    finished = node
                    continue
                }
                let position = frame.position
                let component: ArchiveKeyPath.Component
                if let keys = frame.keys {
                    let key = try session.withPath(.index(position)) { () throws(ArchiveError) in
                        try decoder.decode(String.self, reference: keys[position])
                    }
                    // Readers disagree on which of two equal keys counts, so a tree never holds
                    // both: refused, or the last kept once the dictionary is complete.
                    if frame.dictionary[key] != nil {
                        guard session.keepsLastDuplicateDictionaryKey else {
                            throw session.duplicateDictionaryKeyError(keys[position], uid: frame.uid)
                        }
                        stack[last].holdsDuplicateKeys = true
                    }
                    // The key counts as a value, as the property-list readers count it.
                    try session.countTreeValues(1, into: &stack[last].total, uid: frame.uid)
                    stack[last].key = key
                    component = .key(key)
                } else {
                    component = .index(position)
                }
                session.pushPath(component)
                pathDepth += 1
                let reference = frame.objects[position]
                guard !reference.isNull else {
                    throw session.error(.valueNotFound, frame.keys == nil ? "element \(position) is $null" : "the value of key \(stack[last].key.excerptForMessage(128)) is $null", uid: frame.uid)
                }
                finished = try open(try session.index(reference), decoder: decoder, stack: &stack)
            }
        } catch {
            // Unwind what the walk holds: the path it pushed and the containers it marked.
            while pathDepth > 0 {
                session.popPath()
                pathDepth -= 1
            }
            while let frame = stack.popLast() { session.unmarkContainer(uid: frame.uid) }
            throw error
        }
    }

    /// A scalar or an already decoded container as a finished node; otherwise the container is
    /// marked as being decoded and pushed, and nil returned.
    private static func open(_ uid: Int, decoder: KeyedArchiveDecoder, stack: inout [Frame]) throws(ArchiveError) -> Node? {
        let session = decoder.session
        switch session.object(uid) {
        case .string(let string):
            try session.admitPrimitive(.strings, uid: uid, requested: requested)
            return Node(value: .string(string), expandedCount: 1)
        case .integer, .real, .bool:
            return Node(value: try ArchiveNumberDecoding.scalar(uid: uid, session: session, requested: requested), expandedCount: 1)
        case .data(let bytes):
            try session.admitPrimitive(.data, uid: uid, requested: requested)
            return Node(value: .data(bytes), expandedCount: 1)
        case .date(let date):
            try session.admitPrimitive(.dates, uid: uid, requested: requested)
            return Node(value: .date(date), expandedCount: 1)
        case .instance:
            break
        default:
            throw session.error(.typeMismatch, "expected a property-list object, found \(session.describe(uid))", uid: uid)
        }
        let kind = try session.foundationKind(ofInstance: uid, requested: requested)
        switch kind {
        case .string:
            return Node(value: .string(try ArchiveStringDecoding.decode(uid: uid, session: session)), expandedCount: 1)
        case .data:
            return Node(value: .data(try DataBytes.decode(uid: uid, session: session)), expandedCount: 1)
        case .date:
            let seconds = try Date.decode(uid: uid, session: session).timeIntervalSinceReferenceDate
            return Node(value: .date(PropertyListDate(secondsSinceReferenceDate: seconds)), expandedCount: 1)
        case .array, .set, .dictionary:
            if case let known as Node = session.decodedContainer(uid: uid, type: nodeType) {
                let maximumDepth = session.options.maximumDepth
                guard stack.count &+ known.height <= maximumDepth else {
                    throw session.error(.depthLimitExceeded, "a shared collection \(known.height) levels deep, referenced \(stack.count) levels down, nests deeper than \(maximumDepth)", uid: uid)
                }
                guard ThreadStackLimit.canHoldValue(depth: stack.count &+ known.height) else {
                    throw session.error(.stackExhausted, PropertyListError.valueTooDeepForStack(stack.count &+ known.height).message, uid: uid)
                }
                return known
            }
            guard let instance = try session.foundationInstance(uid, kind: kind, requested: requested) else {
                throw session.error(.typeMismatch, "expected an \(kind.defaultNames.first ?? kind.rawValue), found \(session.describe(uid))", uid: uid)
            }
            let objects = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.objects", uid: uid, session: session)
            var keys: ArchiveReferenceList?
            if kind == .dictionary {
                let stored = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.keys", uid: uid, session: session)
                guard stored.count == objects.count else {
                    throw session.error(.valueOutOfRange, "NS.keys has \(stored.count) entries but NS.objects has \(objects.count)", uid: uid)
                }
                keys = stored
            }
            guard ThreadStackLimit.canHoldValue(depth: stack.count &+ 1) else {
                throw session.error(.stackExhausted, PropertyListError.valueTooDeepForStack(stack.count &+ 1).message, uid: uid)
            }
            try session.beginContainer(uid: uid, type: nodeType, count: objects.count, describing: PropertyListValue.self)
            stack.append(Frame(uid: uid, kind: kind, keys: keys, objects: objects))
            return nil
        case let other:
            throw session.error(.classNotAllowed, "an \(other.defaultNames.first ?? other.rawValue) is not a property-list value", uid: uid)
        }
    }
}

// MARK: The Codable bridge

extension KeyedArchiveEncoder {
    /// Encodes a `Codable` value under `key` as Apple's `NSKeyedArchiver.encodeEncodable(_:forKey:)`
    /// does: as the tree of `NSMutableDictionary`, `NSMutableArray` and plist values that
    /// `PropertyListEncoder` makes of it (`PropertyListValueEncoder` (module `PropertyList`)). An archive
    /// of it opens with `decodeDecodable(_:forKey:)` on Apple's platforms and with
    /// ``KeyedArchiveDecoder/decodeDecodable(_:forKey:)`` here. A nil optional is stored as a
    /// reference to `$null`, for which both return nil (inside a value, nil is the string
    /// `"$null"`, as `PropertyListEncoder` writes it).
    /// - Throws: ``ArchiveError/Code/modelError`` when the value's `encode(to:)` throws or
    ///   encodes nothing, with the `Codable` coding path after `key` in the message;
    ///   ``ArchiveError/Code/stackExhausted`` when the value nests too deep for the thread's stack.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws(ArchiveError) {
        // A nil optional is no object at all, as for encode(_:forKey:): Apple's
        // decodeDecodable(_:forKey:) and ours return nil for the $null reference.
        if Self.isNilOptional(value) {
            return try encode(ArchivedPropertyListTree?.none, forKey: key)
        }
        let tree: PropertyListValue
        do {
            tree = try PropertyListValueEncoder().encode(value)
        } catch let failure as EncodingError {
            if case .invalidValue(_, let context) = failure, let stop = Self.stackStop(context.underlyingError) {
                throw ArchiveError(.stackExhausted, stop.message, keyPath: KeyedArchiveDecoder.keyPath(keyPath.appending(key: key), extendedBy: context.codingPath))
            }
            throw ArchiveError(.modelError, "encoding \(T.self) through Codable threw: \(String(describing: failure).escapedForMessage)", keyPath: keyPath.appending(key: key),
                               underlyingDescription: "\(failure)", underlyingError: failure)
        } catch {
            throw ArchiveError(.modelError, "encoding \(T.self) through Codable threw: \(String(describing: error).escapedForMessage)", keyPath: keyPath.appending(key: key),
                               underlyingDescription: "\(error)", underlyingError: error)
        }
        try encode(ArchivedPropertyListTree(value: tree, mutableContainers: true), forKey: key)
    }

    /// The stack stop of a `Codable` coder, if that is what `underlying` is.
    static func stackStop(_ underlying: (any Error)?) -> PropertyListError? {
        guard let stop = underlying as? PropertyListError, stop.code == .stackExhausted else { return nil }
        return stop
    }
}

extension KeyedArchiveDecoder {
    /// Decodes a `Codable` value stored under `key` by `encodeEncodable(_:forKey:)` (ours or
    /// Apple's): the property-list tree is read with the registry's Foundation classes and
    /// primitive policy, then decoded by `PropertyListValueDecoder` (module `PropertyList`). nil when the
    /// key is absent or `$null`, as Apple's `decodeDecodable(_:forKey:)`.
    /// - Throws: ``ArchiveError``: the tree's own faults as for any object; a value that does not
    ///   fit `T` as ``ArchiveError/Code/typeMismatch``, ``ArchiveError/Code/valueNotFound`` or
    ///   ``ArchiveError/Code/valueOutOfRange``, its key path running on through the `Codable`
    ///   coding path (`root.settings.limits[2]`); an error `T`'s own `init(from:)` throws as
    ///   ``ArchiveError/Code/modelError``.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws(ArchiveError) -> T? {
        guard let tree = try decodeIfPresent(PropertyListValue.self, forKey: key) else { return nil }
        // Built only for an error: at every field of every level it would make deep graphs quadratic.
        var base: ArchiveKeyPath { keyPath.appending(key: key) }
        var valueDecoder = PropertyListValueDecoder()
        // Foundation on Linux archives a tree's booleans as the integers 0 and 1, and merges a 1
        // and a `true` of one archive into one object (it uniques numbers by `isEqual:`).
        valueDecoder.booleansAsIntegers = true
        do {
            return try valueDecoder.decode(type, from: tree)
        } catch let failure as DecodingError {
            throw Self.archiveError(failure, decoding: T.self, under: base, uid: uid)
        } catch {
            throw ArchiveError(.modelError, "decoding \(T.self) through Codable threw: \(String(describing: error).escapedForMessage)", keyPath: base, uid: uid,
                               underlyingDescription: "\(error)", underlyingError: error)
        }
    }

    static func archiveError(_ failure: DecodingError, decoding type: Any.Type, under base: ArchiveKeyPath, uid: PropertyListUID?) -> ArchiveError {
        let code: ArchiveError.Code
        let context: DecodingError.Context
        switch failure {
        case .typeMismatch(_, let found): code = .typeMismatch; context = found
        case .valueNotFound(_, let found): code = .valueNotFound; context = found
        case .keyNotFound(let key, let found):
            code = .valueNotFound
            context = DecodingError.Context(codingPath: found.codingPath + [key], debugDescription: found.debugDescription)
        case .dataCorrupted(let found):
            if let stop = KeyedArchiveEncoder.stackStop(found.underlyingError) {
                return ArchiveError(.stackExhausted, stop.message, keyPath: keyPath(base, extendedBy: found.codingPath), uid: uid)
            }
            code = .valueOutOfRange; context = found
        @unknown default:
            return ArchiveError(.modelError, "decoding \(type) through Codable failed: \(String(describing: failure).escapedForMessage)", keyPath: base, uid: uid, underlyingDescription: "\(failure)", underlyingError: failure)
        }
        return ArchiveError(code, "decoding \(type) through Codable: \(context.debugDescription.escapedForMessage)", keyPath: keyPath(base, extendedBy: context.codingPath), uid: uid)
    }

    /// `base` followed by a `Codable` coding path.
    static func keyPath(_ base: ArchiveKeyPath, extendedBy codingPath: [any CodingKey]) -> ArchiveKeyPath {
        var path = base
        for key in codingPath {
            // A position in an unkeyed container is spelled "Index N" by every Codable decoder;
            // an integer-backed key of a keyed container is a key, shown by its name.
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                path = path.appending(index: index)
            } else {
                path = path.appending(key: key.stringValue)
            }
        }
        return path
    }
}

extension KeyedArchiver {
    /// A `Codable` value under a top-level key (see ``KeyedArchiveEncoder/encodeEncodable(_:forKey:)``).
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String = "root") throws(ArchiveError) {
        try topLevelEncoder.encodeEncodable(value, forKey: key)
    }
}

extension KeyedUnarchiver {
    /// A `Codable` value under a top-level key (see ``KeyedArchiveDecoder/decodeDecodable(_:forKey:)``);
    /// nil when the key is absent or `$null`.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String = "root") throws(ArchiveError) -> T? {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeDecodable(type, forKey: key) }
    }
}
