#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// A binary keyed archive read in place, for typed decoding without the value tree.
///
/// The usual path reads bytes → ``PropertyListValue`` tree → ``ArchiveGraph`` → typed decoding,
/// and the first two stages alone cost more than a fast decode may take. This table validates
/// the file once, straight from its object table, and then answers typed decoding's questions
/// (what is object *n*, what does this object hold under this key) by reading the bytes.
///
/// Soundness rule: ``read(_:options:)`` accepts a file only if the usual path would accept it
/// and build the same objects. It therefore accepts only the shapes NSKeyedArchiver writes
/// (a four-key root, flat object dictionaries whose fields are scalars, references or arrays of
/// them, class dictionaries) and checks every limit the usual path checks. Anything else —
/// including every faulty file — returns nil, and the caller takes the usual path, which gives
/// the canonical error. The two paths are compared in `DirectBinaryDecodingTests` and by the
/// `archive` fuzz target. Not `Sendable`: it keeps the long values it has made, and belongs to one
/// decode as its session does.
final class BinaryArchiveTable {
    enum Kind: UInt8 {
        case null, string, integer, real, bool, data, date, instance, classDescriptor
    }

    /// One `$objects` entry: the binary object it is, what it holds, and for an instance the
    /// UID of its class dictionary (for a class dictionary, its position in `descriptors`).
    struct Entry {
        var object: UInt32
        var kind: Kind
        /// For an instance, the number of its key layout (the validator's: instances with the
        /// same key objects in the same order), or `noLayout`.
        var layout: UInt8 = BinaryArchiveTable.noLayout
        var link: Int32
    }

    /// The dictionary of an instance's fields: its binary object and its key layout.
    struct FieldDictionary {
        let object: UInt32
        let layout: UInt8
    }
    static let layoutCount = 16
    static let maximumLayoutKeys = 32
    static let noLayout: UInt8 = 0xFF

    /// The caller's bytes, as given: an array or a `Data`, never copied to be read.
    private enum Storage {
        case array([UInt8])
        case data(Data)
    }
    private let storage: Storage
    /// Where the bytes are read: the caller's storage while ``withBytesInPlace(_:)`` runs (a whole
    /// decode), else this table's own copy, made on the first read outside one (a decoder used
    /// directly or kept past its decode), or empty until then. Reading `storage` itself at each
    /// field read cost too much: `Data.withUnsafeBytes` there made `Data` decodes 40–56 %
    /// slower, and a branch between the kinds (or a table generic over them) made array decodes
    /// 1.5 % slower (callgrind). Written only where a decode starts or ends and where the copy is
    /// made, never during a read, so reads skip the exclusivity check.
    @exclusivity(unchecked) private var readBytes = UnsafeRawBufferPointer(start: nil, count: 0)
    private var ownCopy: UnsafeMutableRawBufferPointer?
    let referenceSize: Int
    let objectOffsets: [UInt32]
    let entries: [Entry]
    let descriptors: [ArchiveGraph.ClassDescriptor]
    /// `$top`, materialized (a few entries).
    let top: PropertyListDictionary

    private init(storage: Storage, result: BinaryArchiveValidator.Result) {
        self.storage = storage
        referenceSize = result.referenceSize
        objectOffsets = result.offsets
        entries = result.entries
        descriptors = result.descriptors
        top = result.top
        keyMemo = .allocate(capacity: Self.keyMemoSlots)
        keyMemo.initialize(repeating: KeyMemoSlot(), count: Self.keyMemoSlots)
        layoutPositions = .allocate(capacity: Self.layoutCount * Self.keyMemoSlots)
        layoutPositions.initialize(repeating: Self.unknownPosition, count: Self.layoutCount * Self.keyMemoSlots)
    }

    deinit {
        ownCopy?.deallocate()
        keyMemo.deinitialize(count: Self.keyMemoSlots)
        keyMemo.deallocate()
        layoutPositions.deallocate()
    }

    var count: Int { entries.count }

    /// The validated table, or nil when the file is faulty or has a shape this reader leaves to
    /// the usual path.
    ///
    /// A read `interruption` stops is left to the usual path too, which stops at once.
    static func read(_ bytes: [UInt8], options: ArchiveReadingOptions, interruption: WorkInterruption = .never) -> BinaryArchiveTable? {
        guard let result = bytes.withUnsafeBytes({ validate($0, options: options, interruption: interruption) }) else { return nil }
        return BinaryArchiveTable(storage: .array(bytes), result: result)
    }

    /// The same for the archive in `data`, which the table keeps and reads in place.
    static func read(_ data: Data, options: ArchiveReadingOptions, interruption: WorkInterruption = .never) -> BinaryArchiveTable? {
        guard let result = data.withUnsafeBytes({ validate($0, options: options, interruption: interruption) }) else { return nil }
        return BinaryArchiveTable(storage: .data(data), result: result)
    }

    private static func validate(_ raw: UnsafeRawBufferPointer, options: ArchiveReadingOptions, interruption: WorkInterruption) -> BinaryArchiveValidator.Result? {
        var validator = BinaryArchiveValidator(raw: raw, options: options)
        return validator.validate(interruption: interruption)
    }

    /// Runs `body` with every read of this table made in the caller's storage, in place.
    func withBytesInPlace<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let result: Result<R, E>
        switch storage {
        case .array(let bytes): result = bytes.withUnsafeBytes { raw in bindingBytes(raw, body) }
        case .data(let data): result = data.withUnsafeBytes { raw in bindingBytes(raw, body) }
        }
        return try result.get()
    }

    private func bindingBytes<R, E: Error>(_ raw: UnsafeRawBufferPointer, _ body: () throws(E) -> R) -> Result<R, E> {
        let outside = readBytes
        readBytes = raw
        // The pointer is valid only in here: what was read outside comes back, on a throw too.
        defer { readBytes = outside }
        do throws(E) { return .success(try body()) } catch { return .failure(error) }
    }

    /// Runs `body` on the archive's bytes. A validated archive is never empty (a binary plist
    /// has a header and a trailer), so empty bytes mean "outside a decode, not yet copied".
    @inline(__always)
    private func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var raw = readBytes
        if _slowPath(raw.isEmpty) { raw = bytesOutsideDecode() }
        return body(raw)
    }

    @inline(never)
    private func bytesOutsideDecode() -> UnsafeRawBufferPointer {
        let copy: UnsafeMutableRawBufferPointer
        switch storage {
        case .array(let bytes): copy = bytes.withUnsafeBytes { Self.copying($0) }
        case .data(let data): copy = data.withUnsafeBytes { Self.copying($0) }
        }
        ownCopy = copy
        readBytes = UnsafeRawBufferPointer(copy)
        return UnsafeRawBufferPointer(copy)
    }

    private static func copying(_ raw: UnsafeRawBufferPointer) -> UnsafeMutableRawBufferPointer {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: raw.count, alignment: 1)
        copy.copyMemory(from: raw)
        return copy
    }

    // MARK: Reading validated objects

    /// Strings and data too long to be stored inline, made once per binary object: entries,
    /// fields and array elements that name one object share one value, as in the value tree
    /// (made anew each time, one long string listed many times would be copied as many times).
    /// Confined, like the decoding session that owns this table, to one decode.
    private var madeValues: [Int: PropertyListValue] = [:]
    /// Where `fieldObject` found each key a model asks for: models ask for the same literal
    /// keys object after object, and a reference compares faster than a text. Allocated once,
    /// so that updating it costs no exclusivity check.
    private let keyMemo: UnsafeMutablePointer<KeyMemoSlot>
    /// Where each remembered key stands in the dictionaries of each layout, by layout and memo
    /// slot (`layout * keyMemoSlots + slot`): instances of one layout hold the same key objects in
    /// the same order, so a key found once is found at once in all of them, and a key one of
    /// them lacks, all of them lack. `unknownPosition` until asked; a slot that is given to
    /// another key has its positions forgotten.
    private let layoutPositions: UnsafeMutablePointer<Int8>
    private static let unknownPosition: Int8 = -1
    private static let absentPosition: Int8 = -2

    /// The value of a validated binary object that is a scalar or an array of scalars.
    func value(ofObject object: Int) -> PropertyListValue {
        let header = withBytes { raw in Self.header(raw, at: Int(objectOffsets[object])) }
        switch header.marker >> 4 {
        case 0x4, 0x5, 0x6:
            // Short ones are inline in the value: nothing to share.
            guard header.count > 15 else { return makeValue(object) }
            if let known = madeValues[object] { return known }
            let made = makeValue(object)
            madeValues[object] = made
            return made
        case 0xA:
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            for element in arrayElements(header) { elements.append(value(ofObject: element)) }
            return .array(elements)
        default:
            return makeValue(object)
        }
    }

    private func makeValue(_ object: Int) -> PropertyListValue {
        withBytes { raw in
            objectOffsets.withUnsafeBufferPointer { Self.value(raw, offsets: $0, referenceSize: referenceSize, object: object) }
        }
    }

    /// The element objects of a validated array, in order.
    private func arrayElements(_ header: Header) -> [Int] {
        withBytes { raw in
            (0..<header.count).map { Self.load(raw, at: header.payload &+ $0 &* referenceSize, width: referenceSize) }
        }
    }

    /// The field stored under `storedKey` in the validated dictionary `object` (the last one
    /// with that key, as ``PropertyListDictionary`` looks keys up).
    func field(_ storedKey: String, inDictionary object: FieldDictionary) -> PropertyListValue? {
        guard let valueObject = withBytes({ fieldObject(storedKey, inDictionary: object, raw: $0) }) else { return nil }
        return value(ofObject: valueObject)
    }

    /// The array of UIDs stored under `storedKey`, every element checked to be a UID: where
    /// its references start and how many there are, for ``reference(inArrayAt:position:)``.
    /// Nil when the field is absent or anything but such an array. Nothing is allocated: a
    /// collection's elements are read from the bytes as they are decoded.
    func referenceArray(_ storedKey: String, inDictionary object: FieldDictionary) -> (payload: Int, count: Int)? {
        withBytes { raw -> (payload: Int, count: Int)? in
            guard let arrayObject = fieldObject(storedKey, inDictionary: object, raw: raw) else { return nil }
            return objectOffsets.withUnsafeBufferPointer { offsets -> (payload: Int, count: Int)? in
                let header = Self.header(raw, at: Int(offsets[arrayObject]))
                guard header.marker >> 4 == 0xA else { return nil }
                var position = header.payload
                for _ in 0..<header.count {
                    guard raw[Int(offsets[Self.load(raw, at: position, width: referenceSize)])] >> 4 == 0x8 else { return nil }
                    position &+= referenceSize
                }
                return (header.payload, header.count)
            }
        }
    }

    /// The reference at `position` of an array that ``referenceArray(_:inDictionary:)`` checked.
    func reference(inArrayAt payload: Int, position: Int) -> ArchiveReference {
        withBytes { raw in
            let object = Self.load(raw, at: payload &+ position &* referenceSize, width: referenceSize)
            let offset = Int(objectOffsets[object])
            let width = Int(raw[offset] & 0x0F) &+ 1
            return ArchiveReference(uid: PropertyListUID(UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: width))))
        }
    }

    // MARK: Typed decoding's fast paths

    /// What a field holds, read straight from the bytes without making a value: the two shapes
    /// almost every field has. `.other` sends the caller to the general path, which decides.
    enum FieldContent {
        case absent
        case reference(Int)
        case integer(Int64)
        case other
    }

    @inline(__always)
    func fieldContent(_ storedKey: String, inDictionary object: FieldDictionary) -> FieldContent {
        withBytes { raw -> FieldContent in
            guard let valueObject = fieldObject(storedKey, inDictionary: object, raw: raw) else { return .absent }
            let offset = Int(objectOffsets[valueObject])
            let marker = raw[offset]
            switch marker {
            // UIDs of 1 to 4 bytes, so the reference is never negative.
            case 0x80...0x83: return .reference(Self.load(raw, at: offset &+ 1, width: Int(marker & 0x0F) &+ 1))
            case 0x10...0x13: return .integer(Self.integer(raw, marker: marker, at: offset))
            default: return .other
            }
        }
    }

    /// The string of a plain string entry; nil for any other entry.
    @inline(__always)
    func plainString(entry uid: Int) -> String? {
        let entry = entries[uid]
        guard entry.kind == .string else { return nil }
        let object = Int(entry.object)
        let short = withBytes { raw -> String? in
            let marker = raw[Int(objectOffsets[object])]
            // Short ASCII, the length in the marker: made inline, nothing to share.
            guard marker >> 4 == 0x5, marker & 0x0F != 0x0F else { return nil }
            let start = Int(objectOffsets[object]) &+ 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<(start &+ Int(marker & 0x0F))]), as: UTF8.self)
        }
        return short ?? string(ofObject: object)
    }

    /// The value of a plain integer entry that fits 64 bits signed; nil for any other entry.
    @inline(__always)
    func plainInteger(entry uid: Int) -> Int64? {
        let entry = entries[uid]
        guard entry.kind == .integer else { return nil }
        return withBytes { raw -> Int64? in
            let offset = Int(objectOffsets[Int(entry.object)])
            let marker = raw[offset]
            guard (0x10...0x13).contains(marker) else { return nil }
            return Self.integer(raw, marker: marker, at: offset)
        }
    }

    /// The value of a plain 16-byte integer entry (marker 0x14) that fits `UInt64`: what Core
    /// Foundation writes for a `UInt64` of 2^63 or more (the high eight bytes zero). Nil for any
    /// other entry, which the general path reads.
    func plainUnsignedInteger(entry uid: Int) -> UInt64? {
        let entry = entries[uid]
        guard entry.kind == .integer else { return nil }
        return withBytes { raw -> UInt64? in
            let offset = Int(objectOffsets[Int(entry.object)])
            // The validator checked the 16 bytes after the marker are in the file.
            guard raw[offset] == 0x14, Self.load(raw, at: offset &+ 1, width: 8) == 0 else { return nil }
            return UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 9, width: 8))
        }
    }

    /// A validated integer object of 1, 2, 4 or 8 bytes (markers 0x10...0x13).
    @inline(__always)
    private static func integer(_ raw: UnsafeRawBufferPointer, marker: UInt8, at offset: Int) -> Int64 {
        let width = 1 &<< Int(marker & 0x0F)
        if width == 8 { return Int64(bitPattern: UInt64(truncatingIfNeeded: load(raw, at: offset &+ 1, width: 8))) }
        return Int64(load(raw, at: offset &+ 1, width: width))
    }

    /// The value object stored under `storedKey` (the last one with that key, as
    /// ``PropertyListDictionary`` looks keys up).
    private func fieldObject(_ storedKey: String, inDictionary dictionary: FieldDictionary, raw: UnsafeRawBufferPointer) -> Int? {
        // A String's two words: a short key's text itself, a long one's storage. The memo is
        // keyed by them and keeps the String, so its storage cannot be freed and reused for
        // another text while the memo holds it: equal words are the same text.
        // (nil on a 32-bit platform: every lookup then compares texts.)
        let identity = storedKey.representationWords
        return objectOffsets.withUnsafeBufferPointer { offsets -> Int? in
            let header = Self.header(raw, at: Int(offsets[Int(dictionary.object)]))
            let size = referenceSize
            // Up to four slots from the key's hash: models ask for a few dozen keys, and a
            // key stays where it was first put, so collisions do not make keys evict each other.
            let words = identity ?? (0, 0)
            let home = Self.keyMemoHome(words)
            var memoSlot = -1, free = -1
            for probe in 0..<(identity == nil ? 0 : Self.keyMemoProbes) {
                let index = (home &+ probe) & (Self.keyMemoSlots - 1)
                guard keyMemo[index].object >= 0 else {
                    free = index
                    break
                }
                if keyMemo[index].identity == words {
                    memoSlot = index
                    break
                }
            }
            let cacheable = dictionary.layout < UInt8(Self.layoutCount)
            if memoSlot >= 0, cacheable {
                let known = layoutPositions[Int(dictionary.layout) &* Self.keyMemoSlots &+ memoSlot]
                if known >= 0 { return Self.load(raw, at: header.payload &+ (header.count &+ Int(known)) &* size, width: size) }
                if known == Self.absentPosition { return nil }
            }
            var position = -1
            if memoSlot >= 0 {
                // The key object whose text was found equal to this key when it was
                // remembered, found again among this object's keys by reference.
                let candidate = keyMemo[memoSlot].object
                var offset = header.payload
                for index in 0..<header.count {
                    if Self.load(raw, at: offset, width: size) == candidate {
                        position = index
                        break
                    }
                    offset &+= size
                }
            }
            if position < 0 {
                position = Self.keyPosition(storedKey, raw: raw, offsets: offsets, header: header, referenceSize: size)
                if position >= 0, identity != nil {
                    let index = memoSlot >= 0 ? memoSlot : (free >= 0 ? free : home)
                    if keyMemo[index].object >= 0, keyMemo[index].identity != words {
                        // The slot now stands for another key: what was found for the old one goes.
                        for layout in 0..<Self.layoutCount { layoutPositions[layout &* Self.keyMemoSlots &+ index] = Self.unknownPosition }
                    }
                    keyMemo[index] = KeyMemoSlot(identity: words, object: Self.load(raw, at: header.payload &+ position &* size, width: size), key: storedKey)
                    memoSlot = index
                }
            }
            if memoSlot >= 0, cacheable {
                // An instance's keys are distinct once validated, so the first and the last
                // key with a text are one, and a position is at most `maximumLayoutKeys`.
                layoutPositions[Int(dictionary.layout) &* Self.keyMemoSlots &+ memoSlot] = position >= 0 ? Int8(truncatingIfNeeded: position) : Self.absentPosition
            }
            guard position >= 0 else { return nil }
            return Self.load(raw, at: header.payload &+ (header.count &+ position) &* size, width: size)
        }
    }

    /// The position of the last key of a validated dictionary whose text is `key`; -1 if none.
    private static func keyPosition(_ key: String, raw: UnsafeRawBufferPointer, offsets: UnsafeBufferPointer<UInt32>,
                                    header: Header, referenceSize size: Int) -> Int {
        func search(_ text: UnsafeBufferPointer<UInt8>) -> Int {
            // From the last key, as the value tree looks keys up.
            var index = header.count &- 1
            while index >= 0 {
                let keyObject = load(raw, at: header.payload &+ index &* size, width: size)
                if stringObject(raw, at: Int(offsets[keyObject]), equals: text) { return index }
                index &-= 1
            }
            return -1
        }
        if let found = key.utf8.withContiguousStorageIfAvailable(search) { return found }
        var copy = key
        return copy.withUTF8(search)
    }

    /// A key (the words of its String, and the String itself to keep them its own) and the key
    /// object that last held its text.
    private struct KeyMemoSlot {
        var identity: (UInt64, UInt64) = (0, 0)
        var object = -1
        var key = ""
    }
    static let keyMemoSlots = 256
    static let keyMemoProbes = 4

    /// The first memo slot a key with these `String` words tries; the next ones follow it.
    @inline(__always)
    static func keyMemoHome(_ words: (UInt64, UInt64)) -> Int {
        let mixed = (words.0 ^ (words.1 &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> 56) & (keyMemoSlots - 1)
    }

    /// A `width`-byte (1...8) big-endian number at a checked position (8 bytes with the top bit
    /// set come back negative). The property-list module's loader, kept here so that it inlines.
    @inline(__always)
    static func load(_ raw: UnsafeRawBufferPointer, at position: Int, width: Int) -> Int {
        switch width {
        case 1: return Int(raw[position])
        case 2: return Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
        case 4: return Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        default: return BinaryBigEndian.load(raw, at: position, width: width)
        }
    }

    /// The key and value objects of a validated dictionary, in file order.
    func pairs(ofDictionary object: Int) -> [(key: Int, value: Int)] {
        withBytes { raw in
            let header = Self.header(raw, at: Int(objectOffsets[object]))
            var result: [(key: Int, value: Int)] = []
            result.reserveCapacity(header.count)
            for index in 0..<header.count {
                let position = header.payload &+ index &* referenceSize
                result.append((Self.load(raw, at: position, width: referenceSize),
                               Self.load(raw, at: position &+ header.count &* referenceSize, width: referenceSize)))
            }
            return result
        }
    }

    /// The string a validated key object holds.
    func string(ofObject object: Int) -> String {
        if case .string(let string) = value(ofObject: object) { return string }
        return ""
    }

    // MARK: Byte-level helpers (on validated objects)

    struct Header {
        var marker: UInt8
        var count: Int
        var payload: Int
    }

    /// Marker, count and payload start of a validated object (count 0 for fixed-size objects).
    @inline(__always)
    static func header(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Header {
        let marker = raw[offset]
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return Header(marker: marker, count: nibble, payload: offset &+ 1) }
        let width = 1 &<< Int(raw[offset &+ 1] & 0x0F)
        return Header(marker: marker, count: Self.load(raw, at: offset &+ 2, width: width), payload: offset &+ 2 &+ width)
    }

    @inline(__always)
    static func stringObject(_ raw: UnsafeRawBufferPointer, at offset: Int, equals key: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker = raw[offset]
        if marker >> 4 == 0x5, marker & 0x0F != 0x0F {
            // The common short ASCII key, its length in the marker.
            guard Int(marker & 0x0F) == key.count else { return false }
            var index = 0
            while index < key.count {
                if raw[offset &+ 1 &+ index] != key[index] { return false }
                index &+= 1
            }
            return true
        }
        let header = header(raw, at: offset)
        if header.marker >> 4 == 0x5 {
            guard header.count == key.count else { return false }
            var index = 0
            while index < header.count {
                if raw[header.payload &+ index] != key[index] { return false }
                index &+= 1
            }
            return true
        }
        // A UTF-16 key: rare (Apple's writer stores ASCII keys as ASCII). Anything else is no
        // string at all, and its bytes are never read as one.
        guard header.marker >> 4 == 0x6, let text = BinaryText.stringFromUTF16BigEndian(UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count &* 2)])) else {
            return false
        }
        var copy = text
        return copy.withUTF8 { $0.elementsEqual(key) }
    }

    static func value(_ raw: UnsafeRawBufferPointer, offsets: [UInt32], referenceSize: Int, object: Int) -> PropertyListValue {
        offsets.withUnsafeBufferPointer { value(raw, offsets: $0, referenceSize: referenceSize, object: object) }
    }

    /// Generic over where offsets are read so that each caller gets its own specialization:
    /// typed decoding's copy (`UnsafeBufferPointer<UInt32>`) or the file's table in place.
    static func value<Offsets: ObjectOffsets>(_ raw: UnsafeRawBufferPointer, offsets: Offsets, referenceSize: Int, object: Int) -> PropertyListValue {
        let offset = offsets.offset(of: object)
        let marker = raw[offset]
        switch marker >> 4 {
        case 0x0: return .bool(marker == 0x09)
        case 0x1:
            if marker == 0x14 {
                // The 16-byte form: kept as it is stored, as the property-list reader keeps it.
                let high = Int64(bitPattern: UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: 8)))
                let low = UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 9, width: 8))
                return .integer(PropertyListInteger(high: high, low: low, isStoredAs128Bit: true))
            }
            return .integer(PropertyListInteger(Self.integer(raw, marker: marker, at: offset)))
        case 0x2:
            if marker == 0x22 {
                return .real(.float32(Float(bitPattern: UInt32(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: 4)))))
            }
            return .real(.float64(Double(bitPattern: UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: 8)))))
        case 0x3:
            return .date(PropertyListDate(secondsSinceReferenceDate: Double(bitPattern: UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: 8)))))
        case 0x4:
            let header = header(raw, at: offset)
            return .data(Array(UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count)])))
        case 0x5:
            let header = header(raw, at: offset)
            return .string(String(decoding: UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count)]), as: UTF8.self))
        case 0x6:
            let header = header(raw, at: offset)
            return .string(BinaryText.stringFromUTF16BigEndian(UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count &* 2)])) ?? "")
        case 0x8:
            let width = Int(marker & 0x0F) &+ 1
            return .uid(PropertyListUID(UInt64(truncatingIfNeeded: Self.load(raw, at: offset &+ 1, width: width))))
        case 0xA:
            let header = header(raw, at: offset)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            var position = header.payload
            for _ in 0..<header.count {
                elements.append(value(raw, offsets: offsets, referenceSize: referenceSize, object: Self.load(raw, at: position, width: referenceSize)))
                position &+= referenceSize
            }
            return .array(elements)
        default:
            // Validation admits no other object where a value is read.
            return .bool(false)
        }
    }
}

/// Where each binary object of a validated file starts.
protocol ObjectOffsets {
    /// The offset of `object`, an index the validator checked.
    func offset(of object: Int) -> Int
}

extension UnsafeBufferPointer: ObjectOffsets where Element == UInt32 {
    @inline(__always)
    func offset(of object: Int) -> Int { Int(self[object]) }
}

/// The offset table of a binary property list, where the trailer puts it: `count` big-endian
/// numbers of `width` bytes from `start`.
struct BinaryOffsetTable {
    let start: Int
    let width: Int
    let count: Int

    /// The table read in place from `raw`, the validated file it describes.
    func reading(_ raw: UnsafeRawBufferPointer) -> InPlace { InPlace(raw: raw, table: self) }

    struct InPlace: ObjectOffsets {
        let raw: UnsafeRawBufferPointer
        let table: BinaryOffsetTable

        @inline(__always)
        func offset(of object: Int) -> Int {
            // The validator read every entry of this table (each within the file, before the
            // table) and checked each object index against `count`; the check here keeps a
            // broken invariant from reading outside the table.
            precondition(object >= 0 && object < table.count, "object \(object) outside the offset table")
            return BinaryArchiveTable.load(raw, at: table.start &+ object &* table.width, width: table.width)
        }
    }
}
