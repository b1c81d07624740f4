extension PropertyListError.Code {
    /// Text that is not JSON (RFC 8259), read as the canonical property-list JSON of
    /// `Docs/PlistJSON.md`.
    public static let jsonSyntax = PropertyListError.Code(rawValue: "jsonSyntax")
    /// Well-formed JSON that the canonical property-list JSON gives no meaning: a tag
    /// (`$real`, `$real32`, `$data`, `$date`, `$uid`, `$dict`) holding the wrong kind of value, `null`, or a
    /// bare number with a fraction or exponent (reals are always tagged).
    public static let invalidTaggedValue = PropertyListError.Code(rawValue: "invalidTaggedValue")
}

/// Reads the canonical property-list JSON of `Docs/PlistJSON.md` (what
/// ``PropertyListJSONRenderer`` writes and `keyedarchive plist` prints) back into the property
/// list it stands for: `{"$uid": n}` a UID, `{"$data": "…"}` data, `{"$date": s}` a date,
/// `{"$real": x}` a 64-bit real, `{"$real32": x}` a 32-bit one, `{"$dict": {…}}` a dictionary whose one key is a tag, members in
/// the order written (a key written twice is kept twice, as the renderer prints a binary
/// dictionary that stores it twice), and every plain integer exact up to 128 bits.
///
/// For every property list P, rendering what this reads from `render(P)` gives `render(P)`
/// again (version 1 text, whose reals are all `$real`, reads as 64-bit reals). What the text does
/// not carry comes back in its usual form: an integer is
/// stored in the 16-byte form only when it needs it (above 2^63 − 1), as Core Foundation
/// stores a number it makes.
///
/// The input is untrusted: containers are read with a stack of their own (no recursion),
/// nesting is limited by ``PropertyListReadingOptions/maximumDepth``, collection counts and
/// string and data lengths by the other options, and every fault is one
/// ``PropertyListError`` at a line and (byte) column.
public enum PropertyListJSONReader {
    /// The property list `bytes` (UTF-8 JSON text) stands for.
    /// - Throws: ``PropertyListError`` with ``PropertyListError/Code/jsonSyntax`` for text that
    ///   is not JSON, ``PropertyListError/Code/invalidTaggedValue`` for a tag used wrongly,
    ///   ``PropertyListError/Code/invalidNumber`` for a number out of range,
    ///   ``PropertyListError/Code/invalidText`` for bytes that are not UTF-8 or a lone surrogate
    ///   escape, and the limit codes of ``PropertyListReadingOptions``; each at its line and column.
    public static func read(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> PropertyListValue {
        var parser = JSONPropertyListParser(bytes: bytes, options: options)
        do throws(JSONPropertyListParser.Fault) {
            return try parser.parseDocument()
        } catch {
            throw PropertyListError(error.code, error.message, at: JSONPropertyListParser.location(of: error.offset, in: bytes))
        }
    }

    /// Whether `bytes` look like JSON rather than a binary or XML property list: after an
    /// optional UTF-8 byte-order mark and white space, the first byte starts a JSON value.
    public static func looksLikeJSON(_ bytes: [UInt8]) -> Bool {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }
}

/// The parser behind ``PropertyListJSONReader``: one pass, one frame per open container.
struct JSONPropertyListParser {
    /// A fault at a byte offset; turned into a line and column once, when it is thrown out.
    struct Fault: Error {
        let code: PropertyListError.Code
        let message: String
        let offset: Int
    }

    /// An open array or object. `height` is the deepest nesting of containers among the values
    /// read so far (the property-list depth the container will have is one more).
    private enum Frame {
        case array(start: Int, elements: [PropertyListValue], height: Int)
        case object(ObjectFrame)
    }

    private struct ObjectFrame {
        let start: Int
        var entries: [PropertyListDictionary.Entry] = []
        var height = 0
        /// The key whose value is being read, and where it starts.
        var pendingKey = ""
        /// Where the first member's value starts, for a fault found in it once the object closes.
        var firstValueOffset = 0
        /// The first member's value is a bare real, read as one only because it might be the
        /// payload of `{"$real": x}` or `{"$date": s}`.
        var firstValueIsTagNumber = false
        /// The first member's value is a one-member object whose key is a tag, kept as a
        /// dictionary because this object might be the `{"$dict": …}` wrapping it.
        var firstValueIsWrappedCandidate = false

        init(start: Int) { self.start = start }

        /// Whether the value now being read is the first member's, under `key`.
        func isFirstMember(named key: String) -> Bool {
            entries.isEmpty && pendingKey == key
        }
    }

    let bytes: [UInt8]
    let options: PropertyListReadingOptions
    private var position = 0
    private var stack: [Frame] = []
    /// The property-list depth of each open container (0 for the outermost), beside `stack`:
    /// a `{"$dict": …}` wrapper's inner object is at the wrapper's depth, not one deeper.
    private var depths: [Int] = []

    init(bytes: [UInt8], options: PropertyListReadingOptions) {
        self.bytes = bytes
        self.options = options
    }

    /// JSON nesting allowed before a container is closed and its property-list depth known:
    /// every `{"$dict": …}` wrapper adds a JSON level without a property-list one.
    private var maximumJSONDepth: Int {
        let (doubled, overflow) = options.maximumDepth.multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : doubled &+ 2
    }

    mutating func parseDocument() throws(Fault) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        skipWhitespace()
        guard position < bytes.count else {
            throw Fault(code: .jsonSyntax, message: "the input holds no JSON value", offset: position)
        }
        var value: PropertyListValue
        var height: Int
        parsing: while true {
            skipWhitespace()
            let start = position
            guard position < bytes.count else { throw endOfInput("a value") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                position += 1
                let depth = try openingDepth(at: start)
                skipWhitespace()
                if peek(UInt8(ascii: "}")) {
                    position += 1
                    (value, height) = (.dictionary(PropertyListDictionary()), 1)
                } else {
                    var frame = ObjectFrame(start: start)
                    frame.pendingKey = try parseKey()
                    frame.firstValueOffset = position
                    stack.append(.object(frame))
                    depths.append(depth)
                    continue parsing
                }
            case UInt8(ascii: "["):
                position += 1
                let depth = try openingDepth(at: start)
                skipWhitespace()
                if peek(UInt8(ascii: "]")) {
                    position += 1
                    (value, height) = (.array([]), 1)
                } else {
                    stack.append(.array(start: start, elements: [], height: 0))
                    depths.append(depth)
                    continue parsing
                }
            case UInt8(ascii: "\""):
                (value, height) = (.string(try parseString()), 0)
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                (value, height) = (.bool(true), 0)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                (value, height) = (.bool(false), 0)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                throw Fault(code: .invalidTaggedValue, message: "null has no property-list form", offset: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                (value, height) = (try parseNumber(), 0)
            default:
                throw Fault(code: .jsonSyntax, message: "expected a value, found \(describeByte(at: position))", offset: position)
            }
            // Hand the finished value to the containers it closes, innermost first.
            while true {
                guard let last = stack.indices.last else {
                    skipWhitespace()
                    guard position == bytes.count else {
                        throw Fault(code: .jsonSyntax, message: "expected the end of the input after the value, found \(describeByte(at: position))", offset: position)
                    }
                    return value
                }
                switch stack[last] {
                case .array(let start, var elements, let innerHeight):
                    stack[last] = .array(start: start, elements: [], height: 0)
                    guard elements.count < options.maximumCollectionElementCount else {
                        throw Fault(code: .sizeLimitExceeded, message: "an array holds more than \(options.maximumCollectionElementCount) elements", offset: start)
                    }
                    elements.append(value)
                    let newHeight = max(innerHeight, height)
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) {
                        position += 1
                        stack[last] = .array(start: start, elements: elements, height: newHeight)
                        continue parsing
                    }
                    guard peek(UInt8(ascii: "]")) else { throw expected("',' or ']' after an array element") }
                    position += 1
                    stack.removeLast()
                    depths.removeLast()
                    (value, height) = (.array(elements), newHeight + 1)
                    try checkHeight(height, containerAt: start)
                case .object(var frame):
                    stack[last] = .array(start: 0, elements: [], height: 0)
                    guard frame.entries.count < options.maximumCollectionElementCount else {
                        throw Fault(code: .sizeLimitExceeded, message: "an object holds more than \(options.maximumCollectionElementCount) members", offset: frame.start)
                    }
                    frame.entries.append(PropertyListDictionary.Entry(key: frame.pendingKey, value: value))
                    frame.height = max(frame.height, height)
                    skipWhitespace()
                    if peek(UInt8(ascii: ",")) {
                        position += 1
                        frame.pendingKey = try parseKey()
                        stack[last] = .object(frame)
                        continue parsing
                    }
                    guard peek(UInt8(ascii: "}")) else { throw expected("',' or '}' after an object member") }
                    position += 1
                    stack.removeLast()
                    depths.removeLast()
                    (value, height) = try finishObject(frame)
                }
            }
        }
    }

    /// The property-list depth of a container opening at `start`, refused at once when it is
    /// too deep. (A `$dict` that turns out not to wrap can still make a dictionary one deeper
    /// than counted here; the heights checked as containers close catch that.)
    private func openingDepth(at start: Int) throws(Fault) -> Int {
        guard stack.count < maximumJSONDepth else { throw depthFault(at: start) }
        var depth = 0
        if let last = stack.indices.last, let parentDepth = depths.last {
            depth = parentDepth &+ 1
            if case .object(let parent) = stack[last], parent.isFirstMember(named: "$dict") { depth = parentDepth }
        }
        guard depth < options.maximumDepth else { throw depthFault(at: start) }
        return depth
    }

    /// The value a closed object stands for: a tagged value when it has one member under a
    /// tag, a dictionary otherwise.
    private mutating func finishObject(_ frame: ObjectFrame) throws(Fault) -> (PropertyListValue, Int) {
        var frame = frame
        if frame.entries.count == 1, PropertyListJSONRenderer.tagKeys.contains(frame.entries[0].key) {
            if !frame.firstValueIsTagNumber, let last = stack.indices.last, case .object(var parent) = stack[last],
               parent.isFirstMember(named: "$dict") {
                // Perhaps the dictionary `{"$dict": …}` wraps: kept as one until the parent closes.
                stack[last] = .array(start: 0, elements: [], height: 0)
                parent.firstValueIsWrappedCandidate = true
                stack[last] = .object(parent)
                let height = frame.height + 1
                try checkHeight(height, containerAt: frame.start)
                return (.dictionary(PropertyListDictionary(entries: frame.entries)), height)
            }
            return try tagged(frame.entries[0].key, frame.entries[0].value, at: frame.firstValueOffset, innerHeight: frame.height)
        }
        if frame.firstValueIsTagNumber {
            throw bareReal(at: frame.firstValueOffset)
        }
        if frame.firstValueIsWrappedCandidate, case .dictionary(let inner) = frame.entries[0].value, inner.count == 1 {
            // Not a `$dict` wrapper after all: the one-member object inside was a tagged value.
            (frame.entries[0].value, _) = try tagged(inner.entries[0].key, inner.entries[0].value, at: frame.firstValueOffset, innerHeight: 0)
        }
        let height = frame.height + 1
        try checkHeight(height, containerAt: frame.start)
        return (.dictionary(PropertyListDictionary(entries: frame.entries)), height)
    }

    /// The value `{"<tag>": payload}` stands for.
    private func tagged(_ tag: String, _ payload: PropertyListValue, at offset: Int, innerHeight: Int) throws(Fault) -> (PropertyListValue, Int) {
        switch tag {
        case "$real":
            return (.real(.float64(try seconds(payload, tag: tag, at: offset))), 0)
        case "$real32":
            return (.real(.float32(try float(payload, at: offset))), 0)
        case "$date":
            return (.date(PropertyListDate(secondsSinceReferenceDate: try seconds(payload, tag: tag, at: offset))), 0)
        case "$data":
            guard case .string(let text) = payload else {
                throw wrongPayload(tag, "a base64 string", payload, at: offset)
            }
            guard let decoded = Self.decodeBase64(text) else {
                throw Fault(code: .invalidTaggedValue, message: "$data holds \"\(text.excerptForMessage(32))\", which is not standard base64 with padding and without line breaks", offset: offset)
            }
            guard decoded.count <= options.maximumValueLength else {
                throw Fault(code: .sizeLimitExceeded, message: "$data holds \(decoded.count) bytes, more than \(options.maximumValueLength)", offset: offset)
            }
            return (.data(decoded), 0)
        case "$uid":
            guard case .integer(let integer) = payload, let number = integer.uint64Value, number <= PropertyListUID.maximumValue else {
                throw wrongPayload(tag, "an integer from 0 to 4294967295", payload, at: offset)
            }
            return (.uid(PropertyListUID(number)), 0)
        default:
            guard case .dictionary = payload else {
                throw wrongPayload(tag, "an object (the dictionary it wraps)", payload, at: offset)
            }
            // The wrapped dictionary already counted its own level; the wrapper adds none.
            return (payload, innerHeight)
        }
    }

    /// The number a `$real` or `$date` holds: a JSON number, or "nan", "inf", "-inf".
    private func seconds(_ payload: PropertyListValue, tag: String, at offset: Int) throws(Fault) -> Double {
        switch payload {
        case .real(let real):
            return real.doubleValue
        case .integer(let integer):
            if let signed = integer.int64Value { return Double(signed) }
            if let unsigned = integer.uint64Value { return Double(unsigned) }
            // Beyond 64 bits: the decimal text rounds once, correctly.
            return Double(integer.description) ?? .nan
        case .string(let text):
            guard let value = Self.nonFinite(text) else { fallthrough }
            return value
        default:
            throw wrongPayload(tag, "a number, or \"nan\", \"inf\" or \"-inf\"", payload, at: offset)
        }
    }

    /// What a non-finite payload's text stands for: "nan", "inf", "-inf"; nil for any other text.
    private static func nonFinite(_ text: String) -> Double? {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return nil
        }
    }

    /// The number a `$real32` holds: its decimal read as a float (once, not through a double,
    /// which could round twice), or "nan", "inf", "-inf".
    private func float(_ payload: PropertyListValue, at offset: Int) throws(Fault) -> Float {
        switch payload {
        case .real(.float32(let float)):
            return float
        case .integer(let integer):
            guard let float = Float(integer.description), float.isFinite else {
                throw Fault(code: .invalidNumber, message: "\(integer.description.excerptForMessage(40)) is beyond the range of a 32-bit real", offset: offset)
            }
            return float
        case .string(let text):
            guard let value = Self.nonFinite(text) else { fallthrough }
            return Float(value)
        default:
            throw wrongPayload("$real32", "a number, or \"nan\", \"inf\" or \"-inf\"", payload, at: offset)
        }
    }

    private func wrongPayload(_ tag: String, _ expected: String, _ payload: PropertyListValue, at offset: Int) -> Fault {
        let found: String
        switch payload {
        case .string(let text): found = "the string \"\(text.excerptForMessage(32))\""
        case .dictionary: found = "an object"
        case .array: found = "an array"
        case .real: found = "a number with a fraction or exponent"
        default: found = payload.kindNameWithArticle
        }
        return Fault(code: .invalidTaggedValue, message: "\(tag) must hold \(expected), not \(found)", offset: offset)
    }

    private func bareReal(at offset: Int) -> Fault {
        Fault(code: .invalidTaggedValue, message: "a number with a fraction or exponent is not an integer; a real is written {\"$real\": x}", offset: offset)
    }

    private func checkHeight(_ height: Int, containerAt start: Int) throws(Fault) {
        guard height <= options.maximumDepth else { throw depthFault(at: start) }
    }

    private func depthFault(at offset: Int) -> Fault {
        Fault(code: .depthLimitExceeded, message: "containers nest deeper than \(options.maximumDepth)", offset: offset)
    }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    private func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func endOfInput(_ what: String) -> Fault {
        Fault(code: .jsonSyntax, message: "the input ends where \(what) should be", offset: position)
    }

    private func expected(_ what: String) -> Fault {
        guard position < bytes.count else { return endOfInput(what) }
        return Fault(code: .jsonSyntax, message: "expected \(what), found \(describeByte(at: position))", offset: position)
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Fault) {
        let start = position
        let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in text {
            guard position < bytes.count, bytes[position] == byte else {
                throw Fault(code: .jsonSyntax, message: "expected a value, found \(describeByte(at: start))", offset: start)
            }
            position += 1
        }
    }

    /// A member name and its colon, and records where its value will start.
    private mutating func parseKey() throws(Fault) -> String {
        skipWhitespace()
        guard peek(UInt8(ascii: "\"")) else { throw expected("a member name in double quotes") }
        let key = try parseString()
        skipWhitespace()
        guard peek(UInt8(ascii: ":")) else { throw expected("':' after a member name") }
        position += 1
        skipWhitespace()
        return key
    }

    /// A string at `position` (its opening quote): escapes resolved, UTF-8 checked.
    private mutating func parseString() throws(Fault) -> String {
        let start = position
        position += 1
        var buffer: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else {
                throw Fault(code: .jsonSyntax, message: "a string is not closed before the end of the input", offset: start)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 {
                throw Fault(code: .jsonSyntax, message: "a string holds the control character 0x\(String(byte, radix: 16, uppercase: true)) unescaped", offset: position)
            }
            if byte != UInt8(ascii: "\\") {
                position += 1
                continue
            }
            buffer.append(contentsOf: bytes[runStart..<position])
            let escape = position
            position += 1
            guard position < bytes.count else { throw endOfInput("an escape") }
            let code = bytes[position]
            position += 1
            switch code {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalarValue = UInt32(try parseHex4(escapeAt: escape))
                if (0xD800...0xDBFF).contains(scalarValue) {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw loneSurrogate(scalarValue, at: escape)
                    }
                    position += 2
                    let low = UInt32(try parseHex4(escapeAt: position - 2))
                    guard (0xDC00...0xDFFF).contains(low) else { throw loneSurrogate(scalarValue, at: escape) }
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalarValue) {
                    throw loneSurrogate(scalarValue, at: escape)
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { throw loneSurrogate(scalarValue, at: escape) }
                buffer.append(contentsOf: String(Character(scalar)).utf8)
            default:
                throw Fault(code: .jsonSyntax, message: "\\\(describeByte(at: position - 1)) is not a JSON escape", offset: escape)
            }
            runStart = position
        }
        let string: String?
        if buffer.isEmpty {
            string = bytes.withUnsafeBufferPointer { whole in
                XMLTextValidation.string(validating: UnsafeBufferPointer(rebasing: whole[runStart..<position]))
            }
        } else {
            buffer.append(contentsOf: bytes[runStart..<position])
            string = buffer.withUnsafeBufferPointer { XMLTextValidation.string(validating: $0) }
        }
        guard let string else {
            throw Fault(code: .invalidText, message: "a string is not valid UTF-8", offset: start)
        }
        guard string.utf8.count <= options.maximumValueLength else {
            throw Fault(code: .sizeLimitExceeded, message: "a string is longer than \(options.maximumValueLength) bytes", offset: start)
        }
        position += 1
        return string
    }

    private func loneSurrogate(_ value: UInt32, at offset: Int) -> Fault {
        Fault(code: .invalidText, message: "\\u\(String(value, radix: 16, uppercase: true)) is half of a UTF-16 surrogate pair, which no property-list string can hold", offset: offset)
    }

    private mutating func parseHex4(escapeAt escape: Int) throws(Fault) -> UInt16 {
        var result: UInt16 = 0
        for _ in 0..<4 {
            guard position < bytes.count else { throw endOfInput("four hexadecimal digits") }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw Fault(code: .jsonSyntax, message: "a \\u escape needs four hexadecimal digits", offset: escape)
            }
            result = result << 4 | UInt16(digit)
            position += 1
        }
        return result
    }

    /// A number at `position`. A plain integer is a property-list integer (exact to 128 bits);
    /// a number with a fraction or exponent is accepted only as the payload of `$real`, `$real32` or
    /// `$date`, the only places the contract puts one.
    private mutating func parseNumber() throws(Fault) -> PropertyListValue {
        let start = position
        if peek(UInt8(ascii: "-")) { position += 1 }
        let integerStart = position
        guard position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) else {
            throw Fault(code: .jsonSyntax, message: "a '-' must be followed by a digit", offset: start)
        }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                throw Fault(code: .jsonSyntax, message: "a number may not start with a leading zero", offset: start)
            }
        } else {
            skipDigits()
        }
        let integerEnd = position
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            position += 1
            let digits = position
            skipDigits()
            guard position > digits else { throw Fault(code: .jsonSyntax, message: "a '.' in a number must be followed by a digit", offset: start) }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { position += 1 }
            let digits = position
            skipDigits()
            guard position > digits else { throw Fault(code: .jsonSyntax, message: "an exponent in a number needs a digit", offset: start) }
        }
        if !isInteger {
            guard inTagPayloadForNumber() else { throw bareReal(at: start) }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            if inFloatPayload() {
                guard let float = Float(text), float.isFinite else {
                    throw Fault(code: .invalidNumber, message: "\(text.excerptForMessage(40)) is beyond the range of a 32-bit real", offset: start)
                }
                markTagNumber()
                return .real(.float32(float))
            }
            guard let double = Double(text), double.isFinite else {
                throw Fault(code: .invalidNumber, message: "\(text.excerptForMessage(40)) is beyond the range of a 64-bit real", offset: start)
            }
            markTagNumber()
            return .real(.float64(double))
        }
        guard let integer = Self.integer(bytes[integerStart..<integerEnd], negative: integerStart > start) else {
            throw Fault(code: .invalidNumber, message: "\(String(decoding: bytes[start..<integerEnd], as: UTF8.self).excerptForMessage(48)) is beyond the 128-bit integers a property list can hold", offset: start)
        }
        return .integer(integer)
    }

    private mutating func skipDigits() {
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
    }

    /// Whether the number being read is the first member of an object under `$real`, `$real32` or `$date`.
    private func inTagPayloadForNumber() -> Bool {
        guard case .object(let frame)? = stack.last else { return false }
        return frame.isFirstMember(named: "$real") || frame.isFirstMember(named: "$real32") || frame.isFirstMember(named: "$date")
    }

    /// Whether the number being read is the payload of `$real32`, read as a float.
    private func inFloatPayload() -> Bool {
        guard case .object(let frame)? = stack.last else { return false }
        return frame.isFirstMember(named: "$real32")
    }

    private mutating func markTagNumber() {
        guard let last = stack.indices.last, case .object(var frame) = stack[last] else { return }
        stack[last] = .array(start: 0, elements: [], height: 0)
        frame.firstValueIsTagNumber = true
        stack[last] = .object(frame)
    }

    /// Decimal digits as a 128-bit two's-complement integer; nil beyond −2^127 … 2^127 − 1.
    static func integer(_ digits: ArraySlice<UInt8>, negative: Bool) -> PropertyListInteger? {
        // Magnitude as two unsigned halves, multiplied by ten per digit with overflow checks.
        var high: UInt64 = 0
        var low: UInt64 = 0
        for digit in digits {
            let product = low.multipliedFullWidth(by: 10)
            let (highTimesTen, highOverflow) = high.multipliedReportingOverflow(by: 10)
            guard !highOverflow else { return nil }
            let (highSum, carryOverflow) = highTimesTen.addingReportingOverflow(product.high)
            guard !carryOverflow else { return nil }
            let (newLow, addCarry) = product.low.addingReportingOverflow(UInt64(digit &- 0x30))
            let (newHigh, finalOverflow) = highSum.addingReportingOverflow(addCarry ? 1 : 0)
            guard !finalOverflow else { return nil }
            high = newHigh
            low = newLow
        }
        if negative {
            // −2^127 is the most negative value: magnitude at most 2^127.
            guard high < 1 << 63 || (high == 1 << 63 && low == 0) else { return nil }
            if high == 0 && low <= 1 << 63 {
                return PropertyListInteger(low == 1 << 63 ? Int64.min : -Int64(low))
            }
            let negatedLow = ~low &+ 1
            let negatedHigh = ~high &+ (low == 0 ? 1 : 0)
            return PropertyListInteger(high: Int64(bitPattern: negatedHigh), low: negatedLow, isStoredAs128Bit: true)
        }
        guard high < 1 << 63 else { return nil }
        if high == 0 { return PropertyListInteger(low) }
        return PropertyListInteger(high: Int64(high), low: low, isStoredAs128Bit: true)
    }

    /// Standard base64 with padding and no white space; nil for anything else.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        func sextet(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): return 62
            case UInt8(ascii: "/"): return 63
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let isLast = index + 4 == characters.count
            let padding = isLast ? (characters[index + 3] == 0x3D ? (characters[index + 2] == 0x3D ? 2 : 1) : 0) : 0
            var chunk: UInt32 = 0
            for offset in 0..<4 {
                let byte = characters[index + offset]
                if offset >= 4 - padding {
                    chunk <<= 6
                    continue
                }
                guard let value = sextet(byte) else { return nil }
                chunk = chunk << 6 | value
            }
            out.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: chunk >> 8)) }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: chunk)) }
            // Bits below the last byte must be zero: otherwise two texts would stand for one value.
            if padding == 2, chunk & 0xFFFF != 0 { return nil }
            if padding == 1, chunk & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }

    /// 1-based line and byte column of `offset`, counted when a fault is reported.
    static func location(of offset: Int, in bytes: [UInt8]) -> PropertyListError.Location {
        var line = 1
        var lineStart = 0
        var index = 0
        let end = min(offset, bytes.count)
        while index < end {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return .line(line, column: end - lineStart + 1)
    }
}
