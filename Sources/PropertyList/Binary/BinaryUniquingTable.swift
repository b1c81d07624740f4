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
public enum PropertyListHash {
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
struct BinaryUniquingTable<Key: BinaryUniquingKey> {
    private var slots: [Int32]
    private var keys: [Key] = []
    private var numbers: [Int] = []
    private var hashes: [UInt64] = []
    private var mask: Int
    private let seed: UInt64

    init() {
        slots = [Int32](repeating: -1, count: 64)
        mask = 63
        seed = UInt64.random(in: 0...UInt64.max)
    }

    /// The number stored for `key`, or nil after remembering `number` for it.
    @inline(__always)
    mutating func existingOrInsert(_ key: Key, number: Int) -> Int? {
        let hash = key.uniquingHash(seed: seed)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry < 0 { break }
            if hashes[entry] == hash && keys[entry].isSameKey(as: key) { return numbers[entry] }
            slot = (slot &+ 1) & mask
        }
        slots[slot] = Int32(truncatingIfNeeded: keys.count)
        keys.append(key)
        numbers.append(number)
        hashes.append(hash)
        if keys.count &* 2 > mask { grow() }
        return nil
    }

    private mutating func grow() {
        let capacity = (mask &+ 1) &* 2
        slots = [Int32](repeating: -1, count: capacity)
        mask = capacity &- 1
        for (entry, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
            slots[slot] = Int32(truncatingIfNeeded: entry)
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
