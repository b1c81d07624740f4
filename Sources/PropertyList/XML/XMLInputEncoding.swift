/// The character encoding of an XML property list, decided as Core Foundation decides it:
/// byte-order marks first, then (only when the file starts with `<?xml`) the declaration's
/// `encoding="…"`. UTF-8 is read in place; anything else is converted to UTF-8 first, as Core
/// Foundation does, and line numbers in errors then refer to the converted text.
enum XMLInputEncoding {
    enum Plan {
        /// UTF-8: parse the input itself, after skipping this many bytes of byte-order mark.
        case inPlace(skip: Int)
        /// Parse these UTF-8 bytes instead.
        case converted([UInt8])
    }

    /// Single-byte encodings we convert. Core Foundation on Linux knows every encoding ICU
    /// knows; these are the ones property lists were written in in practice.
    private enum SingleByte {
        case latin1, windows1252, latin9
    }

    static func plan(for bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> Plan {
        let count = bytes.count
        if count > 4 {
            if bytes[0] == 0x00, bytes[1] == 0x00, bytes[2] == 0xFE, bytes[3] == 0xFF {
                return .converted(try fromUTF32(bytes, from: 4, bigEndian: true))
            }
            if bytes[0] == 0xFF, bytes[1] == 0xFE, bytes[2] == 0x00, bytes[3] == 0x00 {
                return .converted(try fromUTF32(bytes, from: 4, bigEndian: false))
            }
        }
        if count > 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            return .inPlace(skip: 3)
        }
        if count > 2 {
            if bytes[0] == 0xFF, bytes[1] == 0xFE { return .converted(try fromUTF16(bytes, from: 2, bigEndian: false)) }
            if bytes[0] == 0xFE, bytes[1] == 0xFF { return .converted(try fromUTF16(bytes, from: 2, bigEndian: true)) }
            if bytes[0] == 0x00 || bytes[1] == 0x00 {
                throw PropertyListError(.invalidText, "UTF-16 or UTF-32 text without a byte-order mark is not supported", at: .line(1, column: 1))
            }
        }
        guard let name = declaredEncodingName(bytes) else { return .inPlace(skip: 0) }
        switch name {
        case "utf-8", "utf8":
            return .inPlace(skip: 0)
        case "us-ascii", "ascii", "iso-8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "l1", "iso-ir-100", "cp819", "ibm819", "csisolatin1":
            // Core Foundation's ASCII converter passes bytes above 0x7F through as Latin-1.
            return .converted(try fromSingleByte(bytes, .latin1))
        case "windows-1252", "cp1252", "x-cp1252":
            return .converted(try fromSingleByte(bytes, .windows1252))
        case "iso-8859-15", "iso_8859-15", "latin-9", "latin9":
            return .converted(try fromSingleByte(bytes, .latin9))
        default:
            throw PropertyListError(.xmlSyntax, "unsupported encoding '\(name.excerptForMessage(40))' in the XML declaration", at: .line(1, column: 1))
        }
    }

    /// The lower-cased `encoding` value of a leading `<?xml … ?>` declaration, scanned the way
    /// Core Foundation scans it: the first `encoding=` before any `?` or `>`, quoted.
    static func declaredEncodingName(_ bytes: UnsafeRawBufferPointer) -> String? {
        let count = bytes.count
        let opening: [UInt8] = Array("<?xml".utf8)
        guard count >= 5, bytes.prefix(5).elementsEqual(opening) else { return nil }
        let marker: [UInt8] = Array("ncoding=".utf8)
        var index = 5
        var found = false
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: ">") { return nil }
            index += 1
            // Core Foundation stops (with an error) when fewer than 9 bytes remain here; the
            // document is too short to be a property list then anyway.
            guard index + 8 < count else { return nil }
            if byte == UInt8(ascii: "e"), bytes[index..<(index + 8)].elementsEqual(marker) {
                index += 8
                found = true
                break
            }
        }
        guard found, index < count else { return nil }
        let quote = bytes[index]
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        let nameStart = index + 1
        var nameEnd = nameStart
        while nameEnd < count, bytes[nameEnd] != quote { nameEnd += 1 }
        guard nameEnd < count else { return nil }
        var name = ""
        for byte in bytes[nameStart..<nameEnd] {
            // Encoding names are ASCII; anything else makes the name unknown.
            let lowered = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            name.unicodeScalars.append(Unicode.Scalar(lowered))
        }
        return name
    }

    private static func fromUTF16(_ bytes: UnsafeRawBufferPointer, from start: Int, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var units: [UInt16] = []
        units.reserveCapacity((bytes.count - start) / 2)
        var index = start
        while index + 1 < bytes.count {
            let first = UInt16(bytes[index])
            let second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        var out: [UInt8] = []
        out.reserveCapacity(units.count)
        var place = TextPlace()
        var position = 0
        while position < units.count {
            let unit = units[position]
            let scalar: Unicode.Scalar?
            if unit < 0xD800 || unit > 0xDFFF {
                scalar = Unicode.Scalar(unit)
                position += 1
            } else if unit <= 0xDBFF, position + 1 < units.count, units[position + 1] >= 0xDC00, units[position + 1] <= 0xDFFF {
                scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(units[position + 1]) - 0xDC00))
                position += 2
            } else {
                scalar = nil
            }
            guard let scalar else {
                throw PropertyListError(.invalidText, "UTF-16 text has an unpaired surrogate (0x\(String(unit, radix: 16, uppercase: true)))", at: place.location)
            }
            appendUTF8(scalar, to: &out)
            place.advance(past: scalar)
        }
        return out
    }

    /// Line and column (in characters) of the text converted so far, for the location of a
    /// character that cannot be converted.
    /// Lines end at LF, CR or CRLF, as the scanner counts them for every other error.
    private struct TextPlace {
        var line = 1
        var column = 1
        var afterCarriageReturn = false

        mutating func advance(past scalar: Unicode.Scalar) {
            switch scalar {
            case "\r":
                line += 1
                column = 1
                afterCarriageReturn = true
            case "\n":
                // The LF of a CRLF ends no second line.
                if !afterCarriageReturn { line += 1 }
                column = 1
                afterCarriageReturn = false
            default:
                column += 1
                afterCarriageReturn = false
            }
        }

        var location: PropertyListError.Location { .line(line, column: column) }
    }

    private static func fromUTF32(_ bytes: UnsafeRawBufferPointer, from start: Int, bigEndian: Bool) throws(PropertyListError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count - start)
        var index = start
        var place = TextPlace()
        while index + 3 < bytes.count {
            let b0 = UInt32(bytes[index]), b1 = UInt32(bytes[index + 1]), b2 = UInt32(bytes[index + 2]), b3 = UInt32(bytes[index + 3])
            let value = bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
            guard let scalar = Unicode.Scalar(value) else {
                throw PropertyListError(.invalidText, "UTF-32 text holds 0x\(String(value, radix: 16, uppercase: true)), which is not a Unicode scalar", at: place.location)
            }
            appendUTF8(scalar, to: &out)
            place.advance(past: scalar)
            index += 4
        }
        return out
    }

    /// Windows-1252's characters for 0x80–0x9F; zero marks the five undefined bytes, which
    /// Core Foundation refuses to convert.
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    private static func fromSingleByte(_ bytes: UnsafeRawBufferPointer, _ encoding: SingleByte) throws(PropertyListError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        var place = TextPlace()
        for byte in bytes {
            if byte < 0x80 {
                out.append(byte)
                place.advance(past: Unicode.Scalar(byte))
                continue
            }
            var value = UInt32(byte)
            switch encoding {
            case .latin1:
                break
            case .windows1252:
                if byte < 0xA0 { value = windows1252High[Int(byte) - 0x80] }
            case .latin9:
                switch byte {
                case 0xA4: value = 0x20AC
                case 0xA6: value = 0x0160
                case 0xA8: value = 0x0161
                case 0xB4: value = 0x017D
                case 0xB8: value = 0x017E
                case 0xBC: value = 0x0152
                case 0xBD: value = 0x0153
                case 0xBE: value = 0x0178
                default: break
                }
            }
            guard value != 0, let scalar = Unicode.Scalar(value) else {
                throw PropertyListError(.invalidText, "byte 0x\(String(byte, radix: 16, uppercase: true)) has no character in the declared encoding", at: place.location)
            }
            appendUTF8(scalar, to: &out)
            place.advance(past: scalar)
        }
        return out
    }

    @inline(__always)
    static func appendUTF8(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        let value = scalar.value
        switch value {
        case 0..<0x80:
            out.append(UInt8(truncatingIfNeeded: value))
        case 0x80..<0x800:
            out.append(0xC0 | UInt8(truncatingIfNeeded: value >> 6))
            out.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        case 0x800..<0x10000:
            out.append(0xE0 | UInt8(truncatingIfNeeded: value >> 12))
            out.append(0x80 | UInt8(truncatingIfNeeded: value >> 6 & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        default:
            out.append(0xF0 | UInt8(truncatingIfNeeded: value >> 18))
            out.append(0x80 | UInt8(truncatingIfNeeded: value >> 12 & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: value >> 6 & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
        }
    }
}
