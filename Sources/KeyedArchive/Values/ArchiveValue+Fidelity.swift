#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// Under ``ArchiveRegistry/inspectsUnknownClasses``, whether an object of a Foundation class is
/// stored exactly as encoding its ``ArchiveValue`` writes it again: the same `$classes`, the
/// same keys, each field stored the same way. An object stored otherwise — `NSNull` with a
/// private class in its chain, an `NSURL` whose `NS.relative` is an `NSMutableString` object,
/// an `NSArray` with a field Foundation does not write — is read as its fields
/// (``ArchiveValue/instance(_:)``) instead, so that writing the value back loses nothing.
enum ArchiveValueFidelity {
    /// The `$classes` encoding writes for an object of `kind` (nil: a plain value, no object).
    static func chain(of kind: FoundationClass, mutable: Bool) -> [String]? {
        switch kind {
        case .string: return mutable ? FoundationClass.string.archivedChain : nil
        case .data: return mutable ? FoundationClass.data.archivedChain : nil
        case .array: return mutable ? ArchiveArray.mutableArrayClasses : FoundationClass.array.archivedChain
        case .set: return mutable ? ArchiveArray.mutableSetClasses : FoundationClass.set.archivedChain
        case .dictionary: return mutable ? ArchiveDictionary.mutableDictionaryClasses : FoundationClass.dictionary.archivedChain
        case .orderedSet: return mutable ? ArchiveOrderedSet<ArchiveValue>.mutableOrderedSetClasses : ArchiveOrderedSet<ArchiveValue>.orderedSetClasses
        case .indexSet: return mutable ? ArchiveIndexSet.mutableIndexSetClasses : ArchiveIndexSet.indexSetClasses
        default: return kind.archivedChain
        }
    }

    /// The stored fields of the instance at `uid` (`$class` left out), and its class.
    private static func stored(_ uid: Int, session: ArchiveDecodingSession) -> (fields: [PropertyListDictionary.Entry], descriptor: ArchiveGraph.ClassDescriptor)? {
        guard let (instance, descriptor) = session.store.instance(uid) else { return nil }
        return (instance.fields.dictionary.entries.filter { !$0.key.isExactlyEqual(to: ArchiveKeys.classKey) }, descriptor)
    }

    /// Whether another reference reaches `uid` too. A value's written form makes objects of
    /// its own for what it is stored with (an index path's data, a URL's base), so a part that
    /// another place also refers to would be parted from it: such a value is read as its fields.
    private static func isShared(_ uid: Int, session: ArchiveDecodingSession) -> Bool {
        guard let sharing = try? ArchiveValueDecoding.sharing(session) else { return false }
        return sharing.isShared(uid)
    }

    private static func hasChain(_ descriptor: ArchiveGraph.ClassDescriptor, _ chain: [String]?) -> Bool {
        // `$classhints`, or no `$classes`, is kept only by reading the object as its fields.
        guard let chain, let first = chain.first, descriptor.isPlain else { return false }
        return descriptor.name.isExactlyEqual(to: first) && descriptor.classes.isExactlyEqual(to: chain)
    }

    /// The fields by key when there are exactly `keys`, each once.
    private static func fields(_ entries: [PropertyListDictionary.Entry], exactly keys: [String]) -> [String: PropertyListValue]? {
        guard entries.count == keys.count else { return nil }
        var byKey: [String: PropertyListValue] = [:]
        for entry in entries {
            guard keys.contains(where: { $0.isExactlyEqual(to: entry.key) }), byKey.updateValue(entry.value, forKey: entry.key) == nil else { return nil }
        }
        return byKey
    }

    /// Whether a collection of `kind` at `uid` holds nothing but what encoding writes.
    static func isCollectionStoredAsWritten(_ kind: FoundationClass, mutable: Bool, uid: Int, session: ArchiveDecodingSession) -> Bool {
        guard let (entries, descriptor) = stored(uid, session: session), hasChain(descriptor, chain(of: kind, mutable: mutable)) else { return false }
        func references(_ value: PropertyListValue?) -> Bool {
            guard case .array(let elements)? = value else { return false }
            return elements.allSatisfy { $0.uidValue != nil }
        }
        switch kind {
        case .dictionary:
            guard let byKey = fields(entries, exactly: ["NS.keys", "NS.objects"]) else { return false }
            return references(byKey["NS.keys"]) && references(byKey["NS.objects"])
        case .orderedSet:
            // NS.object.0 … NS.object.n-1 and nothing else (a gap would hide what follows it).
            let keys = Set(entries.map { ExactString($0.key) })
            var count = 0
            while keys.contains(ExactString("NS.object.\(count)")) { count += 1 }
            return count == entries.count
        default: return references(fields(entries, exactly: ["NS.objects"])?["NS.objects"])
        }
    }

    /// Whether the object at `uid`, decoded as `value`, is stored as encoding `value` writes it.
    static func isStoredAsWritten(_ value: ArchiveValue, uid: Int, session: ArchiveDecodingSession) -> Bool {
        guard let (entries, descriptor) = stored(uid, session: session) else { return false }
        func plain(_ field: PropertyListValue?) -> ArchiveObjectView? {
            guard case .uid(let target)? = field, target.value < UInt64(session.store.count) else { return nil }
            let view = session.store.object(Int(target.value))
            if case .instance = view { return nil }
            return view
        }
        switch value {
        case .string(let string, true):
            guard hasChain(descriptor, chain(of: .string, mutable: true)), let byKey = fields(entries, exactly: ["NS.string"]) else { return false }
            return byKey["NS.string"] == .string(string)
        case .data(let bytes, true):
            guard hasChain(descriptor, chain(of: .data, mutable: true)), let byKey = fields(entries, exactly: ["NS.data"]) else { return false }
            return byKey["NS.data"] == .data(bytes)
        case .date(let date):
            guard hasChain(descriptor, FoundationClass.date.archivedChain), let byKey = fields(entries, exactly: ["NS.time"]) else { return false }
            return byKey["NS.time"] == .real(.float64(date.timeIntervalSinceReferenceDate))
        case .uuid:
            guard hasChain(descriptor, FoundationClass.uuid.archivedChain), let byKey = fields(entries, exactly: ["NS.uuidbytes"]) else { return false }
            if case .data(let bytes)? = byKey["NS.uuidbytes"] { return bytes.count == 16 }
            return false
        case .null:
            return hasChain(descriptor, FoundationClass.null.archivedChain) && entries.isEmpty
        case .url(let url):
            return isURLStoredAsWritten(url, uid: uid, session: session)
        case .indexPath(let path):
            guard hasChain(descriptor, FoundationClass.indexPath.archivedChain) else { return false }
            let indexes = Array(path)
            switch indexes.count {
            case 0:
                return fields(entries, exactly: ["NSIndexPathLength"])?["NSIndexPathLength"] == .integer(PropertyListInteger(Int64(0)))
            case 1:
                guard let byKey = fields(entries, exactly: ["NSIndexPathLength", "NSIndexPathValue"]) else { return false }
                return byKey["NSIndexPathLength"] == .integer(PropertyListInteger(Int64(1))) && byKey["NSIndexPathValue"] == .integer(PropertyListInteger(Int64(indexes[0])))
            default:
                guard let byKey = fields(entries, exactly: ["NSIndexPathLength", "NSIndexPathData"]),
                      byKey["NSIndexPathLength"] == .integer(PropertyListInteger(Int64(indexes.count))) else { return false }
                var bytes: [UInt8] = []
                for index in indexes { PackedIndexes.append(UInt64(UInt(bitPattern: index)), to: &bytes) }
                return isPackedData(byKey["NSIndexPathData"], bytes, session: session)
            }
        case .indexSet(let set):
            guard hasChain(descriptor, chain(of: .indexSet, mutable: set.archivesAsMutable)) else { return false }
            let ranges = set.ranges
            switch ranges.count {
            case 0:
                return fields(entries, exactly: ["NSRangeCount"])?["NSRangeCount"] == .integer(PropertyListInteger(Int64(0)))
            case 1:
                guard let byKey = fields(entries, exactly: ["NSRangeCount", "NSLocation", "NSLength"]) else { return false }
                return byKey["NSRangeCount"] == .integer(PropertyListInteger(Int64(1))) && byKey["NSLocation"] == .integer(PropertyListInteger(Int64(ranges[0].lowerBound)))
                    && byKey["NSLength"] == .integer(PropertyListInteger(Int64(ranges[0].count)))
            default:
                guard let byKey = fields(entries, exactly: ["NSRangeCount", "NSRangeData"]),
                      byKey["NSRangeCount"] == .integer(PropertyListInteger(Int64(ranges.count))) else { return false }
                var bytes: [UInt8] = []
                for range in ranges {
                    PackedIndexes.append(UInt64(range.lowerBound), to: &bytes)
                    PackedIndexes.append(UInt64(range.count), to: &bytes)
                }
                return isPackedData(byKey["NSRangeData"], bytes, session: session)
            }
        case .special(let special):
            guard hasChain(descriptor, FoundationClass.value.archivedChain) else { return false }
            let code = PropertyListValue.integer(PropertyListInteger(Int64(special.specialCode)))
            func text(_ key: String, _ expected: String) -> Bool {
                guard let byKey = fields(entries, exactly: ["NS.special", key]), byKey["NS.special"] == code,
                      case .string(let stored)? = plain(byKey[key]) else { return false }
                return stored.isExactlyEqual(to: expected)
            }
            switch special {
            case .point(let point): return text("NS.pointval", GeometryText.pair(point.x, point.y))
            case .size(let size): return text("NS.sizeval", GeometryText.pair(size.width, size.height))
            case .rect(let rect): return text("NS.rectval", GeometryText.rect(rect))
            case .range(let range):
                guard let byKey = fields(entries, exactly: ["NS.special", "NS.rangeval.location", "NS.rangeval.length"]), byKey["NS.special"] == code,
                      case .integer(let location)? = plain(byKey["NS.rangeval.location"]), case .integer(let length)? = plain(byKey["NS.rangeval.length"]) else { return false }
                return location == PropertyListInteger(UInt64(range.location)) && length == PropertyListInteger(UInt64(range.length))
            case .edgeInsets(let insets), .uiEdgeInsets(let insets):
                return doubles([("NS.edgeval.top", insets.top), ("NS.edgeval.left", insets.left), ("NS.edgeval.bottom", insets.bottom), ("NS.edgeval.right", insets.right)])
            case .cgAffineTransform(let transform):
                return doubles(ArchiveSpecialValue.transformFields(transform))
            case .offset(let offset):
                return doubles([("NS.offset.h", offset.horizontal), ("NS.offset.v", offset.vertical)])
            case .directionalEdgeInsets(let insets):
                return doubles(ArchiveSpecialValue.directionalFields(insets))
            }
            /// `NS.special` and exactly these inline doubles.
            func doubles(_ expected: [(String, Double)]) -> Bool {
                guard let byKey = fields(entries, exactly: ["NS.special"] + expected.map(\.0)), byKey["NS.special"] == code else { return false }
                return expected.allSatisfy { byKey[$0.0] == .real(.float64($0.1)) }
            }
        default:
            return true
        }
    }

    /// An `NSURL` and each of its bases: `NS.base` and a plain string `NS.relative`.
    private static func isURLStoredAsWritten(_ url: URL, uid: Int, session: ArchiveDecodingSession) -> Bool {
        var current: URL? = url
        var currentUID = uid
        // URL.decode has bounded the chain of bases already; this only walks what it read.
        while let link = current {
            guard let (entries, descriptor) = stored(currentUID, session: session), hasChain(descriptor, FoundationClass.url.archivedChain),
                  let byKey = fields(entries, exactly: ["NS.base", "NS.relative"]),
                  case .uid(let relative)? = byKey["NS.relative"], relative.value < UInt64(session.store.count),
                  case .string(let text) = session.store.object(Int(relative.value)), text.isExactlyEqual(to: link.relativeString),
                  case .uid(let base)? = byKey["NS.base"] else { return false }
            current = link.baseURL
            if current == nil { return base.value == 0 }
            guard base.value != 0, base.value < UInt64(session.store.count), !isShared(Int(base.value), session: session) else { return false }
            currentUID = Int(base.value)
        }
        return true
    }

    /// A reference to an `NSMutableData` whose `NS.data` is `bytes` (how index paths and sets pack).
    private static func isPackedData(_ field: PropertyListValue?, _ bytes: [UInt8], session: ArchiveDecodingSession) -> Bool {
        guard case .uid(let target)? = field, target.value < UInt64(session.store.count), !isShared(Int(target.value), session: session),
              let (entries, descriptor) = stored(Int(target.value), session: session), hasChain(descriptor, FoundationClass.data.archivedChain),
              let byKey = fields(entries, exactly: ["NS.data"]) else { return false }
        return byKey["NS.data"] == .data(bytes)
    }
}
