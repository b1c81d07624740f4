import PropertyList

/// A `Codable` class or struct archived as an object of its own — its class name from the
/// registry, its coding keys as the object's fields — with no archiving code of its own: the
/// automatic archiving that reflection-based archivers gave Objective-C, done through the
/// conformance Swift synthesizes.
///
/// ```swift
/// final class Pilot: Codable, ArchiveCodableModel {
///     var name: String
///     var license: License            // a struct adopting ArchiveCodableModel: an object too
///     var airplanes: [Airplane]       // objects; a shared instance is stored once
///     var rating: Double?             // nil is $null, as NSCoder's encode(nil, forKey:) stores it
/// }
/// registry.register(Pilot.self)       // like any model; subclasses find their superclass
/// ```
///
/// Each stored property is a field under its coding key, stored as ``KeyedArchiveEncoder``
/// stores it: numbers and booleans inline (`encodeInteger:` and friends; an optional one as an
/// `NSNumber` object, so that nil can be `$null`), strings, dates, URLs,
/// UUIDs and data as their Foundation objects, collections as `NSArray`/`NSDictionary`/`NSSet`,
/// and other models (hand-written or `Codable`) as objects — a class instance referenced twice
/// is stored once and decodes to one instance, and a member of a registered family decodes as
/// the subclass the archive names. Any other `Codable` value is stored as
/// ``KeyedArchiveEncoder/encodeEncodable(_:forKey:)`` stores it. Decoding asks the registry for
/// every object's class before its initializer runs, exactly as for hand-written models.
///
/// A subclass implements `init(from:)` and `encode(to:)` as any `Codable` subclass does, and
/// passes its own coder to `super` (`try super.init(from: decoder)`): the superclass's fields
/// are the same object's fields, as in Objective-C (`superEncoder()` gives the same object too).
/// Back-references (an airplane pointing at its pilot) are not expressible through `Codable`:
/// a graph with cycles needs hand-written ``KeyedArchivable`` models. Nested containers
/// (`nestedContainer(keyedBy:forKey:)`) are refused; a nested `Codable` value serves instead.
public protocol ArchiveCodableModel: Codable, ArchiveObjectCodable, SendableMetatype {}

extension ArchiveCodableModel {
    /// Adds the model as an object of its registered class, its `encode(to:)` writing the
    /// fields (a class instance already in the archive is referenced, not written again).
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.session.encodeCodableModel(self)
    }

    /// Decodes the referenced object once the registry has admitted its class for `Self`,
    /// through the `init(from:)` of the type registered under that class name.
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Self {
        try decoder.session.decodeModel(Self.self, reference: reference)
    }
}

extension ArchiveRegistry {
    /// Registers a `Codable` model (``ArchiveCodableModel``) under an archived class name, as
    /// ``register(_:className:aliases:superclass:)-(T.Type,_,_,_)`` registers a hand-written
    /// one: the same names, aliases, superclass rules and class checks.
    public mutating func register<T: ArchiveCodableModel>(
        _ type: T.Type,
        className: String? = nil,
        aliases: [String] = [],
        superclass: Any.Type? = nil
    ) {
        let make: @Sendable (KeyedArchiveDecoder) throws -> ArchiveMadeModel
        if T.self is AnyClass {
            make = { decoder in .object(unsafeBitCast(try T(from: ArchiveModelDecoder(fields: decoder)), to: AnyObject.self)) }
        } else {
            make = { decoder in .value(ArchiveModelBox(try T(from: ArchiveModelDecoder(fields: decoder)))) }
        }
        register(T.self, make: make, className: className, aliases: aliases, superclass: superclass)
    }
}

extension ArchiveEncodingSession {
    /// A `Codable` model: found by identity if a class instance already in the archive, else an
    /// object of its registered class whose fields its `encode(to:)` writes.
    func encodeCodableModel<T: ArchiveCodableModel>(_ value: T) throws(ArchiveError) -> ArchiveReference {
        let object: AnyObject? = (type(of: value) is AnyClass) ? value as AnyObject : nil
        return try encodeModel(ofType: type(of: value), identity: object) { encoder in
            try value.encode(to: ArchiveModelEncoder(fields: encoder))
        }
    }
}

/// The refusal of what an archived `Codable` model cannot store: its fields are one object's
/// keys, so a coding container other than a keyed one has no place in it.
private func unsupportedContainer(_ what: String, keyPath: ArchiveKeyPath) -> ArchiveError {
    ArchiveError(.invalidState, "an archived Codable model stores keyed fields only, and \(what) has no place in its object; store a nested Codable value in a field instead",
                 keyPath: keyPath)
}

// MARK: Encoding

/// The `Encoder` an ``ArchiveCodableModel``'s `encode(to:)` writes through: every keyed
/// container it hands out writes the fields of the one object being encoded.
struct ArchiveModelEncoder: Encoder {
    let fields: KeyedArchiveEncoder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ArchiveModelKeyedEncoding<Key>(fields: fields))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        RefusedUnkeyedEncoding(keyPath: fields.keyPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        RefusedSingleValueEncoding(keyPath: fields.keyPath)
    }
}

struct ArchiveModelKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let fields: KeyedArchiveEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try fields.encode(String?.none, forKey: key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try fields.encode(value, forKey: key.stringValue) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // What the archive can store as an object (strings, dates, collections of them, models
        // of either kind) is stored as one; any other value as the Codable bridge's tree.
        if let object = value as? any ArchiveObjectEncodable {
            try encodeObject(object, forKey: key.stringValue)
        } else {
            try fields.encodeEncodable(value, forKey: key.stringValue)
        }
    }

    // A nil optional is stored as $null, as `encode(_:forKey:)` of a nil object stores it, where
    // the default would leave the key out: Foundation's `decodeObject(of:forKey:)` under secure
    // coding reads $null as nil but fails on a key that is not there.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return try encodeNil(forKey: key) }
        try encode(value, forKey: key)
    }

    private func encodeObject<T: ArchiveObjectEncodable>(_ value: T, forKey key: String) throws(ArchiveError) {
        try fields.encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusedKeyedEncoding<NestedKey>(keyPath: fields.keyPath.appending(key: key.stringValue)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        RefusedUnkeyedEncoding(keyPath: fields.keyPath.appending(key: key.stringValue))
    }

    /// The same object: a superclass's fields are its subclass's object's, as in Objective-C.
    mutating func superEncoder() -> any Encoder { ArchiveModelEncoder(fields: fields) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { ArchiveModelEncoder(fields: fields) }
}

/// A container handed out where the model's object has no place for one: each use throws.
struct RefusedKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let keyPath: ArchiveKeyPath
    var codingPath: [any CodingKey] { [] }
    private var refusal: ArchiveError { unsupportedContainer("a nested keyed container", keyPath: keyPath) }

    mutating func encodeNil(forKey key: Key) throws { throw refusal }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw refusal }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusedKeyedEncoding<NestedKey>(keyPath: keyPath))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { RefusedUnkeyedEncoding(keyPath: keyPath) }
    mutating func superEncoder() -> any Encoder { RefusedEncoder(keyPath: keyPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { RefusedEncoder(keyPath: keyPath) }
}

struct RefusedUnkeyedEncoding: UnkeyedEncodingContainer {
    let keyPath: ArchiveKeyPath
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    private var refusal: ArchiveError { unsupportedContainer("an unkeyed container", keyPath: keyPath) }

    mutating func encodeNil() throws { throw refusal }
    mutating func encode<T: Encodable>(_ value: T) throws { throw refusal }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RefusedKeyedEncoding<NestedKey>(keyPath: keyPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { RefusedEncoder(keyPath: keyPath) }
}

struct RefusedSingleValueEncoding: SingleValueEncodingContainer {
    let keyPath: ArchiveKeyPath
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { throw unsupportedContainer("a single-value container", keyPath: keyPath) }
    mutating func encode<T: Encodable>(_ value: T) throws { throw unsupportedContainer("a single-value container", keyPath: keyPath) }
}

struct RefusedEncoder: Encoder {
    let keyPath: ArchiveKeyPath
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(RefusedKeyedEncoding<Key>(keyPath: keyPath)) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { RefusedUnkeyedEncoding(keyPath: keyPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { RefusedSingleValueEncoding(keyPath: keyPath) }
}

// MARK: Decoding

/// The `Decoder` an ``ArchiveCodableModel``'s `init(from:)` reads through: every keyed container
/// reads the fields of the one object being decoded. Faults are ``ArchiveError``s with the key
/// path, passed through the synthesized initializer unchanged.
struct ArchiveModelDecoder: Decoder {
    let fields: KeyedArchiveDecoder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ArchiveModelKeyedDecoding<Key>(fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw unsupportedContainer("an unkeyed container", keyPath: fields.keyPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw unsupportedContainer("a single-value container", keyPath: fields.keyPath)
    }
}

struct ArchiveModelKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: KeyedArchiveDecoder
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] { fields.allKeys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields.contains(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let stored = fields.rawValue(forStoredKey: ArchiveKeys.escape(key.stringValue)) else { return true }
        if case .uid(let uid) = stored { return uid.value == 0 }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try fields.decode(type, forKey: key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try fields.decode(type, forKey: key.stringValue) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        // The mirror of encoding: an archivable type is read as the object it was stored as.
        if let archivable = T.self as? any ArchiveObjectDecodable.Type {
            return try decodeObject(archivable, forKey: key.stringValue)
        }
        guard let value = try fields.decodeDecodable(type, forKey: key.stringValue) else {
            throw fields.missingValue(T.self, key: key.stringValue)
        }
        return value
    }

    private func decodeObject<U: ArchiveObjectDecodable, T>(_ type: U.Type, forKey key: String) throws(ArchiveError) -> T {
        let value = try fields.decode(U.self, forKey: key)
        guard let typed = value as? T else {
            throw fields.error(.typeMismatch, "decoded \(U.self), which is not a \(T.self)", key: key)
        }
        return typed
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw unsupportedContainer("a nested keyed container", keyPath: fields.keyPath.appending(key: key.stringValue))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw unsupportedContainer("a nested unkeyed container", keyPath: fields.keyPath.appending(key: key.stringValue))
    }

    /// The same object, as for encoding.
    func superDecoder() throws -> any Decoder { ArchiveModelDecoder(fields: fields) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ArchiveModelDecoder(fields: fields) }
}
