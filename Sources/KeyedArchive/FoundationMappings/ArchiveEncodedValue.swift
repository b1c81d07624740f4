import PropertyList

/// An `NSValue` archived by its Objective-C type encoding rather than by `NS.special`: the type
/// text as stored (`"[3i]"`, `"d"`, `"{CGPoint=dd}"`) and the value it describes, typed.
///
/// ```swift
/// let value = try decoder.decode(ArchiveEncodedValue.self, forKey: "weights")
/// if case .array(let elements) = value.value { … }                        // [.int(1), .int(2), .int(3)]
/// try encoder.encode(try ArchiveEncodedValue(objCType: "[2d]", value: .array([.double(1), .double(2)])), forKey: "pair")
/// ```
///
/// A keyed archive stores such a value as `NSValue`'s `encodeValueOfObjCType:at:` writes it on
/// a keyed archiver: the type text as the first unkeyed value (`$0`), then the value's parts as
/// the next ones (`$1`, …) — a number inline, an array as one `_NSKeyedCoderOldStyleArray`
/// object (`NS.count`, `NS.size`, `NS.type` and its elements as `$0`, `$1`, … inline). Apple's
/// archivers refuse structures (`this archiver cannot encode structs`), so no Mac writes one;
/// one read here (from another writer) has its fields as consecutive unkeyed values, and is
/// written back so — Foundation's unarchiver refuses it too.
///
/// The types: `c` `C` `s` `S` `i` `I` `l` `L` (32 bits, as the encoding defines `l`) `q` `Q`
/// `f` `d` `B`, arrays of them (`[3i]`), and structures of these (`{name=…}`), nested at most
/// ``maximumNesting`` deep. Decoding keeps the object as stored, so that a decoded value encodes
/// back to the same fields; equality compares the type text and the value.
public struct ArchiveEncodedValue: Hashable, Sendable, CustomStringConvertible {
    /// One value of a type encoding.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public indirect enum Element: Hashable, Sendable {
        /// `c`.
        case char(Int8)
        /// `C`.
        case unsignedChar(UInt8)
        /// `s`.
        case short(Int16)
        /// `S`.
        case unsignedShort(UInt16)
        /// `i`.
        case int(Int32)
        /// `I`.
        case unsignedInt(UInt32)
        /// `l` (32 bits in a type encoding).
        case long(Int32)
        /// `L`.
        case unsignedLong(UInt32)
        /// `q`.
        case longLong(Int64)
        /// `Q`.
        case unsignedLongLong(UInt64)
        /// `f`.
        case float(Float)
        /// `d`.
        case double(Double)
        /// `B`.
        case bool(Bool)
        /// `[N…]`: N elements of one scalar type.
        case array([Element])
        /// `{name=…}`: the fields in order.
        case structure([Element])
    }

    /// The type encoding, as stored.
    public let objCType: String
    /// The value.
    public let value: Element
    /// The object as decoded, written back as it was.
    var stored: ArchiveInstance?

    /// Structures and arrays may nest this deep in a type encoding.
    public static let maximumNesting = 16

    /// A value of the type `objCType`.
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when the text is not a type encoding this
    ///   maps, or `value` is not of that type.
    public init(objCType: String, value: Element) throws(ArchiveError) {
        let type = try ObjCTypeEncoding.parse(objCType)
        guard type.matches(value) else {
            throw ArchiveError(.typeMismatch, "\(value) is not a value of the type \"\(objCType.excerptForMessage(64).escapedForMessage)\"")
        }
        self.objCType = objCType
        self.value = value
    }

    init(objCType: String, value: Element, stored: ArchiveInstance?) {
        self.objCType = objCType
        self.value = value
        self.stored = stored
    }

    /// `[3i] [1, 2, 3]`.
    public var description: String { "\(objCType) \(value.text)" }

    /// The same type text and value.
    public static func == (lhs: ArchiveEncodedValue, rhs: ArchiveEncodedValue) -> Bool {
        lhs.objCType.isExactlyEqual(to: rhs.objCType) && lhs.value == rhs.value
    }

    /// Hashes the type text and the value.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(objCType)
        hasher.combine(value)
    }
}

extension ArchiveEncodedValue.Element {
    /// `1`, `2.5`, `[1, 2, 3]`, `{1, 2}`.
    var text: String {
        switch self {
        case .char(let value): return "\(value)"
        case .unsignedChar(let value): return "\(value)"
        case .short(let value): return "\(value)"
        case .unsignedShort(let value): return "\(value)"
        case .int(let value): return "\(value)"
        case .unsignedInt(let value): return "\(value)"
        case .long(let value): return "\(value)"
        case .unsignedLong(let value): return "\(value)"
        case .longLong(let value): return "\(value)"
        case .unsignedLongLong(let value): return "\(value)"
        case .float(let value): return "\(value)"
        case .double(let value): return "\(value)"
        case .bool(let value): return "\(value)"
        case .array(let elements): return "[" + elements.map(\.text).joined(separator: ", ") + "]"
        case .structure(let fields): return "{" + fields.map(\.text).joined(separator: ", ") + "}"
        }
    }
}

/// An Objective-C type encoding, parsed: the scalars, arrays of scalars and structures a keyed
/// `NSValue` can hold.
indirect enum ObjCTypeEncoding: Equatable {
    case scalar(UInt8)
    case array(count: Int, element: UInt8)
    case structure(name: String, fields: [ObjCTypeEncoding])

    /// The type-encoding letters of the scalars, with their sizes in bytes.
    static let scalarSizes: [UInt8: Int] = [
        UInt8(ascii: "c"): 1, UInt8(ascii: "C"): 1, UInt8(ascii: "s"): 2, UInt8(ascii: "S"): 2,
        UInt8(ascii: "i"): 4, UInt8(ascii: "I"): 4, UInt8(ascii: "l"): 4, UInt8(ascii: "L"): 4,
        UInt8(ascii: "q"): 8, UInt8(ascii: "Q"): 8, UInt8(ascii: "f"): 4, UInt8(ascii: "d"): 8, UInt8(ascii: "B"): 1,
    ]

    /// Parses a whole type text; a typed error says what is wrong where.
    static func parse(_ text: String) throws(ArchiveError) -> ObjCTypeEncoding {
        let bytes = Array(text.utf8)
        // Every part of a type takes at least one byte, so the text bounds the work.
        guard !bytes.isEmpty, bytes.count <= 4096 else {
            throw ArchiveError(.typeMismatch, "the type encoding \"\(text.excerptForMessage(64).escapedForMessage)\" is \(bytes.isEmpty ? "empty" : "longer than 4096 bytes")")
        }
        var position = 0
        let type = try parse(bytes, &position, depth: 0, text: text)
        guard position == bytes.count else {
            throw malformed(text, "text after the type at byte \(position)")
        }
        return type
    }

    private static func malformed(_ text: String, _ what: String) -> ArchiveError {
        ArchiveError(.typeMismatch, "the type encoding \"\(text.excerptForMessage(64).escapedForMessage)\" has no mapping: \(what)")
    }

    private static func parse(_ bytes: [UInt8], _ position: inout Int, depth: Int, text: String) throws(ArchiveError) -> ObjCTypeEncoding {
        guard depth < ArchiveEncodedValue.maximumNesting else {
            throw malformed(text, "arrays and structures nest deeper than \(ArchiveEncodedValue.maximumNesting)")
        }
        guard position < bytes.count else { throw malformed(text, "it ends inside a type") }
        let letter = bytes[position]
        if scalarSizes[letter] != nil {
            position += 1
            return .scalar(letter)
        }
        switch letter {
        case UInt8(ascii: "["):
            position += 1
            var count = 0
            var digits = 0
            while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39 {
                // At most 9 digits: a count the archive could never hold is refused before any work.
                guard digits < 9 else { throw malformed(text, "an array count of more than 9 digits") }
                count = count * 10 + Int(bytes[position] - 0x30)
                digits += 1
                position += 1
            }
            guard digits > 0, count > 0 else { throw malformed(text, "an array without a count above zero") }
            guard position < bytes.count, scalarSizes[bytes[position]] != nil else {
                throw malformed(text, "an array's elements must be numbers (an old-style array holds one type letter)")
            }
            let element = bytes[position]
            position += 1
            guard position < bytes.count, bytes[position] == UInt8(ascii: "]") else { throw malformed(text, "an array without its closing ]") }
            position += 1
            return .array(count: count, element: element)
        case UInt8(ascii: "{"):
            position += 1
            let nameStart = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "="), bytes[position] != UInt8(ascii: "}") { position += 1 }
            let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { throw malformed(text, "a structure without its fields") }
            position += 1
            var fields: [ObjCTypeEncoding] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: "}") {
                fields.append(try parse(bytes, &position, depth: depth + 1, text: text))
            }
            guard position < bytes.count else { throw malformed(text, "a structure without its closing }") }
            guard !fields.isEmpty else { throw malformed(text, "a structure of no fields") }
            position += 1
            return .structure(name: name, fields: fields)
        default:
            throw malformed(text, "the type letter \"\(String(decoding: [letter], as: UTF8.self).escapedForMessage)\" at byte \(position) (numbers, arrays of numbers and structures of them are mapped)")
        }
    }

    /// Whether `value` is of this type.
    func matches(_ value: ArchiveEncodedValue.Element) -> Bool {
        switch (self, value) {
        case (.scalar(let letter), _): return Self.letter(of: value) == letter
        case (.array(let count, let element), .array(let elements)):
            return elements.count == count && elements.allSatisfy { Self.letter(of: $0) == element }
        case (.structure(_, let fields), .structure(let values)):
            return fields.count == values.count && zip(fields, values).allSatisfy { $0.matches($1) }
        default: return false
        }
    }

    /// The type letter of a scalar; nil for an array or a structure.
    static func letter(of value: ArchiveEncodedValue.Element) -> UInt8? {
        switch value {
        case .char: return UInt8(ascii: "c")
        case .unsignedChar: return UInt8(ascii: "C")
        case .short: return UInt8(ascii: "s")
        case .unsignedShort: return UInt8(ascii: "S")
        case .int: return UInt8(ascii: "i")
        case .unsignedInt: return UInt8(ascii: "I")
        case .long: return UInt8(ascii: "l")
        case .unsignedLong: return UInt8(ascii: "L")
        case .longLong: return UInt8(ascii: "q")
        case .unsignedLongLong: return UInt8(ascii: "Q")
        case .float: return UInt8(ascii: "f")
        case .double: return UInt8(ascii: "d")
        case .bool: return UInt8(ascii: "B")
        case .array, .structure: return nil
        }
    }

    /// How many unkeyed values the type takes after `$0`: a scalar or an array one each, a
    /// structure one per field.
    var partCount: Int {
        switch self {
        case .scalar, .array: return 1
        case .structure(_, let fields): return fields.reduce(0) { $0 + $1.partCount }
        }
    }
}
