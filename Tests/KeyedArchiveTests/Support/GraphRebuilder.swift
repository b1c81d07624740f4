import PropertyList
@testable import KeyedArchive

/// Rebuilds an archive's object graph through the public encoding API — every instance as an
/// ``ArchiveGenericObject``, every plain value as an ``ArchiveSharedValue`` — and encodes it
/// again, to measure how close our layout comes to Apple's bytes.
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
    static func callOrder(fixed: [(key: String, value: ArchiveGenericObject.Field)], loose: [(key: String, value: ArchiveGenericObject.Field)],
                          stored: [String]) -> [(key: String, value: ArchiveGenericObject.Field)]? {
        guard loose.count <= 5 else { return nil }
        var found: [(key: String, value: ArchiveGenericObject.Field)]?
        func matches(_ candidate: [(key: String, value: ArchiveGenericObject.Field)]) -> Bool {
            CFHashTableOrder.order(candidate.map(\.key) + ["$class"], sizing: .growth) == stored
        }
        func permutations(_ items: [(key: String, value: ArchiveGenericObject.Field)]) -> [[(key: String, value: ArchiveGenericObject.Field)]] {
            guard items.count > 1 else { return [items] }
            var result: [[(key: String, value: ArchiveGenericObject.Field)]] = []
            for index in items.indices {
                var rest = items
                let item = rest.remove(at: index)
                for tail in permutations(rest) { result.append([item] + tail) }
            }
            return result
        }
        func interleave(_ a: ArraySlice<(key: String, value: ArchiveGenericObject.Field)>, _ b: ArraySlice<(key: String, value: ArchiveGenericObject.Field)>,
                        _ prefix: [(key: String, value: ArchiveGenericObject.Field)]) {
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

    /// An archiver with the graph encoded into it, not yet finished; nil if the graph cannot be
    /// rebuilt through the public API.
    static func archiver(rebuilding graph: ArchiveGraph, era: ArchiveWritingOptions.Era, sharing: ArchiveWritingOptions.Sharing) throws -> KeyedArchiver? {
        var boxes = [(any ArchiveObjectEncodable)?](repeating: nil, count: graph.objects.count)
        var generic: [Int: ArchiveGenericObject] = [:]
        for (uid, object) in graph.objects.enumerated() {
            switch object {
            case .string(let string): boxes[uid] = ArchiveSharedValue(.string(string))
            case .integer(let integer): boxes[uid] = ArchiveSharedValue(.integer(integer))
            case .real(let real): boxes[uid] = ArchiveSharedValue(.real(real))
            case .bool(let flag): boxes[uid] = ArchiveSharedValue(.bool(flag))
            case .data(let bytes): boxes[uid] = ArchiveSharedValue(.data(bytes))
            case .instance:
                guard let descriptor = graph.classDescriptor(of: PropertyListUID(UInt64(uid))) else { return nil }
                let object = ArchiveGenericObject(classes: descriptor.classes.isEmpty ? [descriptor.name] : descriptor.classes)
                generic[uid] = object
                boxes[uid] = object
            case .null, .classDescriptor: break
            case .date, .other: return nil
            }
        }
        func field(_ value: PropertyListValue) -> ArchiveGenericObject.Field? {
            switch value {
            case .uid(let uid):
                if uid.value == 0 { return .object(nil) }
                guard let box = boxes[Int(uid.value)] else { return nil }
                return .object(box)
            case .array(let elements) where elements.allSatisfy({ $0.uidValue.map { $0.value != 0 } ?? false }):
                var objects: [any ArchiveObjectEncodable] = []
                for element in elements {
                    guard let uid = element.uidValue, let box = boxes[Int(uid.value)] else { return nil }
                    objects.append(box)
                }
                return .objects(objects)
            default:
                return ArchiveGraph.references(in: value).isEmpty ? .inline(value) : nil
            }
        }
        for (uid, object) in generic {
            guard case .instance(let instance) = graph.objects[uid] else { continue }
            var ordered: [(key: String, value: ArchiveGenericObject.Field)] = []
            var loose: [(key: String, value: ArchiveGenericObject.Field)] = []
            var withNewObjects: [(key: String, value: ArchiveGenericObject.Field, first: Int)] = []
            for entry in instance.fields {
                guard let converted = field(entry.value) else { return nil }
                if let first = ArchiveGraph.references(in: entry.value).map({ Int($0.value) }).filter({ $0 > uid }).min() {
                    withNewObjects.append((entry.key, converted, first))
                } else {
                    loose.append((entry.key, converted))
                }
            }
            ordered = withNewObjects.sorted { $0.first < $1.first }.map { ($0.key, $0.value) }
            object.fields = callOrder(fixed: ordered, loose: loose, stored: instance.storage.keys) ?? (loose + ordered)
        }
        var options = ArchiveWritingOptions()
        options.era = era
        options.sharing = sharing
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        let top = archiver.topLevelEncoder
        let entries = graph.top.enumerated().sorted { lhs, rhs in
            (lhs.element.uid.map { Int($0.value) } ?? Int.max, lhs.offset) < (rhs.element.uid.map { Int($0.value) } ?? Int.max, rhs.offset)
        }.map(\.element)
        for entry in entries {
            if let uid = entry.uid, uid.value != 0 {
                guard let box = boxes[Int(uid.value)] else { return nil }
                let reference = try top.reference(for: box)
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
