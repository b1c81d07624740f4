/// Strict UTF-8, as Core Foundation's string creation wants it: no overlong forms, no encoded
/// surrogates, nothing above U+10FFFF, no stray continuation bytes.
package enum XMLTextValidation {
    /// The string, or nil if `bytes` are not valid UTF-8 (the layers above use the codec's
    /// check; the standard library's `String(validating:as:)` needs macOS 15 / iOS 18).
    package static func string(validating bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string(validating: $0) }
    }

    /// The string, or nil if the bytes are not valid UTF-8.
    ///
    /// (The standard library's `String(validating:)` is not specialised and looks up generic
    /// metadata on every call, which costs more than the validation.)
    @inline(__always)
    static func string(validating utf8: UnsafeBufferPointer<UInt8>) -> String? {
        let string = String(decoding: utf8, as: UTF8.self)
        if isASCII(utf8) { return string }
        // The decoder replaces each invalid sequence with U+FFFD, which is itself valid, so its
        // output equals the input exactly when the input was valid: one memcmp instead of a
        // second validation.
        let unchanged = string.utf8.withContiguousStorageIfAvailable { decoded -> Bool in
            guard decoded.count == utf8.count, let left = decoded.baseAddress, let right = utf8.baseAddress else { return false }
            return LibC.bytesEqual(left, right, count: utf8.count)
        }
        if let unchanged { return unchanged ? string : nil }
        return isValid(utf8) ? string : nil
    }

    @inline(__always)
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = utf8.count
        var index = 0
        var combined: UInt64 = 0
        while count - index >= 8 {
            combined |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            combined |= UInt64(base[index])
            index += 1
        }
        return combined & 0x8080_8080_8080_8080 == 0
    }

    static func isValid(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        firstInvalidOffset(utf8) == utf8.count
    }

    /// Offset of the first byte that does not start a valid sequence, or `utf8.count`.
    static func firstInvalidOffset(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        let count = utf8.count
        guard let base = utf8.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        while index < count {
            // Runs of ASCII, eight bytes at a time.
            while count - index >= 8, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { break }
            let lead = utf8[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var minimum: UInt32
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
            default: return index
            }
            guard count - index >= length else { return index }
            for offset in 1..<length {
                let continuation = utf8[index + offset]
                guard continuation & 0xC0 == 0x80 else { return index }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return index }
            minimum = 0
            index += length
        }
        return count
    }
}
