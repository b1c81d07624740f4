import PropertyList

/// A key of ``ArchiveUIDTable``: hashed with the property-list writers' seeded hash.
protocol ArchiveUIDTableKey {
    func uidTableHash(seed: UInt64) -> UInt64
    func isSameUIDTableKey(as other: Self) -> Bool
}

/// Instances by identity and integers by value, as a pointer or bit pattern.
extension UInt64: ArchiveUIDTableKey {
    @inline(__always)
    func uidTableHash(seed: UInt64) -> UInt64 { PropertyListHash.mix(self, seed: seed) }

    @inline(__always)
    func isSameUIDTableKey(as other: UInt64) -> Bool { self == other }
}

/// Strings by their exact Unicode scalars (as Core Foundation compares them, never by
/// canonical equivalence).
extension String: ArchiveUIDTableKey {
    @inline(__always)
    func uidTableHash(seed: UInt64) -> UInt64 {
        if let hash = utf8.withContiguousStorageIfAvailable({ PropertyListHash.bytes(UnsafeRawBufferPointer($0), seed: seed) }) {
            return hash
        }
        var copy = self
        return copy.withUTF8 { PropertyListHash.bytes(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @inline(__always)
    func isSameUIDTableKey(as other: String) -> Bool { isExactlyEqual(to: other) }
}

/// A key → UID map: the encoder's record of which instances (by identity), integers and strings
/// (by value) it has already stored.
///
/// Swift's `Dictionary` hashes every key with SipHash (about 150 instructions for an
/// `ObjectIdentifier`), and the encoder looks up every instance, number and string it meets:
/// that hashing was a tenth of a fleet encode. This table uses the writers' seeded hash (random
/// per table, so chosen keys cannot force collisions): open addressing, linear probing, grown at
/// half load. Entries are only added; an instance keeps its UID once it has one.
struct ArchiveUIDTable<Key: ArchiveUIDTableKey> {
    private var slots: [Int]
    private var keys: [Key] = []
    private var uids: [Int] = []
    private var hashes: [UInt64] = []
    private var mask: Int
    private let seed: UInt64

    init() {
        slots = [Int](repeating: -1, count: 64)
        mask = 63
        seed = UInt64.random(in: 0...UInt64.max)
    }

    subscript(key: Key) -> Int? {
        get {
            let hash = key.uidTableHash(seed: seed)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = slots[slot]
                if entry < 0 { return nil }
                if hashes[entry] == hash && keys[entry].isSameUIDTableKey(as: key) { return uids[entry] }
                slot = (slot &+ 1) & mask
            }
        }
        set {
            guard let uid = newValue else { return }
            let hash = key.uidTableHash(seed: seed)
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = slots[slot]
                if entry < 0 { break }
                if hashes[entry] == hash && keys[entry].isSameUIDTableKey(as: key) {
                    uids[entry] = uid
                    return
                }
                slot = (slot &+ 1) & mask
            }
            slots[slot] = keys.count
            keys.append(key)
            uids.append(uid)
            hashes.append(hash)
            if keys.count &* 2 > mask { grow() }
        }
    }

    /// The UID stored for `key`, or nil after storing `uid` for it: one hash for a lookup that
    /// usually fails (a new string or number) and the insertion that follows.
    mutating func existingUID(for key: Key, insertingIfAbsent uid: Int) -> Int? {
        let hash = key.uidTableHash(seed: seed)
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry < 0 { break }
            if hashes[entry] == hash && keys[entry].isSameUIDTableKey(as: key) { return uids[entry] }
            slot = (slot &+ 1) & mask
        }
        slots[slot] = keys.count
        keys.append(key)
        uids.append(uid)
        hashes.append(hash)
        if keys.count &* 2 > mask { grow() }
        return nil
    }

    private mutating func grow() {
        let capacity = (mask &+ 1) &* 2
        slots = [Int](repeating: -1, count: capacity)
        mask = capacity &- 1
        for (entry, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot &+ 1) & mask }
            slots[slot] = entry
        }
    }
}

extension ArchiveUIDTable where Key == UInt64 {
    /// The UID stored for an instance.
    subscript(object object: ObjectIdentifier) -> Int? {
        get { self[UInt64(UInt(bitPattern: object))] }
        set { self[UInt64(UInt(bitPattern: object))] = newValue }
    }
}

/// Numbers remembered for strings by the two words of the `String` (``Swift/String/representationWords``),
/// in front of a table that hashes their text: a model passes the same key literals for every
/// object, and the same few shared values (a model name, a note) again and again.
///
/// Each slot keeps its `String`, so a long string's storage stays alive and cannot be reused
/// for other text: equal words are the same small string or the same storage, hence equal text.
struct StringWordsMemo {
    private struct Slot {
        var words: (UInt64, UInt64) = (0, 0)
        var value = -1
        var string = ""
    }

    private static let slotCount = 256
    private var slots = [Slot](repeating: Slot(), count: StringWordsMemo.slotCount)

    /// The home slot; a string may also sit in the one after it (two keys that share a home
    /// would otherwise evict each other on every object).
    @inline(__always)
    private static func home(_ words: (UInt64, UInt64)) -> Int {
        let mixed = (words.0 ^ (words.1 &<< 7 | words.1 &>> 57)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 56) & (slotCount - 1)
    }

    @inline(__always)
    func value(for words: (UInt64, UInt64)) -> Int? {
        let first = Self.home(words)
        if slots[first].value >= 0 && slots[first].words == words { return slots[first].value }
        let second = (first &+ 1) & (Self.slotCount - 1)
        if slots[second].value >= 0 && slots[second].words == words { return slots[second].value }
        return nil
    }

    mutating func remember(_ value: Int, for string: String, words: (UInt64, UInt64)) {
        let first = Self.home(words)
        let second = (first &+ 1) & (Self.slotCount - 1)
        // An empty slot of the two, else the second (the first keeps the older, home entry).
        let slot = slots[first].value < 0 ? first : second
        slots[slot] = Slot(words: words, value: value, string: string)
    }
}
