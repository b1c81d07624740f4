/// Writes `bplist00` files with Core Foundation's algorithm, so that output matches Apple's
/// byte for byte.
///
/// The writer works on an object table (``BinaryPropertyListDocument``). Core Foundation walks
/// from the root depth-first (a dictionary, then all its keys, then all its values), gives each
/// object the next number, and reuses the number of a string, number, date or data object it
/// has already seen *as the same instance*; booleans, UIDs and containers are appended again
/// each time they are reached, and those later copies are never referenced. A document read
/// from a file carries its instances as object numbers, so writing it back reproduces the file;
/// a ``PropertyListValue`` is first turned into a document with equal values shared.
public struct BinaryPropertyListWriter: Sendable {
    /// How wide the offset-table entries are.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum OffsetSizeRule: Hashable, Sendable {
        /// 1, 2, 4 or 8 bytes, the smallest that holds the offset-table position (Core Foundation since 10.6).
        case powerOfTwo
        /// The exact number of bytes needed, 3 included (Core Foundation 476, Mac OS X 10.5).
        case minimal
    }

    /// How wide the offset-table entries are; ``matching(_:)`` picks the rule a read file used.
    public var offsetSizeRule: OffsetSizeRule = .powerOfTwo
    /// Share booleans and UIDs like strings instead of re-appending them (one 2008 nib's writer did this).
    public var uniquesBooleansAndUIDs = false
    /// Deepest container nesting written; deeper values throw ``PropertyListError/Code/depthLimitExceeded``.
    public var maximumDepth = PropertyListReadingOptions.default.maximumDepth
    /// Most objects written. Re-appended shared containers can multiply a small table, so a
    /// hand-built document is bounded here.
    public var maximumObjectCount = PropertyListReadingOptions.default.maximumObjectCount

    /// A writer with current Core Foundation's settings.
    public init() {}

    /// The writer settings that reproduce a file read by ``BinaryPropertyListReader``: the era
    /// variants of format-notes §6 are recognised from the document itself.
    public static func matching(_ document: BinaryPropertyListDocument) -> BinaryPropertyListWriter {
        var writer = BinaryPropertyListWriter()
        guard let layout = document.sourceLayout else { return writer }
        if ![1, 2, 4, 8].contains(layout.offsetIntSize) {
            writer.offsetSizeRule = .minimal
        }
        // A file whose writer shared booleans and UIDs has fewer objects than CF's walk appends.
        if let appended = try? writer.flatten(document).order.count, appended != document.objects.count {
            var sharing = writer
            sharing.uniquesBooleansAndUIDs = true
            if let shared = try? sharing.flatten(document).order.count, shared == document.objects.count {
                writer.uniquesBooleansAndUIDs = true
            }
        }
        return writer
    }

    /// Encodes a value, sharing equal strings, numbers, dates and data.
    public func write(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        if uniquesBooleansAndUIDs {
            return try write(BinaryPropertyListDocument(value: value, maximumDepth: maximumDepth))
        }
        return try writeValueTree(value)
    }

    /// Encodes an object table, sharing exactly the objects it shares.
    /// - Throws: ``PropertyListError`` if the table has a reference out of range, a container
    ///   inside itself, a non-string key, or expands past ``maximumObjectCount``.
    public func write(_ document: BinaryPropertyListDocument) throws(PropertyListError) -> [UInt8] {
        let plan = try flatten(document)
        return serialize(document, plan)
    }

    struct Plan {
        /// Object numbers of the document in the order they are written (repeats allowed).
        var order: [Int]
        /// The first written position of each document object: what references point to.
        var firstNumber: [Int]
    }

    func flatten(_ document: BinaryPropertyListDocument) throws(PropertyListError) -> Plan {
        let objects = document.objects
        let count = objects.count
        guard document.topObject >= 0, document.topObject < count else {
            throw PropertyListError(.invalidReference, "top object \(document.topObject) is not below the object count \(count)")
        }
        var firstNumber = [Int](repeating: -1, count: count)
        var onPath = [Bool](repeating: false, count: count)
        var order: [Int] = []
        order.reserveCapacity(count)
        // Explicit stack: a positive entry visits a node; a negative one (~node) marks the end of
        // a container's subtree, so that "on the current path" can detect a container inside itself.
        var stack: [Int] = [document.topObject]
        var depth = 0
        while let entry = stack.popLast() {
            if entry < 0 {
                onPath[~entry] = false
                depth &-= 1
                continue
            }
            let node = entry
            let object = objects[node]
            switch object {
            case .string, .integer, .real, .date, .data:
                if firstNumber[node] >= 0 { continue }
                firstNumber[node] = order.count
                order.append(node)
                continue
            case .bool, .uid:
                if case .uid(let uid) = object { try PropertyListUID.checkReadable(uid) }
                if firstNumber[node] >= 0 {
                    if uniquesBooleansAndUIDs { continue }
                } else {
                    firstNumber[node] = order.count
                }
                order.append(node)
                continue
            case .array, .set, .dictionary:
                break
            }
            guard !onPath[node] else {
                throw PropertyListError(.recursiveContainer, "object \(node) contains itself")
            }
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            if firstNumber[node] < 0 { firstNumber[node] = order.count }
            order.append(node)
            guard order.count <= maximumObjectCount else {
                throw PropertyListError(.sizeLimitExceeded, "writing would produce more than \(maximumObjectCount) objects (shared containers are written once per reference)")
            }
            onPath[node] = true
            depth &+= 1
            stack.append(~node)
            if case .dictionary(let keys, let values) = object {
                guard keys.count == values.count else {
                    throw PropertyListError(.invalidLength, "object \(node): dictionary has \(keys.count) keys and \(values.count) values")
                }
                for key in keys {
                    guard key >= 0, key < count else {
                        throw PropertyListError(.invalidReference, "object \(node): key reference \(key) is not below the object count \(count)")
                    }
                    guard case .string = objects[key] else {
                        throw PropertyListError(.nonStringKey, "object \(node): dictionary key (object \(key)) is \(objects[key].kindNameWithArticle), not a string")
                    }
                }
            }
            var position = object.childCount
            while position > 0 {
                position &-= 1
                let child = object.child(at: position)
                guard child >= 0, child < count else {
                    throw PropertyListError(.invalidReference, "object \(node): reference \(child) is not below the object count \(count)")
                }
                stack.append(child)
            }
        }
        return Plan(order: order, firstNumber: firstNumber)
    }

    /// Bytes needed for `value`, rounded up to 1, 2, 4 or 8 as Core Foundation's `_byteCount` does.
    static func roundedByteCount(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    static func minimalByteCount(_ value: UInt64) -> Int {
        var bytes = 1
        var rest = value >> 8
        while rest != 0 {
            bytes &+= 1
            rest >>= 8
        }
        return bytes
    }

    func serialize(_ document: BinaryPropertyListDocument, _ plan: Plan) -> [UInt8] {
        let objectCount = plan.order.count
        let referenceSize = Self.roundedByteCount(UInt64(objectCount))
        var out = BinaryByteSink(capacity: objectCount.multipliedReportingOverflow(by: 8).overflow ? 4096 : objectCount &* 8 &+ 64)
                out.append(contentsOf: BinaryPropertyListFormat.magic)
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        let firstNumber = plan.firstNumber
        for node in plan.order {
            offsets.append(out.count)
            switch document.objects[node] {
            case .bool(let flag):
                out.append(flag ? 0x09 : 0x08)
            case .integer(let integer):
                out.appendInteger(integer)
            case .real(.float32(let value)):
                out.append(0x22)
                out.appendBigEndian(UInt64(value.bitPattern), width: 4)
            case .real(.float64(let value)):
                out.append(0x23)
                out.appendBigEndian(value.bitPattern, width: 8)
            case .date(let date):
                out.append(0x33)
                out.appendBigEndian(date.secondsSinceReferenceDate.bitPattern, width: 8)
            case .data(let data):
                out.appendMarker(0x40, count: data.count)
                out.append(contentsOf: data)
            case .string(let string):
                out.appendString(string)
            case .uid(let uid):
                let width = Self.roundedByteCount(uid.value)
                out.append(0x80 | UInt8(width &- 1))
                out.appendBigEndian(uid.value, width: width)
            case .array(let elements):
                out.appendMarker(0xA0, count: elements.count)
                for element in elements { out.appendBigEndian(UInt64(firstNumber[element]), width: referenceSize) }
            case .set(let elements):
                out.appendMarker(0xC0, count: elements.count)
                for element in elements { out.appendBigEndian(UInt64(firstNumber[element]), width: referenceSize) }
            case .dictionary(let keys, let values):
                out.appendMarker(0xD0, count: keys.count)
                for key in keys { out.appendBigEndian(UInt64(firstNumber[key]), width: referenceSize) }
                for value in values { out.appendBigEndian(UInt64(firstNumber[value]), width: referenceSize) }
            }
        }
        let tableOffset = out.count
        let offsetSize: Int
        switch offsetSizeRule {
        case .powerOfTwo: offsetSize = Self.roundedByteCount(UInt64(tableOffset))
        case .minimal: offsetSize = Self.minimalByteCount(UInt64(tableOffset))
        }
        out.reserveCapacity(tableOffset &+ offsets.count &* offsetSize &+ 32)
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        // Trailer: 5 unused bytes, sort version 0, the two sizes, count, top object, table offset.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        out.appendBigEndian(UInt64(objectCount), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.moveIntoArray()
    }
}

/// The writer's output: a growable raw buffer. Appends of a few bytes are plain stores here,
/// where an `Array` would check uniqueness and capacity (and call memcpy) for each one; the
/// bytes are moved into an array once, at the end. Its memory is ``OutputMemory``'s.
struct BinaryByteSink: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init(capacity requested: Int = 4096) {
        let initial = min(max(requested, 64), 1 << 30)
        base = OutputMemory.reallocate(nil, to: initial)
        capacity = initial
    }

    deinit { OutputMemory.release(base) }

    /// Room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > capacity &- count { grow(extra) }
    }

    /// Room for a total of `total` bytes.
    mutating func reserveCapacity(_ total: Int) {
        if total > count { reserve(total &- count) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        // Checked arithmetic: sizes of values in memory cannot overflow, but never wrap.
        let needed = count + extra
        var newCapacity = capacity
        while newCapacity < needed { newCapacity = newCapacity * 2 }
        base = OutputMemory.reallocate(base, to: newCapacity)
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    @inline(__always)
    mutating func append(contentsOf raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        reserve(raw.count)
        (base + count).copyMemory(from: source, byteCount: raw.count)
        count &+= raw.count
    }

    @inline(__always)
    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// The low `width` (1...8) bytes of `value`, most significant first: one 8-byte store.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        let clamped = min(max(width, 1), 8)
        reserve(8)
        let shifted = clamped == 8 ? value : value << UInt64(64 &- 8 &* clamped)
        base.storeBytes(of: shifted.bigEndian, toByteOffset: count, as: UInt64.self)
        count &+= clamped
    }

    /// `count` zero bytes (reference slots filled in later).
    @inline(__always)
    mutating func appendZeros(_ zeros: Int) {
        guard zeros > 0 else { return }
        reserve(zeros)
        (base + count).initializeMemory(as: UInt8.self, repeating: 0, count: zeros)
        count &+= zeros
    }

    /// Overwrites `size` bytes at `position` (already appended) with `number`, big-endian.
    @inline(__always)
    mutating func storeReference(_ number: Int, at position: Int, size: Int) {
        guard position >= 0, size >= 1, size <= count &- position else { return }
        switch size {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: number), toByteOffset: position, as: UInt8.self)
        case 2: base.storeBytes(of: UInt16(truncatingIfNeeded: number).bigEndian, toByteOffset: position, as: UInt16.self)
        case 4: base.storeBytes(of: UInt32(truncatingIfNeeded: number).bigEndian, toByteOffset: position, as: UInt32.self)
        default:
            var shift = (size &- 1) &* 8
            var index = position
            while shift >= 0 {
                base.storeBytes(of: UInt8(truncatingIfNeeded: number >> shift), toByteOffset: index, as: UInt8.self)
                index &+= 1
                shift &-= 8
            }
        }
    }

    /// The byte at `position` (0 past the end: only bytes already written are asked for).
    @inline(__always)
    func byte(at position: Int) -> UInt8 {
        guard position >= 0, position < count else { return 0 }
        return base.load(fromByteOffset: position, as: UInt8.self)
    }

    /// The `width`-byte big-endian number at `position`, within the bytes written.
    @inline(__always)
    func bigEndian(at position: Int, width: Int) -> UInt64 {
        guard position >= 0, width >= 1, width <= 8, width <= count &- position else { return 0 }
        switch width {
        case 1: return UInt64(base.load(fromByteOffset: position, as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        default:
            var value: UInt64 = 0
            var index = 0
            while index < width {
                value = value << 8 | UInt64(base.load(fromByteOffset: position &+ index, as: UInt8.self))
                index &+= 1
            }
            return value
        }
    }

    /// Appends bytes `range` of `other`.
    @inline(__always)
    mutating func append(from other: borrowing BinaryByteSink, range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= other.count, !range.isEmpty else { return }
        append(contentsOf: UnsafeRawBufferPointer(start: other.base + range.lowerBound, count: range.count))
    }

    /// Runs `body` on the bytes written so far.
    func withBytes(_ body: (UnsafeRawBufferPointer) -> Void) {
        body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Forgets the bytes written, keeping the memory (a streaming writer's chunk was handed on).
    mutating func removeAll() {
        count = 0
    }

    /// The bytes written, as an array, leaving the sink empty
    /// (``OutputMemory/moveIntoArray(_:count:capacity:)``).
    mutating func moveIntoArray() -> [UInt8] {
        let result = OutputMemory.moveIntoArray(&base, count: count, capacity: &capacity)
        count = 0
        return result
    }

    /// Appends a string's UTF-8 through `body` into a scratch stretch of `maximum` bytes,
    /// keeping the `written` bytes that `body` reports.
    @inline(__always)
    mutating func appendInPlace(maximum: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int) {
        reserve(maximum)
        let written = body(UnsafeMutableRawBufferPointer(start: base + count, count: maximum))
        count &+= min(max(written, 0), maximum)
    }

    /// A non-negative integer object in Core Foundation's minimal 1/2/4/8-byte form.
    @inline(__always)
    mutating func appendUnsignedIntegerObject(_ value: UInt64) {
        let width = BinaryPropertyListWriter.roundedByteCount(value)
        append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(value, width: width)
    }

    mutating func appendInteger(_ integer: PropertyListInteger) {
        if !integer.isStoredAs128Bit, let signed = integer.int64Value {
            if signed < 0 {
                append(0x13)
                appendBigEndian(UInt64(bitPattern: signed), width: 8)
            } else {
                appendUnsignedIntegerObject(UInt64(signed))
            }
        } else {
            append(0x14)
            appendBigEndian(UInt64(bitPattern: integer.high), width: 8)
            appendBigEndian(integer.low, width: 8)
        }
    }

    @inline(__always)
    mutating func appendMarker(_ type: UInt8, count: Int) {
        if count < 15 {
            append(type | UInt8(count))
        } else {
            append(type | 0x0F)
            appendUnsignedIntegerObject(UInt64(count))
        }
    }

    mutating func appendString(_ string: String) {
        var contents = string
        contents.withUTF8 { utf8 in appendString(utf8: UnsafeRawBufferPointer(utf8)) }
    }

    /// A string object from its UTF-8 bytes: ASCII as it is, anything else as UTF-16BE,
    /// transcoded straight into the output (no UTF-16 view, no per-unit appends).
    mutating func appendString(utf8: UnsafeRawBufferPointer) {
        if BinaryText.isASCII(utf8) {
            appendMarker(0x50, count: utf8.count)
            append(contentsOf: utf8)
            return
        }
        // UTF-16 units: one per scalar (every byte that is not a continuation byte), two for
        // scalars above the BMP (4-byte sequences). A Swift string's UTF-8 is always valid.
        var units = 0
        for byte in utf8 {
            units &+= (byte & 0xC0 != 0x80 ? 1 : 0) &+ (byte >= 0xF0 ? 1 : 0)
        }
        appendMarker(0x60, count: units)
        appendInPlace(maximum: units &* 2) { output in
            var out = 0
            var index = 0
            let count = utf8.count
            while index < count {
                let lead = UInt32(utf8[index])
                var scalar: UInt32
                if lead < 0x80 {
                    scalar = lead
                    index &+= 1
                } else if lead < 0xE0, index &+ 1 < count {
                    scalar = (lead & 0x1F) << 6 | UInt32(utf8[index &+ 1] & 0x3F)
                    index &+= 2
                } else if lead < 0xF0, index &+ 2 < count {
                    scalar = (lead & 0x0F) << 12 | UInt32(utf8[index &+ 1] & 0x3F) << 6 | UInt32(utf8[index &+ 2] & 0x3F)
                    index &+= 3
                } else if index &+ 3 < count {
                    scalar = (lead & 0x07) << 18 | UInt32(utf8[index &+ 1] & 0x3F) << 12 | UInt32(utf8[index &+ 2] & 0x3F) << 6 | UInt32(utf8[index &+ 3] & 0x3F)
                    index &+= 4
                } else {
                    // Unreachable for valid UTF-8; stop rather than read past the end.
                    break
                }
                if scalar >= 0x10000 {
                    scalar &-= 0x10000
                    let pair = (0xD800 | (scalar >> 10)) << 16 | (0xDC00 | (scalar & 0x3FF))
                    guard out &+ 4 <= output.count else { break }
                    output.storeBytes(of: pair.bigEndian, toByteOffset: out, as: UInt32.self)
                    out &+= 4
                } else {
                    guard out &+ 2 <= output.count else { break }
                    output.storeBytes(of: UInt16(truncatingIfNeeded: scalar).bigEndian, toByteOffset: out, as: UInt16.self)
                    out &+= 2
                }
            }
            return out
        }
    }
}
