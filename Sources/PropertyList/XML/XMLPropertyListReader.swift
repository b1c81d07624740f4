#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Reads XML property lists the way Core Foundation's parser does (see `xml-format-notes.md`):
/// raw control characters and raw CR are kept inside strings, `CF$UID` dictionaries become
/// UIDs, duplicate keys keep the last value, hex integers and lenient base64 are accepted, and
/// at most ``PropertyListReadingOptions/maximumDepth`` containers nest. It is a byte scanner of
/// our own: no XMLParser, no libxml2. Faults carry a 1-based line and column.
public enum XMLPropertyListReader {
    public static func read(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            let converted = try XMLTextDecoding.utf8(fromUTF16: bytes)
            let result: Result<XMLPropertyListDocument, PropertyListError> = converted.withUnsafeBytes { buffer in
                var scanner = XMLPropertyListScanner(bytes: buffer, options: options)
                do throws(PropertyListError) { return .success(try scanner.parseDocument()) } catch { return .failure(error) }
            }
            return try result.get()
        }
        var scanner = XMLPropertyListScanner(bytes: bytes, options: options)
        return try scanner.parseDocument()
    }

    public static func read(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> XMLPropertyListDocument {
        let result: Result<XMLPropertyListDocument, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) { return .success(try read(buffer, options: options)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

struct XMLPropertyListScanner {
    let bytes: UnsafeRawBufferPointer
    let options: PropertyListReadingOptions
    var position = 0
    var doctype = XMLPropertyListDoctype.modern
    /// Set when the declaration names ISO-8859-1: text is converted to UTF-8 as it is read.
    var isLatin1 = false

    init(bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions) {
        self.bytes = bytes
        self.options = options
    }

    // MARK: Errors with a line and column

    func location(of offset: Int) -> PropertyListError.Location {
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

    func fail(_ code: PropertyListError.Code, _ message: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(code, message, at: location(of: offset ?? position))
    }

    // MARK: Low-level scanning

    @inline(__always)
    var atEnd: Bool { position >= bytes.count }

    @inline(__always)
    func peek(_ offset: Int = 0) -> UInt8? {
        let index = position &+ offset
        return index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    func hasPrefix(_ text: StaticString, at offset: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, count <= bytes.count &- offset, let base = bytes.baseAddress else { return false }
        return memcmp(base + offset, text.utf8Start, count) == 0
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    mutating func skipWhitespace() {
        while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
    }

    /// Skips a comment `<!-- … -->` or processing instruction `<? … ?>` at the cursor.
    mutating func skipMiscellany() throws(PropertyListError) -> Bool {
        if hasPrefix("<!--", at: position) {
            let start = position
            position += 4
            while !hasPrefix("-->", at: position) {
                guard position < bytes.count else { throw fail(.xmlSyntax, "unterminated comment", at: start) }
                position += 1
            }
            position += 3
            return true
        }
        if hasPrefix("<?", at: position) {
            let start = position
            position += 2
            while !hasPrefix("?>", at: position) {
                guard position < bytes.count else { throw fail(.xmlSyntax, "unterminated processing instruction", at: start) }
                position += 1
            }
            position += 2
            return true
        }
        return false
    }

    /// Whitespace, comments and processing instructions between elements.
    mutating func skipBetweenElements() throws(PropertyListError) {
        while true {
            skipWhitespace()
            // Only "<!" or "<?" can start a comment or processing instruction.
            guard position &+ 1 < bytes.count, bytes[position] == UInt8(ascii: "<") else { return }
            let next = bytes[position &+ 1]
            guard next == UInt8(ascii: "!") || next == UInt8(ascii: "?") else { return }
            if try !skipMiscellany() { return }
        }
    }

    // MARK: Document

    mutating func parseDocument() throws(PropertyListError) -> XMLPropertyListDocument {
        if hasPrefix("\u{FEFF}", at: 0) { position = 3 }
        while true {
            skipWhitespace()
            if hasPrefix("<?xml", at: position) {
                try parseDeclaration()
                continue
            }
            if try skipMiscellany() { continue }
            if hasPrefix("<!DOCTYPE", at: position) {
                try parseDoctype()
                continue
            }
            if hasPrefix("<!", at: position) {
                throw fail(.xmlSyntax, "unexpected markup declaration before the root element")
            }
            break
        }
        guard peek() == UInt8(ascii: "<") else {
            throw fail(atEnd ? .truncated : .xmlSyntax, atEnd ? "no root element" : "text before the root element")
        }
        let tag = try parseStartTag()
        let value: PropertyListValue
        if tag.element == .plist {
            guard !tag.isEmpty else { throw fail(.xmlSyntax, "empty plist tag", at: tag.start) }
            try skipBetweenElements()
            guard !hasPrefix("</", at: position) else { throw fail(.xmlSyntax, "empty plist tag", at: tag.start) }
            let inner = try parseStartTag()
            value = try parseValue(inner, depth: 0)
            try skipBetweenElements()
            if !hasPrefix("</", at: position) {
                throw fail(.xmlSyntax, "a plist element holds more than one value")
            }
            try expectEndTag("plist")
        } else {
            value = try parseValue(tag, depth: 0)
        }
        // Like Core Foundation, anything after the root element is ignored.
        return XMLPropertyListDocument(value: value, doctype: doctype)
    }

    mutating func parseDeclaration() throws(PropertyListError) {
        let start = position
        while !hasPrefix("?>", at: position) {
            guard position < bytes.count else { throw fail(.xmlSyntax, "unterminated XML declaration", at: start) }
            position += 1
        }
        let declaration = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        position += 2
        let marker = Array("encoding=".utf8)
        guard let found = (0..<max(0, declaration.count - marker.count + 1)).first(where: { declaration[$0..<($0 + marker.count)].elementsEqual(marker) }) else { return }
        var rest = declaration[(found + marker.count)...]
        guard let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return }
        rest = rest.dropFirst()
        let name = String(decoding: rest.prefix { $0 != quote }, as: UTF8.self).lowercased()
        switch name {
        case "utf-8", "utf8", "us-ascii", "ascii": break
        case "iso-8859-1", "latin1", "iso_8859-1", "latin-1": isLatin1 = true
        default:
            throw fail(.xmlSyntax, "unsupported encoding '\(name)' in the XML declaration", at: start)
        }
    }

    mutating func parseDoctype() throws(PropertyListError) {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: ">") {
            if bytes[position] == UInt8(ascii: "[") {
                throw fail(.xmlSyntax, "DOCTYPE with an internal subset is not supported", at: position)
            }
            position += 1
        }
        guard position < bytes.count else { throw fail(.xmlSyntax, "unterminated DOCTYPE", at: start) }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        if String(decoding: text, as: UTF8.self).contains("-//Apple Computer//") {
            doctype = .legacyAppleComputer
        }
        position += 1
    }

    // MARK: Tags

    /// The elements a property list can hold, recognised from bytes without building a String.
    enum Element: Equatable {
        case plist, string, key, integer, real, `true`, `false`, date, data, array, dict
        case unknown(String)

        var name: String {
            switch self {
            case .plist: return "plist"
            case .string: return "string"
            case .key: return "key"
            case .integer: return "integer"
            case .real: return "real"
            case .true: return "true"
            case .false: return "false"
            case .date: return "date"
            case .data: return "data"
            case .array: return "array"
            case .dict: return "dict"
            case .unknown(let name): return name
            }
        }
    }

    struct StartTag {
        var element: Element
        var isEmpty: Bool
        var start: Int
        var name: String { element.name }
    }

    func element(named range: Range<Int>) -> Element {
        let start = range.lowerBound
        switch range.count {
        case 3: if hasPrefix("key", at: start) { return .key }
        case 4:
            if hasPrefix("dict", at: start) { return .dict }
            if hasPrefix("real", at: start) { return .real }
            if hasPrefix("true", at: start) { return .true }
            if hasPrefix("date", at: start) { return .date }
            if hasPrefix("data", at: start) { return .data }
        case 5:
            if hasPrefix("array", at: start) { return .array }
            if hasPrefix("false", at: start) { return .false }
            if hasPrefix("plist", at: start) { return .plist }
        case 6: if hasPrefix("string", at: start) { return .string }
        case 7: if hasPrefix("integer", at: start) { return .integer }
        default: break
        }
        return .unknown(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }

    mutating func parseStartTag() throws(PropertyListError) -> StartTag {
        let start = position
        guard peek() == UInt8(ascii: "<") else { throw fail(.xmlSyntax, "expected an element") }
        position += 1
        let nameStart = position
        while position < bytes.count {
            let byte = bytes[position]
            if Self.isWhitespace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { break }
            position += 1
        }
        guard position > nameStart else { throw fail(.xmlSyntax, "expected an element name", at: start) }
        let element = element(named: nameStart..<position)
        // Attributes are ignored up to the first '>'; the tag is empty if '/' precedes it.
        while position < bytes.count, bytes[position] != UInt8(ascii: ">") { position += 1 }
        guard position < bytes.count else { throw fail(.truncated, "unterminated <\(element.name)> tag", at: start) }
        let isEmpty = position > nameStart && bytes[position - 1] == UInt8(ascii: "/")
        position += 1
        return StartTag(element: element, isEmpty: isEmpty, start: start)
    }

    mutating func expectEndTag(_ name: StaticString) throws(PropertyListError) {
        let start = position
        guard hasPrefix("</", at: position), hasPrefix(name, at: position + 2) else {
            throw fail(.xmlSyntax, "expected </\(name)>", at: start)
        }
        position += 2 + name.utf8CodeUnitCount
        skipWhitespace()
        guard peek() == UInt8(ascii: ">") else { throw fail(.xmlSyntax, "expected </\(name)>", at: start) }
        position += 1
    }

    // MARK: Values

    mutating func parseValue(_ tag: StartTag, depth: Int) throws(PropertyListError) -> PropertyListValue {
        switch tag.element {
        case .string, .key:
            if tag.isEmpty { return .string("") }
            let text = try parseText()
            if tag.element == .string { try expectEndTag("string") } else { try expectEndTag("key") }
            return .string(text)
        case .integer:
            guard !tag.isEmpty else { throw fail(.invalidNumber, "empty <integer/>", at: tag.start) }
            let contentStart = position
            try skipToContentEnd()
            guard let integer = XMLNumberParsing.integer(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<position])) else {
                throw fail(.invalidNumber, "<integer> text is not an integer in range", at: contentStart)
            }
            try expectEndTag("integer")
            return .integer(integer)
        case .real:
            guard !tag.isEmpty else { throw fail(.invalidNumber, "empty <real/>", at: tag.start) }
            let contentStart = position
            let text = try parseText()
            guard let real = XMLNumberParsing.real(text) else {
                throw fail(.invalidNumber, "<real> text '\(text.prefix(40))' is not a number", at: contentStart)
            }
            try expectEndTag("real")
            return .real(.float64(real))
        case .true, .false:
            if !tag.isEmpty {
                guard hasPrefix("</", at: position) else { throw fail(.xmlSyntax, "<\(tag.name)> must be empty") }
                if tag.element == .true { try expectEndTag("true") } else { try expectEndTag("false") }
            }
            return .bool(tag.element == .true)
        case .date:
            guard !tag.isEmpty else { throw fail(.invalidDate, "empty <date/>", at: tag.start) }
            let contentStart = position
            try skipToContentEnd()
            guard let seconds = XMLNumberParsing.date(UnsafeRawBufferPointer(rebasing: bytes[contentStart..<position])) else {
                throw fail(.invalidDate, "<date> text is not YYYY-MM-DDTHH:MM:SSZ", at: contentStart)
            }
            try expectEndTag("date")
            return .date(PropertyListDate(secondsSinceReferenceDate: seconds))
        case .data:
            guard !tag.isEmpty else { throw fail(.xmlSyntax, "empty <data/> is not allowed", at: tag.start) }
            let contentStart = position
            try skipToContentEnd()
            let content = UnsafeRawBufferPointer(rebasing: bytes[contentStart..<position])
            guard content.count <= options.maximumValueLength &* 2 else {
                throw fail(.sizeLimitExceeded, "data longer than the limit of \(options.maximumValueLength) bytes", at: contentStart)
            }
            guard let decoded = XMLBase64Decoding.decode(content) else {
                throw fail(.xmlSyntax, "<data> holds a non-ASCII byte", at: contentStart)
            }
            try expectEndTag("data")
            return .data(decoded)
        case .array:
            if tag.isEmpty { return .array([]) }
            guard depth < options.maximumDepth else {
                throw fail(.depthLimitExceeded, "containers nest deeper than \(options.maximumDepth)", at: tag.start)
            }
            var elements: [PropertyListValue] = []
            while true {
                try skipBetweenElements()
                if hasPrefix("</", at: position) { break }
                guard peek() == UInt8(ascii: "<") else {
                    throw fail(atEnd ? .truncated : .xmlSyntax, atEnd ? "unterminated <array>" : "text between array elements")
                }
                guard elements.count < options.maximumCollectionCount else {
                    throw fail(.sizeLimitExceeded, "array of more than \(options.maximumCollectionCount) elements")
                }
                elements.append(try parseValue(try parseStartTag(), depth: depth + 1))
            }
            try expectEndTag("array")
            return .array(elements)
        case .dict:
            if tag.isEmpty { return .dictionary(PropertyListDictionary()) }
            if let uid = parseCanonicalUID() { return .uid(uid) }
            guard depth < options.maximumDepth else {
                throw fail(.depthLimitExceeded, "containers nest deeper than \(options.maximumDepth)", at: tag.start)
            }
            var dictionary = PropertyListDictionary()
            var keysIncreasing = true
            while true {
                try skipBetweenElements()
                if hasPrefix("</", at: position) { break }
                guard peek() == UInt8(ascii: "<") else {
                    throw fail(atEnd ? .truncated : .xmlSyntax, atEnd ? "unterminated <dict>" : "text between dictionary elements")
                }
                let keyTag = try parseStartTag()
                guard keyTag.element == .key else {
                    throw fail(.xmlUnexpectedElement, "expected <key> in a dictionary, found <\(keyTag.name)>", at: keyTag.start)
                }
                guard case .string(let key) = try parseValue(keyTag, depth: depth + 1) else {
                    throw fail(.xmlSyntax, "unreadable key", at: keyTag.start)
                }
                try skipBetweenElements()
                guard !hasPrefix("</", at: position), peek() == UInt8(ascii: "<") else {
                    throw fail(.xmlSyntax, "key '\(key.prefix(40))' has no value")
                }
                let value = try parseValue(try parseStartTag(), depth: depth + 1)
                // Duplicate keys: the last value wins, kept at the key's first position. Keys
                // that arrive in increasing order (Core Foundation sorts them) cannot repeat.
                let isAfterLast = dictionary.entries.last.map { XMLKeyOrder.precedes($0.key, key) } ?? true
                keysIncreasing = keysIncreasing && isAfterLast
                if !keysIncreasing, let existing = dictionary.position(of: key) {
                    dictionary.replaceValue(at: existing, with: value)
                } else {
                    guard dictionary.count < options.maximumCollectionCount else {
                        throw fail(.sizeLimitExceeded, "dictionary of more than \(options.maximumCollectionCount) entries")
                    }
                    dictionary.append(key: key, value: value)
                }
            }
            try expectEndTag("dict")
            // A dictionary holding only CF$UID with a number is a keyed-archive reference.
            if dictionary.count == 1, dictionary.entries[0].key == "CF$UID" {
                switch dictionary.entries[0].value {
                case .integer(let integer):
                    return .uid(PropertyListUID(UInt64(UInt32(truncatingIfNeeded: integer.low))))
                case .real(let real):
                    let truncated = real.doubleValue.rounded(.towardZero)
                    if truncated.isFinite, abs(truncated) < 9.2e18 {
                        return .uid(PropertyListUID(UInt64(UInt32(truncatingIfNeeded: Int64(truncated)))))
                    }
                default: break
                }
            }
            return .dictionary(dictionary)
        case .plist, .unknown:
            throw fail(.xmlUnexpectedElement, "unexpected element <\(tag.name.prefix(40))>", at: tag.start)
        }
    }

    /// The exact layout Core Foundation writes for a UID, `<key>CF$UID</key>` and a plain
    /// decimal `<integer>` closed by `</dict>`, read without building a dictionary (archives
    /// are mostly UIDs). Anything else returns nil with the cursor unmoved, for the general path.
    mutating func parseCanonicalUID() -> PropertyListUID? {
        let saved = position
        skipWhitespace()
        guard hasPrefix("<key>CF$UID</key>", at: position) else { position = saved; return nil }
        position += 17
        skipWhitespace()
        guard hasPrefix("<integer>", at: position) else { position = saved; return nil }
        position += 9
        var value: UInt64 = 0
        var digits = 0
        while position < bytes.count, bytes[position] >= 0x30, bytes[position] <= 0x39, digits < 10 {
            value = value &* 10 &+ UInt64(bytes[position] &- 0x30)
            digits += 1
            position += 1
        }
        guard digits > 0, value <= UInt64(UInt32.max), hasPrefix("</integer>", at: position) else { position = saved; return nil }
        position += 10
        skipWhitespace()
        guard hasPrefix("</dict>", at: position) else { position = saved; return nil }
        position += 7
        return PropertyListUID(value)
    }

    /// Moves to the `<` that ends simple content (integers, dates, data), which cannot hold markup.
    mutating func skipToContentEnd() throws(PropertyListError) {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") { position += 1 }
        guard position < bytes.count else { throw fail(.truncated, "unterminated element content", at: start) }
    }

    /// Text of `<string>`, `<key>` or `<real>`: raw bytes (control characters and CR kept),
    /// entities and CDATA sections, up to the next tag. Validated as UTF-8.
    mutating func parseText() throws(PropertyListError) -> String {
        let start = position
        // Fast path: plain text with no entity or CDATA, the overwhelmingly common case.
        var scan = position
        var plain = true
        while scan < bytes.count {
            let byte = bytes[scan]
            if byte == UInt8(ascii: "<") { break }
            if byte == UInt8(ascii: "&") { plain = false; break }
            scan += 1
        }
        if plain && !hasPrefix("<![CDATA[", at: scan) && !isLatin1 {
            guard scan < bytes.count else { throw fail(.truncated, "unterminated text", at: start) }
            if hasPrefix("<!", at: scan) { throw fail(.xmlSyntax, "markup declaration inside text", at: scan) }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<scan])
            guard slice.count <= options.maximumValueLength else {
                throw fail(.sizeLimitExceeded, "text longer than the limit of \(options.maximumValueLength) bytes", at: start)
            }
            guard XMLTextDecoding.isValidUTF8(slice) else { throw fail(.invalidText, "text is not valid UTF-8", at: start) }
            position = scan
            return String(decoding: slice, as: UTF8.self)
        }
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw fail(.truncated, "unterminated text", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if hasPrefix("<![CDATA[", at: position) {
                    let cdataStart = position
                    position += 9
                    while !hasPrefix("]]>", at: position) {
                        guard position < bytes.count else { throw fail(.xmlSyntax, "unterminated CDATA section", at: cdataStart) }
                        appendTextByte(bytes[position], to: &text)
                        position += 1
                    }
                    position += 3
                    continue
                }
                if hasPrefix("<!", at: position) { throw fail(.xmlSyntax, "markup declaration inside text") }
                break
            }
            if byte == UInt8(ascii: "&") {
                try parseEntity(into: &text)
                continue
            }
            appendTextByte(byte, to: &text)
            position += 1
            guard text.count <= options.maximumValueLength else {
                throw fail(.sizeLimitExceeded, "text longer than the limit of \(options.maximumValueLength) bytes", at: start)
            }
        }
        let valid = text.withUnsafeBytes { XMLTextDecoding.isValidUTF8($0) }
        guard valid else { throw fail(.invalidText, "text is not valid UTF-8", at: start) }
        return String(decoding: text, as: UTF8.self)
    }

    @inline(__always)
    func appendTextByte(_ byte: UInt8, to text: inout [UInt8]) {
        if isLatin1 && byte >= 0x80 {
            text.append(0xC0 | (byte >> 6))
            text.append(0x80 | (byte & 0x3F))
        } else {
            text.append(byte)
        }
    }

    mutating func parseEntity(into text: inout [UInt8]) throws(PropertyListError) {
        let start = position
        let entities: [(StaticString, UInt8)] = [("&lt;", UInt8(ascii: "<")), ("&gt;", UInt8(ascii: ">")), ("&amp;", UInt8(ascii: "&")), ("&apos;", UInt8(ascii: "'")), ("&quot;", UInt8(ascii: "\""))]
        for (name, replacement) in entities where hasPrefix(name, at: position) {
            text.append(replacement)
            position += name.utf8CodeUnitCount
            return
        }
        guard hasPrefix("&#", at: position) else {
            throw fail(.invalidEntity, "unknown entity (only &lt; &gt; &amp; &apos; &quot; and &#…; are defined)", at: start)
        }
        position += 2
        var radix: UInt32 = 10
        if peek() == UInt8(ascii: "x") {
            radix = 16
            position += 1
        }
        var value: UInt32 = 0
        var digits = 0
        while let byte = peek(), byte != UInt8(ascii: ";") {
            guard let digit = XMLNumberParsing.digitValue(byte, radix: radix), digits < 8 else {
                throw fail(.invalidEntity, "malformed character reference", at: start)
            }
            value = value &* radix &+ digit
            digits += 1
            position += 1
        }
        guard peek() == UInt8(ascii: ";"), digits > 0, let scalar = Unicode.Scalar(value) else {
            throw fail(.invalidEntity, "malformed character reference", at: start)
        }
        position += 1
        text.append(contentsOf: String(Character(scalar)).utf8)
    }
}

extension PropertyListDictionary {
    /// Replaces the value at `position`, keeping the key where it stands.
    mutating func replaceValue(at position: Int, with value: PropertyListValue) {
        var entry = self[position]
        entry.value = value
        replaceEntry(at: position, with: entry)
    }
}

enum XMLNumberParsing {
    @inline(__always)
    static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Core Foundation's integer text: leading whitespace, a sign (whitespace may follow it),
    /// decimal or `0x` hex, range −2^63 … 2^64−1, nothing after.
    static func integer(_ text: UnsafeRawBufferPointer) -> PropertyListInteger? {
        var index = 0
        let count = text.count
        while index < count, text[index] < 0x21 { index += 1 }
        var negative = false
        if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
            while index < count, text[index] < 0x21 { index += 1 }
        }
        var radix: UInt64 = 10
        if index + 1 < count, text[index] == UInt8(ascii: "0"), text[index + 1] == UInt8(ascii: "x") || text[index + 1] == UInt8(ascii: "X") {
            radix = 16
            index += 2
        }
        guard index < count else { return nil }
        var magnitude: UInt64 = 0
        while index < count {
            guard let digit = digitValue(text[index], radix: UInt32(radix)) else { return nil }
            let (shifted, overflowA) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflowA, !overflowB else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return PropertyListInteger(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
        }
        return PropertyListInteger(magnitude)
    }

    static func real(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        var utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count, utf8[index] < 0x21 { index += 1 }
        // sign? digits* (. digits*)? ([eE] sign? digits+)? with at least one mantissa digit.
        var scan = index
        if scan < utf8.count, utf8[scan] == UInt8(ascii: "+") || utf8[scan] == UInt8(ascii: "-") { scan += 1 }
        var mantissaDigits = 0
        while scan < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[scan]) { scan += 1; mantissaDigits += 1 }
        if scan < utf8.count, utf8[scan] == UInt8(ascii: ".") {
            scan += 1
            while scan < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[scan]) { scan += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return nil }
        if scan < utf8.count, utf8[scan] == UInt8(ascii: "e") || utf8[scan] == UInt8(ascii: "E") {
            scan += 1
            if scan < utf8.count, utf8[scan] == UInt8(ascii: "+") || utf8[scan] == UInt8(ascii: "-") { scan += 1 }
            var exponentDigits = 0
            while scan < utf8.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(utf8[scan]) { scan += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { return nil }
        }
        guard scan == utf8.count else { return nil }
        utf8.append(0)
        // strtod gives ±∞ on overflow and 0 on underflow, as Core Foundation's scanner does.
        return utf8.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { strtod($0 + index, nil) }
            }
        }
    }

    /// `[-]Y…Y-MM-DDTHH:MM:SSZ`; fields are added arithmetically, not range-checked.
    static func date(_ text: UnsafeRawBufferPointer) -> Double? {
        var index = 0
        let count = text.count
        func number(maximumDigits: Int) -> Int64? {
            var value: Int64 = 0
            var digits = 0
            while index < count, digits < maximumDigits, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) {
                value = value * 10 + Int64(text[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
        func expect(_ character: Character) -> Bool {
            guard index < count, text[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        var negative = false
        if index < count, text[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        guard let yearDigits = number(maximumDigits: 12), expect("-"),
              let month = number(maximumDigits: 2), expect("-"),
              let day = number(maximumDigits: 2), expect("T"),
              let hour = number(maximumDigits: 2), expect(":"),
              let minute = number(maximumDigits: 2), expect(":"),
              let second = number(maximumDigits: 2), expect("Z"), index == count else { return nil }
        let year = negative ? -yearDigits : yearDigits
        let days = XMLDateText.days(year: year, month: month, day: day)
        return Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second)
    }
}

/// Core Foundation's lenient base64: characters outside the alphabet are skipped, `=` counts
/// as a zero digit that trims the output, and an incomplete final group is dropped.
enum XMLBase64Decoding {
    static let table: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (index, character) in PropertyListBase64Text.alphabet.enumerated() { table[Int(character)] = Int8(index) }
        table[Int(UInt8(ascii: "="))] = 0
        return table
    }()

    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var accumulator: UInt32 = 0
        var digits = 0
        var padding = 0
        for byte in text {
            guard byte < 0x80 else { return nil }
            if byte == UInt8(ascii: "=") {
                padding += 1
            } else if !(byte == 0x20 || (0x09...0x0D).contains(byte)) {
                padding = 0
            }
            let value = table[Int(byte)]
            if value < 0 { continue }
            accumulator = accumulator << 6 | UInt32(value)
            digits += 1
            if digits == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                if padding < 2 { out.append(UInt8(truncatingIfNeeded: accumulator >> 8)) }
                if padding < 1 { out.append(UInt8(truncatingIfNeeded: accumulator)) }
                digits = 0
                accumulator = 0
            }
        }
        return out
    }
}

enum XMLTextDecoding {
    /// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if BinaryText.isASCII(bytes) { return true }
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 { index += 1; continue }
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
            default: return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length {
                let continuation = bytes[index + offset]
                guard continuation & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return false }
            minimum = 0
            index += length
        }
        return true
    }

    /// UTF-16 input (with a byte-order mark) converted to UTF-8 before scanning.
    static func utf8(fromUTF16 bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> [UInt8] {
        let bigEndian = bytes[0] == 0xFE
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 2
        while index + 1 < bytes.count {
            let high = UInt16(bytes[bigEndian ? index : index + 1])
            let low = UInt16(bytes[bigEndian ? index + 1 : index])
            units.append(high << 8 | low)
            index += 2
        }
        var out: [UInt8] = []
        var failed = false
        transcode(units.makeIterator(), from: UTF16.self, to: UTF8.self, stoppingOnError: true) { out.append($0) }
            ? (failed = true) : ()
        if failed { throw PropertyListError(.invalidText, "UTF-16 input has an unpaired surrogate", at: .line(1, column: 1)) }
        return out
    }
}
