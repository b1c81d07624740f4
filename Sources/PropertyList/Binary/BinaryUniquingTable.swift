/// A key the writer's uniquing table can hash cheaply. Swift's `Hasher` (SipHash) costs
/// hundreds of instructions per short key, which dominated writing; sharing needs only a
/// good spread, with a per-table random seed so crafted inputs cannot force collisions.
protocol BinaryUniquingKey {
    func uniquingHash(seed: UInt64) -> UInt64
    func isSameKey(as other: Self) -> Bool
}

/// The seeded hash the writers share equal values with. Swift's `Hasher` (SipHash) costs
/// hundreds of instructions per short key; with a random seed per table, a multiply-xorshift mix
/// spreads keys as well for this purpose in a few. Public so that the layers above use the same
/// one for their own tables.
@_spi(KeyedArchiveInternals) public enum PropertyListHash {
    /// One 64-bit value: the splitmix64 finalizer over `value + seed`.
    @inlinable @inline(__always)
    public static func mix(_ value: UInt64, seed: UInt64) -> UInt64 {
        var z = value &+ seed &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Raw bytes, eight at a time.
    @inlinable
    public static func bytes(_ raw: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var hash = seed ^ UInt64(raw.count)
        var index = 0
        while index &+ 8 <= raw.count {
            hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self), seed: seed)
            index &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < raw.count {
            tail |= UInt64(raw[index]) << shift
            shift &+= 8
            index &+= 1
        }
        return mix(hash ^ tail, seed: seed)
    }
}

@inline(__always)
func mixHash(_ value: UInt64, _ seed: UInt64) -> UInt64 {
    PropertyListHash.mix(value, seed: seed)
}

@inline(__always)
func hashBytes(_ raw: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
    PropertyListHash.bytes(raw, seed: seed)
}

extension String: BinaryUniquingKey {
    @inline(__always)
    func uniquingHash(seed: UInt64) -> UInt64 {
        if let hashed = utf8.withContiguousStorageIfAvailable({ hashBytes(UnsafeRawBufferPointer($0), seed: seed) }) {
            return hashed
        }
        var copy = self
        return copy.withUTF8 { hashBytes(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @inline(__always)
    func isSameKey(as other: String) -> Bool { isExactlyEqual(to: other) }
}

extension PropertyListInteger: BinaryUniquingKey {
    @inline(__always)
    func uniquingHash(seed: UInt64) -> UInt64 {
        mixHash(low ^ mixHash(UInt64(bitPattern: high) &+ (isStoredAs128Bit ? 1 : 0), seed), seed)
    }

    @inline(__always)
    func isSameKey(as other: PropertyListInteger) -> Bool { self == other }
}

/// Open-addressing map from key to object number, linear probing, grown at 1/2 load.
///
/// A slot packs its entry's position with the high half of the entry's hash, so a probe reads
/// slots only and touches an entry when those bits match: a large document's tables do not fit
/// the caches, and a probe that read a slot, then a hash, a key and a number from four lists
/// could miss the cache four times.
struct BinaryUniquingTable<Key: BinaryUniquingKey> {
    private struct Entry {
        let hash: UInt64
        let number: Int
        let key: Key
    }

    private static var empty: UInt64 { .max }
    private var slots: [UInt64]
    private var entries: [Entry] = []
    private var mask: Int
    private let seed: UInt64

    init() {
        slots = [UInt64](repeating: Self.empty, count: 64)
        mask = 63
        seed = UInt64.random(in: 0...UInt64.max)
    }

    @inline(__always)
    private static func packed(hash: UInt64, entry: Int) -> UInt64 {
        (hash & 0xFFFF_FFFF_0000_0000) | UInt64(truncatingIfNeeded: entry) & 0xFFFF_FFFF
    }

    /// The number stored for `key`, or nil after remembering `number` for it.
    @inline(__always)
    mutating func existingOrInsert(_ key: Key, number: Int) -> Int? {
        let hash = key.uniquingHash(seed: seed)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let packed = slots[slot]
            if packed == Self.empty { break }
            if packed & 0xFFFF_FFFF_0000_0000 == hash & 0xFFFF_FFFF_0000_0000 {
                let entry = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
                if entries[entry].hash == hash && entries[entry].key.isSameKey(as: key) { return entries[entry].number }
            }
            slot = (slot &+ 1) & mask
        }
        // Positions are 32 bits in a slot: a table that large (past the object limit) stops
        // remembering rather than wrap.
        guard entries.count < 0xFFFF_FFFF else { return nil }
        slots[slot] = Self.packed(hash: hash, entry: entries.count)
        entries.append(Entry(hash: hash, number: number, key: key))
        if entries.count &* 2 > mask { grow() }
        return nil
    }

    private mutating func grow() {
        let capacity = (mask &+ 1) &* 2
        slots = [UInt64](repeating: Self.empty, count: capacity)
        mask = capacity &- 1
        var position = 0
        while position < entries.count {
            let hash = entries[position].hash
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != Self.empty { slot = (slot &+ 1) & mask }
            slots[slot] = Self.packed(hash: hash, entry: position)
            position &+= 1
        }
    }
}

extension PropertyListReal: BinaryUniquingKey {
    @inline(__always)
    func uniquingHash(seed: UInt64) -> UInt64 {
        switch self {
        case .float32(let value): return mixHash(UInt64(value.bitPattern) | 1 << 40, seed)
        case .float64(let value): return mixHash(value.bitPattern, seed)
        }
    }

    @inline(__always)
    func isSameKey(as other: PropertyListReal) -> Bool { self == other }
}

extension PropertyListDate: BinaryUniquingKey {
    @inline(__always)
    func uniquingHash(seed: UInt64) -> UInt64 { mixHash(secondsSinceReferenceDate.bitPattern, seed) }

    @inline(__always)
    func isSameKey(as other: PropertyListDate) -> Bool { self == other }
}

extension Array: BinaryUniquingKey where Element == UInt8 {
    @inline(__always)
    func uniquingHash(seed: UInt64) -> UInt64 {
        withUnsafeBytes { hashBytes($0, seed: seed) }
    }

    @inline(__always)
    func isSameKey(as other: [UInt8]) -> Bool { self == other }
}
