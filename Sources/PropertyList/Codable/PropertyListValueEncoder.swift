#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// Encodes a `Codable` value as a ``PropertyListValue``, with the conventions of Foundation's
/// `PropertyListEncoder`: a keyed container is a dictionary, an unkeyed one an array, `nil` is
/// the string `"$null"`, `Date` and `Data` are plist dates and data, `Float` a 32-bit real, every
/// integer an integer (`UInt64` and `UInt` in the 16-byte form, as Foundation stores them),
/// a super encoder is stored under the key `"super"`, and a value that encodes nothing is an
/// empty dictionary. This is what `NSKeyedArchiver.encodeEncodable(_:forKey:)` archives.
///
/// Unlike Foundation's, whose dictionaries are unordered, the result is the same on every run:
/// a keyed container keeps the order in which its keys were first encoded (a struct's fields in
/// its `encode(to:)` order), and what a Swift `Dictionary` or `Set` encodes — in an order that
/// changes from process to process with Swift's hash seed — is sorted: keys and strings by their
/// UTF-8 bytes, integers by value, other values by their binary property-list bytes, pairs whose
/// keys encode alike by their values. This applies where the collection is encoded as a value
/// (through a container, or at the top); a type whose own `encode(to:)` passes its encoder on to
/// a collection's (`try set.encode(to: encoder)`) is seen as itself, and should encode the
/// collection through `singleValueContainer()` instead. Two keys of one `Dictionary` that
/// encode to the same key string leave one value, as in Foundation, which one depending on the
/// hash order.
public struct PropertyListValueEncoder: Sendable {
    /// Handed to every `encode(to:)` as the encoder's `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with an empty ``userInfo``.
    public init() {}

    /// - Throws: `EncodingError.invalidValue` when the value encodes nothing at all or uses a
    ///   container twice in a way no property list can hold, and with a ``PropertyListError`` of
    ///   code ``PropertyListError/Code/stackExhausted`` as its underlying error when the values
    ///   nest so deep that the thread's stack would run out; any error the value's
    ///   `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> PropertyListValue {
        let root = EncodedNode()
        let state = EncodingState(userInfo: userInfo)
        try PlistValueEncoding(node: root, path: .root, state: state).encodeValue(value)
        if let failure = state.failure { throw failure }
        guard let result = root.finished(topLevel: true) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return result
    }
}

/// The string Foundation's property-list coders write for `nil`.
let propertyListNullString = "$null"

/// A value under construction. A reference, because containers hand out nested containers and
/// super encoders that keep writing into their slot after the call that made them returned.
final class EncodedNode {
    enum Content {
        case unset
        case value(PropertyListValue)
        case dictionary(keys: [String], nodes: [EncodedNode], positions: [String: Int])
        case array([EncodedNode])
    }
    var content = Content.unset

    /// The node under `key`, made if absent; encoding a key again replaces its value in place.
    func child(forKey key: String) -> EncodedNode {
        guard case .dictionary(var keys, var nodes, var positions) = content else { return EncodedNode() }
        let node = EncodedNode()
        content = .unset
        if let position = positions[key] {
            nodes[position] = node
        } else {
            positions[key] = nodes.count
            keys.append(key)
            nodes.append(node)
        }
        content = .dictionary(keys: keys, nodes: nodes, positions: positions)
        return node
    }

    /// The node under `key` if there is one, else a new one: asking for a nested container or
    /// a super encoder at a key again continues the container there, as Foundation's encoder does.
    func existingChild(forKey key: String) -> EncodedNode {
        if case .dictionary(_, let nodes, let positions) = content, let position = positions[key] {
            return nodes[position]
        }
        return child(forKey: key)
    }

    func appendedChild() -> EncodedNode {
        guard case .array(var nodes) = content else { return EncodedNode() }
        let node = EncodedNode()
        content = .unset
        nodes.append(node)
        content = .array(nodes)
        return node
    }

    var count: Int {
        switch content {
        case .array(let nodes): return nodes.count
        case .dictionary(_, let nodes, _): return nodes.count
        default: return 0
        }
    }

    /// The value; a nested value that encoded nothing is an empty dictionary, as Foundation's.
    func finished(topLevel: Bool = false) -> PropertyListValue? {
        switch content {
        case .unset:
            return topLevel ? nil : .dictionary(PropertyListDictionary())
        case .value(let value):
            return value
        case .dictionary(let keys, let nodes, _):
            var entries: [PropertyListDictionary.Entry] = []
            entries.reserveCapacity(keys.count)
            for (key, node) in zip(keys, nodes) {
                entries.append(.init(key: key, value: node.finished() ?? .dictionary(PropertyListDictionary())))
            }
            return .dictionary(PropertyListDictionary(entries: entries))
        case .array(let nodes):
            return .array(nodes.map { $0.finished() ?? .dictionary(PropertyListDictionary()) })
        }
    }
}

/// The standard library's unordered collections, whose `encode(to:)` hands out their contents in
/// hash order: a `Set` its elements, a `Dictionary` its keys in a keyed container (string and
/// integer keys) or its keys and values alternating in an unkeyed one (other keys).
protocol UnorderedEncodable {
    static var encodesPairs: Bool { get }
}

extension Set: UnorderedEncodable {
    static var encodesPairs: Bool { false }
}

extension Dictionary: UnorderedEncodable {
    static var encodesPairs: Bool { true }
}

extension EncodedNode {
    /// Puts what an unordered collection encoded into the canonical order (see
    /// ``PropertyListValueEncoder``); `pairs`: an unkeyed container holds keys and values
    /// alternating, and the pairs are ordered by their keys.
    func sortContents(pairs: Bool) {
        switch content {
        case .dictionary(let keys, let nodes, _):
            let order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
            var positions: [String: Int] = [:]
            for (position, index) in order.enumerated() { positions[keys[index]] = position }
            content = .dictionary(keys: order.map { keys[$0] }, nodes: order.map { nodes[$0] }, positions: positions)
        case .array(let nodes):
            let width = pairs ? 2 : 1
            // A pair without its value (a misbehaving encode(to:)) leaves the array as it is.
            guard nodes.count % width == 0 else { return }
            let values = nodes.map { $0.finished() ?? .dictionary(PropertyListDictionary()) }
            // Pairs by their key, then (keys that encode alike: NaN, a field left out of the
            // coding keys) by their value, so that not even ties keep the hash order.
            let keys = CanonicalOrder.sortKeys(stride(from: 0, to: values.count, by: width).map { values[$0] })
            let tieBreakers = pairs ? CanonicalOrder.sortKeys(stride(from: 1, to: values.count, by: 2).map { values[$0] }) : keys
            let order = keys.indices.sorted { left, right in
                if keys[left] != keys[right] { return keys[left] < keys[right] }
                return tieBreakers[left] < tieBreakers[right]
            }
            content = .array(order.flatMap { nodes[($0 * width)..<($0 * width + width)] })
        default:
            break
        }
    }
}

/// A total order on values, for the contents of unordered collections: strings by their UTF-8
/// bytes and integers by value when all are of that kind, else every value by the bytes the
/// binary writer makes of it (deterministic, and equal exactly for equal values), each value's
/// bytes made once.
enum CanonicalOrder {
    enum SortKey: Comparable {
        case text([UInt8])
        case integer(PropertyListInteger)
        case bytes([UInt8])

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            switch (lhs, rhs) {
            case (.text(let left), .text(let right)), (.bytes(let left), .bytes(let right)):
                return left.lexicographicallyPrecedes(right)
            case (.integer(let left), .integer(let right)):
                // Equal in value, apart in form: the ordinary form first.
                if !(left < right), !(right < left) { return !left.isStoredAs128Bit && right.isStoredAs128Bit }
                return left < right
            default:
                // Never mixed: `sortKeys` makes all of one kind.
                return false
            }
        }
    }

    static func sortKeys(_ values: [PropertyListValue]) -> [SortKey] {
        if values.allSatisfy({ if case .string = $0 { return true } else { return false } }) {
            return values.map { value in
                guard case .string(let text) = value else { return .text([]) }
                return .text(Array(text.utf8))
            }
        }
        if values.allSatisfy({ if case .integer = $0 { return true } else { return false } }) {
            return values.map { value in
                guard case .integer(let integer) = value else { return .integer(PropertyListInteger(0)) }
                return .integer(integer)
            }
        }
        return values.map { .bytes((try? BinaryPropertyListWriter().write($0)) ?? []) }
    }
}

/// Shared by every encoder of one `encode` call: the first misuse, reported when it returns
/// (the container functions cannot throw, and Foundation's encoder traps instead).
final class EncodingState {
    let userInfo: [CodingUserInfoKey: Any]
    var failure: EncodingError?
    /// Where this thread's stack must stop: every nested value runs its own `encode(to:)`, and
    /// a caller's graph (a linked list of `Codable` classes) can nest without end.
    let stackLimit = ThreadStackLimit.current()

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        self.userInfo = userInfo.mapValues { $0 }
    }

    func fail(_ message: String, codingPath: [any CodingKey]) {
        guard failure == nil else { return }
        failure = EncodingError.invalidValue(message, .init(codingPath: codingPath, debugDescription: message))
    }
}

/// A coding key for positions and for `"super"`.
struct PlistCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    init(index: Int) { self.init(intValue: index) }

    static let superKey = PlistCodingKey(stringValue: "super")
}

struct PlistValueEncoding: Encoder {
    let node: EncodedNode
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    let state: EncodingState
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        switch node.content {
        case .unset:
            node.content = .dictionary(keys: [], nodes: [], positions: [:])
        case .dictionary:
            break
        default:
            state.fail("a keyed container was asked for where a value or an unkeyed container was already encoded", codingPath: codingPath)
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(node: node, path: path, state: state))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch node.content {
        case .unset:
            node.content = .array([])
        case .array:
            break
        default:
            state.fail("an unkeyed container was asked for where a value or a keyed container was already encoded", codingPath: codingPath)
        }
        return PlistUnkeyedEncodingContainer(node: node, path: path, state: state)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        PlistSingleValueEncodingContainer(encoder: self)
    }

    /// Stores a scalar in this node.
    func set(_ value: PropertyListValue) {
        guard case .unset = node.content else {
            state.fail("a single value was encoded where a value was already encoded", codingPath: codingPath)
            return
        }
        node.content = .value(value)
    }

    func encodeValue<T: Encodable>(_ value: T) throws {
        // The types Foundation's property-list encoder stores as plist values, not through
        // their own `encode(to:)` (which would write a number and bytes).
        if let date = value as? Date {
            set(.date(PropertyListDate(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)))
        } else if let data = value as? Data {
            set(.data([UInt8](data)))
        } else {
            guard state.stackLimit.hasRoom() else { throw stackExhausted(value) }
            try value.encode(to: self)
            // A type check, not a cast of the value: most values are not collections.
            if let unordered = T.self as? any UnorderedEncodable.Type {
                node.sortContents(pairs: unordered.encodesPairs)
            }
        }
    }

    @inline(never)
    private func stackExhausted<T>(_ value: T) -> EncodingError {
        let underlying = ThreadStackLimit.exhausted(depth: path.count, type: T.self)
        return .invalidValue(value, .init(codingPath: codingPath, debugDescription: underlying.message, underlyingError: underlying))
    }

    func nested(_ node: EncodedNode, _ key: any CodingKey) -> PlistValueEncoding {
        PlistValueEncoding(node: node, path: path.appending(key), state: state)
    }
}

private func integerValue<T: BinaryInteger>(_ value: T) -> PropertyListValue {
    .integer(PropertyListInteger(integer: value))
}

/// `UInt64` and `UInt` in the 16-byte form whatever their value, as Foundation's encoder stores
/// them (a 128-bit number: checked against `PropertyListEncoder`'s bytes).
private func integerValue(_ value: UInt64) -> PropertyListValue {
    .integer(PropertyListInteger(high: 0, low: value, isStoredAs128Bit: true))
}

private func integerValue(_ value: UInt) -> PropertyListValue {
    integerValue(UInt64(value))
}

struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    let state: EncodingState

    private func encoder(forKey key: any CodingKey) -> PlistValueEncoding {
        PlistValueEncoding(node: node.child(forKey: key.stringValue), path: path.appending(key), state: state)
    }

    private func continuingEncoder(forKey key: any CodingKey) -> PlistValueEncoding {
        PlistValueEncoding(node: node.existingChild(forKey: key.stringValue), path: path.appending(key), state: state)
    }

    mutating func encodeNil(forKey key: Key) throws { encoder(forKey: key).set(.string(propertyListNullString)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder(forKey: key).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder(forKey: key).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder(forKey: key).set(.real(.float64(value))) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder(forKey: key).set(.real(.float32(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder(forKey: key).set(integerValue(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(forKey: key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        continuingEncoder(forKey: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        continuingEncoder(forKey: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { continuingEncoder(forKey: PlistCodingKey.superKey) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { continuingEncoder(forKey: key) }
}

struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let node: EncodedNode
    let path: CodingPath
    var codingPath: [any CodingKey] { path.keys }
    let state: EncodingState
    var count: Int { node.count }

    private func nextEncoder() -> PlistValueEncoding {
        let key = PlistCodingKey(index: node.count)
        return PlistValueEncoding(node: node.appendedChild(), path: path.appending(key), state: state)
    }

    mutating func encodeNil() throws { nextEncoder().set(.string(propertyListNullString)) }
    mutating func encode(_ value: Bool) throws { nextEncoder().set(.bool(value)) }
    mutating func encode(_ value: String) throws { nextEncoder().set(.string(value)) }
    mutating func encode(_ value: Double) throws { nextEncoder().set(.real(.float64(value))) }
    mutating func encode(_ value: Float) throws { nextEncoder().set(.real(.float32(value))) }
    mutating func encode(_ value: Int) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: Int8) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: Int16) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: Int32) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: Int64) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: UInt) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: UInt8) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: UInt16) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: UInt32) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode(_ value: UInt64) throws { nextEncoder().set(integerValue(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try nextEncoder().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nextEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { nextEncoder() }
}

struct PlistSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: PlistValueEncoding
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.set(.string(propertyListNullString)) }
    mutating func encode(_ value: Bool) throws { encoder.set(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.set(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.set(.real(.float64(value))) }
    mutating func encode(_ value: Float) throws { encoder.set(.real(.float32(value))) }
    mutating func encode(_ value: Int) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: Int8) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: Int16) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: Int32) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: Int64) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: UInt) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: UInt16) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.set(integerValue(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.set(integerValue(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard case .unset = encoder.node.content else {
            encoder.state.fail("a single value was encoded where a value was already encoded", codingPath: codingPath)
            return
        }
        try encoder.encodeValue(value)
    }
}
