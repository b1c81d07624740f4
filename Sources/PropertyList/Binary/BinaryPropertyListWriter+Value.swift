extension BinaryPropertyListWriter {
    /// One pass over a value tree that numbers, shares and writes objects as Core Foundation's
    /// flatten would, without building an object table first. A container's references are
    /// reserved when it is written and filled in as its children get their numbers, which is
    /// possible because the reference width depends only on the object count: it is taken from
    /// an upper bound (the tree's size), and the references are narrowed afterwards in the case
    /// that sharing brings the count under a width boundary.
    func writeValueTree(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        let bound = try Self.objectCountBound(value, depth: 0, maximumDepth: maximumDepth)
        return try BinaryPropertyListBuilder.write(objectBound: bound, writer: self) { (builder: inout BinaryPropertyListBuilder) throws(PropertyListError) in
            _ = try builder.add(value, depth: 0)
        }
    }

    /// Objects a tree can produce at most: every node once, plus each dictionary key.
    static func objectCountBound(_ value: PropertyListValue, depth: Int, maximumDepth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .array(let elements), .set(let elements):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            var total = 1 &+ elements.count
            var index = 0
            while index < elements.count {
                switch elements[index] {
                case .array, .set, .dictionary:
                    total &+= try objectCountBound(elements[index], depth: depth &+ 1, maximumDepth: maximumDepth) &- 1
                default: break
                }
                index &+= 1
            }
            return total
        case .dictionary(let dictionary):
            try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
            var total = 1 &+ dictionary.count &* 2
            let entries = dictionary.entries
            var index = 0
            while index < entries.count {
                switch entries[index].value {
                case .array, .set, .dictionary:
                    total &+= try objectCountBound(entries[index].value, depth: depth &+ 1, maximumDepth: maximumDepth) &- 1
                default: break
                }
                index &+= 1
            }
            return total
        default:
            return 1
        }
    }
}

/// Writes a binary property list object by object, in the order Core Foundation's flatten
/// numbers them (a container, then its keys, then its values, depth-first), with its sharing
/// rules: equal strings, numbers, dates and data become one object; booleans, UIDs and
/// containers are appended at every visit. The caller adds objects in that order and fills each
/// container's references as its children get their numbers.
///
/// This is how ``BinaryPropertyListWriter`` writes a ``PropertyListValue`` (``add(_:depth:)``),
/// and how a layer above writes its own structure without building a value tree first. The
/// reference width is fixed up front, from an upper bound of the object count:
/// ``write(objectBound:writer:_:)`` takes care of it and of narrowing the references afterwards.
package struct BinaryPropertyListBuilder: ~Copyable {
    /// The references of a container being written, filled in order: keys first for a dictionary.
    package struct ContainerSlots {
        /// The container's object number.
        package let number: Int
        fileprivate var next: Int
        fileprivate let end: Int
    }

    /// Bytes per object reference in the file being built (1 to 8).
    package private(set) var referenceSize: Int
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
    var stringCacheBits = [(UInt64, UInt64)](repeating: (0, 0), count: BinaryPropertyListBuilder.stringCacheSize)
    var stringCacheNumbers = [Int](repeating: -1, count: BinaryPropertyListBuilder.stringCacheSize)

    /// - Parameters:
    ///   - referenceSize: bytes per object reference, ``referenceSize(forObjectCount:)`` of the
    ///     final object count.
    ///   - objectBound: an estimate of the object count, to size the output once.
    ///   - writer: the limits (depth, object count) of this writer apply.
    package init(referenceSize: Int, objectBound: Int = 0, writer: BinaryPropertyListWriter = BinaryPropertyListWriter()) {
        self.referenceSize = min(max(referenceSize, 1), 8)
        self.maximumDepth = writer.maximumDepth
        self.maximumObjectCount = writer.maximumObjectCount
        // Sized from the object bound up front: no doubling copies of a large output or offset
        // list (untouched capacity costs address space only, not memory).
        let bound = min(max(objectBound, 0), maximumObjectCount, 1 << 26)
        sink = BinaryByteSink(capacity: bound &* 12 &+ 64)
        offsets.reserveCapacity(bound)
        sink.append(contentsOf: BinaryPropertyListFormat.magic)
    }

    /// Writes a whole file: `body` adds its objects, the top one first, to a builder whose
    /// reference width comes from `objectBound`, an upper bound of the object count. Sharing
    /// usually makes the count lower, sometimes under a width boundary: the references are then
    /// narrowed to Core Foundation's width for the final count.
    package static func write(objectBound: Int, writer: BinaryPropertyListWriter = BinaryPropertyListWriter(),
                             _ body: (inout BinaryPropertyListBuilder) throws(PropertyListError) -> Void) throws(PropertyListError) -> [UInt8] {
        var size = referenceSize(forObjectCount: objectBound)
        while true {
            var builder = BinaryPropertyListBuilder(referenceSize: size, objectBound: objectBound, writer: writer)
            try body(&builder)
            let exact = referenceSize(forObjectCount: builder.objectCount)
            // Not expected of a true bound, but references must never be cut short.
            if exact > size {
                size = exact
                continue
            }
            builder.narrowReferences(to: exact)
            return builder.finish(offsetSizeRule: writer.offsetSizeRule)
        }
    }

    /// The most objects `value` can become when added at nesting `depth`: every node and every
    /// dictionary key once.
    /// - Throws: ``PropertyListError/Code/depthLimitExceeded`` past the writer's depth limit.
    package static func objectCountBound(of value: PropertyListValue, depth: Int,
                                        writer: BinaryPropertyListWriter = BinaryPropertyListWriter()) throws(PropertyListError) -> Int {
        try BinaryPropertyListWriter.objectCountBound(value, depth: depth, maximumDepth: writer.maximumDepth)
    }

    /// Core Foundation's reference width for a file of `count` objects: 1, 2, 4 or 8 bytes.
    package static func referenceSize(forObjectCount count: Int) -> Int {
        BinaryPropertyListWriter.roundedByteCount(UInt64(max(count, 0)))
    }

    /// Objects written so far (later copies of booleans included).
    package var objectCount: Int { offsets.count }

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
    mutating func reserveReferences(_ count: Int) -> Int {
        let start = sink.count
        sink.appendZeros(count &* referenceSize)
        return start
    }

    /// Sets the next reference of `slots` to object `number`.
    @inline(__always)
    package mutating func append(_ number: Int, to slots: inout ContainerSlots) {
        guard slots.next < slots.end else { return }
        sink.storeReference(number, at: slots.next, size: referenceSize)
        slots.next &+= referenceSize
    }

    /// Refuses a container count no file can hold: the count comes from the caller, and a
    /// negative or absurd one must not reach the byte sink.
    private func checkCount(_ count: Int, referencesPerEntry: Int, of kind: String) throws(PropertyListError) {
        guard count >= 0, count <= maximumObjectCount,
              !count.multipliedReportingOverflow(by: referencesPerEntry &* referenceSize).overflow else {
            throw PropertyListError(.invalidLength, "\(kind) of \(count) entries cannot be written (0 to \(maximumObjectCount), the writer's maximumObjectCount)")
        }
    }

    /// Starts an array (or a set) of `count` elements at nesting `depth` (the top object is at 0).
    /// - Throws: ``PropertyListError/Code/invalidLength`` for a negative count or one above the
    ///   writer's `maximumObjectCount`.
    package mutating func beginArray(count: Int, depth: Int, isSet: Bool = false) throws(PropertyListError) -> ContainerSlots {
        try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
        try checkCount(count, referencesPerEntry: 1, of: isSet ? "a set" : "an array")
        let number = try begin()
        sink.appendMarker(isSet ? 0xC0 : 0xA0, count: count)
        let start = reserveReferences(count)
        return ContainerSlots(number: number, next: start, end: sink.count)
    }

    /// Starts a dictionary of `count` entries at nesting `depth`: append its keys, then its values.
    /// - Throws: ``PropertyListError/Code/invalidLength`` for a negative count or one above the
    ///   writer's `maximumObjectCount`.
    package mutating func beginDictionary(count: Int, depth: Int) throws(PropertyListError) -> ContainerSlots {
        try PropertyListError.checkNesting(depth, maximumDepth: maximumDepth)
        try checkCount(count, referencesPerEntry: 2, of: "a dictionary")
        let number = try begin()
        sink.appendMarker(0xD0, count: count)
        let start = reserveReferences(count &* 2)
        return ContainerSlots(number: number, next: start, end: sink.count)
    }

    /// Writes a string object, or returns the number of an equal string already written.
    package mutating func addString(_ string: String) throws(PropertyListError) -> Int {
        // Front cache on the string's own bits: equal bits are the same small string or the
        // same storage, hence equal text, so a hit needs no hashing of the text. Dictionary
        // keys (the same few strings in every record) nearly always hit. Every string seen is
        // alive for the whole pass (the caller holds what it writes), so bits cannot be reused.
        // (Without those bits — a 32-bit platform — every string takes the uniquing table.)
        let bits = string.representationWords
        var slot = -1
        if let bits {
            slot = Int(truncatingIfNeeded: mixHash(bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15), 0)) & (Self.stringCacheSize &- 1)
            if stringCacheNumbers[slot] >= 0, stringCacheBits[slot] == bits { return stringCacheNumbers[slot] }
        }
        let number: Int
        if let existing = strings.existingOrInsert(string, number: offsets.count) {
            number = existing
        } else {
            number = try begin()
            sink.appendString(string)
        }
        if let bits {
            stringCacheBits[slot] = bits
            stringCacheNumbers[slot] = number
        }
        return number
    }

    static let stringCacheSize = 4096

    /// Writes a string object without looking it up or remembering it, for a caller that knows
    /// no equal string has been or will be added to this document (Core Foundation's writer
    /// would have made it one object).
    package mutating func addUniqueString(_ string: String) throws(PropertyListError) -> Int {
        let number = try begin()
        sink.appendString(string)
        return number
    }

    /// Writes an integer object, or returns the number of an equal integer already written.
    package mutating func addInteger(_ integer: PropertyListInteger) throws(PropertyListError) -> Int {
        if let existing = integers.existingOrInsert(integer, number: offsets.count) { return existing }
        let number = try begin()
        sink.appendInteger(integer)
        return number
    }

    /// Writes an integer object without looking it up or remembering it, for a caller that
    /// knows no equal integer has been or will be added to this document.
    package mutating func addUniqueInteger(_ integer: PropertyListInteger) throws(PropertyListError) -> Int {
        let number = try begin()
        sink.appendInteger(integer)
        return number
    }

    /// Writes a real object at its width, or returns the number of an equal real already written.
    package mutating func addReal(_ real: PropertyListReal) throws(PropertyListError) -> Int {
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
    }

    /// Writes a date object, or returns the number of an equal date already written.
    package mutating func addDate(_ date: PropertyListDate) throws(PropertyListError) -> Int {
        if let existing = dates.existingOrInsert(date, number: offsets.count) { return existing }
        let number = try begin()
        sink.append(0x33)
        sink.appendBigEndian(date.secondsSinceReferenceDate.bitPattern, width: 8)
        return number
    }

    /// Writes a data object, or returns the number of equal bytes already written.
    package mutating func addData(_ bytes: [UInt8]) throws(PropertyListError) -> Int {
        if let existing = datas.existingOrInsert(bytes, number: offsets.count) { return existing }
        let number = try begin()
        sink.appendMarker(0x40, count: bytes.count)
        sink.append(contentsOf: bytes)
        return number
    }

    /// Writes a boolean, appended again on every call as Core Foundation does; returns the first one's number.
    package mutating func addBool(_ flag: Bool) throws(PropertyListError) -> Int {
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
    }

    /// Writes a UID object, appended on every call (UIDs are not shared); throws if it exceeds ``PropertyListUID/maximumValue``.
    package mutating func addUID(_ uid: PropertyListUID) throws(PropertyListError) -> Int {
        try PropertyListUID.checkReadable(uid)
        let number = try begin()
        let width = BinaryPropertyListWriter.roundedByteCount(uid.value)
        sink.append(0x80 | UInt8(width &- 1))
        sink.appendBigEndian(uid.value, width: width)
        return number
    }

    /// Writes a value and everything in it, at nesting `depth`, and returns its number.
    package mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string): return try addString(string)
        case .integer(let integer): return try addInteger(integer)
        case .real(let real): return try addReal(real)
        case .date(let date): return try addDate(date)
        case .data(let bytes): return try addData(bytes)
        case .bool(let flag): return try addBool(flag)
        case .uid(let uid): return try addUID(uid)
        case .array(let elements), .set(let elements):
            var isSet = false
            if case .set = value { isSet = true }
            var slots = try beginArray(count: elements.count, depth: depth, isSet: isSet)
            // Indexing, not `for … in`: the loop would copy (retain and release) each element.
            var index = 0
            while index < elements.count {
                append(try add(elements[index], depth: depth &+ 1), to: &slots)
                index &+= 1
            }
            return slots.number
        case .dictionary(let dictionary):
            var slots = try beginDictionary(count: dictionary.count, depth: depth)
            let entries = dictionary.entries
            var index = 0
            while index < entries.count {
                append(try addString(entries[index].key), to: &slots)
                index &+= 1
            }
            index = 0
            while index < entries.count {
                append(try add(entries[index].value, depth: depth &+ 1), to: &slots)
                index &+= 1
            }
            return slots.number
        }
    }

    /// Rewrites what was written with `newSize`-byte references, narrower than the ones it was
    /// written with: for when the final object count turns out to need fewer bytes than the
    /// bound the builder was started with. Only containers' reference lists change; every
    /// object keeps its number. One pass over the bytes, instead of writing everything again.
    package mutating func narrowReferences(to newSize: Int) {
        let oldSize = referenceSize
        guard newSize >= 1, newSize < oldSize else { return }
        var narrowed = BinaryByteSink(capacity: sink.count)
        narrowed.append(contentsOf: BinaryPropertyListFormat.magic)
        let count = offsets.count
        // Objects other than containers are copied as they are, a run of them at a time.
        var runStart = BinaryPropertyListFormat.headerLength
        var index = 0
        while index < count {
            let start = offsets[index]
            let marker = sink.byte(at: start)
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else {
                offsets[index] = narrowed.count &+ (start &- runStart)
                index &+= 1
                continue
            }
            narrowed.append(from: sink, range: runStart..<max(runStart, start))
            offsets[index] = narrowed.count
            let end = index &+ 1 < count ? offsets[index &+ 1] : sink.count
            // The count is in the marker, or in the integer object after it (marker 0x1n, 2^n bytes).
            var elements = Int(marker & 0x0F)
            var header = 1
            if elements == 0x0F {
                let width = 1 << Int(sink.byte(at: start &+ 1) & 0x03)
                elements = Int(truncatingIfNeeded: sink.bigEndian(at: start &+ 2, width: width))
                header = 2 &+ width
            }
            let references = kind == 0xD ? elements &* 2 : elements
            narrowed.append(from: sink, range: start..<(start &+ header))
            var position = start &+ header
            var written = 0
            while written < references && position &+ oldSize <= end {
                narrowed.appendBigEndian(sink.bigEndian(at: position, width: oldSize), width: newSize)
                position &+= oldSize
                written &+= 1
            }
            runStart = end
            index &+= 1
        }
        narrowed.append(from: sink, range: runStart..<max(runStart, sink.count))
        sink = narrowed
        referenceSize = newSize
    }

    /// Appends the offset table and trailer (the first object is the top) and returns the file.
    /// Consuming: the builder's bytes move into the returned array, so nothing can be added to a
    /// finished file, and it cannot be finished twice.
    package consuming func finish(offsetSizeRule: BinaryPropertyListWriter.OffsetSizeRule = .powerOfTwo) -> [UInt8] {
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
        return sink.moveIntoArray()
    }
}
