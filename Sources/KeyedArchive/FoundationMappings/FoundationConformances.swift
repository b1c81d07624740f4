#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// How Swift's value types map to Foundation's archived classes (the shapes NSKeyedArchiver
// writes, measured on the corpus: NSArray/NSSet `NS.objects`, NSDictionary `NS.keys` +
// `NS.objects`, NSMutableString `NS.string`, NSMutableData `NS.data`, NSDate `NS.time`, NSURL
// `NS.base` + `NS.relative`, NSUUID `NS.uuidbytes`). Decoding admits a Foundation class only
// where the requested Swift type maps to it, and only under the names the registry lists.

// MARK: Strings

extension String: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        encoder.session.encodeString(self)
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> String {
        try ArchiveStringDecoding.decode(uid: try decoder.session.index(reference), session: decoder.session)
    }
}

enum ArchiveStringDecoding {
    static func decode(uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> String {
        if let string = session.indexedPlainString(uid) { return string }
        if case .string(let string) = session.object(uid) {
            try session.admitPrimitive(.strings, uid: uid, requested: "String")
            return string
        }
        guard let instance = try session.foundationInstance(uid, kind: .string, requested: "String") else {
            throw session.error(.typeMismatch, "expected a string, found \(session.describe(uid))", uid: uid)
        }
        if let value = instance.value(forStoredKey: "NS.string") {
            switch value {
            case .string(let string): return string
            case .uid(let target):
                if case .string(let string) = session.object(try session.index(target)) { return string }
                throw session.error(.typeMismatch, "NS.string refers to \(session.describe(try session.index(target))), expected a string", uid: uid)
            default:
                throw session.error(.typeMismatch, "NS.string is \(value.kindNameWithArticle), expected a string", uid: uid)
            }
        }
        if case .data(let bytes)? = instance.value(forStoredKey: "NS.bytes") {
            guard let string = XMLTextValidation.string(validating: bytes) else {
                throw session.error(.valueOutOfRange, "NS.bytes is not valid UTF-8", uid: uid)
            }
            return string
        }
        throw session.error(.valueNotFound, "string object has neither NS.string nor NS.bytes", uid: uid)
    }
}

// MARK: Data

extension Data: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        encoder.session.encodeData([UInt8](self))
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Data {
        Data(try DataBytes.decode(uid: try decoder.session.index(reference), session: decoder.session))
    }
}

enum DataBytes {
    static func decode(uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> [UInt8] {
        if case .data(let bytes) = session.object(uid) {
            try session.admitPrimitive(.data, uid: uid, requested: "Data")
            return bytes
        }
        guard let instance = try session.foundationInstance(uid, kind: .data, requested: "Data") else {
            throw session.error(.typeMismatch, "expected data, found \(session.describe(uid))", uid: uid)
        }
        for key in ["NS.data", "NS.bytes"] {
            guard let value = instance.value(forStoredKey: key) else { continue }
            switch value {
            case .data(let bytes): return bytes
            case .uid(let target):
                if case .data(let bytes) = session.object(try session.index(target)) { return bytes }
                throw session.error(.typeMismatch, "\(key) refers to \(session.describe(try session.index(target))), expected data", uid: uid)
            default:
                throw session.error(.typeMismatch, "\(key) is \(value.kindNameWithArticle), expected data", uid: uid)
            }
        }
        throw session.error(.valueNotFound, "data object has no NS.data", uid: uid)
    }
}

// MARK: Date

extension Date: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let seconds = timeIntervalSinceReferenceDate
        return try encoder.encodeObject(classes: FoundationClass.date.archivedChain) { fields in
            try fields.encode(seconds, forKey: "NS.time")
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Date {
        try decode(uid: try decoder.session.index(reference), session: decoder.session)
    }

    static func decode(uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> Date {
        if case .date(let date) = session.object(uid) {
            try session.admitPrimitive(.dates, uid: uid, requested: "Date")
            let value = Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
            if session.identities != nil { session.recordIdentity(value, uid: uid) }
            return value
        }
        let fields = try session.foundationFields(uid, kind: .date, requested: "Date")
        return try session.decodeContainer(Date.self, uid: uid, count: 0) { () throws(ArchiveError) in
            Date(timeIntervalSinceReferenceDate: try fields.decode(Double.self, forKey: "NS.time"))
        }
    }
}

// MARK: URL

extension URL: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let base = baseURL
        let relative = relativeString
        return try encoder.encodeObject(classes: FoundationClass.url.archivedChain) { fields in
            try fields.encode(base, forKey: "NS.base")
            try fields.encode(relative, forKey: "NS.relative")
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> URL {
        let session = decoder.session
        let uid = try decoder.session.index(reference)
        let fields = try session.foundationFields(uid, kind: .url, requested: "URL")
        // Through decodeContainer: a chain of NS.base references is depth-limited and a URL
        // that is its own base is a cycle error.
        return try session.decodeContainer(URL.self, uid: uid, count: 0) { () throws(ArchiveError) in
            let base = try fields.decodeIfPresent(URL.self, forKey: "NS.base")
            let relative = try fields.decode(String.self, forKey: "NS.relative")
            guard let url = URL(string: relative, relativeTo: base) else {
                throw session.error(.valueOutOfRange, "NS.relative \"\(relative.excerptForMessage(80))\" is not a valid URL", uid: uid)
            }
            return url
        }
    }
}

// MARK: UUID

extension UUID: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let value = uuid
        let bytes = [value.0, value.1, value.2, value.3, value.4, value.5, value.6, value.7,
                     value.8, value.9, value.10, value.11, value.12, value.13, value.14, value.15]
        return try encoder.encodeObject(classes: FoundationClass.uuid.archivedChain) { fields in
            try fields.encodeBytes(bytes, forKey: "NS.uuidbytes")
        }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UUID {
        let session = decoder.session
        let uid = try decoder.session.index(reference)
        let fields = try session.foundationFields(uid, kind: .uuid, requested: "UUID")
        // decodeBytes names the key in its own errors.
        let bytes = try fields.decodeBytes(forKey: "NS.uuidbytes")
        guard bytes.count == 16 else {
            throw session.error(.valueOutOfRange, "NS.uuidbytes holds \(bytes.count) bytes, a UUID has 16", uid: uid)
        }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

// MARK: NSNull

/// `NSNull`: a placeholder object (an array cannot hold nil, so Foundation stores this instead).
public struct ArchiveNull: ArchiveObjectCodable, Hashable, Sendable {
    /// The null placeholder.
    public init() {}

    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: FoundationClass.null.archivedChain) { _ in }
    }

    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveNull {
        let session = decoder.session
        let uid = try decoder.session.index(reference)
        guard try session.foundationInstance(uid, kind: .null, requested: "ArchiveNull") != nil else {
            throw session.error(.typeMismatch, "expected NSNull, found \(session.describe(uid))", uid: uid)
        }
        return ArchiveNull()
    }
}

// MARK: Collections

@usableFromInline
enum ArchiveArrayDecoding {
    /// The references in `NS.objects` of an `NSArray`/`NSSet`-shaped instance.
    @usableFromInline
    static func elementReferences(_ instance: ArchiveInstanceView, key: String, uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> ArchiveReferenceList {
        if let references = instance.fields.references(forStoredKey: key) { return references }
        guard let value = instance.value(forStoredKey: key) else {
            throw session.error(.valueNotFound, "the collection has no \(key)", uid: uid)
        }
        guard case .array(let elements) = value else {
            throw session.error(.typeMismatch, "\(key) is \(value.kindNameWithArticle), expected an array of references", uid: uid)
        }
        var references: [ArchiveReference] = []
        references.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            guard case .uid(let reference) = element else {
                throw session.error(.typeMismatch, "\(key)[\(position)] is \(element.kindNameWithArticle), expected a reference", uid: uid)
            }
            references.append(ArchiveReference(uid: reference))
        }
        return ArchiveReferenceList(references)
    }

    @inlinable
    static func decodeElements<T>(uid: Int, requested: @autoclosure () -> String, kind: FoundationClass = .array, session: ArchiveDecodingSession,
                                  element: (ArchiveReference) throws(ArchiveError) -> T) throws(ArchiveError) -> [T] {
        guard let instance = try session.foundationInstance(uid, kind: kind, requested: requested()) else {
            throw session.error(.typeMismatch, "expected an \(kind == .set ? "NSSet" : "NSArray") for \(requested()), found \(session.describe(uid))", uid: uid)
        }
        let references = try elementReferences(instance, key: "NS.objects", uid: uid, session: session)
        return try session.decodeContainer([T].self, uid: uid, count: references.count) { () throws(ArchiveError) in
            var result: [T] = []
            // An empty array gets storage of its own when identities are noted: Swift's shared
            // empty storage would make every empty array look like one (ArchiveIdentityTable).
            result.reserveCapacity(references.count == 0 && session.identities != nil ? 1 : references.count)
            for position in 0..<references.count {
                let reference = references[position]
                guard !reference.isNull else {
                    throw session.error(.valueNotFound, "element \(position) is $null", uid: uid)
                }
                let value = try session.withPath(.index(position)) { () throws(ArchiveError) in try element(reference) }
                result.append(value)
            }
            return result
        }
    }
}

extension Array: ArchiveObjectEncodable where Element: ArchiveObjectEncodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: FoundationClass.array.archivedChain) { fields in
            try fields.encodeReferenceArray(self, forKey: "NS.objects", keyOnPath: false)
        }
    }
}

extension Array: ArchiveObjectDecodable where Element: ArchiveObjectDecodable {
    @inlinable
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> [Element] {
        try ArchiveArrayDecoding.decodeElements(uid: try decoder.session.index(reference), requested: "[\(Element.self)]", session: decoder.session) { (element: ArchiveReference) throws(ArchiveError) in
            try decoder.decode(Element.self, reference: element)
        }
    }
}

extension Set: ArchiveObjectEncodable where Element: ArchiveObjectEncodable & Comparable {
    /// Elements are written in ascending order, so that the bytes do not depend on Swift's
    /// per-process hash seed.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let ordered = sorted()
        return try encoder.encodeObject(classes: FoundationClass.set.archivedChain) { fields in
            try fields.encodeReferenceArray(ordered, forKey: "NS.objects", keyOnPath: false)
        }
    }
}

extension Set: ArchiveObjectDecodable where Element: ArchiveObjectDecodable {
    @inlinable
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Set<Element> {
        let uid = try decoder.session.index(reference)
        // Kept as the set (not only its elements), so that every reference to one NSSet gets
        // the same Set: one value, which an ArchiveIdentityTable can tell shared.
        return try decoder.session.decodeContainer(Set<Element>.self, uid: uid, count: 0) { () throws(ArchiveError) in
            let elements = try ArchiveArrayDecoding.decodeElements(uid: uid, requested: "Set<\(Element.self)>", kind: .set, session: decoder.session) { (element: ArchiveReference) throws(ArchiveError) in
                try decoder.decode(Element.self, reference: element)
            }
            // Storage of its own even when empty, when identities are noted (as for arrays).
            var set = Set<Element>(minimumCapacity: elements.isEmpty && decoder.session.identities != nil ? 1 : elements.count)
            for element in elements { set.insert(element) }
            return set
        }
    }
}

extension Dictionary: ArchiveObjectEncodable where Key: ArchiveObjectEncodable & Comparable, Value: ArchiveObjectEncodable {
    /// Entries are written in ascending key order, so that the bytes do not depend on Swift's
    /// per-process hash seed; all keys are encoded before the values, as Foundation does.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        // This conformance runs unspecialized for a model in another module: sorting, mapping
        // and element encoding through generic witnesses and run-time metadata cost ~20k
        // instructions for a two-entry dictionary. `[String: String]` (notes, attributes) is
        // common enough to be sent to a copy the compiler specializes; the bytes are the same.
        // (The types are checked equal first, so the bit cast only renames the type; a
        // dynamic `as?` cast of a dictionary costs more than the encoding it saves.)
        if Key.self == String.self, Value.self == String.self {
            return try unsafeBitCast(self, to: [String: String].self).encodeSortedEntries(in: encoder)
        }
        return try encodeSortedEntries(in: encoder)
    }

    func encodeSortedEntries(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        let ordered = sorted { $0.key < $1.key }
        return try encoder.encodeObject(classes: FoundationClass.dictionary.archivedChain) { fields in
            // On the key path as decoding names them: keys by index, values by their key.
            try fields.encodeReferenceArray(ordered.lazy.map { $0.key }, forKey: "NS.keys", keyOnPath: false)
            try fields.encodeReferenceArray(ordered.lazy.map { $0.value }, forKey: "NS.objects", keyOnPath: false) { position in
                (ordered[position].key as? String).map { .key($0) } ?? .index(position)
            }
        }
    }
}

extension Dictionary: ArchiveObjectDecodable where Key: ArchiveObjectDecodable, Value: ArchiveObjectDecodable {
    @inlinable
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> [Key: Value] {
        // As for encoding: `[String: String]` goes to a specialized copy of the same code.
        if Key.self == String.self, Value.self == String.self {
            return unsafeBitCast(try [String: String].decodeEntries(archiveReference: reference, from: decoder), to: [Key: Value].self)
        }
        return try decodeEntries(archiveReference: reference, from: decoder)
    }

    @inlinable
    static func decodeEntries(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> [Key: Value] {
        let session = decoder.session
        let uid = try decoder.session.index(reference)
        // Type names are made only for a message: interpolating them costs thousands of instructions.
        func requested() -> String { "[\(Key.self): \(Value.self)]" }
        guard let instance = try session.foundationInstance(uid, kind: .dictionary, requested: requested()) else {
            throw session.error(.typeMismatch, "expected an NSDictionary for \(requested()), found \(session.describe(uid))", uid: uid)
        }
        let keys = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.keys", uid: uid, session: session)
        let objects = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.objects", uid: uid, session: session)
        guard keys.count == objects.count else {
            throw session.error(.valueOutOfRange, "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)", uid: uid)
        }
        return try session.decodeContainer([Key: Value].self, uid: uid, count: keys.count) { () throws(ArchiveError) in
            // Sized when made: reserving on an empty dictionary allocates, then moves to a second storage.
            // Storage of its own even when empty, when identities are noted (as for arrays).
            var result = [Key: Value](minimumCapacity: keys.count == 0 && session.identities != nil ? 1 : keys.count)
            for position in 0..<keys.count {
                let key = try session.withPath(.index(position)) { () throws(ArchiveError) in
                    try decoder.decode(Key.self, reference: keys[position])
                }
                let component: ArchiveKeyPath.Component = (key as? String).map { .key($0) } ?? .index(position)
                let value = try session.withPath(component) { () throws(ArchiveError) in
                    try decoder.decode(Value.self, reference: objects[position])
                }
                // Two equal keys: readers disagree on which entry counts (Docs/Security.md).
                guard result.updateValue(value, forKey: key) == nil || session.keepsLastDuplicateDictionaryKey else {
                    throw session.duplicateDictionaryKeyError(keys[position], uid: uid)
                }
            }
            return result
        }
    }
}

// MARK: Numbers (NSNumber objects, as in collections)

enum ArchiveNumberDecoding {
    static func scalar(uid: Int, session: ArchiveDecodingSession, requested: @autoclosure () -> String) throws(ArchiveError) -> PropertyListValue {
        switch session.object(uid) {
        case .integer(let integer):
            try session.admitPrimitive(.integers, uid: uid, requested: requested())
            return .integer(integer)
        case .real(let real):
            try session.admitPrimitive(.reals, uid: uid, requested: requested())
            return .real(real)
        case .bool(let flag):
            try session.admitPrimitive(.booleans, uid: uid, requested: requested())
            return .bool(flag)
        default:
            throw session.error(.typeMismatch, "expected a number for \(requested()), found \(session.describe(uid))", uid: uid)
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, reference: ArchiveReference, session: ArchiveDecodingSession) throws(ArchiveError) -> I {
        let uid = try session.index(reference)
        let value = try scalar(uid: uid, session: session, requested: "\(I.self)")
        guard case .integer(let integer) = value else {
            throw session.error(.typeMismatch, "expected an integer for \(I.self), found \(value.kindNameWithArticle)", uid: uid)
        }
        if let signed = integer.int64Value, let exact = I(exactly: signed) { return exact }
        if let unsigned = integer.uint64Value, let exact = I(exactly: unsigned) { return exact }
        throw session.error(.valueOutOfRange, "\(integer) does not fit \(I.self)", uid: uid)
    }

    static func double(reference: ArchiveReference, session: ArchiveDecodingSession) throws(ArchiveError) -> Double {
        try double(uid: try session.index(reference), session: session)
    }

    static func double(uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> Double {
        switch try scalar(uid: uid, session: session, requested: "Double") {
        case .real(let real): return real.doubleValue
        case .integer(let integer):
            if let signed = integer.int64Value { return Double(signed) }
            if let unsigned = integer.uint64Value { return Double(unsigned) }
            throw session.error(.valueOutOfRange, "\(integer) does not fit Double", uid: uid)
        default:
            throw session.error(.typeMismatch, "expected a real, found a boolean", uid: uid)
        }
    }
}

extension Int: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Int { try ArchiveNumberDecoding.integer(Int.self, reference: reference, session: decoder.session) }
}

extension Int8: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Int8 { try ArchiveNumberDecoding.integer(Int8.self, reference: reference, session: decoder.session) }
}

extension Int16: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Int16 { try ArchiveNumberDecoding.integer(Int16.self, reference: reference, session: decoder.session) }
}

extension Int32: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Int32 { try ArchiveNumberDecoding.integer(Int32.self, reference: reference, session: decoder.session) }
}

extension Int64: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(self))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Int64 { try ArchiveNumberDecoding.integer(Int64.self, reference: reference, session: decoder.session) }
}

extension UInt: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(UInt64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UInt { try ArchiveNumberDecoding.integer(UInt.self, reference: reference, session: decoder.session) }
}

extension UInt8: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UInt8 { try ArchiveNumberDecoding.integer(UInt8.self, reference: reference, session: decoder.session) }
}

extension UInt16: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UInt16 { try ArchiveNumberDecoding.integer(UInt16.self, reference: reference, session: decoder.session) }
}

extension UInt32: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(Int64(self)))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UInt32 { try ArchiveNumberDecoding.integer(UInt32.self, reference: reference, session: decoder.session) }
}

extension UInt64: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.integer(PropertyListInteger(self))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> UInt64 { try ArchiveNumberDecoding.integer(UInt64.self, reference: reference, session: decoder.session) }
}

extension Double: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.real(.float64(self))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Double { try ArchiveNumberDecoding.double(reference: reference, session: decoder.session) }
}

extension Float: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.real(.float32(self))) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Float {
        let uid = try decoder.session.index(reference)
        if case .real(.float32(let value)) = decoder.session.object(uid) {
            try decoder.session.admitPrimitive(.reals, uid: uid, requested: "Float")
            return value
        }
        let double = try ArchiveNumberDecoding.double(uid: uid, session: decoder.session)
        guard let float = Float(fitting: double) else {
            throw decoder.session.error(.valueOutOfRange, "\(double) is too large to fit Float", uid: uid)
        }
        return float
    }
}

extension Bool: ArchiveObjectCodable {
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { encoder.session.encodeNumber(.bool(self)) }
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Bool {
        let uid = try decoder.session.index(reference)
        guard case .bool(let flag) = try ArchiveNumberDecoding.scalar(uid: uid, session: decoder.session, requested: "Bool") else {
            throw decoder.session.error(.typeMismatch, "expected a boolean, found \(decoder.session.describe(uid))", uid: uid)
        }
        return flag
    }
}
