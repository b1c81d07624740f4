/// A binary property list walked as its value tree straight from its bytes, for the texts made
/// of the whole tree — the canonical JSON (``PropertyListJSONRenderer``) and XML
/// (``XMLPropertyListWriter``) — without building the tree first: the tree of a 24 MB archive,
/// with the reader's scratch arrays, took six times the file (Docs/Performance.md, "The
/// command-line tool").
///
/// Soundness rule, as for ``BinaryPropertyListRewriter``: ``plan(_:options:for:)`` returns a
/// plan only for a file whose value ``PropertyListCodec/fileValue(_:options:)`` reads without
/// fault and that the text's renderer or writer then takes whole, and the plan writes the text
/// they write from that value, byte for byte. Anything else — a fault, a set, a container
/// reached twice (shared, or inside itself), and for XML every value the writer refuses — gives
/// nil, and the caller takes the usual path, which writes the file or names its fault in its
/// words. `BinaryTreeTextTests` compare the two on the Apple corpus, on generated files and on
/// damaged copies.
package struct BinaryPropertyListTree {
    /// Each object's offset in the file.
    let offsets: [UInt32]
    /// The top object.
    let top: Int
    /// The width of the file's object references.
    let referenceSize: Int
    /// Options of the reading the plan stands for (the depth limit of the texts).
    let options: PropertyListReadingOptions

    /// The text a plan is made for: its checks differ (XML refuses more values).
    package enum Text {
        /// The canonical JSON of Docs/PlistJSON.md.
        case json
        /// An XML property list in Core Foundation's layout.
        case xml
    }

    /// Checks `bytes` for the text `text`; nil when the usual path must take the file.
    package static func plan(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions = .default, for text: Text) -> BinaryPropertyListTree? {
        guard options.maximumDuration == nil, options.maximumDepth >= 1,
              let (parser, offsets, top) = BinaryPropertyListParser.checkedOffsets(bytes, options: options) else { return nil }
        let tree = BinaryPropertyListTree(offsets: offsets, top: top, referenceSize: parser.objectRefSize, options: options)
        guard tree.checkTree(bytes, for: text) else { return nil }
        return tree
    }

    /// One open container of a walk in file order.
    struct Frame {
        let node: Int
        let isDictionary: Bool
        /// Entries (a dictionary's pairs count once).
        let count: Int
        let payload: Int
        /// The next entry to visit.
        var next = 0
    }

    @inline(__always)
    func marker(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> UInt8 {
        bytes[Int(offsets[node])]
    }

    @inline(__always)
    static func isContainer(_ marker: UInt8) -> Bool {
        let high = marker >> 4
        return high == 0xA || high == 0xC || high == 0xD
    }

    /// The frame of the checked container `node`.
    @inline(__always)
    func frame(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> Frame {
        let offset = Int(offsets[node])
        let header = BinaryObjectHeader(bytes, at: offset)
        return Frame(node: node, isDictionary: bytes[offset] >> 4 == 0xD, count: header.count, payload: header.payload)
    }

    /// The object an array element, a dictionary key (`key`) or a dictionary value refers to.
    @inline(__always)
    func child(_ bytes: UnsafeRawBufferPointer, of frame: Frame, at position: Int, key: Bool = false) -> Int {
        let slot = frame.isDictionary && !key ? frame.count &+ position : position
        return BinaryBigEndian.load(bytes, at: frame.payload &+ slot &* referenceSize, width: referenceSize)
    }

    /// The reader's checks of what `readValue` reads (each container reached once here, so no
    /// cycle and no shared container), and for XML the writer's refusals and what its text
    /// needs to read back. One walk in file order, memory the depth and a flag per object.
    private func checkTree(_ bytes: UnsafeRawBufferPointer, for text: Text) -> Bool {
        let writesXML = text == .xml
        // The XML of a UID is a dictionary one level below it: the text read back (for the
        // loss check) must stay inside the reader's depth limit, so deep files take the usual path.
        let maximumDepth = writesXML ? min(options.maximumDepth, XMLPropertyListWriter().maximumDepth) &- 8 : options.maximumDepth
        var treeSize = 1
        var keys = BinaryDictionaryKeys()
        guard checkScalar(bytes, top, xml: writesXML) else { return false }
        if !Self.isContainer(marker(bytes, top)) { return true }
        guard maximumDepth > 0, let first = checkContainer(bytes, top, xml: writesXML, treeSize: &treeSize, keys: &keys) else { return false }
        var visited = [Bool](repeating: false, count: offsets.count)
        visited[top] = true
        var stack = [first]
        while let last = stack.indices.last {
            let position = stack[last].next
            guard position < stack[last].count else {
                stack.removeLast()
                continue
            }
            stack[last].next = position &+ 1
            let frame = stack[last]
            if frame.isDictionary {
                let key = child(bytes, of: frame, at: position, key: true)
                let keyType = marker(bytes, key) >> 4
                guard keyType == 0x5 || keyType == 0x6, checkScalar(bytes, key, xml: writesXML) else { return false }
            }
            let node = child(bytes, of: frame, at: position)
            guard checkScalar(bytes, node, xml: writesXML) else { return false }
            guard Self.isContainer(marker(bytes, node)) else { continue }
            // Reached twice: shared or inside itself. Past the depth limit, or past what the
            // thread could release, readValue refuses it.
            let depth = stack.count
            guard !visited[node], depth < maximumDepth, ThreadStackLimit.canHoldValue(depth: depth &+ 1),
                  let opened = checkContainer(bytes, node, xml: writesXML, treeSize: &treeSize, keys: &keys) else { return false }
            visited[node] = true
            stack.append(opened)
        }
        return treeSize <= options.maximumExpandedValueCount
    }

    /// The frame of a container the texts can hold (no set; for XML, keys that read back as
    /// distinct keys), with its values counted into the tree's size; nil otherwise.
    private func checkContainer(_ bytes: UnsafeRawBufferPointer, _ node: Int, xml: Bool, treeSize: inout Int, keys: inout BinaryDictionaryKeys) -> Frame? {
        guard marker(bytes, node) >> 4 != 0xC else { return nil }
        let opened = frame(bytes, node)
        treeSize &+= opened.isDictionary ? opened.count &* 2 : opened.count
        if xml, opened.isDictionary, opened.count > 1 {
            guard keys.load(self, bytes, opened), keys.areDistinctInXML(bytes) else { return nil }
        }
        return opened
    }

    /// Whether the texts can hold the scalar `node` (containers are checked when opened): for
    /// XML, an integer within −2^63 … 2^64−1, a writable date, and text the XML reader takes
    /// back whole (its length limit counts UTF-8 bytes, three for some UTF-16 units).
    @inline(__always)
    private func checkScalar(_ bytes: UnsafeRawBufferPointer, _ node: Int, xml: Bool) -> Bool {
        guard xml else { return true }
        let offset = Int(offsets[node])
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x1 where marker & 0x0F == 4:
            guard case .integer(let integer) = scalarValue(bytes, node) else { return false }
            return integer.int64Value != nil || integer.uint64Value != nil
        case 0x3:
            guard case .date(let date) = scalarValue(bytes, node) else { return false }
            return PropertyListCalendar.isWritable(date.secondsSinceReferenceDate)
        case 0x6:
            let (units, overflow) = BinaryObjectHeader(bytes, at: offset).count.multipliedReportingOverflow(by: 3)
            return !overflow && units <= options.maximumValueLength
        default:
            return true
        }
    }

    /// The value of the checked scalar `node`, as `BinaryPropertyListParser.parseObject` makes it.
    func scalarValue(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> PropertyListValue {
        let offset = Int(offsets[node])
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0x0:
            return .bool(marker == 0x09)
        case 0x1:
            let width = 1 &<< Int(marker & 0x0F)
            switch width {
            case 16:
                let high = Int64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: 8))
                let low = UInt64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 9, width: 8))
                return .integer(PropertyListInteger(high: high, low: low, isStoredAs128Bit: true))
            default:
                return .integer(PropertyListInteger(Int64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: width))))
            }
        case 0x2:
            if marker == 0x22 {
                return .real(.float32(Float(bitPattern: UInt32(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: 4)))))
            }
            return .real(.float64(Double(bitPattern: UInt64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: 8)))))
        case 0x3:
            return .date(PropertyListDate(secondsSinceReferenceDate: Double(bitPattern: UInt64(truncatingIfNeeded: BinaryBigEndian.load(bytes, at: offset &+ 1, width: 8)))))
        case 0x4:
            let header = BinaryObjectHeader(bytes, at: offset)
            return .data(Array(UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count)])))
        case 0x5, 0x6:
            return .string(string(bytes, node))
        default:
            // A UID (0x8) of 1 to 16 bytes, checked to be at most 2^32 − 1.
            let width = Int(marker & 0x0F) &+ 1
            var value: UInt64 = 0
            for position in (offset &+ 1)..<(offset &+ 1 &+ width) { value = value &<< 8 | UInt64(bytes[position]) }
            return .uid(PropertyListUID(value))
        }
    }

    /// The text of the checked string `node`.
    func string(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> String {
        let offset = Int(offsets[node])
        let header = BinaryObjectHeader(bytes, at: offset)
        if bytes[offset] >> 4 == 0x5 {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count)]), as: UTF8.self)
        }
        // Checked: no unpaired surrogate.
        return BinaryText.stringFromUTF16BigEndian(UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count &* 2)])) ?? ""
    }

    /// The bytes of the checked ASCII string `node` (marker 0x5), or nil for a UTF-16 one.
    @inline(__always)
    func asciiBytes(_ bytes: UnsafeRawBufferPointer, _ node: Int) -> UnsafeBufferPointer<UInt8>? {
        let offset = Int(offsets[node])
        guard bytes[offset] >> 4 == 0x5 else { return nil }
        let header = BinaryObjectHeader(bytes, at: offset)
        return UnsafeRawBufferPointer(rebasing: bytes[header.payload..<(header.payload &+ header.count)]).bindMemory(to: UInt8.self)
    }
}

/// A dictionary's keys as UTF-8, for sorting them as the XML writer does: ASCII keys read in
/// place, UTF-16 ones transcoded into a buffer of their own. Reused from one dictionary to the next.
struct BinaryDictionaryKeys {
    /// Where each key's UTF-8 is: in the file (`inFile`) or in `transcoded`.
    private var spans: [(inFile: Bool, start: Int, count: Int)] = []
    private var transcoded: [UInt8] = []

    /// Reads the keys of the checked dictionary `frame`; false if one is not a string.
    mutating func load(_ tree: BinaryPropertyListTree, _ bytes: UnsafeRawBufferPointer, _ frame: BinaryPropertyListTree.Frame) -> Bool {
        spans.removeAll(keepingCapacity: true)
        transcoded.removeAll(keepingCapacity: true)
        for position in 0..<frame.count {
            let key = tree.child(bytes, of: frame, at: position, key: true)
            let offset = Int(tree.offsets[key])
            let header = BinaryObjectHeader(bytes, at: offset)
            switch bytes[offset] >> 4 {
            case 0x5:
                spans.append((true, header.payload, header.count))
            case 0x6:
                let start = transcoded.count
                transcoded.append(contentsOf: tree.string(bytes, key).utf8)
                spans.append((false, start, transcoded.count &- start))
            default:
                return false
            }
        }
        return true
    }

    /// Calls `body` with the UTF-8 of each key by position, in `bytes` (those `load` read).
    private func withKeys<Result>(_ bytes: UnsafeRawBufferPointer, _ body: ((Int) -> UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let file = bytes.bindMemory(to: UInt8.self)
        return transcoded.withUnsafeBufferPointer { own in
            body { position in
                let span = spans[position]
                return UnsafeBufferPointer(rebasing: (span.inFile ? file : own)[span.start..<(span.start &+ span.count)])
            }
        }
    }

    /// Whether the keys `load` read are all
    /// distinct as XML reads them back: no key twice (the writer refuses one), and no two that
    /// differ only by a leading U+FEFF (`XMLPropertyListBuilder.checkKeysSurviveReading`).
    func areDistinctInXML(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = spans.count
        let (distinct, startsWithMark) = withKeys(bytes) { key -> (Bool, Bool) in
            // Sorted, a key stored twice sits beside its twin (the writer looks for it there).
            if let sorted = XMLKeyOrder.writingOrder(count: count, key: key) {
                for index in 1..<count where XMLKeyOrder.compare(key(sorted[index &- 1]), key(sorted[index])) == 0 { return (false, false) }
            }
            // Only a UTF-16 key can start with U+FEFF.
            let startsWithMark = !transcoded.isEmpty && (0..<count).contains { key($0).starts(with: [0xEF, 0xBB, 0xBF]) }
            return (true, startsWithMark)
        }
        guard distinct, startsWithMark else { return distinct }
        let strings = withKeys(bytes) { key in (0..<count).map { String(decoding: key($0), as: UTF8.self) } }
        return (try? XMLPropertyListBuilder.checkKeysSurviveReading(strings)) != nil
    }

    /// The writer's order of the keys of the checked dictionary `frame`: its positions.
    mutating func writingOrder(_ tree: BinaryPropertyListTree, _ bytes: UnsafeRawBufferPointer, _ frame: BinaryPropertyListTree.Frame) -> [Int]? {
        guard frame.count > 1, load(tree, bytes, frame) else { return nil }
        let count = spans.count
        return withKeys(bytes) { key in XMLKeyOrder.writingOrder(count: count, key: key) }
    }
}

/// Count and payload start of an object checked by `BinaryPropertyListParser.checkObject`
/// (count 0 for fixed-size objects).
struct BinaryObjectHeader {
    var count: Int
    var payload: Int

    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let nibble = Int(bytes[offset] & 0x0F)
        if nibble != 0x0F {
            count = nibble
            payload = offset &+ 1
            return
        }
        let width = 1 &<< Int(bytes[offset &+ 1] & 0x0F)
        count = BinaryBigEndian.load(bytes, at: offset &+ 2, width: width)
        payload = offset &+ 2 &+ width
    }
}

extension BinaryPropertyListParser {
    /// Every object's offset, each object checked as `BinaryPropertyListReader.read` checks it
    /// (reachable or not); nil at the first fault. With the parser, whose trailer it read.
    static func checkedOffsets(_ bytes: UnsafeRawBufferPointer, options: PropertyListReadingOptions) -> (parser: BinaryPropertyListParser, offsets: [UInt32], top: Int)? {
        // Offsets are kept in 32 bits.
        guard bytes.count <= Int(UInt32.max) else { return nil }
        var parser = BinaryPropertyListParser(bytes: bytes, options: options)
        guard let (offsetIntSize, top) = try? parser.parseTrailer() else { return nil }
        let tableStart = parser.offsetTableStart
        var offsets = [UInt32](repeating: 0, count: parser.objectCount)
        var entry = tableStart
        for index in 0..<parser.objectCount {
            let offset = BinaryBigEndian.load(bytes, at: entry, width: offsetIntSize)
            guard offset >= BinaryPropertyListFormat.headerLength, offset < tableStart,
                  parser.checkObject(at: offset, index: index) else { return nil }
            offsets[index] = UInt32(truncatingIfNeeded: offset)
            entry &+= offsetIntSize
        }
        return (parser, offsets, top)
    }
}
