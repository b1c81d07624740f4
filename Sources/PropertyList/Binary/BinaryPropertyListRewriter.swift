/// A binary property list rewritten in Core Foundation's layout straight from its bytes: the
/// bytes `PropertyListCodec.convert(readFile(bytes), to: .binary)` makes, without building the
/// object table (``BinaryPropertyListDocument``: an enum, a `String` or an array per object).
///
/// Three passes over the file: every object checked as ``BinaryPropertyListReader/read(_:options:)``
/// checks it (all of them, reachable or not); one walk from the top that numbers the objects as
/// ``BinaryPropertyListWriter`` numbers them and checks what the reader's graph check and the
/// writer's walk check; then the objects written in that order, each re-encoded from its bytes
/// as the writer encodes it, in chunks handed to the caller as they fill.
///
/// Soundness rule, as for the keyed-archive table: ``plan(_:options:)`` returns a plan only for a
/// file the usual path accepts, and the plan writes the usual path's bytes. Anything else — a
/// fault of any kind, a container referenced twice (a cycle, or a file Core Foundation did not
/// write), a file whose writer shared booleans and UIDs — returns nil, and the caller takes the
/// usual path, which writes such files or names their fault. `BinaryRewriterTests` compare the
/// two on the Apple corpus, on generated files and on damaged copies.
package struct BinaryPropertyListRewriter {
    /// The output in Core Foundation's order: object numbers of the file, a boolean or UID once
    /// per reference (the writer appends those again each time it reaches them).
    private let order: [UInt32]
    /// The first output number of each file object (what references to it become); -1 if unreached.
    private let firstNumber: [Int32]
    /// Each file object's offset.
    private let offsets: [UInt32]
    private let referenceSize: Int
    /// The width of the file's object references.
    private let inputReferenceSize: Int
    private let minimalOffsets: Bool

    /// How many bytes are gathered before they are handed to `output` (an object is never split).
    package static let chunkSize = 1 << 20

    /// Checks `bytes` and numbers its objects; nil when the usual path must take the file.
    package static func plan(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) -> BinaryPropertyListRewriter? {
        // The output (at most some 13 times the input: wider references, a boolean or UID and
        // its offset per reference) must fit the 32-bit offsets too.
        guard bytes.count <= Int(UInt32.max) / 16, let (parser, offsets, topObject) = BinaryPropertyListParser.checkedOffsets(bytes, options: options) else { return nil }
        guard let (order, firstNumber) = numberObjects(bytes, offsets: offsets, top: topObject, referenceSize: parser.objectRefSize, options: options) else {
            return nil
        }
        return BinaryPropertyListRewriter(order: order, firstNumber: firstNumber, offsets: offsets,
                                          referenceSize: BinaryPropertyListWriter.roundedByteCount(UInt64(order.count)),
                                          inputReferenceSize: parser.objectRefSize, minimalOffsets: ![1, 2, 4, 8].contains(parser.offsetIntSize))
    }

    /// Whether every object of a binary file passes the checks ``BinaryPropertyListReader/read(_:options:)``
    /// makes of each (reachable or not), without making any value. With it, the value tree
    /// read by ``BinaryPropertyListReader/readValue(_:options:)`` (which checks what is reachable
    /// as `read` does) is the one `read` then `value()` gives, without the object table.
    package static func checkEveryObject(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) -> Bool {
        var parser = BinaryPropertyListParser(bytes: bytes, options: options)
        guard let (offsetIntSize, _) = try? parser.parseTrailer() else { return false }
        var entry = parser.offsetTableStart
        for index in 0..<parser.objectCount {
            let offset = BinaryBigEndian.load(bytes, at: entry, width: offsetIntSize)
            guard offset >= BinaryPropertyListFormat.headerLength, offset < parser.offsetTableStart,
                  parser.checkObject(at: offset, index: index) else { return false }
            entry &+= offsetIntSize
        }
        return true
    }

    /// The writer's walk (``BinaryPropertyListWriter``'s `flatten`) and the reader's graph check
    /// (`validateGraph`) in one, for files whose containers are each reached once.
    private static func numberObjects(_ bytes: UnsafeRawBufferPointer, offsets: [UInt32], top: Int, referenceSize: Int,
                                      options: PropertyListReadingOptions) -> (order: [UInt32], firstNumber: [Int32])? {
        let count = offsets.count
        let writerLimits = BinaryPropertyListWriter()
        let maximumDepth = min(options.maximumDepth, writerLimits.maximumDepth)
        let maximumOrder = min(writerLimits.maximumObjectCount, Int(Int32.max))
        var firstNumber = [Int32](repeating: -1, count: count)
        var order: [UInt32] = []
        order.reserveCapacity(count)
        // Booleans and UIDs reached again: the writer appends them again.
        var repeats = 0
        // Values of the tree the reader would build (each reference counts): the reader's budget.
        var treeSize = 1
        // Positive entries visit an object; a negative one (~n) closes a container n levels deep.
        var stack: [Int] = [top]
        var depth = 0
        while let entry = stack.popLast() {
            if entry < 0 {
                depth &-= 1
                continue
            }
            let node = entry
            let offset = Int(offsets[node])
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0xA, 0xC, 0xD:
                // A container reached twice is shared or inside itself: the usual path decides.
                guard firstNumber[node] < 0 else { return nil }
                // The reader refuses past maximumDepth and past the stack left; the writer too.
                guard depth < maximumDepth, depth == 0 || ThreadStackLimit.canHoldValue(depth: depth &+ 1) else { return nil }
                firstNumber[node] = Int32(truncatingIfNeeded: order.count)
                order.append(UInt32(truncatingIfNeeded: node))
                depth &+= 1
                stack.append(~node)
                let header = BinaryObjectHeader(bytes, at: offset)
                let isDictionary = marker >> 4 == 0xD
                let children = isDictionary ? header.count &* 2 : header.count
                if isDictionary {
                    var position = header.payload
                    for _ in 0..<header.count {
                        let key = BinaryBigEndian.load(bytes, at: position, width: referenceSize)
                        let keyType = bytes[Int(offsets[key])] >> 4
                        guard keyType == 0x5 || keyType == 0x6 else { return nil }
                        position &+= referenceSize
                    }
                }
                treeSize &+= children
                var position = header.payload &+ children &* referenceSize
                for _ in 0..<children {
                    position &-= referenceSize
                    stack.append(BinaryBigEndian.load(bytes, at: position, width: referenceSize))
                }
            case 0x0, 0x8:
                if firstNumber[node] < 0 {
                    firstNumber[node] = Int32(truncatingIfNeeded: order.count)
                } else {
                    repeats &+= 1
                }
                order.append(UInt32(truncatingIfNeeded: node))
            default:
                if firstNumber[node] < 0 {
                    firstNumber[node] = Int32(truncatingIfNeeded: order.count)
                    order.append(UInt32(truncatingIfNeeded: node))
                }
            }
            guard order.count <= maximumOrder else { return nil }
        }
        guard treeSize <= options.maximumExpandedValueCount else { return nil }
        // `BinaryPropertyListWriter.matching` shares booleans and UIDs when that alone gives the
        // file's object count; such a file (one 2008 nib's writer) takes the usual path.
        if order.count != count, order.count &- repeats == count { return nil }
        return (order, firstNumber)
    }

    /// Writes the file's objects in Core Foundation's layout, handing `output` the bytes in
    /// chunks of about ``chunkSize`` as they are made (the last one with the offset table and
    /// the trailer). `bytes` must be the bytes the plan was made from.
    package func write(_ bytes: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) -> Void) {
        var out = BinaryByteSink(capacity: Self.chunkSize &+ 64)
        // Where the current chunk starts in the whole output.
        var flushed = 0
        func flushIfFull(_ out: inout BinaryByteSink) {
            guard out.count >= Self.chunkSize else { return }
            out.withBytes(output)
            flushed &+= out.count
            out.removeAll()
        }
        out.append(contentsOf: BinaryPropertyListFormat.magic)
        var outputOffsets = [UInt32](repeating: 0, count: order.count)
        let size = referenceSize
        let inputSize = inputReferenceSize
        for (index, objectNumber) in order.enumerated() {
            outputOffsets[index] = UInt32(truncatingIfNeeded: flushed &+ out.count)
            let offset = Int(offsets[Int(objectNumber)])
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                out.append(marker)
            case 0x1:
                let width = 1 &<< Int(marker & 0x0F)
                if width == 16 {
                    out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset &+ 17)]))
                } else {
                    let value = UInt64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: width))
                    if width == 8, Int64(bitPattern: value) < 0 {
                        out.append(0x13)
                        out.appendBigEndian(value, width: 8)
                    } else {
                        out.appendUnsignedIntegerObject(value)
                    }
                }
            case 0x2, 0x3:
                // A 4- or 8-byte real, or a date: as stored.
                let width = marker == 0x22 ? 4 : 8
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset &+ 1 &+ width)]))
            case 0x4, 0x5:
                let header = BinaryObjectHeader(bytes, at: offset)
                out.appendMarker(marker & 0xF0, count: header.count)
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count)]))
            case 0x6:
                let header = BinaryObjectHeader(bytes, at: offset)
                let units = UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count &* 2)])
                if Self.isASCII(utf16BigEndian: units) {
                    // The writer stores a string as ASCII whenever it is.
                    out.appendMarker(0x50, count: header.count)
                    out.appendInPlace(maximum: header.count) { target in
                        for unit in 0..<header.count { target[unit] = units[unit &* 2 &+ 1] }
                        return header.count
                    }
                } else {
                    // Valid UTF-16 (checked) comes back from its scalars unit for unit.
                    out.appendMarker(0x60, count: header.count)
                    out.append(contentsOf: units)
                }
            case 0x8:
                let width = Int(marker & 0x0F) &+ 1
                var value: UInt64 = 0
                for position in (offset &+ 1)..<(offset &+ 1 &+ width) { value = value << 8 | UInt64(bytes[position]) }
                let written = BinaryPropertyListWriter.roundedByteCount(value)
                out.append(0x80 | UInt8(written &- 1))
                out.appendBigEndian(value, width: written)
            default:
                // An array (0xA), a set (0xC) or a dictionary (0xD).
                let header = BinaryObjectHeader(bytes, at: offset)
                let children = marker >> 4 == 0xD ? header.count &* 2 : header.count
                out.appendMarker(marker & 0xF0, count: header.count)
                out.reserve(children &* size)
                var position = header.payload
                for _ in 0..<children {
                    let child = BinaryBigEndian.load(bytes, at: position, width: inputSize)
                    out.appendBigEndian(UInt64(firstNumber[child]), width: size)
                    position &+= inputSize
                }
            }
            flushIfFull(&out)
        }
        let tableOffset = flushed &+ out.count
        let offsetSize = minimalOffsets ? BinaryPropertyListWriter.minimalByteCount(UInt64(tableOffset))
                                        : BinaryPropertyListWriter.roundedByteCount(UInt64(tableOffset))
        for offset in outputOffsets {
            out.appendBigEndian(UInt64(offset), width: offsetSize)
            flushIfFull(&out)
        }
        // Trailer: 5 unused bytes, sort version 0, the two sizes, count, top object, table offset.
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(size)])
        out.appendBigEndian(UInt64(order.count), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        out.withBytes(output)
    }

    /// Whether every UTF-16 unit is below 0x80.
    private static func isASCII(utf16BigEndian units: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < units.count {
            if units[index] != 0 || units[index &+ 1] >= 0x80 { return false }
            index &+= 2
        }
        return true
    }
}

extension BinaryPropertyListParser {
    /// Whether `parseObject(at:index:)` accepts the object at `offset`, with the same checks and
    /// the same payload count, without making its value.
    mutating func checkObject(at offset: Int, index: Int) -> Bool {
        let marker = bytes[offset]
        let available = offsetTableStart &- offset &- 1
        switch marker >> 4 {
        case 0x0:
            return marker == 0x08 || marker == 0x09
        case 0x1:
            let exponent = Int(marker & 0x0F)
            return exponent <= 4 && 1 &<< exponent <= available
        case 0x2:
            switch marker & 0x0F {
            case 2: return available >= 4
            case 3: return available >= 8
            default: return false
            }
        case 0x3:
            return marker == 0x33 && available >= 8
        case 0x4, 0x5, 0x6:
            guard let (count, payload) = try? readContainerCount(marker: marker, at: offset), count <= options.maximumValueLength else { return false }
            let width = marker >> 4 == 0x6 ? 2 : 1
            guard let span = try? checkSpan(count: count, width: width, payload: payload, objectOffset: offset, what: "") else { return false }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ span)])
            switch marker >> 4 {
            case 0x5: return BinaryText.isASCII(slice)
            case 0x6: return Self.isValidUTF16BigEndian(slice)
            default: return true
            }
        case 0x8:
            let width = Int(marker & 0x0F) &+ 1
            guard width <= available else { return false }
            var value: UInt64 = 0
            for position in (offset &+ 1)..<(offset &+ 1 &+ width) {
                guard value <= UInt64(UInt32.max) else { return false }
                value = value << 8 | UInt64(bytes[position])
            }
            return value <= UInt64(UInt32.max)
        case 0xA, 0xC, 0xD:
            guard let (count, payload) = try? readContainerCount(marker: marker, at: offset), count <= options.maximumCollectionElementCount else { return false }
            guard checkReferences(count: count, at: payload, objectOffset: offset) else { return false }
            if marker >> 4 == 0xD {
                return checkReferences(count: count, at: payload &+ count &* objectRefSize, objectOffset: offset)
            }
            return true
        default:
            return false
        }
    }

    /// `readReferences`' checks: the span, its payload count, and every reference in range.
    private mutating func checkReferences(count: Int, at payload: Int, objectOffset: Int) -> Bool {
        guard (try? checkSpan(count: count, width: objectRefSize, payload: payload, objectOffset: objectOffset, what: "")) != nil else { return false }
        var position = payload
        for _ in 0..<count {
            // A reference of 8 bytes with the top bit set loads negative: out of range too.
            let reference = BinaryBigEndian.load(bytes, at: position, width: objectRefSize)
            guard reference >= 0, reference < objectCount else { return false }
            position &+= objectRefSize
        }
        return true
    }

    /// Whether big-endian UTF-16 has no unpaired surrogate (what `BinaryText.stringFromUTF16BigEndian` refuses).
    private static func isValidUTF16BigEndian(_ units: UnsafeRawBufferPointer) -> Bool {
        let count = units.count / 2
        var index = 0
        while index < count {
            let unit = UInt16(units[index &* 2]) << 8 | UInt16(units[index &* 2 &+ 1])
            index &+= 1
            guard unit & 0xF800 == 0xD800 else { continue }
            guard unit <= 0xDBFF, index < count else { return false }
            let next = UInt16(units[index &* 2]) << 8 | UInt16(units[index &* 2 &+ 1])
            guard next & 0xFC00 == 0xDC00 else { return false }
            index &+= 1
        }
        return true
    }
}
