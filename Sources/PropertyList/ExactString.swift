#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Strings compared by their exact Unicode scalars.
///
/// Swift's `String ==` uses canonical equivalence ("é" equals "e" + U+0301), but property lists
/// are sequences of UTF-16 units: Core Foundation keeps those two as different strings and
/// different dictionary keys. A lossless model must never merge them, so every comparison that
/// decides identity (value equality, key lookup, the writer's sharing) goes through here.
struct ExactString: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.string.isExactlyEqual(to: rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        // Hash the UTF-8 bytes, consistent with exact equality.
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension String {
    /// The two words a `String` is on 64-bit platforms: equal words are the same small string
    /// or the same storage, hence equal text. nil where a `String` has another size (32-bit
    /// platforms), and callers compare the text instead.
    @inlinable
    package var representationWords: (UInt64, UInt64)? {
        guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return nil }
        return unsafeBitCast(self, to: (UInt64, UInt64).self)
    }

    /// Whether two strings are the same small string or share storage (false when unknown).
    @inlinable
    package func hasSameRepresentation(as other: String) -> Bool {
        guard let mine = representationWords, let theirs = other.representationWords else { return false }
        return mine == theirs
    }

    /// Equality of Unicode scalars, not canonical equivalence.
    @inline(__always)
    func isExactlyEqual(to other: String) -> Bool {
        if hasSameRepresentation(as: other) { return true }
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        guard count > 0 else { return true }
        // withUTF8 is free for native strings and copies a small string to the stack.
        var left = self, right = other
        return left.withUTF8 { lhs in
            right.withUTF8 { rhs in
                guard let l = lhs.baseAddress, let r = rhs.baseAddress else { return false }
                return memcmp(l, r, count) == 0
            }
        }
    }
}
