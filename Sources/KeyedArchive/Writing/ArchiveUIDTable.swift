@_spi(KeyedArchiveInternals) import PropertyList

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
///
/// A slot packs its entry's position with the high half of the entry's hash, so a probe reads
/// slots only and touches an entry when those bits match: a large archive's tables do not fit
/// the caches, and a probe that read a slot, then a hash, a key and a UID from four lists could
/// miss the cache four times.
///
/// The property-list writer's `BinaryUniquingTable` has the same layout. The two stay apart on
/// purpose: one generic `package` table in PropertyList was called unspecialized from this
/// module (a runtime metadata lookup per call: 471 M instructions per fleet encode instead of 339 M).
struct ArchiveUIDTable<Key: ArchiveUIDTableKey> {
    private struct Entry {
        let hash: UInt64
        var uid: Int
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

    /// The slot holding `key` and its entry, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: Key, hash: UInt64) -> (slot: Int, entry: Int?) {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let packed = slots[slot]
            if packed == Self.empty { return (slot, nil) }
            if packed & 0xFFFF_FFFF_0000_0000 == hash & 0xFFFF_FFFF_0000_0000 {
                let entry = Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)
                if entries[entry].hash == hash && entries[entry].key.isSameUIDTableKey(as: key) { return (slot, entry) }
            }
            slot = (slot &+ 1) & mask
        }
    }

    /// Adds an entry at an empty slot found by `find`. Positions are 32 bits in a slot: a table
    /// that large (far past any archive's object limit) stops remembering rather than wrap.
    @inline(__always)
    private mutating func insert(_ key: Key, hash: UInt64, uid: Int, at slot: Int) {
        guard entries.count < 0xFFFF_FFFF else { return }
        slots[slot] = Self.packed(hash: hash, entry: entries.count)
        entries.append(Entry(hash: hash, uid: uid, key: key))
        if entries.count &* 2 > mask { grow() }
    }

    subscript(key: Key) -> Int? {
        get {
            let found = find(key, hash: key.uidTableHash(seed: seed))
            return found.entry.map { entries[$0].uid }
        }
        set {
            guard let uid = newValue else { return }
            let hash = key.uidTableHash(seed: seed)
            let found = find(key, hash: hash)
            if let entry = found.entry {
                entries[entry].uid = uid
            } else {
                insert(key, hash: hash, uid: uid, at: found.slot)
            }
        }
    }

    /// The UID stored for `key`, or nil after storing `uid` for it: one hash for a lookup that
    /// usually fails (a new string or number) and the insertion that follows.
    mutating func existingUID(for key: Key, insertingIfAbsent uid: Int) -> Int? {
        let hash = key.uidTableHash(seed: seed)
        let found = find(key, hash: hash)
        if let entry = found.entry { return entries[entry].uid }
        insert(key, hash: hash, uid: uid, at: found.slot)
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
