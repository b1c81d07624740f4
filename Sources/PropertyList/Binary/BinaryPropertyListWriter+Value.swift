extension BinaryPropertyListWriter {
    /// One pass over a value tree that numbers, shares and writes objects as Core Foundation's
    /// flatten would, without building an object table first. A container's references are
    /// reserved when it is written and filled in as its children get their numbers, which is
    /// possible because the reference width depends only on the object count: it is taken from
    /// an upper bound (the tree's size) and the pass is repeated in the rare case that sharing
    /// brings the count under a width boundary.
    func writeValueTree(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        let bound = try Self.objectCountBound(value, depth: 0, maximumDepth: maximumDepth)
        var pass = BinaryValueTreePass(referenceSize: Self.roundedByteCount(UInt64(bound)), writer: self, objectBound: bound)
        _ = try pass.add(value, depth: 0)
        let exactSize = Self.roundedByteCount(UInt64(pass.offsets.count))
        if exactSize != pass.referenceSize {
            pass = BinaryValueTreePass(referenceSize: exactSize, writer: self, objectBound: bound)
            _ = try pass.add(value, depth: 0)
        }
        return pass.finish(offsetSizeRule: offsetSizeRule)
    }

    /// Objects a tree can produce at most: every node once, plus each dictionary key.
    static func objectCountBound(_ value: PropertyListValue, depth: Int, maximumDepth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .array(let elements), .set(let elements):
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            var total = 1 &+ elements.count
            for element in elements {
                switch element {
                case .array, .set, .dictionary:
                    total &+= try objectCountBound(element, depth: depth &+ 1, maximumDepth: maximumDepth) &- 1
                default: break
                }
            }
            return total
        case .dictionary(let dictionary):
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            var total = 1 &+ dictionary.count &* 2
            for entry in dictionary.entries {
                switch entry.value {
                case .array, .set, .dictionary:
                    total &+= try objectCountBound(entry.value, depth: depth &+ 1, maximumDepth: maximumDepth) &- 1
                default: break
                }
            }
            return total
        default:
            return 1
        }
    }
}

struct BinaryValueTreePass: ~Copyable {
    let referenceSize: Int
    let maximumDepth: Int
    let maximumObjectCount: Int
    var sink: BinaryByteSink
    var offsets: [Int] = []
    var strings = BinaryUniquingTable<String>()
    var integers = BinaryUniquingTable<PropertyListInteger>()
    var reals = BinaryUniquingTable<PropertyListReal>()
    var dates = BinaryUniquingTable<PropertyListDate>()
    var datas = BinaryUniquingTable<[UInt8]>()
    var trueNumber: Int?
    var falseNumber: Int?
    var stringCacheBits = [(UInt64, UInt64)](repeating: (0, 0), count: BinaryValueTreePass.stringCacheSize)
    var stringCacheNumbers = [Int](repeating: -1, count: BinaryValueTreePass.stringCacheSize)

    init(referenceSize: Int, writer: BinaryPropertyListWriter, objectBound: Int = 0) {
        self.referenceSize = referenceSize
        self.maximumDepth = writer.maximumDepth
        self.maximumObjectCount = writer.maximumObjectCount
        // Sized from the tree's object bound up front: no doubling copies of a large output
        // or offset list (untouched capacity costs address space only, not memory).
        let bound = min(max(objectBound, 0), maximumObjectCount, 1 << 26)
        sink = BinaryByteSink(capacity: bound &* 12 &+ 64)
        offsets.reserveCapacity(bound)
        sink.append(contentsOf: BinaryPropertyListFormat.magic)
    }

    /// Starts a new object and returns its number.
    @inline(__always)
    mutating func begin() throws(PropertyListError) -> Int {
        guard offsets.count < maximumObjectCount else {
            throw PropertyListError(.sizeLimitExceeded, "writing would produce more than \(maximumObjectCount) objects")
        }
        offsets.append(sink.count)
        return offsets.count &- 1
    }

    @inline(__always)
    mutating func setReference(at position: Int, to number: Int) {
        sink.storeReference(number, at: position, size: referenceSize)
    }

    @inline(__always)
    mutating func reserveReferences(_ count: Int) -> Int {
        let start = sink.count
        sink.appendZeros(count &* referenceSize)
        return start
    }

    mutating func addString(_ string: String) throws(PropertyListError) -> Int {
        // Front cache on the string's own bits: equal bits are the same small string or the
        // same storage, hence equal text, so a hit needs no hashing of the text. Dictionary
        // keys (the same few strings in every record) nearly always hit. Every string seen is
        // part of the value being written, alive for the whole pass, so bits cannot be reused.
        let bits = unsafeBitCast(string, to: (UInt64, UInt64).self)
        let slot = Int(truncatingIfNeeded: mixHash(bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15), 0)) & (Self.stringCacheSize &- 1)
        if stringCacheNumbers[slot] >= 0, stringCacheBits[slot] == bits { return stringCacheNumbers[slot] }
        let number: Int
        if let existing = strings.existingOrInsert(string, number: offsets.count) {
            number = existing
        } else {
            number = try begin()
            sink.appendString(string)
        }
        stringCacheBits[slot] = bits
        stringCacheNumbers[slot] = number
        return number
    }

    static let stringCacheSize = 4096

    mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string):
            return try addString(string)
        case .integer(let integer):
            if let existing = integers.existingOrInsert(integer, number: offsets.count) { return existing }
            let number = try begin()
            sink.appendInteger(integer)
            return number
        case .real(let real):
            if let existing = reals.existingOrInsert(real, number: offsets.count) { return existing }
            let number = try begin()
            switch real {
            case .float32(let float):
                sink.append(0x22)
                sink.appendBigEndian(UInt64(float.bitPattern), width: 4)
            case .float64(let double):
                sink.append(0x23)
                sink.appendBigEndian(double.bitPattern, width: 8)
            }
            return number
        case .date(let date):
            if let existing = dates.existingOrInsert(date, number: offsets.count) { return existing }
            let number = try begin()
            sink.append(0x33)
            sink.appendBigEndian(date.secondsSinceReferenceDate.bitPattern, width: 8)
            return number
        case .data(let bytes):
            if let existing = datas.existingOrInsert(bytes, number: offsets.count) { return existing }
            let number = try begin()
            sink.appendMarker(0x40, count: bytes.count)
            sink.append(contentsOf: bytes)
            return number
        case .bool(let flag):
            // Core Foundation's booleans are singletons that it appends on every visit; later
            // copies are never referenced, but they are in Apple's files, so they are in ours.
            let number = try begin()
            sink.append(flag ? 0x09 : 0x08)
            if flag {
                if let first = trueNumber { return first }
                trueNumber = number
            } else {
                if let first = falseNumber { return first }
                falseNumber = number
            }
            return number
        case .uid(let uid):
            let number = try begin()
            let width = BinaryPropertyListWriter.roundedByteCount(uid.value)
            sink.append(0x80 | UInt8(width &- 1))
            sink.appendBigEndian(uid.value, width: width)
            return number
        case .array(let elements), .set(let elements):
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            let number = try begin()
            if case .set = value { sink.appendMarker(0xC0, count: elements.count) } else { sink.appendMarker(0xA0, count: elements.count) }
            var slot = reserveReferences(elements.count)
            for element in elements {
                let child = try add(element, depth: depth &+ 1)
                setReference(at: slot, to: child)
                slot &+= referenceSize
            }
            return number
        case .dictionary(let dictionary):
            guard depth < maximumDepth else {
                throw PropertyListError(.depthLimitExceeded, "containers nest deeper than \(maximumDepth)")
            }
            let number = try begin()
            let count = dictionary.count
            sink.appendMarker(0xD0, count: count)
            var slot = reserveReferences(count &* 2)
            for entry in dictionary.entries {
                setReference(at: slot, to: try addString(entry.key))
                slot &+= referenceSize
            }
            for entry in dictionary.entries {
                let child = try add(entry.value, depth: depth &+ 1)
                setReference(at: slot, to: child)
                slot &+= referenceSize
            }
            return number
        }
    }

    mutating func finish(offsetSizeRule: BinaryPropertyListWriter.OffsetSizeRule) -> [UInt8] {
        let tableOffset = sink.count
        let offsetSize: Int
        switch offsetSizeRule {
        case .powerOfTwo: offsetSize = BinaryPropertyListWriter.roundedByteCount(UInt64(tableOffset))
        case .minimal: offsetSize = BinaryPropertyListWriter.minimalByteCount(UInt64(tableOffset))
        }
        sink.reserveCapacity(tableOffset &+ offsets.count &* offsetSize &+ 32)
        for offset in offsets { sink.appendBigEndian(UInt64(offset), width: offsetSize) }
        sink.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        sink.appendBigEndian(UInt64(offsets.count), width: 8)
        sink.appendBigEndian(0, width: 8)
        sink.appendBigEndian(UInt64(tableOffset), width: 8)
        return sink.makeArray()
    }
}
