import PropertyList

extension ArchiveObjectTable {
    /// The archive as an XML property list, written straight from the table: the same bytes as
    /// writing ``propertyList(era:)`` with ``XMLPropertyListWriter`` (whose layout sorts every
    /// dictionary's keys), without building that value tree first.
    func xmlPropertyList(era: ArchiveWritingOptions.Era, writer: XMLPropertyListWriter = XMLPropertyListWriter()) throws(PropertyListError) -> [UInt8] {
        var builder = XMLPropertyListBuilder(writer: writer)
        let rootKeys = Self.rootKeyOrder(era)
        try builder.beginDictionary(count: rootKeys.count, depth: 0)
        for position in XMLPropertyListBuilder.writingOrder(ofKeys: rootKeys) {
            let key = rootKeys[position]
            builder.addKey(key, depth: 1)
            switch key {
            case ArchiveKeys.version: try builder.add(.integer(PropertyListInteger(ArchiveKeys.formatVersion)), depth: 1)
            case ArchiveKeys.archiver: try builder.add(.string(archiverName), depth: 1)
            case ArchiveKeys.top: try writeTop(into: &builder)
            default: try writeObjects(into: &builder)
            }
        }
        builder.endDictionary(depth: 0)
        return builder.finish()
    }

    private func writeTop(into builder: inout XMLPropertyListBuilder) throws(PropertyListError) {
        // The tree holds `$top` in Core Foundation's hash order; the writer sorts that list.
        let stored = OrderCache().order(topKeys, sizing: .growth)
        let storedKeys = stored.map { topKeys[$0] }
        try XMLPropertyListBuilder.checkKeysSurviveReading(storedKeys)
        try builder.beginDictionary(count: stored.count, depth: 1)
        guard !stored.isEmpty else { return }
        for index in XMLPropertyListBuilder.writingOrder(ofKeys: storedKeys) {
            builder.addKey(storedKeys[index], depth: 2)
            try builder.add(topValues[stored[index]], depth: 2)
        }
        builder.endDictionary(depth: 1)
    }

    private static let classDescriptorKeys = [ArchiveKeys.className, ArchiveKeys.classes]
    private static let classDescriptorOrder = XMLPropertyListBuilder.writingOrder(ofKeys: classDescriptorKeys)

    private func writeObjects(into builder: inout XMLPropertyListBuilder) throws(PropertyListError) {
        try builder.beginArray(count: entries.count, depth: 1)
        guard !entries.isEmpty else { return }
        let cache = OrderCache()
        // Per key list: the positions to write the stored keys in (`$class` included), and those
        // keys rendered once.
        var layouts = InstanceLayoutCache<(positions: [Int], keyLines: [XMLPropertyListBuilder.KeyLine])>(classCount: entries.count)
        for entry in entries {
            switch entry {
            case .null, .reserved: try builder.add(.string(ArchiveKeys.null), depth: 2)
            case .string(let string): try builder.add(.string(string), depth: 2)
            case .integer(let integer): try builder.add(.integer(integer), depth: 2)
            case .real(let real): try builder.add(.real(real), depth: 2)
            case .bool(let flag): try builder.add(.bool(flag), depth: 2)
            case .data(let bytes): try builder.add(.data(bytes), depth: 2)
            case .instance(let classUID, let fields):
                let layout: (positions: [Int], keyLines: [XMLPropertyListBuilder.KeyLine])
                if let known = layouts.layout(classUID: classUID, keys: fieldKeys[fields]) {
                    layout = known
                } else {
                    let (allKeys, order) = instanceKeyOrder(fields, classUID: classUID, cache: cache)
                    let storedKeys = order.map { allKeys[$0] }
                    // Once per key layout: two keys one XML reader takes for one.
                    try XMLPropertyListBuilder.checkKeysSurviveReading(storedKeys)
                    let positions = XMLPropertyListBuilder.writingOrder(ofKeys: storedKeys).map { order[$0] }
                    layout = (positions, positions.map { XMLPropertyListBuilder.keyLine(allKeys[$0]) })
                    layouts.insert(layout, classUID: classUID, keys: fieldKeys[fields])
                }
                try builder.beginDictionary(count: layout.positions.count, depth: 2)
                for (index, position) in layout.positions.enumerated() {
                    builder.addKey(layout.keyLines[index], depth: 3)
                    if position == fields.count {
                        try builder.add(.uid(PropertyListUID(UInt64(classUID))), depth: 3)
                    } else {
                        // Each case spelled out rather than through `propertyListValue(_:)`: with
                        // the case known, `add` folds its own switch away (0.85 % of an XML encode).
                        switch fieldValues[fields.lowerBound + position] {
                        case .uid(let uid): try builder.add(.uid(uid), depth: 3)
                        case .integer(let integer): try builder.add(.integer(PropertyListInteger(integer)), depth: 3)
                        case .bool(let flag): try builder.add(.bool(flag), depth: 3)
                        case .double(let double): try builder.add(.real(.float64(double)), depth: 3)
                        case .uidList(let start, let count):
                            try builder.beginArray(count: Int(count), depth: 3)
                            if count > 0 {
                                for element in Int(start)..<Int(start) + Int(count) { try builder.add(.uid(listUIDs[element]), depth: 4) }
                                builder.endArray(depth: 3)
                            }
                        case .other(let other): try builder.add(otherFieldValues[other], depth: 3)
                        }
                    }
                }
                if !layout.positions.isEmpty { builder.endDictionary(depth: 2) }
            case .classDescriptor(let name, let classes):
                try builder.beginDictionary(count: 2, depth: 2)
                for position in Self.classDescriptorOrder {
                    builder.addKey(Self.classDescriptorKeys[position], depth: 3)
                    if position == 0 {
                        try builder.add(.string(name), depth: 3)
                    } else {
                        try builder.beginArray(count: classes.count, depth: 3)
                        guard !classes.isEmpty else { continue }
                        for className in classes { try builder.add(.string(className), depth: 4) }
                        builder.endArray(depth: 3)
                    }
                }
                builder.endDictionary(depth: 2)
            case .storedClassDescriptor(let descriptor):
                try builder.add(.dictionary(Self.classDictionary(descriptor)), depth: 2)
            }
        }
        builder.endArray(depth: 1)
    }
}
