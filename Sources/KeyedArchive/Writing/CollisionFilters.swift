@_spi(KeyedArchiveInternals) import PropertyList

/// Which strings may equal a member of a small set: bit sets of the members' UTF-8 lengths and
/// of their first and last bytes. A string whose length, first byte or last byte no member has
/// equals no member; any other string may.
///
/// The binary writer uses it to skip looking up `$objects` strings that the archiver has already
/// made distinct: such a string can only meet an equal one among the keys, class names, fixed
/// strings and strings inside inline values, and names, serial numbers and notes rarely share
/// a length, a first and a last byte with all of those at once.
struct StringCollisionFilter {
    private var lengths: UInt64 = 0
    private var firstBytes = SIMD4<UInt64>(repeating: 0)
    private var lastBytes = SIMD4<UInt64>(repeating: 0)

    /// The length's bit (63 for 63 bytes or more) and the first and last bytes; an empty string
    /// is length 0 with both bytes 0, for members and candidates alike.
    @inline(__always)
    private static func shape(_ string: String) -> (length: Int, first: UInt8, last: UInt8) {
        var copy = string
        return copy.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return (0, 0, 0) }
            return (min(bytes.count, 63), first, last)
        }
    }

    mutating func insert(_ string: String) {
        let shape = Self.shape(string)
        lengths |= 1 &<< UInt64(shape.length)
        firstBytes[Int(shape.first >> 6)] |= 1 &<< UInt64(shape.first & 63)
        lastBytes[Int(shape.last >> 6)] |= 1 &<< UInt64(shape.last & 63)
    }

    /// Every string in `value`: strings, dictionary keys, and those inside containers.
    mutating func insertStrings(of value: PropertyListValue) {
        forEachNestedValue(in: value, key: { insert($0) }) { if case .string(let string) = $0 { insert(string) } }
    }

    /// False only if `string` equals no member.
    @inline(__always)
    func mayContain(_ string: String) -> Bool {
        let shape = Self.shape(string)
        return lengths & (1 &<< UInt64(shape.length)) != 0
            && firstBytes[Int(shape.first >> 6)] & (1 &<< UInt64(shape.first & 63)) != 0
            && lastBytes[Int(shape.last >> 6)] & (1 &<< UInt64(shape.last & 63)) != 0
    }
}

/// Which integers may equal a member of a set: a Bloom filter of 2¹⁴ bits with two probes,
/// keyed by the integer's low 64 bits (equal integers have equal low words). A false answer is
/// certain; a true one may be wrong, and the caller then takes the general path.
///
/// The binary writer uses it like ``StringCollisionFilter``: an `$objects` integer, made
/// distinct by the archiver, can only meet an equal one among the inline integers and `$version`.
struct IntegerCollisionFilter {
    private static let bitCount = 1 << 14
    private var words = [UInt64](repeating: 0, count: IntegerCollisionFilter.bitCount / 64)

    @inline(__always)
    private static func probes(_ low: UInt64) -> (Int, Int) {
        let hash = PropertyListHash.mix(low, seed: 0)
        return (Int(truncatingIfNeeded: hash) & (bitCount - 1), Int(truncatingIfNeeded: hash >> 32) & (bitCount - 1))
    }

    mutating func insert(low: UInt64) {
        let (first, second) = Self.probes(low)
        words[first >> 6] |= 1 &<< UInt64(first & 63)
        words[second >> 6] |= 1 &<< UInt64(second & 63)
    }

    /// Every integer in `value`, inside containers too.
    mutating func insertIntegers(of value: PropertyListValue) {
        forEachNestedValue(in: value) { if case .integer(let integer) = $0 { insert(low: integer.low) } }
    }

    /// False only if no member has these low 64 bits.
    @inline(__always)
    func mayContain(low: UInt64) -> Bool {
        let (first, second) = Self.probes(low)
        return words[first >> 6] & (1 &<< UInt64(first & 63)) != 0 && words[second >> 6] & (1 &<< UInt64(second & 63)) != 0
    }
}

/// `value` and every value inside it, at any depth, and every dictionary key, to `key`. Without
/// recursion: a field value a later one replaced is never written, so the writer's depth limit
/// has not been applied to it. A value that is not a container costs no allocation.
private func forEachNestedValue(in value: PropertyListValue, key: (String) -> Void = { _ in },
                                _ visit: (PropertyListValue) -> Void) {
    switch value {
    case .array, .set, .dictionary: break
    default: return visit(value)
    }
    var pending = [value]
    while let next = pending.popLast() {
        switch next {
        case .array(let elements), .set(let elements): pending.append(contentsOf: elements)
        case .dictionary(let dictionary):
            for entry in dictionary.entries {
                key(entry.key)
                pending.append(entry.value)
            }
        default: visit(next)
        }
    }
}
