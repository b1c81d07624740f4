/// Strings compared by their exact Unicode scalars.
///
/// Swift's `String ==` uses canonical equivalence ("é" equals "e" + U+0301), but property lists
/// are sequences of UTF-16 units: Core Foundation keeps those two as different strings and
/// different dictionary keys. A lossless model must never merge them, so every comparison that
/// decides identity (value equality, key lookup, the writer's sharing) goes through here.
package struct ExactString: Hashable, Sendable {
    package let string: String

    package init(_ string: String) { self.string = string }

    package static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.isExactlyEqual(to: rhs.string)
    }

    package func hash(into hasher: inout Hasher) {
        // Hash the UTF-8 bytes, consistent with exact equality.
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// The two words a `String` is on 64-bit platforms: equal words are the same small string
    /// or the same storage, hence equal text. nil where a `String` has another size (32-bit
    /// platforms), and callers compare the text instead.
    @inlinable @inline(__always)
    package var representationWords: (UInt64, UInt64)? {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return nil }
        return unsafeBitCast(self, to: (UInt64, UInt64).self)
    }

    /// Whether two strings are the same small string or share storage (false when unknown).
    @inlinable @inline(__always)
    package func hasSameRepresentation(as other: String) -> Bool {
        guard let mine = representationWords, let theirs = other.representationWords else { return false }
        return mine == theirs
    }

    /// Equality of Unicode scalars, not canonical equivalence: archive keys and class names
    /// are compared as Core Foundation compares them.
    @inlinable @inline(__always)
    package func isExactlyEqual(to other: String) -> Bool {
        if hasSameRepresentation(as: other) { return true }
        // Byte by byte in place: keys are short, and neither a copy to call `withUTF8` on nor a
        // `memcmp` call pays for itself (measured: 5–8 % of an archive's encode or XML decode).
        let compared: Bool? = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in
                guard lhs.count == rhs.count else { return false }
                var position = 0
                while position < lhs.count {
                    if lhs[position] != rhs[position] { return false }
                    position &+= 1
                }
                return true
            }
        } ?? nil
        return compared ?? (utf8.count == other.utf8.count && utf8.elementsEqual(other.utf8))
    }
}
