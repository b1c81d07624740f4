#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

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

    /// Index of the first `byte` at or after `from`, or `count`.
    @inline(__always)
    static func first(_ byte: UInt8, in bytes: UnsafePointer<UInt8>, count: Int, from: Int) -> Int {
        guard from < count, let found = memchr(bytes + from, Int32(byte), count - from) else { return count }
        return UnsafeRawPointer(found) - UnsafeRawPointer(bytes)
    }
}
