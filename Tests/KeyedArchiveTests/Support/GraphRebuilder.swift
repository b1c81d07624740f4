import PropertyList
@testable import KeyedArchive

/// Rebuilds an archive's object graph through the public dynamic model, ``ArchiveValue`` — every
/// instance an ``ArchiveValue/instance(_:)`` and every plain value a plain value, each in an
/// ``ArchiveSharedObject`` of its own (so that each stays one object), a reference that closes a
/// cycle an ``ArchiveValue/backReference(_:)`` — and encodes it again, to measure how close our
/// layout comes to Apple's bytes.
///
/// The only thing taken from the file beyond the graph is the encoder's call order, which a
/// file does not record: fields are encoded in the order that gives their new objects
/// ascending UIDs (as the original calls must have), the others after them in stored order.
enum GraphRebuilder {
    static func era(of graph: ArchiveGraph) -> ArchiveWritingOptions.Era? {
        switch graph.headerKeyOrder {
        case ["$version", "$archiver", "$top", "$objects"]: return .current
        case ["$version", "$objects", "$archiver", "$top"]: return .classic
        default: return nil
        }
    }

    /// Among the call orders that keep `fixed` in its order (those fields created the object's
    /// new UIDs in that order) and place the `loose` fields anywhere, one whose Core Foundation
    /// key order (with `$class` set last, as the encoder does) is the stored order; nil if none
    /// is (or there are too many to try).
    static func callOrder(fixed: [ArchiveInstance.Field], loose: [ArchiveInstance.Field], stored: [String]) -> [ArchiveInstance.Field]? {
        guard loose.count <= 5 else { return nil }
        var found: [ArchiveInstance.Field]?
        func matches(_ candidate: [ArchiveInstance.Field]) -> Bool {
            CFHashTableOrder.order(candidate.map(\.key) + ["$class"], sizing: .growth) == stored
        }
        func permutations(_ items: [ArchiveInstance.Field]) -> [[ArchiveInstance.Field]] {
            guard items.count > 1 else { return [items] }
            var result: [[ArchiveInstance.Field]] = []
            for index in items.indices {
                var rest = items
                let item = rest.remove(at: index)
                for tail in permutations(rest) { result.append([item] + tail) }
            }
            return result
        }
        func interleave(_ a: ArraySlice<ArchiveInstance.Field>, _ b: ArraySlice<ArchiveInstance.Field>, _ prefix: [ArchiveInstance.Field]) {
            guard found == nil else { return }
            if a.isEmpty || b.isEmpty {
                let candidate = prefix + Array(a) + Array(b)
                if matches(candidate) { found = candidate }
                return
            }
            interleave(a.dropFirst(), b, prefix + [a[a.startIndex]])
            interleave(a, b.dropFirst(), prefix + [b[b.startIndex]])
        }
        for permutation in permutations(loose) where found == nil {
            interleave(permutation[...], fixed[...], [])
        }
        return found
    }

    static func rebuild(_ graph: ArchiveGraph, sharing: ArchiveWritingOptions.Sharing = .appleInstances, format: ArchiveFormat = .binary) throws -> [UInt8]? {
        // XML archives store keys sorted, so their root order says nothing of the era.
        guard let era = format == .xml ? .current : era(of: graph) else { return nil }
        return try archiver(rebuilding: graph, era: era, sharing: sharing)?.finish(format: format)
    }

    /// The values of a graph's objects, made depth first: an object being made is referred to
    /// by a back-reference, one made already as its shared object.
    private struct Builder {
        enum State {
            case building(ArchiveBackReference)
            case done(ArchiveSharedObject)
        }
        let graph: ArchiveGraph
        var states: [Int: State] = [:]

        /// The value at `uid` (a shared object or a back-reference to one); nil if the graph
        /// holds what the model cannot say.
        mutating func value(_ uid: Int) -> ArchiveValue? {
            switch states[uid] {
            case .building(let back)?: return .backReference(back)
            case .done(let object)?: return .shared(object)
            case nil: break
            }
            let object: ArchiveSharedObject
            switch graph.objects[uid] {
            case .string(let string): object = ArchiveSharedObject(.string(string))
            case .integer(let integer): object = ArchiveSharedObject(.integer(integer))
            case .real(let real): object = ArchiveSharedObject(.real(real))
            case .bool(let flag): object = ArchiveSharedObject(.bool(flag))
            case .data(let bytes): object = ArchiveSharedObject(.data(bytes))
            case .instance(let instance):
                guard let descriptor = graph.classDescriptor(of: PropertyListUID(UInt64(uid))) else { return nil }
                var failed = false
                object = ArchiveSharedObject { back in
                    states[uid] = .building(back)
                    guard let fields = fields(of: instance, uid: uid) else {
                        failed = true
                        return .null
                    }
                    return .instance(ArchiveInstance(classes: descriptor.classes.isEmpty ? [descriptor.name] : descriptor.classes, fields: fields))
                }
                if failed { return nil }
            case .null, .classDescriptor, .date, .other: return nil
            }
            states[uid] = .done(object)
            return .shared(object)
        }

        /// The fields of the instance at `uid`, in a call order its file could have come from.
        private mutating func fields(of instance: ArchiveGraph.Instance, uid: Int) -> [ArchiveInstance.Field]? {
            var loose: [ArchiveInstance.Field] = []
            var withNewObjects: [(field: ArchiveInstance.Field, first: Int)] = []
            for entry in instance.fields {
                guard let converted = field(entry.value) else { return nil }
                let field = ArchiveInstance.Field(key: entry.key, value: converted)
                if let first = ArchiveGraph.references(in: entry.value).map({ Int($0.value) }).filter({ $0 > uid }).min() {
                    withNewObjects.append((field, first))
                } else {
                    loose.append(field)
                }
            }
            let ordered = withNewObjects.sorted { $0.first < $1.first }.map(\.field)
            return GraphRebuilder.callOrder(fixed: ordered, loose: loose, stored: instance.storage.keys) ?? (loose + ordered)
        }

        private mutating func field(_ stored: PropertyListValue) -> ArchiveInstance.FieldValue? {
            switch stored {
            case .uid(let uid):
                if uid.value == 0 { return .null }
                return value(Int(uid.value)).map { .object($0) }
            case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ $0.uidValue.map { $0.value != 0 } ?? false }):
                var objects: [ArchiveValue] = []
                for element in elements {
                    guard let uid = element.uidValue, let value = value(Int(uid.value)) else { return nil }
                    objects.append(value)
                }
                return .objects(objects)
            default:
                guard ArchiveGraph.references(in: stored).isEmpty, let value = ArchiveValue(propertyList: stored) else { return nil }
                return .inline(value)
            }
        }
    }

    /// An archiver with the graph encoded into it, not yet finished; nil if the graph cannot be
    /// rebuilt through the public API.
    static func archiver(rebuilding graph: ArchiveGraph, era: ArchiveWritingOptions.Era, sharing: ArchiveWritingOptions.Sharing) throws -> KeyedArchiver? {
        var builder = Builder(graph: graph)
        var options = ArchiveWritingOptions()
        options.era = era
        options.sharing = sharing
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        let top = archiver.topLevelEncoder
        let entries = graph.top.enumerated().sorted { lhs, rhs in
            (lhs.element.uid.map { Int($0.value) } ?? Int.max, lhs.offset) < (rhs.element.uid.map { Int($0.value) } ?? Int.max, rhs.offset)
        }.map(\.element)
        var values: [ArchiveValue] = []
        for entry in entries {
            if let uid = entry.uid, uid.value != 0 {
                guard let value = builder.value(Int(uid.value)) else { return nil }
                values.append(value)
            }
        }
        // Every object the top refers to is held until the archive is written: a back-reference
        // holds its object weakly.
        var next = values.makeIterator()
        for entry in entries {
            if let uid = entry.uid, uid.value != 0, let value = next.next() {
                let reference = try top.reference(for: value)
                try top.encodeRaw(.uid(reference.uid), forStoredKey: entry.key)
            } else {
                try top.encodeRaw(entry.value, forStoredKey: entry.key)
            }
        }
        return archiver
    }

    enum Outcome: String {
        case identical
        /// Same values, same key orders, same UIDs: only which equal values are one plist object differs.
        case sharingOnly
        /// Same values but another object numbering (UIDs) or dictionary key order.
        case valuesEqualElsewhere
        case different
    }

    static func compare(_ ours: [UInt8], _ apple: [UInt8]) throws -> Outcome {
        if ours == apple { return .identical }
        let ourDocument = try BinaryPropertyListReader.read(ours)
        let appleDocument = try BinaryPropertyListReader.read(apple)
        guard try ourDocument.value() == appleDocument.value() else { return .different }
        // Equal value trees (ordered dictionaries, UIDs included): the objects differ only in
        // which equal values were written as one object. Say whether those are strings only.
        func nonStringObjects(_ document: BinaryPropertyListDocument) -> [String: Int] {
            var counts: [String: Int] = [:]
            for object in document.objects {
                switch object {
                case .string: continue
                case .bool, .uid, .array, .dictionary, .set: continue
                default: counts["\(object)", default: 0] += 1
                }
            }
            return counts
        }
        return nonStringObjects(ourDocument) == nonStringObjects(appleDocument) ? .sharingOnly : .valuesEqualElsewhere
    }
}
