#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

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
        try PropertyListTreeArchiving.decode(uid: try decoder.session.index(reference), decoder: decoder)
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
    /// such a value would walk every copy. So a tree is refused beyond the reader's
    /// `maximumExpandedValueCount`, as a property list read from a file is.
    struct Node: ArchiveObjectDecodable {
        let value: PropertyListValue
        let expandedCount: Int

        static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Node {
            try PropertyListTreeArchiving.node(uid: try decoder.session.index(reference), decoder: decoder)
        }
    }

    static func decode(uid: Int, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> PropertyListValue {
        try node(uid: uid, decoder: decoder).value
    }

    static func node(uid: Int, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> Node {
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
        switch try session.foundationKind(ofInstance: uid, requested: requested) {
        case .string:
            return Node(value: .string(try ArchiveStringDecoding.decode(uid: uid, session: session)), expandedCount: 1)
        case .data:
            return Node(value: .data(try DataBytes.decode(uid: uid, session: session)), expandedCount: 1)
        case .date:
            let seconds = try Date.decode(uid: uid, session: session).timeIntervalSinceReferenceDate
            return Node(value: .date(PropertyListDate(secondsSinceReferenceDate: seconds)), expandedCount: 1)
        case .array:
            return try decodeElements(uid: uid, kind: .array, decoder: decoder)
        case .set:
            return try decodeElements(uid: uid, kind: .set, decoder: decoder)
        case .dictionary:
            return try decodeDictionary(uid: uid, decoder: decoder)
        case let other:
            throw session.error(.classNotAllowed, "an \(other.defaultNames.first ?? other.rawValue) is not a property-list value", uid: uid)
        }
    }

    /// Adds `count` to a running expanded size, checked against the budget (saturating first).
    private static func grow(_ total: inout Int, by count: Int, uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) {
        let (sum, overflow) = total.addingReportingOverflow(count)
        total = overflow ? Int.max : sum
        let budget = session.options.propertyList.maximumExpandedValueCount
        guard total <= budget else {
            throw session.error(.budgetExceeded, "the property-list tree expands to more than \(budget) values (shared containers referenced repeatedly; maximumExpandedValueCount)", uid: uid)
        }
    }

    private static func decodeElements(uid: Int, kind: FoundationClass, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> Node {
        let session = decoder.session
        guard let instance = try session.foundationInstance(uid, kind: kind, requested: requested) else {
            throw session.error(.typeMismatch, "expected an \(kind == .set ? "NSSet" : "NSArray"), found \(session.describe(uid))", uid: uid)
        }
        let references = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.objects", uid: uid, session: session)
        return try session.decodeContainer(Node.self, uid: uid, count: references.count) { () throws(ArchiveError) in
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(references.count)
            var total = 1
            for position in 0..<references.count {
                let reference = references[position]
                guard !reference.isNull else {
                    throw session.error(.valueNotFound, "element \(position) is $null", uid: uid)
                }
                let element = try session.withPath(.index(position)) { () throws(ArchiveError) in
                    try decoder.decode(Node.self, reference: reference)
                }
                try grow(&total, by: element.expandedCount, uid: uid, session: session)
                elements.append(element.value)
            }
            return Node(value: kind == .set ? .set(elements) : .array(elements), expandedCount: total)
        }
    }

    private static func decodeDictionary(uid: Int, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> Node {
        let session = decoder.session
        guard let instance = try session.foundationInstance(uid, kind: .dictionary, requested: requested) else {
            throw session.error(.typeMismatch, "expected an NSDictionary, found \(session.describe(uid))", uid: uid)
        }
        let keys = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.keys", uid: uid, session: session)
        let objects = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.objects", uid: uid, session: session)
        guard keys.count == objects.count else {
            throw session.error(.valueOutOfRange, "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)", uid: uid)
        }
        return try session.decodeContainer(Node.self, uid: uid, count: keys.count) { () throws(ArchiveError) in
            var dictionary = PropertyListDictionary()
            var total = 1
            for position in 0..<keys.count {
                let key = try session.withPath(.index(position)) { () throws(ArchiveError) in
                    try decoder.decode(String.self, reference: keys[position])
                }
                let value = try session.withPath(.key(key)) { () throws(ArchiveError) in
                    try decoder.decode(Node.self, reference: objects[position])
                }
                // Readers disagree on which of two equal keys counts, so a tree never holds both.
                guard dictionary[key] == nil else {
                    throw session.error(.valueOutOfRange, "NSDictionary holds the key \(key.escapedForMessage) twice", uid: uid)
                }
                // The key counts as a value, as the property-list readers count it.
                try grow(&total, by: 1, uid: uid, session: session)
                try grow(&total, by: value.expandedCount, uid: uid, session: session)
                dictionary.append(key: key, value: value.value)
            }
            return Node(value: .dictionary(dictionary), expandedCount: total)
        }
    }
}

// MARK: The Codable bridge

extension KeyedArchiveEncoder {
    /// Encodes a `Codable` value under `key` as Apple's `NSKeyedArchiver.encodeEncodable(_:forKey:)`
    /// does: as the tree of `NSMutableDictionary`, `NSMutableArray` and plist values that
    /// `PropertyListEncoder` makes of it (``PropertyList/PropertyListValueEncoder``). An archive
    /// of it opens with `decodeDecodable(_:forKey:)` on Apple's platforms and with
    /// ``KeyedArchiveDecoder/decodeDecodable(_:forKey:)`` here.
    /// - Throws: ``ArchiveError/Code/modelError`` when the value's `encode(to:)` throws or
    ///   encodes nothing, with the `Codable` coding path after `key` in the message.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws(ArchiveError) {
        let tree: PropertyListValue
        do {
            tree = try PropertyListValueEncoder().encode(value)
        } catch {
            throw ArchiveError(.modelError, "encoding \(T.self) through Codable threw: \(String(describing: error).escapedForMessage)", keyPath: keyPath.appending(key: key),
                               underlyingDescription: "\(error)")
        }
        try encode(ArchivedPropertyListTree(value: tree, mutableContainers: true), forKey: key)
    }
}

extension KeyedArchiveDecoder {
    /// Decodes a `Codable` value stored under `key` by `encodeEncodable(_:forKey:)` (ours or
    /// Apple's): the property-list tree is read with the registry's Foundation classes and
    /// primitive policy, then decoded by ``PropertyList/PropertyListValueDecoder``. nil when the
    /// key is absent or `$null`, as Apple's `decodeDecodable(_:forKey:)`.
    /// - Throws: ``ArchiveError``: the tree's own faults as for any object; a value that does not
    ///   fit `T` as ``ArchiveError/Code/typeMismatch``, ``ArchiveError/Code/valueNotFound`` or
    ///   ``ArchiveError/Code/valueOutOfRange``, its key path running on through the `Codable`
    ///   coding path (`root.settings.limits[2]`); an error `T`'s own `init(from:)` throws as
    ///   ``ArchiveError/Code/modelError``.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws(ArchiveError) -> T? {
        guard let tree = try decodeIfPresent(PropertyListValue.self, forKey: key) else { return nil }
        let base = keyPath.appending(key: key)
        do {
            return try PropertyListValueDecoder().decode(type, from: tree)
        } catch let failure as DecodingError {
            throw Self.archiveError(failure, decoding: T.self, under: base, uid: uid)
        } catch {
            throw ArchiveError(.modelError, "decoding \(T.self) through Codable threw: \(String(describing: error).escapedForMessage)", keyPath: base, uid: uid,
                               underlyingDescription: "\(error)")
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
        case .dataCorrupted(let found): code = .valueOutOfRange; context = found
        @unknown default:
            return ArchiveError(.modelError, "decoding \(type) through Codable failed: \(String(describing: failure).escapedForMessage)", keyPath: base, uid: uid, underlyingDescription: "\(failure)")
        }
        var path = base
        for key in context.codingPath {
            path = key.intValue.map { path.appending(index: $0) } ?? path.appending(key: key.stringValue)
        }
        return ArchiveError(code, "decoding \(type) through Codable: \(context.debugDescription.escapedForMessage)", keyPath: path, uid: uid)
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
