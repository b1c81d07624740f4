/// Keys in `CFStringCompare` order: UTF-16 code units compared ordinally, a proper prefix
/// first. Core Foundation sorts XML dictionary keys this way, so the reader also uses it to
/// recognise (cheaply) that a dictionary has no duplicate keys.
enum XMLKeyOrder {
    /// Whether `lhs` sorts strictly before `rhs`.
    @inline(__always)
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Negative, zero or positive as `lhs` sorts before, equal to, or after `rhs`.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        let result = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in
                compare(left, right)
            }
        }
        if let result, let result { return result }
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        return left.withUnsafeBufferPointer { l in right.withUnsafeBufferPointer { r in compare(l, r) } }
    }

    /// UTF-8 byte order is code-point order, which is UTF-16 order except between U+E000–U+FFFF
    /// (lead bytes EE, EF) and characters above U+FFFF (lead F0–F4), whose surrogates sort
    /// first in UTF-16. The first differing bytes are equal-length continuations of the same
    /// lead (same order either way) or two lead bytes, so flipping just that case is exact.
    static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(left.count, right.count)
        var index = 0
        if common > 0, let l = left.baseAddress, let r = right.baseAddress {
            // Most keys differ early or are equal; memcmp finds out either way.
            if LibC.bytesEqual(l, r, count: common) {
                index = common
            } else {
                while l[index] == r[index] { index += 1 }
            }
        }
        if index == common { return left.count - right.count }
        let l = left[index]
        let r = right[index]
        if (l == 0xEE || l == 0xEF) && r >= 0xF0 { return 1 }
        if (r == 0xEE || r == 0xEF) && l >= 0xF0 { return -1 }
        return Int(l) - Int(r)
    }

    /// Whether every key is strictly greater than the one before: sorted and without duplicates.
    static func isStrictlyIncreasing(_ entries: [PropertyListDictionary.Entry]) -> Bool {
        var index = 1
        while index < entries.count {
            if compare(entries[index - 1].key, entries[index].key) >= 0 { return false }
            index += 1
        }
        return true
    }

    /// Positions of `entries` in key order; equal keys keep their relative order.
    static func sortedPositions(_ entries: [PropertyListDictionary.Entry]) -> [Int] {
        var positions = Array(entries.indices)
        if entries.count <= 16 {
            // Insertion sort: stable, and the fastest for the few keys most dictionaries have.
            var index = 1
            while index < positions.count {
                let moving = positions[index]
                var slot = index
                while slot > 0 && compare(entries[positions[slot - 1]].key, entries[moving].key) > 0 {
                    positions[slot] = positions[slot - 1]
                    slot -= 1
                }
                positions[slot] = moving
                index += 1
            }
            return positions
        }
        positions.sort { lhs, rhs in
            let order = compare(entries[lhs].key, entries[rhs].key)
            return order != 0 ? order < 0 : lhs < rhs
        }
        return positions
    }

    /// The first eight bytes of `key`'s UTF-8, big-endian and zero-padded, with lead bytes
    /// remapped (F0–F4 down by 2, EE–EF up by 5) so that comparing these integers is UTF-16
    /// order wherever they differ. Equal prefixes say nothing; ``compare(_:_:)`` decides those.
    @inline(__always)
    static func prefix(_ key: String) -> UInt64 {
        if let packed = key.utf8.withContiguousStorageIfAvailable(prefix) { return packed }
        return Array(key.utf8.prefix(8)).withUnsafeBufferPointer(prefix)
    }

    /// The same prefix, of a key's UTF-8.
    @inline(__always)
    static func prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var result: UInt64 = 0
        let length = min(bytes.count, 8)
        for index in 0..<length {
            var byte = bytes[index]
            if byte >= 0xF0 { byte &-= 2 } else if byte >= 0xEE { byte &+= 5 }
            result |= UInt64(byte) << (56 - 8 * UInt64(index))
        }
        return result
    }

    /// The order to write `entries` in, or nil when they are already strictly increasing
    /// (every dictionary read from XML). Equal keys keep their relative order.
    static func writingOrder(_ entries: [PropertyListDictionary.Entry]) -> [Int]? {
        writingOrder(count: entries.count, prefix: { prefix(entries[$0].key) }, compare: { compare(entries[$0].key, entries[$1].key) })
    }

    /// The same order for keys given as UTF-8 (`key(i)` is the UTF-8 of key `i`).
    static func writingOrder(count: Int, key: (Int) -> UnsafeBufferPointer<UInt8>) -> [Int]? {
        writingOrder(count: count, prefix: { prefix(key($0)) }, compare: { compare(key($0), key($1)) })
    }

    /// The order of `count` keys given each one's prefix (above) and a full comparison.
    @inline(__always)
    private static func writingOrder(count: Int, prefix: (Int) -> UInt64, compare: (Int, Int) -> Int) -> [Int]? {
        guard count > 1 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { prefixes -> [Int]? in
            guard let prefixBase = prefixes.baseAddress else { return nil }
            for index in 0..<count { (prefixBase + index).initialize(to: prefix(index)) }
            @inline(__always) func order(_ lhs: Int, _ rhs: Int) -> Int {
                let left = prefixBase[lhs], right = prefixBase[rhs]
                if left != right { return left < right ? -1 : 1 }
                return compare(lhs, rhs)
            }
            var increasing = true
            for index in 1..<count where order(index - 1, index) >= 0 {
                increasing = false
                break
            }
            if increasing { return nil }
            var positions = Array(0..<count)
            if count <= 16 {
                // Insertion sort: stable, and the fastest for the few keys most dictionaries have.
                for index in 1..<count {
                    let moving = positions[index]
                    var slot = index
                    while slot > 0 && order(positions[slot - 1], moving) > 0 {
                        positions[slot] = positions[slot - 1]
                        slot -= 1
                    }
                    positions[slot] = moving
                }
            } else {
                positions.sort { lhs, rhs in
                    let result = order(lhs, rhs)
                    return result != 0 ? result < 0 : lhs < rhs
                }
            }
            return positions
        }
    }

    /// `entries` in key order (stable).
    static func sorted(_ entries: [PropertyListDictionary.Entry]) -> [PropertyListDictionary.Entry] {
        if isStrictlyIncreasing(entries) { return entries }
        return sortedPositions(entries).map { entries[$0] }
    }
}
