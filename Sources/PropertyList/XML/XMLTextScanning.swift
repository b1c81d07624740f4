/// Searches over raw text, eight bytes at a time. Strings in property lists are mostly free of
/// markup characters, so finding the next one word-wise is most of the reader's and writer's
/// time on text.
enum XMLTextScanning {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether any byte of `word` equals the byte replicated in `pattern`.
    @inline(__always)
    private static func containsByte(_ word: UInt64, _ pattern: UInt64) -> Bool {
        let x = word ^ pattern
        return (x &- ones) & ~x & highBits != 0
    }

    /// Index of the first `&`, `<` or `>` at or after `from`, or `count`.
    static func firstMarkupCharacter(_ bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> Int {
        var index = from
        let raw = UnsafeRawPointer(bytes)
        while count - index >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if containsByte(word, 0x26 &* ones) || containsByte(word, 0x3C &* ones) || containsByte(word, 0x3E &* ones) { break }
            index += 8
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x26 || byte == 0x3C || byte == 0x3E { return index }
            index += 1
        }
        return count
    }

    /// Index of the first `<` or `&` at or after `from`, or `count`: where character data
    /// stops being plain text.
    static func firstTextDelimiter(_ bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> Int {
        var index = from
        let raw = UnsafeRawPointer(bytes)
        while count - index >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if containsByte(word, 0x3C &* ones) || containsByte(word, 0x26 &* ones) { break }
            index += 8
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x3C || byte == 0x26 { return index }
            index += 1
        }
        return count
    }

    /// Whether `text` contains `&`.
    @inline(__always)
    static func containsAmpersand(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let count = text.count
        var index = 0
        while count - index >= 8 {
            if containsByte(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self), 0x26 &* ones) { return true }
            index += 8
        }
        while index < count {
            if base[index] == 0x26 { return true }
            index += 1
        }
        return false
    }

    /// Index of the first byte at or after `from` that is not space, tab, LF or CR.
    @inline(__always)
    static func skipMarkupWhitespace(_ bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> Int {
        var index = from
        #if _endian(little)
        // Indentation is a line feed and tabs: count the tabs eight at a time.
        while count - index >= 9, bytes[index] == 0x0A {
            let differences = UnsafeRawPointer(bytes + index + 1).loadUnaligned(as: UInt64.self) ^ 0x0909_0909_0909_0909
            if differences == 0 {
                index += 9
                while count - index >= 8, UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self) == 0x0909_0909_0909_0909 { index += 8 }
                continue
            }
            index += 1 + differences.trailingZeroBitCount >> 3
            break
        }
        #endif
        while index < count {
            let byte = bytes[index]
            guard byte <= 0x20, byte == 0x09 || byte == 0x0A || byte == 0x20 || byte == 0x0D else { break }
            index += 1
        }
        return index
    }

    /// Whether `text` starts with U+FEFF in UTF-8 (EF BB BF).
    @inline(__always)
    static func startsWithByteOrderMark(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.count >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF
    }

    /// Whether the bytes at `bytes` (at least `text`'s length of them) spell `text`, compared
    /// with word loads rather than a `memcmp` call: the literals here are short tag names.
    @inline(__always)
    static func equals(_ bytes: UnsafePointer<UInt8>, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        let left = UnsafeRawPointer(bytes)
        let right = UnsafeRawPointer(text.utf8Start)
        if length >= 8 {
            var offset = 0
            while offset + 8 <= length {
                if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
                offset += 8
            }
            return offset == length || left.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) == right.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        }
        if length >= 4 {
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self) == right.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
        }
        for offset in 0..<length where bytes[offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// Index of the first `byte` at or after `from`, or `count`.
    @inline(__always)
    static func first(_ byte: UInt8, in bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> Int {
        guard from < count, let found = LibC.firstByte(byte, in: bytes + from, count: count - from) else { return count }
        return found - UnsafeRawPointer(bytes)
    }
}
