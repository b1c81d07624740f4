import PropertyList

/// Builds an ``ArchiveSchema``: one pass over every `$objects` entry for classes and keys, then
/// the class hierarchy, then a depth-first walk per archive for cycles.
struct ArchiveSchemaBuilder {
    /// Distinct kinds kept per collection summary: a hostile collection of a million classes
    /// referenced a million times would otherwise cost their product.
    static let maximumKindsPerCollection = 64
    /// Rounds of the cycle walk: each round puts off the keys the last one found closing
    /// cycles; real archives settle in two or three.
    static let maximumWalkRounds = 8

    var schema = ArchiveSchema()
    /// Per class: stored key → index in its `keys`.
    var keyIndex: [[String: Int]] = []
    var topKeyIndex: [String: Int] = [:]
    /// Per class, the chains already recorded.
    var seenChains: [Int: Set<[ArchiveExactKey]>] = [:]

    mutating func classID(_ name: String) -> Int {
        if let index = schema.classIndex[name] { return index }
        let index = schema.classes.count
        schema.classes.append(ArchiveSchema.Class(name: name))
        schema.classIndex[name] = index
        keyIndex.append([:])
        return index
    }

    // MARK: Pass 1: classes, keys, kinds

    mutating func observe(_ graph: ArchiveGraph) {
        schema.archiveCount += 1
        schema.objectCount += graph.objects.count
        var inDegree = [UInt8](repeating: 0, count: graph.objects.count)
        var summaries: [Int: ArchiveSchema.Contents] = [:]
        func count(_ value: PropertyListValue) {
            for uid in ArchiveGraph.references(in: value) where uid.value < UInt64(inDegree.count) {
                let index = Int(uid.value)
                if inDegree[index] < 2 { inDegree[index] += 1 }
            }
        }
        var seenTop: Set<String> = []
        var classOfDescriptor: [UInt64: Int] = [:]
        for entry in graph.top {
            count(entry.value)
            guard seenTop.insert(entry.key).inserted else { continue }
            let position: Int
            if let found = topKeyIndex[entry.key] {
                position = found
            } else {
                position = schema.topKeys.count
                topKeyIndex[entry.key] = position
                schema.topKeys.append(ArchiveSchema.Key(storedKey: entry.key))
            }
            Self.record(entry.value, into: &schema.topKeys[position], graph: graph, summaries: &summaries)
        }
        for object in graph.objects {
            guard case .instance(let instance) = object else {
                if case .other(let value) = object { count(value) }
                continue
            }
            count(.dictionary(instance.storage))
            let id: Int
            if let known = classOfDescriptor[instance.classUID.value] {
                id = known
            } else {
                guard case .classDescriptor(let descriptor)? = graph.object(instance.classUID) else { continue }
                id = observeClass(descriptor)
                classOfDescriptor[instance.classUID.value] = id
            }
            schema.classes[id].instanceCount += 1
            var seen: Set<String> = []
            for field in instance.storage.entries where !field.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                guard seen.insert(field.key).inserted else { continue }
                let position: Int
                if let found = keyIndex[id][field.key] {
                    position = found
                } else {
                    position = schema.classes[id].keys.count
                    keyIndex[id][field.key] = position
                    schema.classes[id].keys.append(ArchiveSchema.Key(storedKey: field.key))
                }
                Self.record(field.value, into: &schema.classes[id].keys[position], graph: graph, summaries: &summaries)
            }
        }
        for (index, object) in graph.objects.enumerated() where inDegree[index] > 1 {
            if case .instance = object, let name = graph.className(of: PropertyListUID(UInt64(index))), let id = schema.classIndex[name] {
                schema.classes[id].sharedCount += 1
            }
        }
    }

    /// Registers a class dictionary's chain; returns the class's index.
    mutating func observeClass(_ descriptor: ArchiveGraph.ClassDescriptor) -> Int {
        var chain = descriptor.classes
        if chain.first.map({ !$0.isExactlyEqual(to: descriptor.name) }) ?? true { chain.insert(descriptor.name, at: 0) }
        let id = classID(descriptor.name)
        // A set, not a scan of the chains: a hostile file can give one class many chains.
        if seenChains[id, default: []].insert(chain.map(ArchiveExactKey.init)).inserted {
            schema.classes[id].chains.append(chain)
            for name in chain { _ = classID(name) }
            // The first chain that names a superclass decides it; later ones are reported.
            for (position, name) in chain.enumerated().dropLast() {
                let child = classID(name)
                if schema.classes[child].superclass == nil, !chain[position + 1].isExactlyEqual(to: name) {
                    schema.classes[child].superclass = chain[position + 1]
                }
            }
        }
        return id
    }

    static func record(_ value: PropertyListValue, into key: inout ArchiveSchema.Key, graph: ArchiveGraph, summaries: inout [Int: ArchiveSchema.Contents]) {
        key.presentCount += 1
        let kind = Self.kind(of: value, in: graph)
        key.kinds.add(kind)
        guard case .uid(let uid) = value, case .object(let className) = kind, Self.collectionClasses.contains(className) else { return }
        key.add(summarize(Int(uid.value), className: className, graph: graph, summaries: &summaries))
    }

    static let collectionClasses: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet", "NSDictionary", "NSMutableDictionary",
    ]

    /// The element kinds of one collection, computed once per collection.
    static func summarize(_ uid: Int, className: String, graph: ArchiveGraph, summaries: inout [Int: ArchiveSchema.Contents]) -> ArchiveSchema.Contents {
        if let known = summaries[uid] { return known }
        var contents = ArchiveSchema.Contents(className: className)
        if case .instance(let instance)? = graph.object(PropertyListUID(UInt64(uid))) {
            func add(_ value: PropertyListValue, to counts: inout ArchiveSchema.KindCounts) {
                let kind = Self.kind(of: value, in: graph)
                if counts.counts[kind] == nil && counts.kinds.count >= Self.maximumKindsPerCollection {
                    contents.isTruncated = true
                } else {
                    counts.add(kind)
                }
            }
            if className.hasSuffix("Dictionary") {
                if case .array(let keys)? = instance.storage["NS.keys"] { for key in keys { add(key, to: &contents.keys) } }
                if case .array(let values)? = instance.storage["NS.objects"] { for value in values { add(value, to: &contents.elements) } }
            } else if className.hasSuffix("OrderedSet") {
                for entry in instance.storage.entries where entry.key.hasPrefix("NS.object.") { add(entry.value, to: &contents.elements) }
            } else if case .array(let elements)? = instance.storage["NS.objects"] {
                for element in elements { add(element, to: &contents.elements) }
            }
        }
        summaries[uid] = contents
        return contents
    }

    static func kind(of value: PropertyListValue, in graph: ArchiveGraph) -> ArchiveSchema.ValueKind {
        switch value {
        case .integer(let integer): return .inlineInteger(byteWidth: width(of: integer))
        case .real(let real): return .inlineReal(bits: real.is32Bit ? 32 : 64)
        case .bool: return .inlineBool
        case .data: return .inlineData
        case .string: return .inlineString
        case .date: return .inlineDate
        case .array: return .inlineContainer("array")
        case .set: return .inlineContainer("set")
        case .dictionary: return .inlineContainer("dictionary")
        case .uid(let uid):
            switch graph.object(uid) {
            case .null?, nil: return .null
            case .string?: return .string
            case .integer(let integer)?: return .integer(byteWidth: width(of: integer))
            case .real(let real)?: return .real(bits: real.is32Bit ? 32 : 64)
            case .bool?: return .bool
            case .data?: return .data
            case .date?: return .date
            case .instance?: return .object(graph.className(of: uid) ?? "?")
            case .classDescriptor?: return .otherObject("class")
            case .other(let other)?: return .otherObject(other.kindName)
            }
        }
    }

    /// The fewest bytes that hold the integer (as Core Foundation would store it).
    static func width(of integer: PropertyListInteger) -> Int {
        guard let value = integer.int64Value else { return 16 }
        if value >= Int64(Int8.min) && value <= Int64(Int8.max) { return 1 }
        if value >= Int64(Int16.min) && value <= Int64(Int16.max) { return 2 }
        if value >= Int64(Int32.min) && value <= Int64(Int32.max) { return 4 }
        return 8
    }

    // MARK: Pass 2: hierarchy and declared keys

    mutating func finish(graphs: [ArchiveGraph]) -> ArchiveSchema {
        let count = schema.classes.count
        // A chain that loops (hostile: A < B in one class dictionary, B < A in another) is cut
        // where it comes back, so every ancestor walk below ends.
        for id in 0..<count {
            var seen: Set<Int> = [id]
            var current = id
            while let parentName = schema.classes[current].superclass, let parent = schema.classIndex[parentName] {
                if !seen.insert(parent).inserted {
                    schema.classes[current].superclass = nil
                    break
                }
                current = parent
            }
        }
        for id in 0..<count {
            if let parentName = schema.classes[id].superclass, let parent = schema.classIndex[parentName] {
                schema.classes[parent].subclasses.append(schema.classes[id].name)
            }
        }
        for id in 0..<count {
            schema.classes[id].isFoundation = ancestors(of: id).contains { foundationMappedClassNames.contains(schema.classes[$0].name) }
        }
        for id in 0..<count {
            let family = ancestors(of: id)
            for ancestor in family { schema.classes[ancestor].familyInstanceCount += schema.classes[id].instanceCount }
        }
        declareKeys()
        walkForCycles(graphs)
        return schema
    }

    /// `id` and its superclasses, nearest first (the loop check above makes this finite).
    func ancestors(of id: Int) -> [Int] {
        var result = [id]
        var current = id
        while let parentName = schema.classes[current].superclass, let parent = schema.classIndex[parentName], result.count <= schema.classes.count {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// (declaring class, position in its declaredKeys) for (concrete class, stored key).
    var declaration: [Int: [String: (owner: Int, position: Int)]] = [:]

    mutating func declareKeys() {
        // Which model classes have each key, in first-seen order of keys.
        var holders: [String: [Int]] = [:]
        var order: [String] = []
        for (id, type) in schema.classes.enumerated() where type.isModel {
            for key in type.keys {
                if holders[key.storedKey] == nil { order.append(key.storedKey) }
                holders[key.storedKey, default: []].append(id)
            }
        }
        for storedKey in order {
            guard let classes = holders[storedKey] else { continue }
            // One declaration per hierarchy: by the nearest common ancestor of the classes that
            // have the key below their topmost model class (unrelated hierarchies each declare it).
            var merged: [(owner: Int, members: [Int])] = []
            var groupOfRoot: [Int: Int] = [:]
            for id in classes {
                let root = modelRoot(of: id)
                if let position = groupOfRoot[root] {
                    merged[position].owner = commonModelAncestor(of: merged[position].owner, id) ?? root
                    merged[position].members.append(id)
                } else {
                    groupOfRoot[root] = merged.count
                    merged.append((id, [id]))
                }
            }
            for group in merged {
                var key = ArchiveSchema.Key(storedKey: storedKey)
                for member in group.members {
                    guard let position = keyIndex[member][storedKey] else { continue }
                    let observed = schema.classes[member].keys[position]
                    key.presentCount += observed.presentCount
                    key.kinds.merge(observed.kinds)
                    for contents in observed.contents { key.add(contents) }
                }
                let position = schema.classes[group.owner].declaredKeys.count
                schema.classes[group.owner].declaredKeys.append(key)
                for member in group.members { declaration[member, default: [:]][storedKey] = (group.owner, position) }
            }
        }
    }

    /// The topmost model class among `id` and its superclasses.
    func modelRoot(of id: Int) -> Int {
        ancestors(of: id).last(where: { schema.classes[$0].isModel }) ?? id
    }

    /// The nearest class that is an ancestor of both (or either itself), if it is a model class.
    func commonModelAncestor(of first: Int, _ second: Int) -> Int? {
        let firstLine = ancestors(of: first)
        let secondSet = Set(ancestors(of: second))
        guard let common = firstLine.first(where: { secondSet.contains($0) }), schema.classes[common].isModel else { return nil }
        return common
    }
}
