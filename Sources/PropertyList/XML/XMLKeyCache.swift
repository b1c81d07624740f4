/// A small direct-mapped cache from a key's UTF-8 bytes to its `String`.
///
/// Archives repeat the same few keys (`$class`, `NS.objects`, `CF$UID`, property names) in every
/// object; a hit costs a hash and a `memcmp` and shares the cached string's storage, instead of
/// validating the bytes and (for keys over 15 bytes) allocating a new string. Only valid text
/// is ever inserted, so a hit needs no validation.
struct XMLKeyCache {
    private static let slotCount = 256
    private static let maximumKeyLength = 48

    private struct Slot {
        var hash: UInt32 = 0
        var length: Int = -1
        var string: String = ""
    }

    private var slots = [Slot](repeating: Slot(), count: XMLKeyCache.slotCount)
    /// The bytes of each slot's key, `maximumKeyLength` apart, for comparison without going
    /// through `String`.
    private var keyBytes = [UInt8](repeating: 0, count: XMLKeyCache.slotCount * XMLKeyCache.maximumKeyLength)

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        // FNV-1a: keys are short, and this only picks a slot.
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    @inline(__always)
    mutating func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count <= Self.maximumKeyLength, let source = bytes.baseAddress else { return nil }
        let hash = Self.hash(bytes)
        let index = Int(hash & UInt32(Self.slotCount - 1))
        return slots.withUnsafeBufferPointer { slots -> String? in
            let slot = slots[index]
            guard slot.hash == hash, slot.length == bytes.count else { return nil }
            let same = keyBytes.withUnsafeBufferPointer { stored -> Bool in
                guard let storedBase = stored.baseAddress else { return false }
                return LibC.bytesEqual(storedBase + index * Self.maximumKeyLength, source, count: bytes.count)
            }
            return same ? slot.string : nil
        }
    }

    @inline(__always)
    mutating func insert(_ string: String, bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count <= Self.maximumKeyLength, let source = bytes.baseAddress else { return }
        let hash = Self.hash(bytes)
        let index = Int(hash & UInt32(Self.slotCount - 1))
        slots[index] = Slot(hash: hash, length: bytes.count, string: string)
        keyBytes.withUnsafeMutableBufferPointer { stored in
            guard let storedBase = stored.baseAddress else { return }
            (storedBase + index * Self.maximumKeyLength).update(from: source, count: bytes.count)
        }
    }
}
