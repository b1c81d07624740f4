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
    public enum OffsetSizeRule: Hashable, Sendable {
        /// 1, 2, 4 or 8 bytes, the smallest that holds the offset-table position (Core Foundation since 10.6).
        case powerOfTwo
        /// The exact number of bytes needed, 3 included (Core Foundation 476, Mac OS X 10.5).
        case minimal
    }

    public var offsetSizeRule: OffsetSizeRule = .powerOfTwo
    /// Share booleans and UIDs like strings instead of re-appending them (one 2008 nib's writer did this).
    public var uniquesBooleansAndUIDs = false
    /// Deepest container nesting written; deeper values throw ``PropertyListError/Code/depthLimitExceeded``.
    public var maximumDepth = PropertyListReadingOptions.default.maximumDepth
    /// Most objects written. Re-appended shared containers can multiply a small table, so a
    /// hand-built document is bounded here.
    public var maximumObjectCount = PropertyListReadingOptions.default.maximumObjectCount

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
                        throw PropertyListError(.nonStringKey, "object \(node): dictionary key (object \(key)) is a \(objects[key].kindName), not a string")
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
        var out = BinaryByteSink()
        out.bytes.reserveCapacity(objectCount &* 8 &+ 64)
        out.bytes.append(contentsOf: BinaryPropertyListFormat.magic)
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        let firstNumber = plan.firstNumber
        for node in plan.order {
            offsets.append(out.bytes.count)
            switch document.objects[node] {
            case .bool(let flag):
                out.bytes.append(flag ? 0x09 : 0x08)
            case .integer(let integer):
                out.appendInteger(integer)
            case .real(.float32(let value)):
                out.bytes.append(0x22)
                out.appendBigEndian(UInt64(value.bitPattern), width: 4)
            case .real(.float64(let value)):
                out.bytes.append(0x23)
                out.appendBigEndian(value.bitPattern, width: 8)
            case .date(let date):
                out.bytes.append(0x33)
                out.appendBigEndian(date.secondsSinceReferenceDate.bitPattern, width: 8)
            case .data(let data):
                out.appendMarker(0x40, count: data.count)
                out.bytes.append(contentsOf: data)
            case .string(let string):
                out.appendString(string)
            case .uid(let uid):
                let width = Self.roundedByteCount(uid.value)
                out.bytes.append(0x80 | UInt8(width &- 1))
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
        let tableOffset = out.bytes.count
        let offsetSize: Int
        switch offsetSizeRule {
        case .powerOfTwo: offsetSize = Self.roundedByteCount(UInt64(tableOffset))
        case .minimal: offsetSize = Self.minimalByteCount(UInt64(tableOffset))
        }
        out.bytes.reserveCapacity(tableOffset &+ offsets.count &* offsetSize &+ 32)
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        // Trailer: 5 unused bytes, sort version 0, the two sizes, count, top object, table offset.
        out.bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        out.appendBigEndian(UInt64(objectCount), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.bytes
    }
}

struct BinaryByteSink {
    var bytes: [UInt8] = []

    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        var shift = (width &- 1) &* 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift &-= 8
        }
    }

    /// A non-negative integer object in Core Foundation's minimal 1/2/4/8-byte form.
    @inline(__always)
    mutating func appendUnsignedIntegerObject(_ value: UInt64) {
        let width = BinaryPropertyListWriter.roundedByteCount(value)
        bytes.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(value, width: width)
    }

    mutating func appendInteger(_ integer: PropertyListInteger) {
        if !integer.isStoredAs128Bit, let signed = integer.int64Value {
            if signed < 0 {
                bytes.append(0x13)
                appendBigEndian(UInt64(bitPattern: signed), width: 8)
            } else {
                appendUnsignedIntegerObject(UInt64(signed))
            }
        } else {
            bytes.append(0x14)
            appendBigEndian(UInt64(bitPattern: integer.high), width: 8)
            appendBigEndian(integer.low, width: 8)
        }
    }

    @inline(__always)
    mutating func appendMarker(_ type: UInt8, count: Int) {
        if count < 15 {
            bytes.append(type | UInt8(count))
        } else {
            bytes.append(type | 0x0F)
            appendUnsignedIntegerObject(UInt64(count))
        }
    }

    mutating func appendString(_ string: String) {
        var utf8View = string
        let isASCII = utf8View.withUTF8 { BinaryText.isASCII(UnsafeRawBufferPointer($0)) }
        if isASCII {
            appendMarker(0x50, count: string.utf8.count)
            bytes.append(contentsOf: string.utf8)
            return
        }
        appendMarker(0x60, count: string.utf16.count)
        for unit in string.utf16 {
            bytes.append(UInt8(truncatingIfNeeded: unit >> 8))
            bytes.append(UInt8(truncatingIfNeeded: unit))
        }
    }
}
