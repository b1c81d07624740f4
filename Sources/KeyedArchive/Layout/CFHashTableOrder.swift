/// The order in which a Core Foundation dictionary iterates its keys — and therefore the order in
/// which Apple's binary writer stores them (format-notes §3.2).
///
/// CFDictionary is an open-addressing table with linear probing: a key's home bucket is its
/// hash modulo the bucket count, a taken bucket sends it to the next one (wrapping around), and
/// iteration runs in ascending bucket index. The table grows through a fixed ladder of prime
/// sizes; on growth the old keys are re-inserted in their old bucket order, then the new key.
/// Keys that collide therefore land in an order set by insertion order, which is why the
/// encoder's key order is an input.
enum CFHashTableOrder {
    /// How the table is sized.
    enum Sizing: Hashable, Sendable {
        /// Start empty and grow as keys are added (Foundation's object dictionaries).
        case growth
        /// Start empty and grow, one ladder step larger each time (`fast_grow`, seen on roots
        /// of current archives).
        case fastGrowth
        /// A table created with this many buckets that does not grow while it has room
        /// (Interface Builder's dictionaries, format-notes §3.3).
        case fixed(buckets: Int)
        /// Core Foundation 476 (Mac OS X 10.5): power-of-two bucket counts, index = hash AND
        /// (count − 1), at most 3/4 full.
        case powerOfTwo
    }

    // From CFBasicHash.c: bucket counts and the most keys each may hold.
    static let sizes: [Int] = [
        0, 3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087, 1723, 2803, 4523, 7351, 11959,
        19447, 31231, 50683, 81919, 132607, 214519, 346607, 561109, 907759, 1468927, 2376191,
        3845119, 6221311, 10066421, 16287743, 26354171, 42641881, 68996069, 111638519, 180634607,
        292272623, 472907251,
    ]
    static let capacities: [Int] = [
        0, 3, 6, 11, 19, 32, 52, 85, 118, 155, 237, 390, 672, 1065, 1732, 2795, 4543, 7391,
        12019, 19302, 31324, 50629, 81956, 132580, 214215, 346784, 561026, 907847, 1468567,
        2376414, 3844982, 6221390, 10066379, 16287773, 26354132, 42641916, 68996399, 111638327,
        180634415, 292272755,
    ]

    /// The iteration order of keys inserted in the given order, as positions into `hashes`.
    /// Equal hashes are fine (they probe); the caller guarantees the keys are distinct.
    static func order(hashes: [UInt64], sizing: Sizing) -> [Int] {
        let count = hashes.count
        if count < 2 { return Array(0..<count) }
        switch sizing {
        case .growth: return growthOrder(hashes, fast: false)
        case .fastGrowth: return growthOrder(hashes, fast: true)
        case .fixed(let buckets):
            guard buckets >= count else { return growthOrder(hashes, fast: false) }
            var table = [Int](repeating: -1, count: buckets)
            for key in 0..<count { insert(key, hash: hashes[key], into: &table) }
            return table.filter { $0 >= 0 }
        case .powerOfTwo:
            var buckets = 8
            while count * 4 > buckets * 3 { buckets *= 2 }
            var table = [Int](repeating: -1, count: buckets)
            let mask = UInt64(buckets - 1)
            for key in 0..<count {
                var probe = Int(hashes[key] & mask)
                while table[probe] >= 0 { probe = (probe + 1) & (buckets - 1) }
                table[probe] = key
            }
            return table.filter { $0 >= 0 }
        }
    }

    private static func growthOrder(_ hashes: [UInt64], fast: Bool) -> [Int] {
        var table: [Int] = []
        var sizeIndex = 0
        var used = 0
        for key in hashes.indices {
            if used + 1 > capacities[sizeIndex] {
                var newIndex = sizeIndex
                while newIndex < capacities.count - 1 && capacities[newIndex] < used + 1 { newIndex += 1 }
                if fast && newIndex < sizes.count - 1 { newIndex += 1 }
                var grown = [Int](repeating: -1, count: sizes[newIndex])
                for old in table where old >= 0 { insert(old, hash: hashes[old], into: &grown) }
                table = grown
                sizeIndex = newIndex
            }
            insert(key, hash: hashes[key], into: &table)
            used += 1
        }
        return table.filter { $0 >= 0 }
    }

    @inline(__always)
    private static func insert(_ key: Int, hash: UInt64, into table: inout [Int]) {
        let buckets = table.count
        var probe = Int(hash % UInt64(buckets))
        while table[probe] >= 0 {
            probe += 1
            if probe == buckets { probe = 0 }
        }
        table[probe] = key
    }

    /// Orders keys given as strings, hashing them with the 64-bit (or 32-bit) CFString hash.
    static func order(_ keys: [String], sizing: Sizing, hashBits: Int = 64) -> [String] {
        let hashes: [UInt64] = keys.map { key in
            hashBits == 32 ? UInt64(CFStringHash.hash32(Array(key.utf16))) : CFStringHash.hash64(key)
        }
        return order(hashes: hashes, sizing: sizing).map { keys[$0] }
    }
}
