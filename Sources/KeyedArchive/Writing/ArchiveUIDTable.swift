/// A 64-bit key → UID: the encoder's record of which instances (by identity) and which
/// integers (by value) it has already stored.
///
/// Swift's `Dictionary` hashes every key with SipHash (about 150 instructions), and the encoder
/// looks up every instance and number it meets: that hashing was a tenth of a fleet encode. A
/// multiply-xorshift mix spreads pointers and integers well; its seed is random per table, so
/// chosen integers cannot force collisions. Open addressing, linear probing, grown at half load.
struct ArchiveUIDTable {
    private var slots: [Int]
    private var identities: [UInt64] = []
    private var uids: [Int] = []
    private var mask: Int
    private let seed: UInt64

    init() {
        slots = [Int](repeating: -1, count: 64)
        mask = 63
        seed = UInt64.random(in: 0...UInt64.max)
    }

    @inline(__always)
    private func slot(for identity: UInt64) -> Int {
        // The splitmix64 finalizer.
        var z = identity &+ seed &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31)) & mask
    }

    /// The UID stored for an instance.
    subscript(object object: ObjectIdentifier) -> Int? {
        get { self[key: UInt64(UInt(bitPattern: object))] }
        set { self[key: UInt64(UInt(bitPattern: object))] = newValue }
    }

    /// The UID stored for an integer.
    subscript(integer integer: Int64) -> Int? {
        get { self[key: UInt64(bitPattern: integer)] }
        set { self[key: UInt64(bitPattern: integer)] = newValue }
    }

    private subscript(key identity: UInt64) -> Int? {
        get {
            var slot = slot(for: identity)
            while true {
                let entry = slots[slot]
                if entry < 0 { return nil }
                if identities[entry] == identity { return uids[entry] }
                slot = (slot &+ 1) & mask
            }
        }
        set {
            // The encoder only adds: an instance keeps its UID once it has one.
            guard let uid = newValue else { return }
            var slot = slot(for: identity)
            while true {
                let entry = slots[slot]
                if entry < 0 { break }
                if identities[entry] == identity {
                    uids[entry] = uid
                    return
                }
                slot = (slot &+ 1) & mask
            }
            slots[slot] = identities.count
            identities.append(identity)
            uids.append(uid)
            if identities.count &* 2 > mask { grow() }
        }
    }

    private mutating func grow() {
        let capacity = (mask &+ 1) &* 2
        slots = [Int](repeating: -1, count: capacity)
        mask = capacity &- 1
        for (entry, identity) in identities.enumerated() {
            var slot = slot(for: identity)
            while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
            slots[slot] = entry
        }
    }
}
