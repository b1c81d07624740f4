/// Reads `bplist00` files into a ``BinaryPropertyListDocument``.
///
/// The whole structure is validated before any value is built: header, trailer and offset
/// table first (with overflow-checked arithmetic), then every object, then the reference graph
/// (no container may contain itself, nesting within ``PropertyListReadingOptions/maximumDepth``).
/// The reader never recurses on input and never copies the input bytes.
public enum BinaryPropertyListReader {
    /// Reads a binary property list from `bytes`.
    /// - Throws: ``PropertyListError`` naming the fault and its byte offset.
    public static func read(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default) throws(PropertyListError) -> BinaryPropertyListDocument {
        var parser = BinaryPropertyListParser(bytes: bytes, options: options)
        return try parser.parseDocument()
    }

    /// Reads a binary property list from `bytes`, keeping its object table and layout.
    public static func read(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) throws(PropertyListError) -> BinaryPropertyListDocument {
        let result: Result<BinaryPropertyListDocument, PropertyListError> = bytes.withUnsafeBytes { buffer in
            do throws(PropertyListError) {
                return .success(try read(buffer, options: options))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Whether `bytes` start with the binary property-list magic.
    public static func hasBinaryHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && bytes.prefix(8).elementsEqual(BinaryPropertyListFormat.magic)
    }
}

package enum BinaryPropertyListFormat {
    package static let magic: [UInt8] = Array("bplist00".utf8)
    package static let headerLength = 8
    static let trailerLength = 32
}

package struct BinaryPropertyListParser {
    let bytes: UnsafeRawBufferPointer
    let options: PropertyListReadingOptions
    package var objectRefSize = 0
    package var objectCount = 0
    /// Payload bytes (string and data contents, container references) of every object decoded
    /// so far. Objects Core Foundation writes never overlap, so this can never exceed the file
    /// size; an offset table that points many objects at the same bytes ("aliasing") would
    /// otherwise turn a small file into an enormous decoded one.
    var decodedPayloadBytes = 0
    package var offsetTableStart = 0
    var offsetIntSize = 1

    package init(bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions) {
        self.bytes = bytes
        self.options = options
    }

    private func fail(_ code: PropertyListError.Code, _ message: String, at offset: Int) -> PropertyListError {
        PropertyListError(code, message, at: .byteOffset(offset))
    }

    /// Big-endian unsigned integer of `width` (1...8) bytes at `offset`; the caller has checked bounds.
    @inline(__always)
    private func readUnsigned(at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        var position = offset
        let end = offset &+ width
        while position < end {
            value = (value << 8) | UInt64(bytes[position])
            position &+= 1
        }
        return value
    }

    /// Validates header, trailer and offset-table bounds; returns the offset size and top object.
    package mutating func parseTrailer() throws(PropertyListError) -> (offsetIntSize: Int, topObject: Int) {
        let length = bytes.count
        guard length >= BinaryPropertyListFormat.headerLength else {
            throw fail(.truncated, "file is \(length) bytes, shorter than the 8-byte bplist00 header", at: 0)
        }
        guard bytes.prefix(8).elementsEqual(BinaryPropertyListFormat.magic) else {
            throw fail(.invalidHeader, "header is not bplist00", at: 0)
        }
        guard length >= BinaryPropertyListFormat.headerLength + 1 + BinaryPropertyListFormat.trailerLength else {
            throw fail(.truncated, "file is \(length) bytes, too short for one object and the 32-byte trailer", at: length)
        }
        let trailerStart = length - BinaryPropertyListFormat.trailerLength
        let offsetIntSize = Int(bytes[trailerStart + 6])
        objectRefSize = Int(bytes[trailerStart + 7])
        let declaredCount = readUnsigned(at: trailerStart + 8, width: 8)
        let topObject = readUnsigned(at: trailerStart + 16, width: 8)
        let tableOffset = readUnsigned(at: trailerStart + 24, width: 8)
        // Core Foundation leaves the trailer's first five bytes zero; other bytes there mean the
        // last 32 bytes are probably not a trailer at all, most often because the file was cut.
        let hint = bytes[trailerStart..<(trailerStart + 5)].allSatisfy { $0 == 0 } ? "" : " (the last 32 bytes do not look like a trailer: is the file cut short?)"

        guard (1...8).contains(offsetIntSize) else {
            throw fail(.invalidTrailer, "offset size \(offsetIntSize) is not 1 to 8 bytes\(hint)", at: trailerStart + 6)
        }
        guard (1...8).contains(objectRefSize) else {
            throw fail(.invalidTrailer, "object reference size \(objectRefSize) is not 1 to 8 bytes\(hint)", at: trailerStart + 7)
        }
        guard declaredCount >= 1 else {
            throw fail(.invalidTrailer, "object count is 0\(hint)", at: trailerStart + 8)
        }
        // A negative limit (a caller's option) admits nothing rather than trapping in the conversion.
        guard declaredCount <= UInt64(clamping: options.maximumObjectCount) else {
            throw fail(.sizeLimitExceeded, "object count \(declaredCount) exceeds the limit of \(options.maximumObjectCount)", at: trailerStart + 8)
        }
        objectCount = Int(declaredCount)
        guard objectRefSize >= 8 || declaredCount <= (UInt64(1) << UInt64(8 * objectRefSize)) else {
            throw fail(.invalidTrailer, "\(objectRefSize)-byte references cannot address \(declaredCount) objects\(hint)", at: trailerStart + 7)
        }
        guard topObject < declaredCount else {
            throw fail(.invalidTrailer, "top object \(topObject) is not below the object count \(declaredCount)\(hint)", at: trailerStart + 16)
        }
        guard tableOffset > UInt64(BinaryPropertyListFormat.headerLength), tableOffset < UInt64(trailerStart) else {
            throw fail(.invalidTrailer, "offset table at \(tableOffset) is not between the header and the trailer\(hint)", at: trailerStart + 24)
        }
        offsetTableStart = Int(tableOffset)
        let (tableLength, overflow) = objectCount.multipliedReportingOverflow(by: offsetIntSize)
        guard !overflow, tableLength <= trailerStart - offsetTableStart else {
            throw fail(.invalidTrailer, "offset table of \(declaredCount) entries of \(offsetIntSize) bytes runs past the trailer\(hint)", at: trailerStart + 24)
        }
        self.offsetIntSize = offsetIntSize
        return (offsetIntSize, Int(topObject))
    }

    mutating func parseDocument() throws(PropertyListError) -> BinaryPropertyListDocument {
        let (offsetIntSize, topObject) = try parseTrailer()
        let tableOffset = UInt64(offsetTableStart)
        var objects: [BinaryPropertyListDocument.Object] = []
        objects.reserveCapacity(objectCount)
        var entry = offsetTableStart
        let interruption = WorkInterruption(options)
        var untilCheck = WorkInterruption.interval
        for index in 0..<objectCount {
            untilCheck &-= 1
            if untilCheck == 0 {
                untilCheck = WorkInterruption.interval
                if let stop = interruption.stop() { throw WorkInterruption.error(stop, at: .byteOffset(entry)) }
            }
            let offset = readUnsigned(at: entry, width: offsetIntSize)
            guard offset >= UInt64(BinaryPropertyListFormat.headerLength), offset < tableOffset else {
                throw fail(.invalidOffset, "object \(index) has offset \(offset), outside the object region 8..<\(tableOffset)", at: entry)
            }
            objects.append(try parseObject(at: Int(offset), index: index))
            entry &+= offsetIntSize
        }
        let document = BinaryPropertyListDocument(objects: objects, topObject: Int(topObject))
        let layout = BinaryPropertyListDocument.Layout(offsetIntSize: offsetIntSize, objectRefSize: objectRefSize, offsetTableOffset: offsetTableStart)
        var validated = document
        validated.sourceLayout = layout
        _ = try validated.validateGraph(options: options, objectOffsets: { index in
            Int(self.readUnsigned(at: self.offsetTableStart &+ index &* offsetIntSize, width: offsetIntSize))
        })
        return validated
    }

    /// Reads the count that follows a marker: the low nibble, or an integer object after it when the nibble is 0xF.
    /// Returns the count and the offset of the first payload byte.
    @inline(__always)
    package func readContainerCount(marker: UInt8, at offset: Int) throws(PropertyListError) -> (count: Int, payload: Int) {
        try readCount(marker: marker, at: offset)
    }

    @inline(__always)
    private func readCount(marker: UInt8, at offset: Int) throws(PropertyListError) -> (count: Int, payload: Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, offset &+ 1) }
        let intOffset = offset &+ 1
        guard intOffset < offsetTableStart else {
            throw fail(.truncated, "count integer after marker 0x\(String(marker, radix: 16)) is missing", at: intOffset)
        }
        let intMarker = bytes[intOffset]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw fail(.invalidLength, "count after marker 0x\(String(marker, radix: 16)) is not a 1/2/4/8-byte integer (marker 0x\(String(intMarker, radix: 16)))", at: intOffset)
        }
        let width = 1 << Int(intMarker & 0x0F)
        guard width <= offsetTableStart &- intOffset &- 1 else {
            throw fail(.truncated, "count integer runs past the object region", at: intOffset)
        }
        let raw = readUnsigned(at: intOffset &+ 1, width: width)
        guard raw <= UInt64(Int32.max) else {
            throw fail(.invalidLength, "count \(Int64(bitPattern: raw)) is negative or absurd", at: intOffset)
        }
        return (Int(raw), intOffset &+ 1 &+ width)
    }

    /// Checks that `count` items of `width` bytes fit between `payload` and the offset table.
    @inline(__always)
    mutating func checkSpan(count: Int, width: Int, payload: Int, objectOffset: Int, what: String) throws(PropertyListError) -> Int {
        let (span, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow, span <= offsetTableStart &- payload else {
            throw fail(.invalidLength, "\(what) of length \(count) runs past the object region", at: objectOffset)
        }
        try countPayload(span, at: objectOffset)
        return span
    }

    /// Adds decoded payload bytes, failing once they exceed what the file can hold without
    /// objects sharing bytes.
    @inline(__always)
    mutating func countPayload(_ span: Int, at objectOffset: Int) throws(PropertyListError) {
        decodedPayloadBytes &+= span
        guard decodedPayloadBytes <= bytes.count else {
            throw fail(.sizeLimitExceeded, "objects overlap: decoding would produce more than the file's \(bytes.count) bytes of contents (aliased or overlapping offsets)", at: objectOffset)
        }
    }

    private mutating func readReferences(count: Int, at payload: Int, objectOffset: Int) throws(PropertyListError) -> [Int] {
        guard count <= options.maximumCollectionElementCount else {
            throw fail(.sizeLimitExceeded, "collection of \(count) elements exceeds the limit of \(options.maximumCollectionElementCount)", at: objectOffset)
        }
        _ = try checkSpan(count: count, width: objectRefSize, payload: payload, objectOffset: objectOffset, what: "collection")
        var references = [Int]()
        references.reserveCapacity(count)
        var position = payload
        let limit = UInt64(objectCount)
        for _ in 0..<count {
            let reference = readUnsigned(at: position, width: objectRefSize)
            guard reference < limit else {
                throw fail(.invalidReference, "reference \(reference) is not below the object count \(objectCount)", at: position)
            }
            references.append(Int(reference))
            position &+= objectRefSize
        }
        return references
    }

    mutating func parseObject(at offset: Int, index: Int) throws(PropertyListError) -> BinaryPropertyListDocument.Object {
        let marker = bytes[offset]
        let available = offsetTableStart &- offset &- 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default:
                throw fail(.invalidObjectMarker, "object \(index): marker 0x\(String(marker, radix: 16)) (null/fill) is not a property-list value", at: offset)
            }
        case 0x1:
            let exponent = Int(marker & 0x0F)
            guard exponent <= 4 else {
                throw fail(.invalidObjectMarker, "object \(index): integer marker 0x\(String(marker, radix: 16)) has no 1/2/4/8/16-byte width", at: offset)
            }
            let width = 1 << exponent
            guard width <= available else {
                throw fail(.truncated, "object \(index): \(width)-byte integer runs past the object region", at: offset)
            }
            switch width {
            case 16:
                let high = Int64(bitPattern: readUnsigned(at: offset &+ 1, width: 8))
                let low = readUnsigned(at: offset &+ 9, width: 8)
                return .integer(PropertyListInteger(high: high, low: low, isStoredAs128Bit: true))
            case 8:
                return .integer(PropertyListInteger(Int64(bitPattern: readUnsigned(at: offset &+ 1, width: 8))))
            default:
                return .integer(PropertyListInteger(Int64(readUnsigned(at: offset &+ 1, width: width))))
            }
        case 0x2:
            switch marker & 0x0F {
            case 2:
                guard available >= 4 else { throw fail(.truncated, "object \(index): 4-byte real runs past the object region", at: offset) }
                return .real(.float32(Float(bitPattern: UInt32(truncatingIfNeeded: readUnsigned(at: offset &+ 1, width: 4)))))
            case 3:
                guard available >= 8 else { throw fail(.truncated, "object \(index): 8-byte real runs past the object region", at: offset) }
                return .real(.float64(Double(bitPattern: readUnsigned(at: offset &+ 1, width: 8))))
            default:
                throw fail(.invalidObjectMarker, "object \(index): real marker 0x\(String(marker, radix: 16)) is not 4 or 8 bytes", at: offset)
            }
        case 0x3:
            guard marker == 0x33 else {
                throw fail(.invalidObjectMarker, "object \(index): date marker 0x\(String(marker, radix: 16)) is not 0x33", at: offset)
            }
            guard available >= 8 else { throw fail(.truncated, "object \(index): date runs past the object region", at: offset) }
            return .date(PropertyListDate(secondsSinceReferenceDate: Double(bitPattern: readUnsigned(at: offset &+ 1, width: 8))))
        case 0x4:
            let (count, payload) = try readCount(marker: marker, at: offset)
            guard count <= options.maximumValueLength else {
                throw fail(.sizeLimitExceeded, "object \(index): data of \(count) bytes exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            _ = try checkSpan(count: count, width: 1, payload: payload, objectOffset: offset, what: "data")
            return .data(Array(UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ count)])))
        case 0x5:
            let (count, payload) = try readCount(marker: marker, at: offset)
            guard count <= options.maximumValueLength else {
                throw fail(.sizeLimitExceeded, "object \(index): string of \(count) characters exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            _ = try checkSpan(count: count, width: 1, payload: payload, objectOffset: offset, what: "ASCII string")
            let slice = UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ count)])
            guard BinaryText.isASCII(slice) else {
                throw fail(.invalidText, "object \(index): ASCII string holds a byte above 0x7F", at: payload)
            }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (count, payload) = try readCount(marker: marker, at: offset)
            guard count <= options.maximumValueLength else {
                throw fail(.sizeLimitExceeded, "object \(index): string of \(count) UTF-16 units exceeds the limit of \(options.maximumValueLength)", at: offset)
            }
            let span = try checkSpan(count: count, width: 2, payload: payload, objectOffset: offset, what: "UTF-16 string")
            let slice = UnsafeRawBufferPointer(rebasing: bytes[payload..<(payload &+ span)])
            guard let string = BinaryText.stringFromUTF16BigEndian(slice) else {
                throw fail(.invalidText, "object \(index): UTF-16 string has an unpaired surrogate", at: payload)
            }
            return .string(string)
        case 0x8:
            // 1 to 16 bytes, as Core Foundation reads them; like it, values past 2^32 − 1 are
            // refused (Foundation on Linux: "not in the correct format"), whatever the width.
            let width = Int(marker & 0x0F) &+ 1
            guard width <= available else { throw fail(.truncated, "object \(index): UID runs past the object region", at: offset) }
            var leading = 0
            while leading < width &- 8 {
                guard bytes[offset &+ 1 &+ leading] == 0 else {
                    throw fail(.invalidNumber, "object \(index): UID of \(width) bytes is above 2^32 − 1, the largest Core Foundation reads", at: offset)
                }
                leading &+= 1
            }
            let value = readUnsigned(at: offset &+ 1 &+ leading, width: width &- leading)
            guard value <= UInt64(UInt32.max) else {
                throw fail(.invalidNumber, "object \(index): UID \(value) is above 2^32 − 1, the largest Core Foundation reads", at: offset)
            }
            return .uid(PropertyListUID(value))
        case 0xA:
            let (count, payload) = try readCount(marker: marker, at: offset)
            return .array(try readReferences(count: count, at: payload, objectOffset: offset))
        case 0xC:
            let (count, payload) = try readCount(marker: marker, at: offset)
            return .set(try readReferences(count: count, at: payload, objectOffset: offset))
        case 0xD:
            let (count, payload) = try readCount(marker: marker, at: offset)
            guard count <= options.maximumCollectionElementCount else {
                throw fail(.sizeLimitExceeded, "object \(index): dictionary of \(count) entries exceeds the limit of \(options.maximumCollectionElementCount)", at: offset)
            }
            let keys = try readReferences(count: count, at: payload, objectOffset: offset)
            let values = try readReferences(count: count, at: payload &+ count &* objectRefSize, objectOffset: offset)
            return .dictionary(keys: keys, values: values)
        default:
            throw fail(.invalidObjectMarker, "object \(index): marker 0x\(String(marker, radix: 16)) is not a bplist00 object type", at: offset)
        }
    }
}

package enum BinaryText {
    /// Word-at-a-time scan: strings are the bulk of an archive, so this is on the hot path.
    @inlinable @inline(__always)
    package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var accumulated: UInt64 = 0
        var index = 0
        let count = bytes.count
        while index &+ 8 <= count {
            accumulated |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        while index < count {
            accumulated |= UInt64(bytes[index])
            index &+= 1
        }
        return accumulated & 0x8080_8080_8080_8080 == 0
    }

    /// Strict UTF-16BE to String: nil on an unpaired surrogate, which a Swift String cannot hold
    /// without replacing it (and a lossless reader must not silently replace characters).
    /// Transcoded into a scratch buffer (on the stack for short strings), four ASCII units at a
    /// time where it can, then copied into an exactly sized string.
    package static func stringFromUTF16BigEndian(_ bytes: UnsafeRawBufferPointer) -> String? {
        let unitCount = bytes.count / 2
        guard unitCount > 0 else { return "" }
        // Worst case 3 UTF-8 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
        let (capacity, overflow) = unitCount.multipliedReportingOverflow(by: 3)
        guard !overflow else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch -> String? in
            guard let output = scratch.baseAddress else { return nil }
            var out = 0
            var index = 0
            while index < unitCount {
                // Four ASCII units (high bytes zero, low bytes below 0x80) at once.
                if unitCount &- index >= 4 {
                    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index &* 2, as: UInt64.self))
                    if word & 0x80FF_80FF_80FF_80FF == 0 {
                        let packed = UInt32(truncatingIfNeeded: (word >> 8) & 0xFF) | UInt32(truncatingIfNeeded: (word >> 24) & 0xFF) << 8
                            | UInt32(truncatingIfNeeded: (word >> 40) & 0xFF) << 16 | UInt32(truncatingIfNeeded: word >> 56) << 24
                        UnsafeMutableRawPointer(output + out).storeBytes(of: UInt32(littleEndian: packed), as: UInt32.self)
                        out &+= 4
                        index &+= 4
                        continue
                    }
                }
                let unit = UInt32(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self)))
                index &+= 1
                if unit < 0x80 {
                    output[out] = UInt8(truncatingIfNeeded: unit)
                    out &+= 1
                } else if unit < 0x800 {
                    output[out] = UInt8(truncatingIfNeeded: 0xC0 | (unit >> 6))
                    output[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | (unit & 0x3F))
                    out &+= 2
                } else if unit & 0xF800 != 0xD800 {
                    output[out] = UInt8(truncatingIfNeeded: 0xE0 | (unit >> 12))
                    output[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | ((unit >> 6) & 0x3F))
                    output[out &+ 2] = UInt8(truncatingIfNeeded: 0x80 | (unit & 0x3F))
                    out &+= 3
                } else {
                    // A surrogate: a high one followed by a low one, or the text is invalid.
                    guard unit <= 0xDBFF, index < unitCount else { return nil }
                    let next = UInt32(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: index &* 2, as: UInt16.self)))
                    guard next & 0xFC00 == 0xDC00 else { return nil }
                    index &+= 1
                    let scalar = 0x10000 &+ ((unit &- 0xD800) << 10) &+ (next &- 0xDC00)
                    output[out] = UInt8(truncatingIfNeeded: 0xF0 | (scalar >> 18))
                    output[out &+ 1] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 12) & 0x3F))
                    output[out &+ 2] = UInt8(truncatingIfNeeded: 0x80 | ((scalar >> 6) & 0x3F))
                    output[out &+ 3] = UInt8(truncatingIfNeeded: 0x80 | (scalar & 0x3F))
                    out &+= 4
                }
            }
            return String(decoding: UnsafeBufferPointer(start: output, count: out), as: UTF8.self)
        }
    }
}
