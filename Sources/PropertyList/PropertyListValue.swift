/// One property-list value: the lossless, ordered model both readers produce and both writers take.
///
/// Every case keeps what a file can distinguish: integer storage form, real width, dictionary
/// order, and the UID type of keyed archives. Equality is exact (reals by bit pattern), so a
/// value read and written back compares equal only if nothing was lost.
public enum PropertyListValue: Hashable, Sendable {
    /// A string (`<string>`, or an ASCII or UTF-16 string object in a binary plist).
    case string(String)
    /// An integer, with the storage form the file used (see ``PropertyListInteger``).
    case integer(PropertyListInteger)
    /// A floating-point number, 32- or 64-bit as stored (see ``PropertyListReal``).
    case real(PropertyListReal)
    /// A boolean (`<true/>` or `<false/>`).
    case bool(Bool)
    /// A date, kept as seconds since 2001-01-01 as the file stores it.
    case date(PropertyListDate)
    /// Raw bytes (`<data>`, base64 in XML).
    case data([UInt8])
    /// A UID: a keyed archive's reference to an object in its `$objects` array.
    case uid(PropertyListUID)
    /// An ordered array of values.
    case array([PropertyListValue])
    /// A dictionary with string keys, in the order the file lists them.
    case dictionary(PropertyListDictionary)
    /// A binary-plist set (`0xC` marker). Core Foundation can read these but never writes them;
    /// they have no XML form.
    case set([PropertyListValue])

    /// Exact equality: strings by Unicode scalars (not canonical equivalence), reals and dates
    /// by bit pattern, dictionaries by entries in order.
    ///
    /// Containers are compared with a stack of their own rather than by recursion, so that
    /// comparing values as deep as a reader accepts takes no more thread stack than comparing
    /// flat ones; hashing walks the same way.
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.array, .array), (.set, .set), (.dictionary, .dictionary): return containersEqual(lhs, rhs)
        default: return scalarsEqual(lhs, rhs)
        }
    }

    private static func scalarsEqual(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.isExactlyEqual(to: b)
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        default: return false
        }
    }

    private static func containersEqual(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        var pending: [(PropertyListValue, PropertyListValue)] = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case let (.array(a), .array(b)), let (.set(a), .set(b)):
                guard a.count == b.count else { return false }
                for index in a.indices { pending.append((a[index], b[index])) }
            case let (.dictionary(a), .dictionary(b)):
                guard a.count == b.count else { return false }
                for (first, second) in zip(a.entries, b.entries) {
                    guard first.key.isExactlyEqual(to: second.key) else { return false }
                    pending.append((first.value, second.value))
                }
            case (.array, _), (.set, _), (.dictionary, _), (_, .array), (_, .set), (_, .dictionary):
                return false
            default:
                guard scalarsEqual(left, right) else { return false }
            }
        }
        return true
    }

    /// Hashes consistently with `==` (exact, order-sensitive), without recursion.
    public func hash(into hasher: inout Hasher) {
        var pending: [PropertyListValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .string(let string): hasher.combine(0 as UInt8); hasher.combine(string)
            case .integer(let integer): hasher.combine(1 as UInt8); hasher.combine(integer)
            case .real(let real): hasher.combine(2 as UInt8); hasher.combine(real)
            case .bool(let flag): hasher.combine(3 as UInt8); hasher.combine(flag)
            case .date(let date): hasher.combine(4 as UInt8); hasher.combine(date)
            case .data(let bytes): hasher.combine(5 as UInt8); hasher.combine(bytes)
            case .uid(let uid): hasher.combine(6 as UInt8); hasher.combine(uid)
            case .array(let elements):
                hasher.combine(7 as UInt8); hasher.combine(elements.count)
                pending.append(contentsOf: elements.reversed())
            case .dictionary(let dictionary):
                hasher.combine(8 as UInt8); hasher.combine(dictionary.count)
                for entry in dictionary.entries.reversed() {
                    pending.append(entry.value)
                    pending.append(.string(entry.key))
                }
            case .set(let elements):
                hasher.combine(9 as UInt8); hasher.combine(elements.count)
                pending.append(contentsOf: elements.reversed())
            }
        }
    }
}

extension PropertyListValue {
    /// A short name of the case, for error messages ("expected string, found integer").
    public var kindName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uid: return "UID"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .set: return "set"
        }
    }

    /// ``kindName`` with its article ("an integer", "a string"), for messages.
    public var kindNameWithArticle: String { withArticle(kindName) }

    /// The string, or nil when the value is not a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, or nil when the value is not an integer.
    public var integerValue: PropertyListInteger? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer as `Int64`; nil when not an integer or out of `Int64` range.
    public var int64Value: Int64? { integerValue?.int64Value }
    /// The integer as `UInt64`; nil when not an integer or out of `UInt64` range (negative).
    public var uint64Value: UInt64? { integerValue?.uint64Value }
    /// The integer as `Int`; nil when not an integer or out of `Int` range.
    public var intValue: Int? { integerValue?.intValue }

    /// A real's value widened to `Double` (integers are not converted: ask for them explicitly).
    public var doubleValue: Double? {
        if case .real(let value) = self { return value.doubleValue }
        return nil
    }

    /// The boolean, or nil when the value is not a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The date, or nil when the value is not a date.
    public var dateValue: PropertyListDate? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The bytes, or nil when the value is not data.
    public var dataValue: [UInt8]? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The UID, or nil when the value is not a UID.
    public var uidValue: PropertyListUID? {
        if case .uid(let value) = self { return value }
        return nil
    }

    /// The elements, or nil when the value is not an array (a set is not an array: see ``setValue``).
    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The dictionary, or nil when the value is not a dictionary.
    public var dictionaryValue: PropertyListDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The elements of a binary-plist set, or nil when the value is not a set.
    public var setValue: [PropertyListValue]? {
        if case .set(let value) = self { return value }
        return nil
    }

    /// Dictionary lookup; nil for a missing key or a value that is not a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }

    /// Array element; nil when out of range or not an array.
    public subscript(index: Int) -> PropertyListValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// An `.integer` holding `value`.
    public static func int(_ value: Int) -> PropertyListValue { .integer(PropertyListInteger(Int64(value))) }
    /// A 64-bit `.real` holding `value`.
    public static func double(_ value: Double) -> PropertyListValue { .real(.float64(value)) }
    /// A 32-bit `.real` holding `value` (written back as a 4-byte real in binary plists).
    public static func float(_ value: Float) -> PropertyListValue { .real(.float32(value)) }
}

extension PropertyListValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(.float64(value)) }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(PropertyListDictionary(pairs: elements))
    }
}

/// "an integer", "an array", "a string": the kind names all start with a consonant but these two.
func withArticle(_ kindName: String) -> String {
    kindName == "integer" || kindName == "array" ? "an \(kindName)" : "a \(kindName)"
}
