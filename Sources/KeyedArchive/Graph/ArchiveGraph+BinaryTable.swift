import PropertyList

extension ArchiveGraph {
    /// The graph of a binary archive that the binary fast reader (``BinaryArchiveTable``)
    /// accepted, made from its table: each `$objects` entry read from the bytes once, with no
    /// value tree of the whole file before it. The table accepts a file only if the usual path
    /// (value tree, then ``init(propertyList:options:)``) accepts it and builds the same objects,
    /// so this is that graph, equal to it (`GraphFromTableTests` compare the two); it needs about
    /// half the memory on the way (Docs/Performance.md, "The command-line tool").
    /// - Parameter raw: the bytes `table` was read from, read in place while the graph is made.
    init(table: BinaryArchiveTable, raw: UnsafeRawBufferPointer) {
        self = table.withBytesInPlace { () -> ArchiveGraph in
            var objects: [Object] = []
            objects.reserveCapacity(table.count)
            for entry in table.entries {
                switch entry.kind {
                case .null:
                    objects.append(.null)
                case .instance:
                    let fields = ArchiveFields(table: table, dictionary: .init(object: entry.object, layout: entry.layout))
                    objects.append(.instance(Instance(classUID: PropertyListUID(UInt64(entry.link)), storage: fields.dictionary)))
                case .classDescriptor:
                    objects.append(.classDescriptor(table.descriptors[Int(entry.link)]))
                case .string, .integer, .real, .bool, .data, .date:
                    switch table.value(ofObject: Int(entry.object)) {
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
            // The root: its four keys in file order, and `$version` as stored (the table keeps
            // neither). The table validated the root, so its object and keys are where it read them.
            let trailer = raw.count &- 32
            let rootObject = BinaryArchiveTable.load(raw, at: trailer &+ 16, width: 8)
            let header = BinaryArchiveTable.header(raw, at: Int(table.objectOffsets[rootObject]))
            var keys: [String] = []
            var version = PropertyListInteger(ArchiveKeys.formatVersion)
            for index in 0..<header.count {
                let key = table.string(ofObject: BinaryArchiveTable.load(raw, at: header.payload &+ index &* table.referenceSize, width: table.referenceSize))
                if key.isExactlyEqual(to: ArchiveKeys.version) {
                    let valueObject = BinaryArchiveTable.load(raw, at: header.payload &+ (header.count &+ index) &* table.referenceSize, width: table.referenceSize)
                    if case .integer(let stored) = table.value(ofObject: valueObject) { version = stored }
                }
                keys.append(key)
            }
            return ArchiveGraph(archiver: ArchiveKeys.archiverName, version: version,
                                top: table.top.entries.map { TopEntry(key: $0.key, value: $0.value) },
                                objects: objects, headerKeyOrder: keys)
        }
    }
}
