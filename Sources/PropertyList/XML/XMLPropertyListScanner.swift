/// The elements a property list can hold.
enum XMLElementKind: UInt8 {
    case plist, array, dict, key, string, data, date, real, integer, `true`, `false`

    var name: StaticString {
        switch self {
        case .plist: return "plist"
        case .array: return "array"
        case .dict: return "dict"
        case .key: return "key"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .real: return "real"
        case .integer: return "integer"
        case .true: return "true"
        case .false: return "false"
        }
    }
}

/// A start tag: which element (nil for one a property list cannot hold), whether it closed
/// itself (`<true/>`), and where it starts and its name lies, for messages.
struct XMLStartTag {
    var kind: XMLElementKind?
    var isEmpty: Bool
    var start: Int
    var nameStart: Int
    var nameEnd: Int
}

/// The byte-level half of the XML reader: markup, not values. It knows where tags, comments and
/// processing instructions begin and end, exactly as Core Foundation's parser delimits them,
/// and turns byte offsets into line and column for errors. The input is borrowed, never copied.
struct XMLPropertyListScanner {
    let bytes: UnsafePointer<UInt8>
    let count: Int
    var position: Int

    init(bytes: UnsafePointer<UInt8>, count: Int, position: Int = 0) {
        self.bytes = bytes
        self.count = count
        self.position = position
    }

    // MARK: Errors

    /// 1-based line and byte column of `offset`. Lines end at LF, CR or CRLF, as Core
    /// Foundation counts them. Computed only when an error is raised.
    func location(of offset: Int) -> PropertyListError.Location {
        let end = max(0, min(offset, count))
        var line = 1
        var lineStart = 0
        var index = 0
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && !(index + 1 < end && bytes[index + 1] == 0x0A)) {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return .line(line, column: end - lineStart + 1)
    }

    func error(_ code: PropertyListError.Code, _ message: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(code, message, at: location(of: offset ?? position))
    }

    /// Up to 40 bytes of the input, for messages: escaped (``StringProtocol/escapedForMessage``),
    /// so that an excerpt running over a line end or holding control characters keeps the
    /// message on one line.
    func excerpt(_ range: Range<Int>) -> String {
        let upper = min(range.upperBound, range.lowerBound + 40, count)
        guard range.lowerBound < upper else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes + range.lowerBound, count: upper - range.lowerBound), as: UTF8.self).escapedForMessage
    }

    // MARK: Primitives

    @inline(__always)
    func matches(_ text: StaticString, at offset: Int) -> Bool {
        let length = text.utf8CodeUnitCount
        guard offset >= 0, length <= count - offset else { return false }
        return XMLTextScanning.equals(bytes + offset, text)
    }

    /// Whether the `length` bytes at `offset` are the first `length` bytes of `text`.
    func matches(prefix text: StaticString, length: Int, at offset: Int) -> Bool {
        guard length >= 0, length <= text.utf8CodeUnitCount, offset >= 0, length <= count - offset else { return false }
        return LibC.bytesEqual(bytes + offset, text.utf8Start, count: length)
    }

    @inline(__always)
    static func isMarkupWhitespace(_ byte: UInt8) -> Bool {
        // Tabs and line feeds are what indentation is made of; test them first.
        byte <= 0x20 && (byte == 0x09 || byte == 0x0A || byte == 0x20 || byte == 0x0D)
    }

    /// Space, tab, LF and CR: the only white space allowed between elements.
    @inline(__always)
    mutating func skipWhitespace() {
        position = XMLTextScanning.skipMarkupWhitespace(bytes, count: count, from: position)
    }

    /// Moves past the `-->` that ends a comment whose text starts at `from`.
    mutating func skipComment(from: Int, openedAt start: Int) throws(PropertyListError) {
        // Core Foundation looks for the end only where three more bytes follow it.
        var index = from
        while index < count - 3 {
            if bytes[index] == UInt8(ascii: "-"), bytes[index + 1] == UInt8(ascii: "-"), bytes[index + 2] == UInt8(ascii: ">") {
                position = index + 3
                return
            }
            index += 1
        }
        throw error(.truncated, "unterminated comment", at: start)
    }

    /// Moves past the `?>` that ends a processing instruction, searching from `from`.
    mutating func skipProcessingInstruction(from: Int, openedAt start: Int) throws(PropertyListError) {
        var index = from
        while index < count - 2 {
            if bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") {
                position = index + 2
                return
            }
            index += 1
        }
        throw error(.truncated, "unterminated processing instruction", at: start)
    }

    // MARK: Prolog

    /// Skips what may precede the root element: white space, comments, processing
    /// instructions (the XML declaration among them) and DOCTYPEs. Leaves the cursor on the
    /// root element's `<`. Returns whether a DOCTYPE named the legacy `Apple Computer` DTD.
    mutating func skipProlog() throws(PropertyListError) -> Bool {
        var legacyDoctype = false
        while true {
            skipWhitespace()
            guard position + 1 < count else { throw error(.truncated, "no root element") }
            guard bytes[position] == UInt8(ascii: "<") else {
                throw error(.xmlSyntax, "text before the root element: '\(excerpt(position..<count))'")
            }
            let start = position
            switch bytes[position + 1] {
            case UInt8(ascii: "!"):
                if position + 3 < count, bytes[position + 2] == UInt8(ascii: "-"), bytes[position + 3] == UInt8(ascii: "-") {
                    // Before the root, Core Foundation resumes one byte past "<!--".
                    try skipComment(from: start + 5, openedAt: start)
                } else {
                    if try skipDoctype() { legacyDoctype = true }
                }
            case UInt8(ascii: "?"):
                try skipProcessingInstruction(from: start + 2, openedAt: start)
            default:
                return legacyDoctype
            }
        }
    }

    /// Skips `<!DOCTYPE …>`; an internal subset (`[`) or any other `<!` declaration is an error.
    private mutating func skipDoctype() throws(PropertyListError) -> Bool {
        let start = position
        // A file cut inside "<!--" or "<!DOCTYPE" is truncated, not malformed.
        let available = count - (start + 2)
        if available < 7, matches(prefix: "DOCTYPE", length: available, at: start + 2) || (available < 2 && matches(prefix: "--", length: available, at: start + 2)) {
            throw error(.truncated, "the input ends inside a markup declaration", at: start)
        }
        guard matches("DOCTYPE", at: start + 2) else {
            throw error(.xmlSyntax, "markup declaration '\(excerpt(start..<count))' is not a DOCTYPE", at: start)
        }
        position = start + 9
        while position < count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "[") {
                throw error(.xmlSyntax, "DOCTYPE with an internal subset is not supported", at: position)
            }
            if byte == UInt8(ascii: ">") {
                position += 1
                return memmemFound("-//Apple Computer//", in: start..<position)
            }
            position += 1
        }
        throw error(.truncated, "unterminated DOCTYPE", at: start)
    }

    private func memmemFound(_ needle: StaticString, in range: Range<Int>) -> Bool {
        let length = needle.utf8CodeUnitCount
        var index = range.lowerBound
        while index + length <= range.upperBound {
            if LibC.bytesEqual(bytes + index, needle.utf8Start, count: length) { return true }
            index += 1
        }
        return false
    }

    // MARK: Content

    enum ContentItem {
        /// The cursor is on the `<` of a start tag.
        case element
        /// The cursor is on the `</` of an end tag.
        case endTag
    }

    /// Moves to the next element or end tag inside a container, skipping white space, comments
    /// and processing instructions. Any other text is an error.
    @inline(__always)
    mutating func nextContentItem() throws(PropertyListError) -> ContentItem {
        while true {
            skipWhitespace()
            guard position + 1 < count else { throw error(.truncated, "the input ends inside an element") }
            guard bytes[position] == UInt8(ascii: "<") else {
                throw error(.xmlSyntax, "text between elements: '\(excerpt(position..<count))'")
            }
            switch bytes[position + 1] {
            case UInt8(ascii: "/"):
                return .endTag
            case UInt8(ascii: "!"):
                let start = position
                guard position + 3 < count else { throw error(.truncated, "the input ends inside markup") }
                guard bytes[position + 2] == UInt8(ascii: "-"), bytes[position + 3] == UInt8(ascii: "-") else {
                    throw error(.xmlSyntax, "markup declaration '\(excerpt(start..<count))' inside an element")
                }
                try skipComment(from: start + 4, openedAt: start)
            case UInt8(ascii: "?"):
                // Core Foundation starts looking for "?>" at the "?" itself here.
                try skipProcessingInstruction(from: position + 1, openedAt: position)
            default:
                return .element
            }
        }
    }

    /// Reads a start tag at the cursor. The name ends at the first white space or at `>`;
    /// what follows it up to the first `>` (attributes) is ignored; the tag is empty when `/`
    /// comes right before that `>`.
    @inline(__always)
    mutating func readStartTag() throws(PropertyListError) -> XMLStartTag {
        #if _endian(little)
        // Nearly every tag is one of a dozen exact spellings: recognise those with one 8-byte
        // load and a compare, and leave anything else (attributes, white space) to the scan.
        if count - position >= 9 {
            let word = UnsafeRawPointer(bytes + position + 1).loadUnaligned(as: UInt64.self)
            if let (kind, isEmpty, length) = Self.commonTag(word) {
                let start = position
                position += 1 + length
                let nameLength = isEmpty ? length - 2 : length - 1
                return XMLStartTag(kind: kind, isEmpty: isEmpty, start: start, nameStart: start + 1, nameEnd: start + 1 + nameLength)
            }
        }
        #endif
        return try readStartTagByScanning()
    }

    /// The tag spelled by the first bytes of `word` (the bytes after `<`, little-endian), if it
    /// is `<name>` or `<name/>` for a property-list element; its length includes the `>`.
    @inline(__always)
    private static func commonTag(_ word: UInt64) -> (XMLElementKind, Bool, Int)? {
        @inline(__always) func first(_ length: Int) -> UInt64 {
            length == 8 ? word : word & ((1 << (8 * UInt64(length))) - 1)
        }
        switch UInt8(truncatingIfNeeded: word) {
        case UInt8(ascii: "k"):
            if first(4) == 0x3E79_656B { return (.key, false, 4) }
            if first(5) == 0x3E_2F79_656B { return (.key, true, 5) }
        case UInt8(ascii: "s"):
            if first(7) == 0x3E_676E_6972_7473 { return (.string, false, 7) }
            if word == 0x3E2F_676E_6972_7473 { return (.string, true, 8) }
        case UInt8(ascii: "i"):
            if word == 0x3E72_6567_6574_6E69 { return (.integer, false, 8) }
        case UInt8(ascii: "d"):
            let five = first(5)
            if five == 0x3E_7463_6964 { return (.dict, false, 5) }
            if five == 0x3E_6174_6164 { return (.data, false, 5) }
            if five == 0x3E_6574_6164 { return (.date, false, 5) }
            if first(6) == 0x3E2F_7463_6964 { return (.dict, true, 6) }
        case UInt8(ascii: "a"):
            if first(6) == 0x3E79_6172_7261 { return (.array, false, 6) }
            if first(7) == 0x3E_2F79_6172_7261 { return (.array, true, 7) }
        case UInt8(ascii: "t"):
            if first(6) == 0x3E2F_6575_7274 { return (.true, true, 6) }
        case UInt8(ascii: "f"):
            if first(7) == 0x3E_2F65_736C_6166 { return (.false, true, 7) }
        case UInt8(ascii: "r"):
            if first(5) == 0x3E_6C61_6572 { return (.real, false, 5) }
        default:
            break
        }
        return nil
    }

    private mutating func readStartTagByScanning() throws(PropertyListError) -> XMLStartTag {
        let start = position
        let nameStart = start + 1
        var index = nameStart
        var nameEnd = -1
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") { break }
            if nameEnd < 0, Self.isMarkupWhitespace(byte) { nameEnd = index }
            index += 1
        }
        guard index < count else { throw error(.truncated, "unterminated tag", at: start) }
        let isEmpty = bytes[index - 1] == UInt8(ascii: "/")
        if nameEnd < 0 { nameEnd = isEmpty ? index - 1 : index }
        position = index + 1
        guard nameEnd > nameStart else { throw error(.xmlSyntax, "malformed tag", at: start) }
        return XMLStartTag(kind: elementKind(nameStart, nameEnd - nameStart), isEmpty: isEmpty, start: start, nameStart: nameStart, nameEnd: nameEnd)
    }

    private func elementKind(_ start: Int, _ length: Int) -> XMLElementKind? {
        let name = bytes + start
        @inline(__always) func equals(_ text: StaticString) -> Bool {
            LibC.bytesEqual(name, text.utf8Start, count: length)
        }
        switch (length, name[0]) {
        case (3, UInt8(ascii: "k")): return equals("key") ? .key : nil
        case (6, UInt8(ascii: "s")): return equals("string") ? .string : nil
        case (4, UInt8(ascii: "d")):
            if equals("dict") { return .dict }
            if equals("data") { return .data }
            return equals("date") ? .date : nil
        case (7, UInt8(ascii: "i")): return equals("integer") ? .integer : nil
        case (4, UInt8(ascii: "r")): return equals("real") ? .real : nil
        case (5, UInt8(ascii: "a")): return equals("array") ? .array : nil
        case (4, UInt8(ascii: "t")): return equals("true") ? .true : nil
        case (5, UInt8(ascii: "f")): return equals("false") ? .false : nil
        case (5, UInt8(ascii: "p")): return equals("plist") ? .plist : nil
        default: return nil
        }
    }

    /// A keyed archive's `<dict><key>CF$UID</key><integer>n</integer></dict>` in the layout
    /// Core Foundation writes it, read in one pass after its `<dict>`: the UID, with the cursor
    /// after `</dict>`. Anything else (comments, attributes, signs, hex, a second key) leaves
    /// the cursor alone and returns nil, and the general path reads it, with the same result.
    @inline(__always)
    mutating func readUIDDictionaryBody() -> PropertyListUID? {
        var index = position
        @inline(__always) func skipSpace() {
            index = XMLTextScanning.skipMarkupWhitespace(bytes, count: count, from: index)
        }
        skipSpace()
        guard matches("<key>CF$UID</key>", at: index) else { return nil }
        index += 17
        skipSpace()
        guard matches("<integer>", at: index) else { return nil }
        index += 9
        var value: UInt64 = 0
        let digitsStart = index
        while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            // Twenty digits could overflow; such values take the general path.
            guard index - digitsStart < 19 else { return nil }
            value = value * 10 + UInt64(bytes[index] - 0x30)
            index += 1
        }
        guard index > digitsStart, matches("</integer>", at: index) else { return nil }
        index += 10
        skipSpace()
        guard matches("</dict>", at: index) else { return nil }
        position = index + 7
        return PropertyListUID(UInt64(UInt32(truncatingIfNeeded: value)))
    }

    /// `</name>` for each element, little-endian: its length, its first eight bytes, and (when
    /// longer than eight) its last eight.
    private static func endTagPattern(_ kind: XMLElementKind) -> (length: Int, head: UInt64, tail: UInt64) {
        switch kind {
        case .plist: return (8, 0x3E74_7369_6C70_2F3C, 0)
        case .array: return (8, 0x3E79_6172_7261_2F3C, 0)
        case .dict: return (7, 0x3E_7463_6964_2F3C, 0)
        case .key: return (6, 0x3E79_656B_2F3C, 0)
        case .string: return (9, 0x676E_6972_7473_2F3C, 0x3E67_6E69_7274_732F)
        case .data: return (7, 0x3E_6174_6164_2F3C, 0)
        case .date: return (7, 0x3E_6574_6164_2F3C, 0)
        case .real: return (7, 0x3E_6C61_6572_2F3C, 0)
        case .integer: return (10, 0x6567_6574_6E69_2F3C, 0x3E72_6567_6574_6E69)
        case .true: return (7, 0x3E_6575_7274_2F3C, 0)
        case .false: return (8, 0x3E65_736C_6166_2F3C, 0)
        }
    }

    /// Reads `</name>` at the cursor; white space may come before the `>`.
    @inline(__always)
    mutating func readEndTag(_ kind: XMLElementKind) throws(PropertyListError) {
        #if _endian(little)
        // The exact spelling, checked with one or two 8-byte loads.
        let pattern = Self.endTagPattern(kind)
        if count - position >= max(pattern.length, 8) {
            let raw = UnsafeRawPointer(bytes + position)
            let head = raw.loadUnaligned(as: UInt64.self)
            if pattern.length <= 8 {
                let mask: UInt64 = pattern.length == 8 ? ~0 : (1 << (8 * UInt64(pattern.length))) - 1
                if head & mask == pattern.head {
                    position += pattern.length
                    return
                }
            } else if head == pattern.head, raw.loadUnaligned(fromByteOffset: pattern.length - 8, as: UInt64.self) == pattern.tail {
                position += pattern.length
                return
            }
        }
        #endif
        try readEndTagByScanning(kind)
    }

    private mutating func readEndTagByScanning(_ kind: XMLElementKind) throws(PropertyListError) {
        let start = position
        let name = kind.name
        let length = name.utf8CodeUnitCount
        guard count - position >= length + 3 else { throw error(.truncated, "the input ends before </\(name)>") }
        guard bytes[position] == UInt8(ascii: "<"), bytes[position + 1] == UInt8(ascii: "/"), LibC.bytesEqual(bytes + position + 2, name.utf8Start, count: length) else {
            throw error(.xmlSyntax, "expected </\(name)>, found '\(excerpt(start..<count))'")
        }
        position += 2 + length
        skipWhitespace()
        guard position < count else { throw error(.truncated, "the input ends before </\(name)> is closed") }
        guard bytes[position] == UInt8(ascii: ">") else { throw error(.xmlSyntax, "expected </\(name)>", at: start) }
        position += 1
    }
}
