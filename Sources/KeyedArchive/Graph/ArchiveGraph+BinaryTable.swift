import PropertyList

extension ArchiveGraph {
    /// The graph of a binary archive, made from its object table when the binary fast reader's
    /// validator (``BinaryArchiveValidator``) accepts it, or nil to leave it to the usual path.
    /// Each `$objects` entry is read from the bytes once, with no value tree of the whole file
    /// before it. The validator accepts a file only if the usual path (value tree, then
    /// ``init(propertyList:options:)``) accepts it and builds the same objects, so this is that
    /// graph, equal to it (`DirectBinaryDecodingTests` compare the two); it needs less than half
    /// the memory on the way, and reads each object's offset from the file's own table rather
    /// than a copy of it (Docs/Development/PerformanceLog.md, "The command-line tool (issue 36)").
    static func fromObjectTable(_ raw: UnsafeRawBufferPointer, options: ArchiveReadingOptions, interruption: WorkInterruption) -> ArchiveGraph? {
        var validator = BinaryArchiveValidator(raw: raw, options: options)
        guard let validated = validator.validate(interruption: interruption, keepingOffsets: false) else { return nil }
        return ArchiveGraph(validated: validated, raw: raw)
    }

    /// - Parameter raw: the bytes `validated` describes, read in place while the graph is made.
    private init(validated: BinaryArchiveValidator.Result, raw: UnsafeRawBufferPointer) {
        var objects: [Object] = []
        objects.reserveCapacity(validated.entries.count)
        var reader = TableValueReader(raw: raw, offsets: validated.offsetTable.reading(raw), referenceSize: validated.referenceSize)
        for entry in validated.entries {
            switch entry.kind {
            case .null:
                objects.append(.null)
            case .instance:
                objects.append(.instance(Instance(classUID: PropertyListUID(UInt64(entry.link)), storage: reader.dictionary(Int(entry.object)))))
            case .classDescriptor:
                objects.append(.classDescriptor(validated.descriptors[Int(entry.link)]))
            case .string, .integer, .real, .bool, .data, .date:
                switch reader.value(Int(entry.object)) {
                case .string(let string): objects.append(.string(string))
                case .integer(let integer): objects.append(.integer(integer))
                case .real(let real): objects.append(.real(real))
                case .bool(let flag): objects.append(.bool(flag))
                case .data(let bytes): objects.append(.data(bytes))
                case .date(let date): objects.append(.date(date))
                case let value: objects.append(.other(value))
                }
            }
        }
        // The root: its four keys in file order, and `$version` as stored (the validator keeps
        // neither). It validated the root, so its object and keys are where it read them.
        let trailer = raw.count &- 32
        let rootObject = BinaryArchiveTable.load(raw, at: trailer &+ 16, width: 8)
        let header = BinaryArchiveTable.header(raw, at: reader.offsets.offset(of: rootObject))
        let size = validated.referenceSize
        var keys: [String] = []
        var version = PropertyListInteger(ArchiveKeys.formatVersion)
        for index in 0..<header.count {
            guard case .string(let key) = reader.value(BinaryArchiveTable.load(raw, at: header.payload &+ index &* size, width: size)) else { continue }
            if key.isExactlyEqual(to: ArchiveKeys.version) {
                let valueObject = BinaryArchiveTable.load(raw, at: header.payload &+ (header.count &+ index) &* size, width: size)
                if case .integer(let stored) = reader.value(valueObject) { version = stored }
            }
            keys.append(key)
        }
        self.init(archiver: ArchiveKeys.archiverName, version: version,
                  top: validated.top.entries.map { TopEntry(key: $0.key, value: $0.value) },
                  objects: objects, headerKeyOrder: keys)
    }
}

/// Reads the values of a validated binary table for ``ArchiveGraph/init(table:raw:)``, as the
/// table reads them, but makes each long ASCII string once per *text* rather than once per
/// binary object: Foundation on Linux writes every key of every object as an object of its own
/// (`registrationNumber` 85,000 times in the 24 MB fleet archive), and a graph holding one copy
/// of each takes a fifth less memory. Equal values either way.
private struct TableValueReader {
    let raw: UnsafeRawBufferPointer
    let offsets: BinaryOffsetTable.InPlace
    let referenceSize: Int
    /// Open addressing on an FNV-1a hash of the bytes; grown at half full.
    private var slots: [String?] = Array(repeating: nil, count: 1024)
    private var stored = 0

    init(raw: UnsafeRawBufferPointer, offsets: BinaryOffsetTable.InPlace, referenceSize: Int) {
        self.raw = raw
        self.offsets = offsets
        self.referenceSize = referenceSize
    }

    /// The fields of the validated dictionary `object`, in file order, `$class` among them.
    mutating func dictionary(_ object: Int) -> PropertyListDictionary {
        let header = BinaryArchiveTable.header(raw, at: offsets.offset(of: object))
        let size = referenceSize
        var entries: [PropertyListDictionary.Entry] = []
        entries.reserveCapacity(header.count)
        for index in 0..<header.count {
            let key = BinaryArchiveTable.load(raw, at: header.payload &+ index &* size, width: size)
            let member = BinaryArchiveTable.load(raw, at: header.payload &+ (header.count &+ index) &* size, width: size)
            guard case .string(let text) = value(key) else { continue }
            entries.append(PropertyListDictionary.Entry(key: text, value: value(member)))
        }
        return PropertyListDictionary(entries: entries)
    }

    /// The value of a validated scalar, or of an array of them.
    mutating func value(_ object: Int) -> PropertyListValue {
        let offset = offsets.offset(of: object)
        let header = BinaryArchiveTable.header(raw, at: offset)
        switch header.marker >> 4 {
        case 0x5 where header.count > 15:
            return .string(longString(UnsafeRawBufferPointer(rebasing: raw[header.payload..<(header.payload &+ header.count)])))
        case 0xA:
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(header.count)
            for index in 0..<header.count {
                elements.append(value(BinaryArchiveTable.load(raw, at: header.payload &+ index &* referenceSize, width: referenceSize)))
            }
            return .array(elements)
        default:
            return BinaryArchiveTable.value(raw, offsets: offsets, referenceSize: referenceSize, object: object)
        }
    }

    /// The string of these ASCII bytes, made the first time its text is met.
    private mutating func longString(_ bytes: UnsafeRawBufferPointer) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let mask = slots.count &- 1
        var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
        while let existing = slots[slot] {
            var text = existing
            if text.withUTF8({ $0.elementsEqual(bytes) }) { return existing }
            slot = (slot &+ 1) & mask
        }
        let made = String(decoding: bytes, as: UTF8.self)
        slots[slot] = made
        stored &+= 1
        if stored &* 2 > slots.count { grow() }
        return made
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: nil, count: old.count &* 2)
        let mask = slots.count &- 1
        for case var text? in old {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            text.withUTF8 { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 } }
            var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
            while slots[slot] != nil { slot = (slot &+ 1) & mask }
            slots[slot] = text
        }
    }
}
