/// Base64 as XML property lists use it: Core Foundation's line layout when writing, its
/// lenient decoder when reading.
enum PropertyListBase64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Decoding table over all 256 byte values: 0–63 for alphabet characters, 0 for `=` (Core
    /// Foundation counts it as a zero digit and trims the output by the padding seen), `skip`
    /// for every other ASCII byte, `invalid` for bytes above 0x7F.
    static let skip: Int8 = -1
    static let invalid: Int8 = -2
    static let decodeTable: [Int8] = {
        var table = [Int8](repeating: skip, count: 256)
        for index in 128..<256 { table[index] = invalid }
        for (value, character) in alphabet.enumerated() { table[Int(character)] = Int8(value) }
        table[Int(UInt8(ascii: "="))] = 0
        return table
    }()

    /// Width of a base64 line at nesting `depth`: 76 characters minus 8 per tab, the tabs
    /// capped at 8. Every width is a multiple of 4, so lines always end on a whole group.
    @inline(__always)
    static func lineLayout(depth: Int) -> (tabs: Int, width: Int) {
        let tabs = min(depth, 8)
        return (tabs, 76 - 8 * tabs)
    }

    /// Bytes the encoded lines of `byteCount` bytes take, tabs and line feeds included.
    static func encodedSize(byteCount: Int, depth: Int) -> Int {
        let (tabs, width) = lineLayout(depth: depth)
        let characters = (byteCount + 2) / 3 * 4
        let lines = (characters + width - 1) / width
        return characters + lines * (tabs + 1)
    }

    /// Writes the lines of `bytes` to `out`, which must have room for
    /// ``encodedSize(byteCount:depth:)`` bytes. Returns the number of bytes written.
    static func encodeLines(_ bytes: UnsafeBufferPointer<UInt8>, depth: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let (tabs, width) = lineLayout(depth: depth)
        let groupsPerLine = width / 4
        return alphabet.withUnsafeBufferPointer { table -> Int in
            guard let source = bytes.baseAddress, let symbols = table.baseAddress else { return 0 }
            let count = bytes.count
            let totalGroups = (count + 2) / 3
            var written = 0
            var group = 0
            while group < totalGroups {
                for _ in 0..<tabs {
                    out[written] = 0x09
                    written += 1
                }
                let lineEnd = min(group + groupsPerLine, totalGroups)
                while group < lineEnd {
                    let index = group * 3
                    let rest = count - index
                    if rest >= 3 {
                        let chunk = UInt32(source[index]) << 16 | UInt32(source[index + 1]) << 8 | UInt32(source[index + 2])
                        out[written] = symbols[Int(chunk >> 18 & 63)]
                        out[written + 1] = symbols[Int(chunk >> 12 & 63)]
                        out[written + 2] = symbols[Int(chunk >> 6 & 63)]
                        out[written + 3] = symbols[Int(chunk & 63)]
                    } else {
                        // The last, partial group: one or two bytes and `=` padding.
                        let first = UInt32(source[index]) << 16
                        let chunk = rest == 2 ? first | UInt32(source[index + 1]) << 8 : first
                        out[written] = symbols[Int(chunk >> 18 & 63)]
                        out[written + 1] = symbols[Int(chunk >> 12 & 63)]
                        out[written + 2] = rest == 2 ? symbols[Int(chunk >> 6 & 63)] : 0x3D
                        out[written + 3] = 0x3D
                    }
                    written += 4
                    group += 1
                }
                out[written] = 0x0A
                written += 1
            }
            return written
        }
    }

    /// Core Foundation's lenient decoding of a `<data>` element's text: characters outside the
    /// alphabet are skipped, every fourth digit completes a group, `=` signs seen since the
    /// last non-space character trim the group's output, and an incomplete final group is
    /// dropped. Decodes into `buffer` (emptied first); false at the first byte above 0x7F.
    static func decodeLenient(_ text: UnsafeBufferPointer<UInt8>, into buffer: inout XMLOutputBuffer) -> Bool {
        buffer.removeAll()
        // Four digits arrive only after four input bytes, so the output fits in count / 4 * 3.
        let out = buffer.reserve(text.count / 4 * 3 + 1)
        var valid = true
        let length = decodeTable.withUnsafeBufferPointer { table -> Int in
            var accumulator: UInt32 = 0
            var digits = 0
            var padding = 0
            var length = 0
            var index = 0
            let count = text.count
            while index < count {
                // Four alphabet characters in a row (almost all of a line) decode directly.
                if digits == 0, count - index >= 4 {
                    let a = table[Int(text[index])], b = table[Int(text[index + 1])]
                    let c = table[Int(text[index + 2])], d = table[Int(text[index + 3])]
                    let noPadding = text[index] != 0x3D && text[index + 1] != 0x3D && text[index + 2] != 0x3D && text[index + 3] != 0x3D
                    if a | b | c | d >= 0, noPadding {
                        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        out[length] = UInt8(truncatingIfNeeded: group >> 16)
                        out[length + 1] = UInt8(truncatingIfNeeded: group >> 8)
                        out[length + 2] = UInt8(truncatingIfNeeded: group)
                        length += 3
                        padding = 0
                        index += 4
                        continue
                    }
                }
                let byte = text[index]
                index += 1
                let value = table[Int(byte)]
                if value < 0 {
                    if value == invalid {
                        valid = false
                        break
                    }
                    // White space keeps the count of `=` seen; anything else skipped resets it.
                    if !(byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)) { padding = 0 }
                    continue
                }
                if byte == UInt8(ascii: "=") { padding += 1 } else { padding = 0 }
                accumulator = accumulator << 6 | UInt32(value)
                digits += 1
                if digits == 4 {
                    digits = 0
                    out[length] = UInt8(truncatingIfNeeded: accumulator >> 16)
                    length += 1
                    if padding < 2 {
                        out[length] = UInt8(truncatingIfNeeded: accumulator >> 8)
                        length += 1
                    }
                    if padding < 1 {
                        out[length] = UInt8(truncatingIfNeeded: accumulator)
                        length += 1
                    }
                }
            }
            return length
        }
        buffer.commit(length)
        return valid
    }
}
