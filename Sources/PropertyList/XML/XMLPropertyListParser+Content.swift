/// The content of scalar elements, each read the way Core Foundation reads it. The cursor starts
/// just after the start tag and ends just after the end tag.
extension XMLPropertyListParser {
    // MARK: Text

    /// The text of a `<string>` or `<key>`: raw bytes up to the next `<` that does not open a
    /// CDATA section (control characters, CR and `>` included, none of them altered), the five
    /// entities, character references and CDATA sections. Must be valid UTF-8. Sets
    /// `lastPlainText` to the text's bytes in the input when it needed no decoding.
    mutating func readString(_ kind: XMLElementKind) throws(PropertyListError) -> String {
        let start = scanner.position
        let string: String
        if let end = plainTextEnd(from: start, checkingAmpersands: kind != .key) {
            let text = UnsafeBufferPointer(start: scanner.bytes + start, count: end - start)
            // Only plain keys are ever cached, so a hit means these bytes are plain too.
            if kind == .key, let cached = keyCache.lookup(text) {
                string = cached
            } else if kind == .key, XMLTextScanning.containsAmpersand(text) {
                lastPlainText = nil
                try decodeText(from: start)
                string = try makeString(textBuffer.contents, at: start)
                try scanner.readEndTag(kind)
                return string
            } else {
                string = try makeString(text, at: start)
                if kind == .key { keyCache.insert(string, bytes: text) }
            }
            // A key that loses a leading U+FEFF (makeString) is not its raw bytes: the key-order
            // check on raw bytes must not vouch for it.
            lastPlainText = XMLTextScanning.startsWithByteOrderMark(text) ? nil : start..<end
            scanner.position = end
        } else {
            lastPlainText = nil
            try decodeText(from: start)
            string = try makeString(textBuffer.contents, at: start)
        }
        try scanner.readEndTag(kind)
        return string
    }

    /// Where text starting at `start` ends if it is plain (no entity, no CDATA): the `<` of
    /// the tag after it. Nil when it needs decoding. Without `checkingAmpersands` the caller
    /// must look for `&` itself.
    @inline(__always)
    func plainTextEnd(from start: Int, checkingAmpersands: Bool = true) -> Int? {
        let end = XMLTextScanning.first(UInt8(ascii: "<"), in: scanner.bytes, count: scanner.count, from: start)
        guard end < scanner.count else { return nil }
        if end + 1 < scanner.count, scanner.bytes[end + 1] == UInt8(ascii: "!") { return nil }
        if checkingAmpersands, XMLTextScanning.containsAmpersand(UnsafeBufferPointer(start: scanner.bytes + start, count: end - start)) { return nil }
        return end
    }

    /// Decodes text with entities or CDATA into `textBuffer`, leaving the cursor on the `<`
    /// that ends it.
    mutating func decodeText(from start: Int) throws(PropertyListError) {
        textBuffer.removeAll()
        let bytes = scanner.bytes
        let count = scanner.count
        var position = start
        while true {
            let runEnd = XMLTextScanning.firstTextDelimiter(bytes, count: count, from: position)
            textBuffer.append(UnsafeBufferPointer(start: bytes + position, count: runEnd - position))
            position = runEnd
            guard textBuffer.count <= options.maximumValueLength else {
                throw scanner.error(.sizeLimitExceeded, "text longer than the limit of \(options.maximumValueLength) bytes", at: start)
            }
            guard position < count else { throw scanner.error(.truncated, "the input ends inside text", at: start) }
            if bytes[position] == UInt8(ascii: "&") {
                scanner.position = position
                try decodeEntity()
                position = scanner.position
                continue
            }
            // A "<" as the very last byte ends the text; the end tag check then fails.
            guard position + 1 < count, bytes[position + 1] == UInt8(ascii: "!") else { break }
            guard count - position >= 9 else { throw scanner.error(.truncated, "the input ends inside markup", at: position) }
            guard scanner.matches("<![CDATA[", at: position) else {
                throw scanner.error(.xmlSyntax, "markup '\(scanner.excerpt(position..<count))' inside text (only CDATA is allowed)", at: position)
            }
            let contentStart = position + 9
            var index = contentStart
            var found = false
            while index < count - 2 {
                if bytes[index] == UInt8(ascii: "]"), bytes[index + 1] == UInt8(ascii: "]"), bytes[index + 2] == UInt8(ascii: ">") {
                    found = true
                    break
                }
                index += 1
            }
            guard found else { throw scanner.error(.truncated, "unterminated CDATA section", at: position) }
            textBuffer.append(UnsafeBufferPointer(start: bytes + contentStart, count: index - contentStart))
            position = index + 3
        }
        scanner.position = position
    }

    /// One `&…;` reference at the cursor, appended to `textBuffer`. Only `&lt; &gt; &amp;
    /// &apos; &quot;` and `&#N;` / `&#xH;` (at most 8 digits, `x` lower-case) exist.
    mutating func decodeEntity() throws(PropertyListError) {
        let bytes = scanner.bytes
        let start = scanner.position
        let next = start + 1
        let remaining = scanner.count - next
        // A reference the input cuts off before its ";" is truncated, not malformed.
        var probe = next
        while probe < scanner.count, probe - next < 12, bytes[probe] != UInt8(ascii: ";"), bytes[probe] != UInt8(ascii: "<") { probe += 1 }
        guard probe < scanner.count else { throw scanner.error(.truncated, "the input ends inside an entity", at: start) }
        func unknown() -> PropertyListError {
            scanner.error(.invalidEntity, "unknown entity '\(scanner.excerpt(start..<min(scanner.count, start + 10)))' (only &lt; &gt; &amp; &apos; &quot; and &#…; are defined)", at: start)
        }
        switch bytes[next] {
        case UInt8(ascii: "l"), UInt8(ascii: "g"):
            guard remaining >= 3, bytes[next + 1] == UInt8(ascii: "t"), bytes[next + 2] == UInt8(ascii: ";") else { throw unknown() }
            textBuffer.append(bytes[next] == UInt8(ascii: "l") ? UInt8(ascii: "<") : UInt8(ascii: ">"))
            scanner.position = next + 3
        case UInt8(ascii: "a"):
            guard remaining >= 4 else { throw scanner.error(.truncated, "the input ends inside an entity", at: start) }
            if scanner.matches("mp;", at: next + 1) {
                textBuffer.append(UInt8(ascii: "&"))
                scanner.position = next + 4
            } else if remaining > 4, scanner.matches("pos;", at: next + 1) {
                textBuffer.append(UInt8(ascii: "'"))
                scanner.position = next + 5
            } else {
                throw unknown()
            }
        case UInt8(ascii: "q"):
            guard remaining >= 5, scanner.matches("uot;", at: next + 1) else { throw unknown() }
            textBuffer.append(UInt8(ascii: "\""))
            scanner.position = next + 5
        case UInt8(ascii: "#"):
            guard remaining >= 4 else { throw scanner.error(.truncated, "the input ends inside a character reference", at: start) }
            var index = next + 1
            var hexadecimal = false
            if bytes[index] == UInt8(ascii: "x") {
                hexadecimal = true
                index += 1
            }
            // Core Foundation allows no digits at all (`&#;` is U+0000) and at most eight.
            var value: UInt32 = 0
            var characters = 0
            while index < scanner.count {
                let character = bytes[index]
                index += 1
                characters += 1
                if character == UInt8(ascii: ";") {
                    guard let scalar = Unicode.Scalar(value) else {
                        throw scanner.error(.invalidEntity, "character reference to U+\(String(value, radix: 16, uppercase: true)), which is not a Unicode scalar", at: start)
                    }
                    textBuffer.appendUTF8(scalar)
                    scanner.position = index
                    return
                }
                guard characters <= 8 else {
                    throw scanner.error(.invalidEntity, "character reference longer than 8 digits", at: start)
                }
                // Eight hex digits fit in 32 bits, so neither step can overflow.
                value = hexadecimal ? value << 4 : value &* 10
                switch character {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value &+= UInt32(character - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where hexadecimal: value &+= UInt32(character - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where hexadecimal: value &+= UInt32(character - UInt8(ascii: "A") + 10)
                default:
                    throw scanner.error(.invalidEntity, "malformed character reference", at: start)
                }
            }
            throw scanner.error(.truncated, "the input ends inside a character reference", at: start)
        default:
            throw unknown()
        }
    }

    /// A `String` from UTF-8 that must be valid (no overlong forms, no surrogates). One leading
    /// U+FEFF is dropped, as Core Foundation drops it when it makes the string (from the text
    /// after entities and CDATA: `&#xFEFF;x` reads as `x` too; checked against Foundation on
    /// Linux, `XMLReaderRulesTests.XMLReaderDuplicateKeyTests.aLeadingByteOrderMarkIsDropped`).
    @inline(__always)
    func makeString(_ utf8: UnsafeBufferPointer<UInt8>, at start: Int) throws(PropertyListError) -> String {
        guard utf8.count <= options.maximumValueLength else {
            throw scanner.error(.sizeLimitExceeded, "text longer than the limit of \(options.maximumValueLength) bytes", at: start)
        }
        if utf8.isEmpty { return "" }
        let text = XMLTextScanning.startsWithByteOrderMark(utf8) ? UnsafeBufferPointer(rebasing: utf8.dropFirst(3)) : utf8
        if text.isEmpty { return "" }
        if let string = XMLTextValidation.string(validating: text) { return string }
        throw scanner.error(.invalidText, "text is not valid UTF-8", at: start + (utf8.count - text.count) + XMLTextValidation.firstInvalidOffset(text))
    }

    // MARK: Numbers

    /// Core Foundation's `<integer>`: white space (its generous byte-wise notion of it), a
    /// sign, more white space, decimal or `0x` hex digits up to the end tag, nothing else.
    /// −2^63 … 2^64−1; values above 2^63−1 are kept in the 128-bit storage form.
    mutating func readInteger() throws(PropertyListError) -> PropertyListInteger {
        let bytes = scanner.bytes
        let count = scanner.count
        let start = scanner.position
        var index = start
        func ended() -> PropertyListError { scanner.error(.truncated, "the input ends inside <integer>", at: start) }
        func invalid(_ message: String) -> PropertyListError { scanner.error(.invalidNumber, message, at: start) }
        while index < count, isIntegerWhitespace(index) { index += 1 }
        guard index < count else { throw ended() }
        if bytes[index] == UInt8(ascii: "<") { throw invalid("empty <integer>") }
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
            while index < count, isIntegerWhitespace(index) { index += 1 }
        }
        guard index < count else { throw ended() }
        var hexadecimal = false
        var hadLeadingZero = false
        if bytes[index] == UInt8(ascii: "0") {
            if index + 1 < count, bytes[index + 1] == UInt8(ascii: "x") || bytes[index + 1] == UInt8(ascii: "X") {
                hexadecimal = true
                index += 1
            } else {
                hadLeadingZero = true
            }
            index += 1
        }
        guard index < count else { throw ended() }
        while bytes[index] == UInt8(ascii: "0") {
            hadLeadingZero = true
            index += 1
            guard index < count else { throw ended() }
        }
        if bytes[index] == UInt8(ascii: "<") {
            guard hadLeadingZero else { throw invalid("incomplete <integer>") }
            scanner.position = index
            try scanner.readEndTag(.integer)
            return PropertyListInteger(Int64(0))
        }
        let radix: UInt64 = hexadecimal ? 16 : 10
        var magnitude: UInt64 = 0
        while bytes[index] != UInt8(ascii: "<") {
            let character = bytes[index]
            let digit: UInt64
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(character - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(character - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(character - UInt8(ascii: "A") + 10)
            default:
                // The whole character, not its first byte (which alone shows as U+FFFD).
                let length = character >= 0xF0 ? 4 : character >= 0xE0 ? 3 : character >= 0xC0 ? 2 : 1
                throw invalid("<integer> holds '\(scanner.excerpt(index..<min(count, index + length)))'")
            }
            guard hexadecimal || digit < 10 else { throw invalid("hex digit in a decimal <integer>") }
            let (shifted, overflowA) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowB) = shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { throw invalid("<integer> above 2^64 − 1") }
            guard !negative || sum <= 1 << 63 else { throw invalid("<integer> below −2^63") }
            magnitude = sum
            index += 1
            guard index < count else { throw ended() }
        }
        scanner.position = index
        try scanner.readEndTag(.integer)
        if negative {
            return PropertyListInteger(magnitude == 1 << 63 ? Int64.min : -Int64(magnitude))
        }
        return PropertyListInteger(magnitude)
    }

    /// Core Foundation's byte-wise white space inside `<integer>`: every byte below 0x21, the
    /// bytes 0x7F–0xA0 (so a lone continuation byte counts), and lead bytes of a few Unicode
    /// spaces when the bytes after them look right (its check of the third byte compares
    /// against decimal 80, so E2 80 50…8B and E2 80 AF qualify).
    @inline(__always)
    func isIntegerWhitespace(_ index: Int) -> Bool {
        let bytes = scanner.bytes
        let byte = bytes[index]
        if byte < 0x21 || (byte > 0x7E && byte < 0xA1) { return true }
        guard byte == 0xE2 || byte == 0xE3, scanner.count - index >= 3 else { return false }
        let second = bytes[index + 1]
        let third = bytes[index + 2]
        if byte == 0xE2 && second == 0x80 { return (third >= 80 && third <= 0x8B) || third == 0xAF }
        if byte == 0xE2 && second == 0x81 { return third == 0x9F }
        return byte == 0xE3 && second == 0x80 && third == 0x80
    }

    /// `<real>`: text read like a string's (entities and CDATA work), then parsed.
    mutating func readReal() throws(PropertyListError) -> Double {
        let start = scanner.position
        let parsed: Double?
        if let end = plainTextEnd(from: start) {
            let text = UnsafeBufferPointer(start: scanner.bytes + start, count: end - start)
            // The text must be a valid string before it is a number.
            guard XMLTextValidation.isValid(text) else { throw scanner.error(.invalidText, "text is not valid UTF-8", at: start) }
            parsed = XMLRealText.parse(text)
            scanner.position = end
        } else {
            try decodeText(from: start)
            guard XMLTextValidation.isValid(textBuffer.contents) else {
                throw scanner.error(.invalidText, "text is not valid UTF-8", at: start)
            }
            parsed = XMLRealText.parse(textBuffer.contents)
        }
        guard let value = parsed else {
            throw scanner.error(.invalidNumber, "<real> text '\(scanner.excerpt(start..<scanner.position))' is not a number", at: start)
        }
        try scanner.readEndTag(.real)
        return value
    }

    // MARK: Dates and data

    /// `[-]Y…Y-MM-DDTHH:MM:SSZ` exactly: any number of year digits (accumulated in 32 bits,
    /// wrapping, as Core Foundation does), two digits for every other field, no white space.
    mutating func readDate() throws(PropertyListError) -> Double {
        let bytes = scanner.bytes
        let start = scanner.position
        // The fields cannot contain "<", so the text ends at the next one; a file cut before
        // it is truncated whatever the fields say.
        let end = XMLTextScanning.first(UInt8(ascii: "<"), in: bytes, count: scanner.count, from: start)
        guard end < scanner.count else { throw scanner.error(.truncated, "the input ends inside <date>", at: start) }
        var index = start
        func malformed() -> PropertyListError {
            scanner.error(.invalidDate, "<date> text '\(scanner.excerpt(start..<end))' is not YYYY-MM-DDTHH:MM:SSZ", at: start)
        }
        var negative = false
        if index < end, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var year: Int32 = 0
        while index < end, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            let digit = Int32(bytes[index] - 0x30)
            year = year.multipliedReportingOverflow(by: 10).partialValue.addingReportingOverflow(digit).partialValue
            index += 1
        }
        if negative { year = Int32(0).subtractingReportingOverflow(year).partialValue }
        func separator(_ expected: UInt8) -> Bool {
            guard index < end, bytes[index] == expected else { return false }
            index += 1
            return true
        }
        func twoDigits() -> Int? {
            guard end - index >= 2 else { return nil }
            let first = bytes[index], second = bytes[index + 1]
            index += 2
            guard first >= 0x30, first <= 0x39, second >= 0x30, second <= 0x39 else { return nil }
            return Int(first - 0x30) * 10 + Int(second - 0x30)
        }
        // Core Foundation also refuses anything between the Z and the end tag.
        guard separator(UInt8(ascii: "-")),
              let month = twoDigits(), separator(UInt8(ascii: "-")),
              let day = twoDigits(), separator(UInt8(ascii: "T")),
              let hour = twoDigits(), separator(UInt8(ascii: ":")),
              let minute = twoDigits(), separator(UInt8(ascii: ":")),
              let second = twoDigits(), separator(UInt8(ascii: "Z")), index == end else { throw malformed() }
        scanner.position = end
        try scanner.readEndTag(.date)
        return PropertyListCalendar.absoluteTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `<data>`: base64 up to the end tag, decoded leniently (see ``PropertyListBase64``).
    mutating func readData() throws(PropertyListError) -> [UInt8] {
        let start = scanner.position
        let end = XMLTextScanning.first(UInt8(ascii: "<"), in: scanner.bytes, count: scanner.count, from: start)
        guard end < scanner.count else { throw scanner.error(.truncated, "the input ends inside <data>", at: start) }
        // Decoded into the reused buffer and copied out: creating the array directly at its
        // final size goes through an unspecialised allocator that costs more than the copy.
        guard PropertyListBase64.decodeLenient(UnsafeBufferPointer(start: scanner.bytes + start, count: end - start), into: &textBuffer) else {
            throw scanner.error(.xmlSyntax, "<data> holds a byte outside ASCII", at: start)
        }
        // The limit is on the bytes decoded, as in binary files; the text (proportional to the
        // input, which is already in memory) may be longer by any amount of white space.
        guard textBuffer.count <= options.maximumValueLength else {
            throw scanner.error(.sizeLimitExceeded, "data longer than the limit of \(options.maximumValueLength) bytes", at: start)
        }
        let decoded = Array(textBuffer.contents)
        scanner.position = end
        try scanner.readEndTag(.data)
        return decoded
    }
}
