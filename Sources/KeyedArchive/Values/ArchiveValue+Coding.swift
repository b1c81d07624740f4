#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// ArchiveValue as an archived object. Decoding lets the archive decide the type, as
// `PropertyListValue` does, but over every Foundation value class the registry lists: leaves go
// to the typed mappings (`Date`, `URL`, `UUID`, `ArchiveSpecialValue`, `ArchiveIndexSet`,
// `IndexPath`, …), so that each class is read one way only; collections are walked with a stack
// of their own and go through the session's container bookkeeping (cycles, depth, thread stack,
// element budget, one decode per shared object).

extension ArchiveValue: ArchiveObjectCodable {
    /// Writes the classes the value was read from: plain strings, numbers and data, or the
    /// mutable object forms its flags name; `NSDate`, `NSURL`, `NSUUID`, `NSNull`, `NSValue`,
    /// index sets and paths as their typed mappings write them; collections with `NS.objects`
    /// (and `NS.keys`, all keys before the values, as Foundation writes them) in the value's order.
    /// - Throws: ``ArchiveError/Code/typeMismatch`` for an ``object(_:)``, which is a reference
    ///   into the archive it was read from, not a value.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveValueEncoding.reference(for: self, in: encoder)
    }

    /// Any Foundation value class the registry admits, and plain values as its primitive policy
    /// admits them; an object of another class as ``object(_:)`` when the registry names that
    /// class (a registered model, or with ``ArchiveClassFallback/nearestRegisteredAncestor`` one
    /// in its `$classes`), refused with ``ArchiveError/Code/classNotAllowed`` otherwise.
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveValue {
        try ArchiveValueDecoding.decode(reference: reference, decoder: decoder)
    }
}

// MARK: Decoding

enum ArchiveValueDecoding {
    static let requested = "ArchiveValue"

    /// A decoded value, how many values it expands to and how many container levels it has, for
    /// the same budgets a property-list tree is held to (see `PropertyListTreeArchiving.Node`):
    /// a shared collection is decoded once and handed out again, so a small archive can describe
    /// a value that expands exponentially or nests past any limit.
    struct Node {
        let value: ArchiveValue
        let expandedCount: Int
        var height = 0
        /// How many sets and dictionaries nest along the deepest path: comparing two values takes
        /// a call per such level.
        var unorderedHeight = 0
    }

    /// How deep sets and dictionaries may nest in what decoding compares while it reads (a
    /// dictionary's keys, an ordered set's elements): far beyond real keys, and little stack.
    static let maximumComparedNesting = 64

    private static let nodeType = ObjectIdentifier(Node.self)

    private enum Container { case array, set, orderedSet, dictionary }

    /// A collection being built by ``tree(uid:decoder:)``.
    private struct Frame {
        let uid: Int
        let container: Container
        let mutable: Bool
        /// A dictionary's `NS.keys`; nil for the other collections.
        let keys: ArchiveReferenceList?
        let objects: ArchiveReferenceList
        var position = 0
        /// A dictionary's key at `position`, decoded, while its value is.
        var key: ArchiveValue?
        var elements: [ArchiveValue] = []
        var entries: [ArchiveValue.Entry] = []
        var seenKeys: Set<ArchiveValue> = []
        var holdsDuplicateKeys = false
        var total = 1
        var childHeight = 0
        var childUnorderedHeight = 0
    }

    static func decode(reference: ArchiveReference, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> ArchiveValue {
        let uid = try decoder.session.index(reference)
        let node = try tree(uid: uid, decoder: decoder)
        try decoder.session.chargeTreeValues(node.expandedCount, uid: uid)
        return node.value
    }

    /// The value at `uid`, walked with a stack of its own (a recursive walk would need several
    /// frames per level of an archive nested `maximumDepth` deep).
    private static func tree(uid root: Int, decoder: KeyedArchiveDecoder) throws(ArchiveError) -> Node {
        let session = decoder.session
        var stack: [Frame] = []
        var pathDepth = 0
        do throws(ArchiveError) {
            var finished = try open(root, decoder: decoder, stack: &stack)
            while true {
                if let node = finished {
                    guard !stack.isEmpty else { return node }
                    let last = stack.count - 1
                    if pathDepth > last {
                        session.popPath()
                        pathDepth -= 1
                    }
                    try session.countTreeValues(node.expandedCount, into: &stack[last].total, uid: stack[last].uid)
                    stack[last].childHeight = max(stack[last].childHeight, node.height)
                    stack[last].childUnorderedHeight = max(stack[last].childUnorderedHeight, node.unorderedHeight)
                    let compared = stack[last].container == .orderedSet || (stack[last].keys != nil && stack[last].key == nil)
                    if compared, node.unorderedHeight > maximumComparedNesting {
                        throw session.error(.depthLimitExceeded, "\(stack[last].container == .orderedSet ? "an ordered set's element" : "a dictionary key") nests sets and dictionaries \(node.unorderedHeight) levels deep, more than the \(maximumComparedNesting) such values are compared to", uid: stack[last].uid)
                    }
                    if let keys = stack[last].keys {
                        if let key = stack[last].key {
                            stack[last].entries.append(ArchiveValue.Entry(key: key, value: node.value))
                            stack[last].key = nil
                            stack[last].position += 1
                        } else {
                            // Readers disagree on which of two equal keys counts, so a value never
                            // holds both: refused, or the last kept once the dictionary is complete.
                            if !stack[last].seenKeys.insert(node.value).inserted {
                                guard session.keepsLastDuplicateDictionaryKey else {
                                    throw session.duplicateDictionaryKeyError(keys[stack[last].position], uid: stack[last].uid)
                                }
                                stack[last].holdsDuplicateKeys = true
                            }
                            stack[last].key = node.value
                        }
                    } else {
                        stack[last].elements.append(node.value)
                        stack[last].position += 1
                    }
                    finished = nil
                }
                let last = stack.count - 1
                let position = stack[last].position
                let frameUID = stack[last].uid
                if position == stack[last].objects.count {
                    var done = stack.removeLast()
                    if session.identities != nil, done.elements.isEmpty, done.entries.isEmpty {
                        // Storage of its own, so that an ArchiveIdentityTable tells this empty
                        // collection from the others (Swift shares one storage for all of them).
                        done.elements.reserveCapacity(1)
                        done.entries.reserveCapacity(1)
                    }
                    let value: ArchiveValue
                    switch done.container {
                    case .array: value = .array(done.elements, mutable: done.mutable)
                    case .set: value = .set(done.elements, mutable: done.mutable)
                    case .orderedSet: value = .orderedSet(ArchiveOrderedSet(done.elements, archivesAsMutable: done.mutable))
                    case .dictionary: value = .dictionary(done.holdsDuplicateKeys ? keepingLastEntries(done.entries) : done.entries, mutable: done.mutable)
                    }
                    let unordered = done.container == .set || done.container == .dictionary
                    let node = Node(value: value, expandedCount: done.total, height: done.childHeight &+ 1,
                                    unorderedHeight: done.childUnorderedHeight &+ (unordered ? 1 : 0))
                    session.endContainer(uid: done.uid, type: nodeType, value: node)
                    if session.identities != nil { session.recordIdentity(value, uid: done.uid) }
                    finished = node
                    continue
                }
                let reference: ArchiveReference
                let component: ArchiveKeyPath.Component
                let what: String
                if let keys = stack[last].keys {
                    if let key = stack[last].key {
                        reference = stack[last].objects[position]
                        component = key.stringValue.map { .key($0) } ?? .index(position)
                        what = "the value of entry \(position)"
                    } else {
                        reference = keys[position]
                        component = .index(position)
                        what = "key \(position)"
                    }
                } else {
                    reference = stack[last].objects[position]
                    component = .index(position)
                    what = "element \(position)"
                }
                session.pushPath(component)
                pathDepth += 1
                guard !reference.isNull else {
                    throw session.error(.valueNotFound, "\(what) is $null", uid: frameUID)
                }
                finished = try open(try session.index(reference), decoder: decoder, stack: &stack)
            }
        } catch {
            // Unwind what the walk holds: the path it pushed and the containers it marked.
            while pathDepth > 0 {
                session.popPath()
                pathDepth -= 1
            }
            while let frame = stack.popLast() { session.unmarkContainer(uid: frame.uid) }
            throw error
        }
    }

    /// Each key once, with its last value, where it was stored last (as `NSDictionary` keeps the
    /// last of its initializer's equal keys).
    private static func keepingLastEntries(_ entries: [ArchiveValue.Entry]) -> [ArchiveValue.Entry] {
        var seen: Set<ArchiveValue> = []
        var kept: [ArchiveValue.Entry] = []
        for entry in entries.reversed() where seen.insert(entry.key).inserted { kept.append(entry) }
        return kept.reversed()
    }

    /// A leaf or an already decoded collection as a finished node; otherwise the collection is
    /// marked as being decoded and pushed, and nil returned.
    private static func open(_ uid: Int, decoder: KeyedArchiveDecoder, stack: inout [Frame]) throws(ArchiveError) -> Node? {
        let session = decoder.session
        func leaf(_ value: ArchiveValue) -> Node {
            // An object read as a leaf (an NSURL, NSDate, NSValue, … that several fields may
            // share), or a plain date, which an NSDate object's value could equal.
            if session.identities != nil {
                switch session.object(uid) {
                case .instance, .date: session.recordIdentity(value, uid: uid)
                default: break
                }
            }
            return Node(value: value, expandedCount: 1)
        }
        switch session.object(uid) {
        case .string(let string):
            try session.admitPrimitive(.strings, uid: uid, requested: requested)
            return leaf(.string(string))
        case .integer, .real, .bool:
            switch try ArchiveNumberDecoding.scalar(uid: uid, session: session, requested: requested) {
            case .integer(let integer): return leaf(.integer(integer))
            case .real(let real): return leaf(.real(real))
            case .bool(let flag): return leaf(.bool(flag))
            default: throw session.error(.typeMismatch, "expected a number, found \(session.describe(uid))", uid: uid)
            }
        case .data(let bytes):
            try session.admitPrimitive(.data, uid: uid, requested: requested)
            return leaf(.data(bytes))
        case .date(let date):
            try session.admitPrimitive(.dates, uid: uid, requested: requested)
            return leaf(.date(Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)))
        case .instance:
            break
        case .null, .classDescriptor, .other:
            throw session.error(.typeMismatch, "expected a Foundation value or an object, found \(session.describe(uid))", uid: uid)
        }
        let kind: FoundationClass
        switch try session.archiveValueClass(ofInstance: uid) {
        case .object(let object):
            if session.registry.decodesModelsInArchiveValues, let model = try session.archiveValueModel(uid: uid) {
                return leaf(.model(ArchiveModelObject(model)))
            }
            return leaf(.object(object))
        case .foundation(let found): kind = found
        }
        let reference = ArchiveReference(uid: PropertyListUID(UInt64(uid)))
        let chain = session.classChain(ofInstance: uid)
        switch kind {
        case .string:
            return leaf(.string(try ArchiveStringDecoding.decode(uid: uid, session: session), mutable: chain.contains("NSMutableString")))
        case .data:
            return leaf(.data(try DataBytes.decode(uid: uid, session: session), mutable: chain.contains("NSMutableData")))
        case .date:
            return leaf(.date(try Date.decode(uid: uid, session: session)))
        case .url:
            return leaf(.url(try typed(session) { try URL.decode(archiveReference: reference, from: decoder) }))
        case .uuid:
            return leaf(.uuid(try typed(session) { try UUID.decode(archiveReference: reference, from: decoder) }))
        case .null:
            _ = try typed(session) { try ArchiveNull.decode(archiveReference: reference, from: decoder) }
            return leaf(.null)
        case .indexPath:
            return leaf(.indexPath(try typed(session) { try IndexPath.decode(archiveReference: reference, from: decoder) }))
        case .indexSet:
            return leaf(.indexSet(try typed(session) { try ArchiveIndexSet.decode(archiveReference: reference, from: decoder) }))
        case .value:
            return leaf(.special(try ArchiveSpecialValue.read(reference, from: decoder, requested: requested)))
        case .array, .set, .dictionary, .orderedSet:
            break
        }
        if case let known as Node = session.decodedContainer(uid: uid, type: nodeType) {
            let maximumDepth = session.options.maximumDepth
            guard stack.count &+ known.height <= maximumDepth else {
                throw session.error(.depthLimitExceeded, "a shared collection \(known.height) levels deep, referenced \(stack.count) levels down, nests deeper than \(maximumDepth)", uid: uid)
            }
            guard ThreadStackLimit.canHoldValue(depth: stack.count &+ known.height) else {
                throw session.error(.stackExhausted, PropertyListError.valueTooDeepForStack(stack.count &+ known.height).message, uid: uid)
            }
            return known
        }
        let container: Container
        let objects: ArchiveReferenceList
        var keys: ArchiveReferenceList?
        let mutableName: String
        if kind == .orderedSet {
            container = .orderedSet
            mutableName = "NSMutableOrderedSet"
            objects = try orderedSetReferences(uid: uid, session: session)
        } else {
            guard let instance = try session.foundationInstance(uid, kind: kind, requested: requested) else {
                throw session.error(.typeMismatch, "expected an \(kind.defaultNames.first ?? kind.rawValue), found \(session.describe(uid))", uid: uid)
            }
            objects = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.objects", uid: uid, session: session)
            switch kind {
            case .dictionary:
                container = .dictionary
                mutableName = "NSMutableDictionary"
                let stored = try ArchiveArrayDecoding.elementReferences(instance, key: "NS.keys", uid: uid, session: session)
                guard stored.count == objects.count else {
                    throw session.error(.valueOutOfRange, "NS.keys has \(stored.count) entries but NS.objects has \(objects.count)", uid: uid)
                }
                keys = stored
            case .set:
                container = .set
                mutableName = "NSMutableSet"
            default:
                container = .array
                mutableName = "NSMutableArray"
            }
        }
        guard ThreadStackLimit.canHoldValue(depth: stack.count &+ 1) else {
            throw session.error(.stackExhausted, PropertyListError.valueTooDeepForStack(stack.count &+ 1).message, uid: uid)
        }
        try session.beginContainer(uid: uid, type: nodeType, count: objects.count, describing: ArchiveValue.self)
        stack.append(Frame(uid: uid, container: container, mutable: chain.contains(mutableName), keys: keys, objects: objects))
        return nil
    }

    /// An ordered set's `NS.object.0`, `NS.object.1`, … up to the first missing number, as
    /// Foundation reads them (each number is a field, so the fields bound the count).
    private static func orderedSetReferences(uid: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> ArchiveReferenceList {
        let fields = try session.foundationFields(uid, kind: .orderedSet, requested: requested)
        var references: [ArchiveReference] = []
        while let value = fields.rawValue(forStoredKey: "NS.object.\(references.count)") {
            guard case .uid(let target) = value else {
                throw fields.error(.typeMismatch, "expected a reference to an object, found \(value.kindNameWithArticle)", key: "NS.object.\(references.count)")
            }
            references.append(ArchiveReference(uid: target))
        }
        return ArchiveReferenceList(references)
    }

    /// A typed mapping's result, its errors kept as they are. The mappings throw only
    /// `ArchiveError`s; the protocol's signature is untyped.
    private static func typed<T>(_ session: ArchiveDecodingSession, _ body: () throws -> T) throws(ArchiveError) -> T {
        do {
            return try body()
        } catch let failure as ArchiveError {
            throw failure
        } catch {
            throw ArchiveError(.modelError, "decoding \(T.self) threw: \(String(describing: error).escapedForMessage)", keyPath: session.keyPath, underlyingDescription: "\(error)", underlyingError: error)
        }
    }
}

extension ArchiveDecodingSession {
    /// What an instance is for ``ArchiveValue``.
    enum ArchiveValueClass {
        case foundation(FoundationClass)
        case object(ArchiveObjectReference)
    }

    /// The Foundation class of the instance at `uid`, or, for a class the registry names as a
    /// model, a reference to it. Any other class is refused before anything is read of it. A
    /// registered name is never re-read through its `$classes`; other names are only with the
    /// registry's opt-in fallback, as for typed decoding.
    func archiveValueClass(ofInstance uid: Int) throws(ArchiveError) -> ArchiveValueClass {
        guard let (_, descriptor) = store.instance(uid) else {
            throw error(.invalidClassReference, "$class does not refer to a class dictionary", uid: uid)
        }
        let object = ArchiveObjectReference(reference: ArchiveReference(uid: PropertyListUID(UInt64(uid))), className: descriptor.name, classes: descriptor.classes)
        if let kind = registry.foundationClass(named: descriptor.name) { return .foundation(kind) }
        if registry.entry(named: descriptor.name) != nil { return .object(object) }
        if registry.classFallback == .nearestRegisteredAncestor {
            for name in descriptor.classes.dropFirst() {
                if let kind = registry.foundationClass(named: name) { return .foundation(kind) }
                if registry.entry(named: name) != nil { return .object(object) }
            }
        }
        throw ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is neither a Foundation value class nor registered, so ArchiveValue does not admit it",
                           keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                           remedy: "registry.register(YourType.self, className: \(ArchiveRegistry.swiftLiteral(descriptor.name))) — only if that class is one you mean to accept; it is then an ArchiveValue.object reference")
    }
}

// MARK: Encoding

enum ArchiveValueEncoding {
    static func reference(for value: ArchiveValue, in encoder: KeyedArchiveEncoder) throws(ArchiveError) -> ArchiveReference {
        switch value {
        case .null:
            return try encoder.reference(for: ArchiveNull())
        case .string(let string, let mutable):
            guard mutable else { return encoder.session.encodeString(string) }
            return try encoder.encodeObject(classes: FoundationClass.string.archivedChain) { fields in
                try fields.encodeRaw(.string(string), forStoredKey: "NS.string")
            }
        case .bool(let flag):
            return encoder.session.encodeNumber(.bool(flag))
        case .integer(let integer):
            return encoder.session.encodeNumber(.integer(integer))
        case .real(let real):
            return encoder.session.encodeNumber(.real(real))
        case .data(let bytes, let mutable):
            guard mutable else { return encoder.session.encodeData(bytes) }
            return try encoder.encodeObject(classes: FoundationClass.data.archivedChain) { fields in
                try fields.encodeBytes(bytes, forKey: "NS.data")
            }
        case .date(let date):
            return try encoder.reference(for: date)
        case .uuid(let uuid):
            return try encoder.reference(for: uuid)
        case .url(let url):
            return try encoder.reference(for: url)
        case .array(let elements, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveArray.mutableArrayClasses : FoundationClass.array.archivedChain) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        case .set(let elements, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveArray.mutableSetClasses : FoundationClass.set.archivedChain) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        case .orderedSet(let set):
            return try encoder.reference(for: set)
        case .dictionary(let entries, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveDictionary.mutableDictionaryClasses : FoundationClass.dictionary.archivedChain) { fields in
                // Keys by index and values by their key on the key path, as decoding names them.
                try fields.encodeReferenceArray(entries.map(\.key), forKey: "NS.keys", keyOnPath: false)
                try fields.encodeReferenceArray(entries.lazy.map(\.value), forKey: "NS.objects", keyOnPath: false) { position in
                    entries[position].key.stringValue.map { .key($0) } ?? .index(position)
                }
            }
        case .special(let special):
            return try encoder.reference(for: special)
        case .indexSet(let set):
            return try encoder.reference(for: set)
        case .indexPath(let path):
            return try encoder.reference(for: path)
        case .object(let object):
            throw ArchiveError(.typeMismatch, "\(object) is a reference into the archive it was decoded from, not a value; encode the model it stands for instead", keyPath: encoder.keyPath)
        case .model(let model):
            return try encoder.reference(for: model.object)
        }
    }
}

// MARK: Fields and top-level keys

extension KeyedArchiveDecoder {
    /// The value under `key`, whatever is stored there: an object or plain value it refers to
    /// (as ``ArchiveValue/decode(archiveReference:from:)`` reads it), or a number, boolean or
    /// bytes stored inline in the object (as `encodeInt:`, `encodeBool:`, `encodeDouble:` and
    /// `encodeBytes:` store them). Nil when the key is absent or refers to `$null`.
    public func decodeIfPresent(_ type: ArchiveValue.Type, forKey key: String) throws(ArchiveError) -> ArchiveValue? {
        try archiveValue(storedKey: ArchiveKeys.escape(key), key: key)
    }

    /// The value stored without a key at position `index` (`$0`, `$1`, …), inline or referenced.
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when there is none or it is `$null`, and
    ///   whatever decoding the value throws.
    public func decodeUnkeyed(_ type: ArchiveValue.Type, at index: Int) throws(ArchiveError) -> ArchiveValue {
        let storedKey = "$\(index)"
        guard let value = try archiveValue(storedKey: storedKey, key: storedKey) else {
            throw error(.valueNotFound, fields[storedKey] == nil ? "no unkeyed value \(storedKey)" : "expected ArchiveValue, found $null", key: storedKey)
        }
        return value
    }

    /// The value under a stored key; `key` is how the key path names it.
    private func archiveValue(storedKey: String, key: String) throws(ArchiveError) -> ArchiveValue? {
        guard let stored = fields[storedKey] else { return nil }
        switch stored {
        case .uid(let uid):
            guard uid.value != 0 else { return nil }
            return try session.withPath(.key(key)) { () throws(ArchiveError) in
                try ArchiveValueDecoding.decode(reference: ArchiveReference(uid: uid), decoder: self)
            }
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .string(let string): return .string(string)
        case .date(let date): return .date(Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate))
        case .array, .dictionary, .set:
            throw error(.typeMismatch, "expected a value or a reference to an object, found \(stored.kindNameWithArticle) stored inline (read it with rawValue(forStoredKey:))", key: key)
        }
    }

    /// The value under `key` (see ``decodeIfPresent(_:forKey:)-(ArchiveValue.Type,_)``).
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when absent or `$null`,
    ///   ``ArchiveError/Code/classNotAllowed`` for a class the registry does not admit, and
    ///   whatever decoding the value throws.
    public func decode(_ type: ArchiveValue.Type, forKey key: String) throws(ArchiveError) -> ArchiveValue {
        guard let value = try decodeIfPresent(type, forKey: key) else { throw missingValue(type, key: key) }
        return value
    }
}

extension KeyedUnarchiver {
    /// The value under a top-level key, inline numbers included (Apple's archiver stores a
    /// top-level number inline); see ``KeyedArchiveDecoder/decode(_:forKey:)-(ArchiveValue.Type,_)``.
    public func decode(_ type: ArchiveValue.Type, forKey key: String = "root") throws(ArchiveError) -> ArchiveValue {
        try run { () throws(ArchiveError) in try topLevelDecoder.decode(type, forKey: key) }
    }

    /// Like ``decode(_:forKey:)-(ArchiveValue.Type,_)``, but nil when the key is absent or `$null`.
    public func decodeIfPresent(_ type: ArchiveValue.Type, forKey key: String = "root") throws(ArchiveError) -> ArchiveValue? {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeIfPresent(type, forKey: key) }
    }

    /// The top-level value stored without a key at position `index` (`$0`, `$1`, …), inline or
    /// referenced (see ``KeyedArchiveDecoder/decodeUnkeyed(_:at:)-(ArchiveValue.Type,_)``).
    public func decodeUnkeyed(_ type: ArchiveValue.Type, at index: Int) throws(ArchiveError) -> ArchiveValue {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeUnkeyed(type, at: index) }
    }

    /// Decodes whatever is under `root` as an ``ArchiveValue``.
    public static func unarchive(_ type: ArchiveValue.Type, from bytes: [UInt8], registry: ArchiveRegistry,
                                 options: ArchiveReadingOptions = .default) throws(ArchiveError) -> ArchiveValue {
        try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(type, forKey: ArchiveKeys.rootKey)
    }
}
