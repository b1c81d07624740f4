#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// Decodes a `Codable` value from a ``PropertyListValue``, with the conventions of Foundation's
/// `PropertyListDecoder` (the inverse of ``PropertyListValueEncoder``): the string `"$null"` is
/// `nil`; an integer must fit the requested type exactly, and a real is accepted for an integer
/// only when it is a whole number that fits; a double is accepted for a `Float` within `Float`'s
/// range; `Date` and `Data` come from plist dates and data. Every fault is a `DecodingError`
/// with the coding path to the value.
///
/// The value is already bounded (a reader's depth and size limits made it), and decoding walks
/// it once, as deep as the requested type goes.
public struct PropertyListValueDecoder: Sendable {
    /// Handed to every `init(from:)` as the decoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with an empty ``userInfo``.
    public init() {}

    /// - Throws: `DecodingError` for a value that does not fit `T`, and `dataCorrupted` with a
    ///   ``PropertyListError`` of code ``PropertyListError/Code/stackExhausted`` as its underlying
    ///   error when the values nest so deep that the thread's stack would run out; whatever
    ///   `T`'s own `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: PropertyListValue) throws -> T {
        try PlistValueDecoding(value: value, path: .root, userInfo: userInfo.mapValues { $0 }, booleansAsIntegers: booleansAsIntegers,
                               stackLimit: ThreadStackLimit.current()).decodeValue(type)
    }

    /// Whether booleans and the integers 0 and 1 are read as each other. Off by default, as in
    /// Foundation's decoder; the keyed-archive bridge turns it on, because Foundation on Linux
    /// archives a tree's booleans as integers and merges a 1 and a `true` into one object.
    package var booleansAsIntegers = false
}

struct PlistValueDecoding: Decoder {
    /// nil for the value of a super decoder whose key is absent: every read then fails.
    let value: PropertyListValue?
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    let userInfo: [CodingUserInfoKey: Any]
    let booleansAsIntegers: Bool
    /// Where this thread's stack must stop: each nested value runs a type's own `init(from:)`,
    /// so the depth of the tree alone does not say how much stack the decode takes.
    let stackLimit: ThreadStackLimit

    private func present(_ type: Any.Type) throws -> PropertyListValue {
        guard let value else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "No value to decode \(type) from."))
        }
        if case .string(let string) = value, string == propertyListNullString {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "Expected \(type) but found null (\"$null\") instead."))
        }
        return value
    }

    private func mismatch(_ type: Any.Type, _ found: PropertyListValue) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(found.kindNameWithArticle) instead."))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let value = try present([String: Any].self)
        guard case .dictionary(let dictionary) = value else { throw mismatch([String: Any].self, value) }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(dictionary: dictionary, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try present([Any].self)
        guard case .array(let elements) = value else { throw mismatch([Any].self, value) }
        return PlistUnkeyedDecodingContainer(elements: elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        PlistSingleValueDecodingContainer(decoder: self)
    }

    /// `"$null"`, or no value at all (a super decoder whose key is absent), as Foundation's
    /// decoder reads both as nil.
    var isNull: Bool {
        guard let value else { return true }
        if case .string(let string) = value { return string == propertyListNullString }
        return false
    }

    func nested(_ value: PropertyListValue?, _ key: any CodingKey) -> PlistValueDecoding {
        PlistValueDecoding(value: value, path: path.appending(key), userInfo: userInfo, booleansAsIntegers: booleansAsIntegers, stackLimit: stackLimit)
    }

    // MARK: Values

    func decodeBool() throws -> Bool {
        let value = try present(Bool.self)
        switch value {
        case .bool(let flag): return flag
        case .integer(let integer) where booleansAsIntegers && integer.int64Value == 0: return false
        case .integer(let integer) where booleansAsIntegers && integer.int64Value == 1: return true
        default: throw mismatch(Bool.self, value)
        }
    }

    func decodeString() throws -> String {
        let value = try present(String.self)
        guard case .string(let string) = value else { throw mismatch(String.self, value) }
        return string
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let value = try present(type)
        switch value {
        case .integer(let integer):
            if let signed = integer.int64Value, let exact = T(exactly: signed) { return exact }
            if let unsigned = integer.uint64Value, let exact = T(exactly: unsigned) { return exact }
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Parsed property list number <\(integer)> does not fit in \(type)."))
        case .real(let real):
            guard let exact = T(exactly: real.doubleValue) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Parsed property list number <\(real)> does not fit in \(type)."))
            }
            return exact
        case .bool(let flag) where booleansAsIntegers:
            return flag ? 1 : 0
        default:
            throw mismatch(type, value)
        }
    }

    func decodeDouble() throws -> Double {
        let value = try present(Double.self)
        switch value {
        case .real(let real): return real.doubleValue
        case .integer(let integer):
            if let signed = integer.int64Value { return Double(signed) }
            if let unsigned = integer.uint64Value { return Double(unsigned) }
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Parsed property list number <\(integer)> does not fit in Double."))
        default:
            throw mismatch(Double.self, value)
        }
    }

    func decodeFloat() throws -> Float {
        let value = try present(Float.self)
        if case .real(.float32(let float)) = value { return float }
        let double = try decodeDouble()
        guard let float = Float(fitting: double) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Parsed property list number <\(double)> does not fit in Float."))
        }
        return float
    }

    @inline(never)
    private func stackExhausted(_ type: Any.Type) -> DecodingError {
        let underlying = ThreadStackLimit.exhausted(depth: path.count, type: type)
        return .dataCorrupted(.init(codingPath: codingPath, debugDescription: underlying.message, underlyingError: underlying))
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        // Dates and data are plist values of their own, as the encoder writes them.
        if type == Date.self {
            let value = try present(type)
            guard case .date(let date) = value else { throw mismatch(type, value) }
            if let result = Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate) as? T { return result }
        } else if type == Data.self {
            let value = try present(type)
            guard case .data(let bytes) = value else { throw mismatch(type, value) }
            if let result = Data(bytes) as? T { return result }
        }
        guard stackLimit.hasRoom() else { throw stackExhausted(T.self) }
        return try T(from: self)
    }
}

struct PlistKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let dictionary: PropertyListDictionary
    let decoder: PlistValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var seen = Set<String>()
        return dictionary.entries.compactMap { entry in
            guard seen.insert(entry.key).inserted else { return nil }
            return Key(stringValue: entry.key)
        }
    }

    func contains(_ key: Key) -> Bool { dictionary[key.stringValue] != nil }

    private func decoder(forKey key: any CodingKey) throws -> PlistValueDecoding {
        guard let value = dictionary[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return decoder.nested(value, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(forKey: key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(forKey: key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(forKey: key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(forKey: key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(forKey: key).decodeFloat() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(forKey: key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(forKey: key).decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(forKey: key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.nested(dictionary[PlistCodingKey.superKey.stringValue], PlistCodingKey.superKey)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.nested(dictionary[key.stringValue], key)
    }
}

struct PlistUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let elements: [PropertyListValue]
    let decoder: PlistValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }
    private(set) var currentIndex = 0

    init(elements: [PropertyListValue], decoder: PlistValueDecoding) {
        self.elements = elements
        self.decoder = decoder
    }

    /// The decoder of the next element; the index moves on only when `body` succeeds, as
    /// Foundation's does, so a caller may try another type at the same position.
    private mutating func next<T>(_ type: Any.Type, _ body: (PlistValueDecoding) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [PlistCodingKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        let result = try body(decoder.nested(elements[currentIndex], PlistCodingKey(index: currentIndex)))
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: codingPath + [PlistCodingKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        guard case .string(let string) = elements[currentIndex], string == propertyListNullString else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.decodeBool() } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.decodeString() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.decodeDouble() } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.decodeFloat() } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.decodeInteger(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try $0.decodeValue(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { $0 }
    }
}

struct PlistSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: PlistValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat() }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}
