import PropertyList

extension ArchiveObjectTable {
    /// The archive as a binary property list, written straight from the table: the same bytes
    /// as writing ``propertyList(era:)`` with ``BinaryPropertyListWriter``, without building
    /// that value tree first (which, with the writer's walk over it, was half of an encode).
    /// The objects are added in the order the tree writer visits the tree's nodes.
    func binaryPropertyList(era: ArchiveWritingOptions.Era, writer: BinaryPropertyListWriter = BinaryPropertyListWriter()) throws(PropertyListError) -> [UInt8] {
        let bound = try objectCountBound(writer: writer)
        return try BinaryPropertyListBuilder.write(objectBound: bound, writer: writer) { (builder: inout BinaryPropertyListBuilder) throws(PropertyListError) in
            try write(into: &builder, era: era)
        }
    }

    /// At least the number of objects the tree writer produces: every node and every key once.
    private func objectCountBound(writer: BinaryPropertyListWriter) throws(PropertyListError) -> Int {
        // Saturating: a bound past the largest object count only widens the first attempt.
        func add(_ total: inout Int, _ extra: Int) {
            let (sum, overflow) = total.addingReportingOverflow(extra)
            total = overflow ? Int.max : sum
        }
        // Inline values are nearly all scalars: one object each, without the call.
        func bound(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
            switch value {
            case .array, .set, .dictionary: return try BinaryPropertyListBuilder.objectCountBound(of: value, depth: depth, writer: writer)
            default: return 1
            }
        }
        // Root dictionary, its four keys, $version and $archiver, the $top dictionary and the
        // $objects array.
        var total = 1 + 4 + 2 + 1 + 1
        add(&total, topKeys.count)
        for value in topValues { add(&total, try bound(value, depth: 2)) }
        for entry in entries {
            switch entry {
            case .instance(_, let fields):
                // The dictionary, its keys, `$class` and its UID; the values are counted below.
                add(&total, 1 + fields.count + 2)
            case .classDescriptor(_, let classes):
                // The dictionary, two keys, the name, the `$classes` array and its names.
                add(&total, 5)
                add(&total, classes.count)
            case .storedClassDescriptor(let descriptor):
                // The dictionary, up to three keys, the name, two arrays and their names.
                add(&total, 7)
                add(&total, descriptor.classes.count)
                add(&total, descriptor.hints?.count ?? 0)
            default:
                add(&total, 1)
            }
        }
        // Every instance's values, in one pass over the shared list.
        var position = 0
        while position < fieldValues.count {
            switch fieldValues[position] {
            case .other(let other): add(&total, try bound(otherFieldValues[other], depth: 3))
            case .uidList(_, let count): add(&total, 1 &+ Int(count))
            default: add(&total, 1)
            }
            position &+= 1
        }
        return total
    }

    /// Adds the archive in the tree writer's order: the root dictionary, its keys, then each
    /// value in turn with everything under it.
    private func write(into builder: inout BinaryPropertyListBuilder, era: ArchiveWritingOptions.Era) throws(PropertyListError) {
        let rootKeys = Self.rootKeyOrder(era)
        var root = try builder.beginDictionary(count: rootKeys.count, depth: 0)
        for key in rootKeys { builder.append(try builder.addString(key), to: &root) }
        for key in rootKeys {
            switch key {
            case ArchiveKeys.version:
                builder.append(try builder.addInteger(PropertyListInteger(ArchiveKeys.formatVersion)), to: &root)
            case ArchiveKeys.archiver:
                builder.append(try builder.addString(archiverName), to: &root)
            case ArchiveKeys.top:
                builder.append(try writeTop(into: &builder), to: &root)
            default:
                builder.append(try writeObjects(into: &builder), to: &root)
            }
        }
    }

    private func writeTop(into builder: inout BinaryPropertyListBuilder) throws(PropertyListError) -> Int {
        let order = OrderCache().order(topKeys, sizing: .growth)
        var top = try builder.beginDictionary(count: order.count, depth: 1)
        for position in order { builder.append(try builder.addString(topKeys[position]), to: &top) }
        for position in order { builder.append(try builder.add(topValues[position], depth: 2), to: &top) }
        return top.number
    }

    /// Every string of the document other than the `$objects` strings: what one of those may equal.
    private func stringsBesideEntries() -> StringCollisionFilter {
        var filter = StringCollisionFilter()
        for key in Self.rootKeyOrder(.current) { filter.insert(key) }
        for fixed in [archiverName, ArchiveKeys.null, ArchiveKeys.classKey, ArchiveKeys.className, ArchiveKeys.classes] {
            filter.insert(fixed)
        }
        // Every stored key, `$top`'s included, is numbered in `keyTexts`.
        for key in keyTexts { filter.insert(key) }
        for value in topValues { filter.insertStrings(of: value) }
        for value in otherFieldValues { filter.insertStrings(of: value) }
        filter.insert(ArchiveKeys.classHints)
        for entry in entries {
            switch entry {
            case .classDescriptor(let name, let classes):
                filter.insert(name)
                for className in classes { filter.insert(className) }
            case .storedClassDescriptor(let descriptor):
                filter.insert(descriptor.name)
                for className in descriptor.classes { filter.insert(className) }
                for className in descriptor.hints ?? [] { filter.insert(className) }
            default:
                continue
            }
        }
        return filter
    }

    /// Every integer of the document other than the `$objects` integers: what one of those may equal.
    private func integersBesideEntries() -> IntegerCollisionFilter {
        var filter = IntegerCollisionFilter()
        filter.insert(low: UInt64(bitPattern: ArchiveKeys.formatVersion))
        for field in fieldValues {
            if case .integer(let integer) = field { filter.insert(low: UInt64(bitPattern: integer)) }
        }
        for value in topValues { filter.insertIntegers(of: value) }
        for value in otherFieldValues { filter.insertIntegers(of: value) }
        return filter
    }

    private func writeObjects(into builder: inout BinaryPropertyListBuilder) throws(PropertyListError) -> Int {
        let cache = OrderCache()
        // With the `$objects` strings and integers distinct, one that equals no other string or
        // integer of the document is written without the writer's lookup (a hash and a table
        // insertion; at a million objects, tables of hundreds of thousands of entries).
        let otherStrings = entriesAreDistinctByValue ? stringsBesideEntries() : nil
        let otherIntegers = entriesAreDistinctByValue ? integersBesideEntries() : nil
        // Objects of one class nearly always repeat one of a few key lists: their keys are
        // appended by object number, without looking the strings up again.
        var layouts = InstanceLayoutCache<(order: [Int], keyNumbers: [Int])>(classCount: entries.count)
        var objects = try builder.beginArray(count: entries.count, depth: 1)
        for entry in entries {
            let number: Int
            switch entry {
            case .null, .reserved: number = try builder.addString(ArchiveKeys.null)
            case .string(let string):
                if let otherStrings, !otherStrings.mayContain(string) {
                    number = try builder.addUniqueString(string)
                } else {
                    number = try builder.addString(string)
                }
            case .integer(let integer):
                if let otherIntegers, !otherIntegers.mayContain(low: integer.low) {
                    number = try builder.addUniqueInteger(integer)
                } else {
                    number = try builder.addInteger(integer)
                }
            case .real(let real): number = try builder.addReal(real)
            case .bool(let flag): number = try builder.addBool(flag)
            case .data(let bytes): number = try builder.addData(bytes)
            case .instance(let classUID, let fields):
                var instance: BinaryPropertyListBuilder.ContainerSlots
                let order: [Int]
                if let layout = layouts.layout(classUID: classUID, keys: fieldKeys[fields]) {
                    order = layout.order
                    instance = try builder.beginDictionary(count: order.count, depth: 2)
                    for keyNumber in layout.keyNumbers { builder.append(keyNumber, to: &instance) }
                } else {
                    let (allKeys, computedOrder) = instanceKeyOrder(fields, classUID: classUID, cache: cache)
                    order = computedOrder
                    instance = try builder.beginDictionary(count: order.count, depth: 2)
                    var keyNumbers: [Int] = []
                    keyNumbers.reserveCapacity(order.count)
                    for position in order {
                        let keyNumber = try builder.addString(allKeys[position])
                        keyNumbers.append(keyNumber)
                        builder.append(keyNumber, to: &instance)
                    }
                    layouts.insert((order, keyNumbers), classUID: classUID, keys: fieldKeys[fields])
                }
                for position in order {
                    let child: Int
                    if position == fields.count {
                        child = try builder.addUID(PropertyListUID(UInt64(classUID)))
                    } else {
                        switch fieldValues[fields.lowerBound + position] {
                        case .uid(let uid): child = try builder.addUID(uid)
                        case .integer(let integer): child = try builder.addInteger(PropertyListInteger(integer))
                        case .bool(let flag): child = try builder.addBool(flag)
                        case .double(let double): child = try builder.addReal(.float64(double))
                        case .uidList(let start, let count):
                            var list = try builder.beginArray(count: Int(count), depth: 3)
                            var element = Int(start)
                            let end = element &+ Int(count)
                            while element < end {
                                builder.append(try builder.addUID(listUIDs[element]), to: &list)
                                element &+= 1
                            }
                            child = list.number
                        case .other(let other): child = try builder.add(otherFieldValues[other], depth: 3)
                        }
                    }
                    builder.append(child, to: &instance)
                }
                number = instance.number
            case .classDescriptor(let name, let classes):
                var descriptor = try builder.beginDictionary(count: 2, depth: 2)
                builder.append(try builder.addString(ArchiveKeys.className), to: &descriptor)
                builder.append(try builder.addString(ArchiveKeys.classes), to: &descriptor)
                builder.append(try builder.addString(name), to: &descriptor)
                var names = try builder.beginArray(count: classes.count, depth: 3)
                for className in classes { builder.append(try builder.addString(className), to: &names) }
                builder.append(names.number, to: &descriptor)
                number = descriptor.number
            case .storedClassDescriptor(let stored):
                let lists = [stored.storesClasses ? stored.classes : nil, stored.hints]
                var descriptor = try builder.beginDictionary(count: 1 + lists.filter { $0 != nil }.count, depth: 2)
                builder.append(try builder.addString(ArchiveKeys.className), to: &descriptor)
                for (key, list) in zip([ArchiveKeys.classes, ArchiveKeys.classHints], lists) where list != nil {
                    builder.append(try builder.addString(key), to: &descriptor)
                }
                builder.append(try builder.addString(stored.name), to: &descriptor)
                for list in lists {
                    guard let list else { continue }
                    var names = try builder.beginArray(count: list.count, depth: 3)
                    for className in list { builder.append(try builder.addString(className), to: &names) }
                    builder.append(names.number, to: &descriptor)
                }
                number = descriptor.number
            }
            builder.append(number, to: &objects)
        }
        return objects.number
    }
}
