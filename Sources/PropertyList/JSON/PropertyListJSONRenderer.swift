/// Renders a property list as the canonical JSON of `Docs/PlistJSON.md` (version 2): lossless,
/// diff-friendly, and comparable across independent readers. A 32-bit real is written
/// `{"$real32": x}` (the contract's version 2), so that a JSON fixture keeps the width a binary
/// one keeps; a 64-bit real is `{"$real": x}` as in version 1.
public enum PropertyListJSONRenderer {
    /// Tag keys that mark a JSON object as a typed value; a real dictionary with exactly one of
    /// these keys is wrapped in `{"$dict": …}` so the two can never be confused.
    static let tagKeys: Set<String> = ["$real", "$real32", "$data", "$date", "$uid", "$dict"]

    /// The longest text rendered by default: 1 GiB. The contract writes a value shared in a
    /// binary file at every reference, so a small file can stand for a far larger text (a
    /// thousand references to one megabyte string are a gigabyte of JSON).
    public static let defaultMaximumByteCount = 1 << 30

    /// The JSON text, UTF-8, ending in a newline.
    /// - Throws: ``PropertyListError/Code/depthLimitExceeded`` past `maximumDepth`,
    ///   ``PropertyListError/Code/unsupportedValue`` for a set (the contract has no set form),
    ///   and ``PropertyListError/Code/sizeLimitExceeded`` once the text would be longer than
    ///   `maximumByteCount`.
    public static func render(_ value: PropertyListValue, maximumDepth: Int = PropertyListReadingOptions.default.maximumDepth,
                              maximumByteCount: Int = defaultMaximumByteCount) throws(PropertyListError) -> [UInt8] {
        var renderer = JSONTextBuilder(maximumDepth: maximumDepth, maximumByteCount: maximumByteCount)
        try renderer.append(value, depth: 0)
        renderer.out.append(0x0A)
        return renderer.out
    }

    /// The same text, handed to `output` in chunks of about 64 KiB as it is made: memory stays
    /// small whatever the length of the text (the command-line tool prints this way). A value
    /// the contract cannot express (a set, nesting past `maximumDepth`) is refused before any
    /// output, as the contract asks; only the byte budget can stop the text part way.
    public static func render(_ value: PropertyListValue, maximumDepth: Int = PropertyListReadingOptions.default.maximumDepth,
                              maximumByteCount: Int = defaultMaximumByteCount, output: (ArraySlice<UInt8>) -> Void) throws(PropertyListError) {
        try checkExpressible(value, maximumDepth: maximumDepth)
        try streamText(maximumDepth: maximumDepth, maximumByteCount: maximumByteCount, output: output) { renderer throws(PropertyListError) in
            try renderer.append(value, depth: 0)
        }
    }

    /// Runs `body` on a builder that hands its text to `output` in chunks, then ends the text with
    /// a newline. On a fault, what is still buffered is dropped: every chunk handed on was
    /// within the budget.
    static func streamText(maximumDepth: Int, maximumByteCount: Int, output: (ArraySlice<UInt8>) -> Void,
                           _ body: (inout JSONTextBuilder) throws(PropertyListError) -> Void) throws(PropertyListError) {
        let result = withoutActuallyEscaping(output) { output -> Result<Void, PropertyListError> in
            var renderer = JSONTextBuilder(maximumDepth: maximumDepth, maximumByteCount: maximumByteCount)
            renderer.output = output
            do throws(PropertyListError) {
                try body(&renderer)
            } catch {
                return .failure(error)
            }
            renderer.out.append(0x0A)
            renderer.flush()
            return .success(())
        }
        try result.get()
    }

    /// The JSON text of ``render(_:maximumDepth:maximumByteCount:)`` as a `String`, with the default limits.
    public static func renderString(_ value: PropertyListValue) throws(PropertyListError) -> String {
        String(decoding: try render(value), as: UTF8.self)
    }

    /// Throws what rendering `value` would throw for its shape — a set, or containers nested
    /// deeper than `maximumDepth` — and the first such fault in document order, as rendering
    /// meets it. Iterative, with one frame per open container: memory is the depth, not the
    /// (possibly shared and repeated) containers.
    static func checkExpressible(_ value: PropertyListValue, maximumDepth: Int) throws(PropertyListError) {
        /// The container's child count, after the checks rendering makes when it reaches it.
        func check(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int? {
            switch value {
            case .set:
                throw PropertyListError(.unsupportedValue, "a set has no form in property-list JSON")
            case .array(let elements):
                guard depth < maximumDepth else { throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)") }
                return elements.count
            case .dictionary(let dictionary):
                guard depth < maximumDepth else { throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)") }
                return dictionary.count
            default:
                return nil
            }
        }
        func child(_ container: PropertyListValue, _ position: Int) -> PropertyListValue {
            switch container {
            case .array(let elements): return elements[position]
            case .dictionary(let dictionary): return dictionary.entries[position].value
            default: return container
            }
        }
        guard let count = try check(value, depth: 0) else { return }
        var frames: [(container: PropertyListValue, count: Int, next: Int)] = [(value, count, 0)]
        while let last = frames.indices.last {
            let (container, count, next) = frames[last]
            guard next < count else {
                frames.removeLast()
                continue
            }
            frames[last].next = next + 1
            let element = child(container, next)
            if let childCount = try check(element, depth: frames.count) {
                frames.append((element, childCount, 0))
            }
        }
    }

    /// Shortest decimal that reads back to the same double, in a form JSON accepts.
    static func number(_ value: Double) -> String {
        // Swift's description is the shortest round-trip form ("0.1", "1e-05", "5e-324").
        value.description
    }

    /// Shortest decimal that reads back to the same float (`34.1`, not the `34.099998474121094`
    /// of the double it widens to), in a form JSON accepts.
    static func number(_ value: Float) -> String {
        value.description
    }
}

struct JSONTextBuilder {
    var out: [UInt8] = []
    let maximumDepth: Int
    let maximumByteCount: Int
    /// Where full chunks go when the text is streamed; nil keeps it all in `out`.
    var output: ((ArraySlice<UInt8>) -> Void)?
    /// Bytes already handed to `output`.
    var written = 0

    init(maximumDepth: Int, maximumByteCount: Int = PropertyListJSONRenderer.defaultMaximumByteCount) {
        self.maximumDepth = maximumDepth
        self.maximumByteCount = maximumByteCount
        out.reserveCapacity(4096)
    }

    /// Refuses a text that would pass `maximumByteCount` once `more` bytes are added — checked
    /// before a long string or data is written, and after every value.
    func checkLength(adding more: Int) throws(PropertyListError) {
        let (total, overflow) = (written &+ out.count).addingReportingOverflow(more)
        guard !overflow, total <= maximumByteCount else {
            throw PropertyListError(.sizeLimitExceeded, "the JSON text would be longer than \(maximumByteCount) bytes (a value shared in a binary file is written out at every reference)")
        }
    }

    mutating func flushIfFull() {
        guard let output, out.count >= 1 << 16 else { return }
        output(out[...])
        written &+= out.count
        out.removeAll(keepingCapacity: true)
    }

    mutating func flush() {
        guard let output, !out.isEmpty else { return }
        output(out[...])
        written &+= out.count
        out.removeAll(keepingCapacity: true)
    }

    mutating func appendASCII(_ text: String) {
        out.append(contentsOf: text.utf8)
    }

    mutating func indent(_ depth: Int) {
        out.append(0x0A)
        for _ in 0..<depth { out.append(0x20); out.append(0x20) }
    }

    /// The bytes `appendString` writes for `string`, quotes included.
    static func escapedLength(_ string: String) -> Int {
        var length = 2
        for byte in string.utf8 {
            switch byte {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09: length &+= 2
            case 0..<0x20: length &+= 6
            default: length &+= 1
            }
        }
        return length
    }

    mutating func appendString(_ string: String) {
        out.append(0x22)
        for byte in string.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(0x6E)
            case 0x0D: out.append(0x5C); out.append(0x72)
            case 0x09: out.append(0x5C); out.append(0x74)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }

    mutating func openTag(_ tag: String) {
        out.append(0x7B)
        appendString(tag)
        out.append(contentsOf: [0x3A, 0x20])
    }

    mutating func closeTag() {
        out.append(0x7D)
    }

    /// `{"$real": x}` for a 64-bit real, `{"$real32": x}` for a 32-bit one (version 2).
    mutating func appendReal(_ real: PropertyListReal) {
        let tag = real.is32Bit ? "$real32" : "$real"
        let value = real.doubleValue
        openTag(tag)
        if value.isNaN {
            appendString("nan")
        } else if value.isInfinite {
            appendString(value < 0 ? "-inf" : "inf")
        } else if case .float32(let float) = real {
            appendASCII(PropertyListJSONRenderer.number(float))
        } else {
            appendASCII(PropertyListJSONRenderer.number(value))
        }
        closeTag()
    }

    mutating func append(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        try appendValue(value, depth: depth)
        try endValue()
    }

    /// After every value: the byte budget checked, and a full chunk handed on.
    mutating func endValue() throws(PropertyListError) {
        try checkLength(adding: 0)
        flushIfFull()
    }

    private mutating func appendValue(_ value: PropertyListValue, depth: Int) throws(PropertyListError) {
        switch value {
        case .string(let string):
            let length = string.utf8.count
            try checkLength(adding: length)
            // Escapes can make the text up to six times the string: count them exactly when
            // that could pass the budget, before anything is copied. (The check above leaves
            // `room` at least `length`.)
            let room = maximumByteCount &- written &- out.count
            if length > room / 6 { try checkLength(adding: Self.escapedLength(string)) }
            appendString(string)
        case .integer(let integer): appendASCII(integer.description)
        case .real(let real): appendReal(real)
        case .bool(let flag): appendASCII(flag ? "true" : "false")
        case .date(let date):
            let seconds = date.secondsSinceReferenceDate
            if seconds.isFinite {
                openTag("$date"); appendASCII(PropertyListJSONRenderer.number(seconds)); closeTag()
            } else {
                openTag("$date"); appendString(seconds.isNaN ? "nan" : (seconds < 0 ? "-inf" : "inf")); closeTag()
            }
        case .data(let bytes):
            try checkLength(adding: bytes.count / 3 * 4)
            openTag("$data"); appendString(PropertyListBase64Text.encode(bytes)); closeTag()
        case .uid(let uid):
            openTag("$uid"); appendASCII(String(uid.value)); closeTag()
        case .set:
            throw PropertyListError(.unsupportedValue, "a set has no form in property-list JSON")
        case .array(let elements):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            if elements.isEmpty { appendASCII("[]"); return }
            out.append(0x5B)
            for (position, element) in elements.enumerated() {
                beginElement(position, depth: depth)
                try append(element, depth: depth + 1)
            }
            closeArray(depth: depth)
        case .dictionary(let dictionary):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            if dictionary.isEmpty { appendASCII("{}"); return }
            let wrapped = Self.isWrapped(dictionary.count, firstKey: dictionary.entries[0].key)
            let memberDepth = openDictionary(wrapped: wrapped, depth: depth)
            for (position, entry) in dictionary.entries.enumerated() {
                beginMember(position, key: entry.key, memberDepth: memberDepth)
                try append(entry.value, depth: depth + 1)
            }
            closeDictionary(wrapped: wrapped, depth: depth)
        }
    }

    // The pieces of a container, for walks that write one without its value (a binary file
    // rendered from its bytes, PropertyListJSONRenderer+Binary.swift).

    /// Before element `position` of an array at `depth`: the comma, the line and its indent.
    mutating func beginElement(_ position: Int, depth: Int) {
        if position > 0 { out.append(0x2C) }
        indent(depth + 1)
    }

    /// After the last element of a non-empty array at `depth`.
    mutating func closeArray(depth: Int) {
        indent(depth)
        out.append(0x5D)
    }

    /// Whether a dictionary of `count` entries whose first key is `firstKey` is written inside
    /// `{"$dict": …}` (a lone tag key would read as a typed value).
    static func isWrapped(_ count: Int, firstKey: @autoclosure () -> String) -> Bool {
        count == 1 && PropertyListJSONRenderer.tagKeys.contains(firstKey())
    }

    /// Opens a non-empty dictionary at `depth`; returns the depth its members are indented to.
    mutating func openDictionary(wrapped: Bool, depth: Int) -> Int {
        var memberDepth = depth + 1
        if wrapped {
            out.append(0x7B)
            indent(depth + 1)
            appendString("$dict")
            out.append(contentsOf: [0x3A, 0x20])
            memberDepth += 1
        }
        out.append(0x7B)
        return memberDepth
    }

    /// Before the value of member `position`: the comma, the line, its indent and the key.
    mutating func beginMember(_ position: Int, key: String, memberDepth: Int) {
        if position > 0 { out.append(0x2C) }
        indent(memberDepth)
        appendString(key)
        out.append(contentsOf: [0x3A, 0x20])
    }

    /// After the last member of a non-empty dictionary opened at `depth`.
    mutating func closeDictionary(wrapped: Bool, depth: Int) {
        indent(wrapped ? depth + 1 : depth)
        out.append(0x7D)
        if wrapped {
            indent(depth)
            out.append(0x7D)
        }
    }
}

/// Standard base64 with padding and no line breaks.
enum PropertyListBase64Text {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: encodeBytes(bytes), as: UTF8.self)
    }

    static func encodeBytes(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(alphabet[Int(chunk >> 6 & 63)])
            out.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let first = UInt32(bytes[index]) << 16
            let chunk = rest == 2 ? first | UInt32(bytes[index + 1]) << 8 : first
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(chunk >> 6 & 63)] : 0x3D)
            out.append(0x3D)
        }
        return out
    }
}
