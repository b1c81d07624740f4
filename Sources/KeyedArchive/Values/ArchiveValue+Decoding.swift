#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
@_spi(KeyedArchiveInternals) import PropertyList

// ArchiveValue decoding lets the archive decide the type, as `PropertyListValue` does, but over
// every Foundation value class the registry lists: leaves go to the typed mappings (`Date`,
// `URL`, `UUID`, `ArchiveSpecialValue`, `ArchiveIndexSet`, `IndexPath`, …), so that each class
// is read one way only; collections, objects read field by field (the Foundation classes mapped
// from their fields, and under `inspectsUnknownClasses` any other class) and containers stored
// inline in a field are walked with a stack of their own and go through the session's container
// bookkeeping (cycles, depth, thread stack, element budget, one decode per shared object).

enum ArchiveValueDecoding {
    static let requested = "ArchiveValue"

    /// A decoded value, how many values it expands to and how many container levels it has, for
    /// the same budgets a property-list tree is held to (see `PropertyListTreeArchiving.Node`):
    /// a shared collection is decoded once and handed out again, so a small archive can describe
    /// a value that expands exponentially or nests past any limit. (A ``ArchiveValue/shared(_:)``
    /// object is one value wherever it is referred to: it counts once, where it is decoded.)
    struct Node {
        let value: ArchiveValue
        let expandedCount: Int
        var height = 0
        /// How many sets and dictionaries nest along the deepest path: comparing two values takes
        /// a call per such level.
        var unorderedHeight = 0
        /// The stack that releasing the value takes, by ``releaseCost(of:mapping:)`` a level.
        var releaseBytes = 0
    }

    /// How deep sets and dictionaries may nest in what decoding compares while it reads (a
    /// dictionary's keys, an ordered set's elements): far beyond real keys, and little stack.
    static let maximumComparedNesting = 64

    private static let nodeType = ObjectIdentifier(Node.self)

    enum Container {
        case array, set, orderedSet, dictionary
        /// An object read field by field: its class chain and fields.
        case instance
        /// An array, set or dictionary stored inline in a field.
        case inlineArray, inlineSet, inlineDictionary
    }

    /// A collection or an object being built by ``tree(uid:decoder:)``.
    private struct Frame {
        /// The object's UID; -1 for a container stored inline in a field.
        let uid: Int
        let container: Container
        let mutable: Bool
        /// A dictionary's `NS.keys`; nil for the other containers.
        let keys: ArchiveReferenceList?
        /// The references of a collection in `$objects` (empty for the others).
        let objects: ArchiveReferenceList
        /// The stored values of an object's fields or of an inline container, and for an object
        /// or an inline dictionary their keys.
        let items: [PropertyListValue]
        let itemKeys: [String]
        /// An object's class.
        let descriptor: ArchiveGraph.ClassDescriptor?
        /// The Foundation class an object read field by field is mapped from; nil for a class
        /// with no mapping (inspected).
        let mapping: FoundationClass?
        /// The shared object this frame's value fills.
        let shared: ArchiveSharedObject?
        var position = 0
        /// A dictionary's key at `position`, decoded, while its value is.
        var key: ArchiveValue?
        var elements: [ArchiveValue] = []
        var entries: [ArchiveValue.Entry] = []
        var fields: [ArchiveInstance.Field] = []
        var seenKeys: Set<ArchiveValue> = []
        var holdsDuplicateKeys = false
        var total = 1
        var childHeight = 0
        var childUnorderedHeight = 0
        var childReleaseBytes = 0
        /// The release cost from the walk's root down to and including this frame.
        var releaseDepth = 0

        init(uid: Int, container: Container, mutable: Bool = false, keys: ArchiveReferenceList? = nil, objects: ArchiveReferenceList = ArchiveReferenceList([]),
             items: [PropertyListValue] = [], itemKeys: [String] = [], descriptor: ArchiveGraph.ClassDescriptor? = nil,
             mapping: FoundationClass? = nil, shared: ArchiveSharedObject? = nil) {
            self.uid = uid
            self.container = container
            self.mutable = mutable
            self.keys = keys
            self.objects = objects
            self.items = items
            self.itemKeys = itemKeys
            self.descriptor = descriptor
            self.mapping = mapping
            self.shared = shared
            switch container {
            case .array, .set, .orderedSet, .dictionary: count = objects.count
            case .instance, .inlineArray, .inlineSet, .inlineDictionary: count = items.count
            }
            hasKeys = keys != nil
        }

        /// How many children the frame reads. (Stored, as everything the walk asks of a frame
        /// at each child: a computed property of an array element copies the frame.)
        let count: Int
        /// Whether the frame is a dictionary (its keys are compared as they are read).
        let hasKeys: Bool

        /// The reference a collection frame reads next, how the key path names it, and how a
        /// message names it.
        mutating func nextReference() -> (ArchiveReference, ArchiveKeyPath.Component, String) {
            if let keys {
                if let key {
                    return (objects[position], key.stringValue.map { .key($0) } ?? .index(position), "the value of entry \(position)")
                }
                return (keys[position], .index(position), "key \(position)")
            }
            return (objects[position], .index(position), "element \(position)")
        }

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
        let budget = ReleaseBudget()
        do throws(ArchiveError) {
            var finished = try open(root, decoder: decoder, stack: &stack, budget: budget)
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
                    stack[last].childReleaseBytes = max(stack[last].childReleaseBytes, node.releaseBytes)
                    // Compared as it is read: a dictionary's key, an ordered set's element.
                    let compares = stack[last].container == .orderedSet || (stack[last].hasKeys && stack[last].key == nil)
                    if compares, node.unorderedHeight > maximumComparedNesting {
                        throw session.error(.depthLimitExceeded, "\(stack[last].container == .orderedSet ? "an ordered set's element" : "a dictionary key") nests sets and dictionaries \(node.unorderedHeight) levels deep, more than the \(maximumComparedNesting) such values are compared to", uid: stack[last].uid)
                    }
                    try append(node.value, to: &stack[last], session: session)
                    finished = nil
                }
                let last = stack.count - 1
                let position = stack[last].position
                if position == stack[last].count {
                    let done = stack.removeLast()
                    finished = try finish(done, session: session)
                    continue
                }
                if stack[last].container == .array || stack[last].container == .set || stack[last].container == .orderedSet || stack[last].container == .dictionary {
                    // A mutating method of the element, so that the frame is accessed in place: read
                    // through the array's getter, it is copied (a retain of each of its arrays).
                    let (reference, component, what) = stack[last].nextReference()
                    session.pushPath(component)
                    pathDepth += 1
                    guard !reference.isNull else {
                        throw session.error(.valueNotFound, "\(what) is $null", uid: stack[last].uid)
                    }
                    finished = try open(try session.index(reference), decoder: decoder, stack: &stack, budget: budget)
                    continue
                }
                // An object's field or an inline container's element.
                let item = stack[last].items[position]
                let component: ArchiveKeyPath.Component
                switch stack[last].container {
                case .instance: component = .key(ArchiveKeys.unescape(stack[last].itemKeys[position]) ?? stack[last].itemKeys[position])
                case .inlineDictionary: component = .key(stack[last].itemKeys[position])
                default: component = .index(position)
                }
                if case .uid(let target) = item, target.value == 0 {
                    guard stack[last].container == .instance else {
                        throw session.error(.valueNotFound, "element \(position) of an inline \(stack[last].container == .inlineDictionary ? "dictionary" : "array") is $null", uid: owner(of: stack))
                    }
                    stack[last].fields.append(ArchiveInstance.Field(key: stack[last].itemKeys[position], value: .null))
                    stack[last].position += 1
                    continue
                }
                session.pushPath(component)
                pathDepth += 1
                switch item {
                case .uid(let target):
                    finished = try open(try session.index(target), decoder: decoder, stack: &stack, budget: budget)
                case .array(let elements):
                    try pushInline(Frame(uid: -1, container: .inlineArray, items: elements), stack: &stack, session: session, budget: budget)
                    finished = nil
                case .set(let elements):
                    try pushInline(Frame(uid: -1, container: .inlineSet, items: elements), stack: &stack, session: session, budget: budget)
                    finished = nil
                case .dictionary(let dictionary):
                    try pushInline(Frame(uid: -1, container: .inlineDictionary, items: dictionary.entries.map(\.value), itemKeys: dictionary.entries.map(\.key)),
                                   stack: &stack, session: session, budget: budget)
                    finished = nil
                case .string(let string): finished = Node(value: .string(string), expandedCount: 1)
                case .integer(let integer): finished = Node(value: .integer(integer), expandedCount: 1)
                case .real(let real): finished = Node(value: .real(real), expandedCount: 1)
                case .bool(let flag): finished = Node(value: .bool(flag), expandedCount: 1)
                case .data(let bytes): finished = Node(value: .data(bytes), expandedCount: 1)
                case .date(let date): finished = Node(value: .date(Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)), expandedCount: 1)
                }
            }
        } catch {
            // Unwind what the walk holds: the path it pushed and the containers it marked.
            while pathDepth > 0 {
                session.popPath()
                pathDepth -= 1
            }
            while let frame = stack.popLast() {
                if frame.uid >= 0 { session.unmarkContainer(uid: frame.uid) }
            }
            throw error
        }
    }

    /// The UID of the object an inline container at the top of `stack` is stored in.
    private static func owner(of stack: [Frame]) -> Int? {
        stack.last { $0.uid >= 0 }?.uid
    }


    /// Adds a finished child to the frame that holds it.
    private static func append(_ value: ArchiveValue, to frame: inout Frame, session: ArchiveDecodingSession) throws(ArchiveError) {
        switch frame.container {
        case .dictionary:
            guard let keys = frame.keys else { return }
            if let key = frame.key {
                frame.entries.append(ArchiveValue.Entry(key: key, value: value))
                frame.key = nil
                frame.position += 1
            } else {
                // Readers disagree on which of two equal keys counts, so a value never holds
                // both: refused, or the last kept once the dictionary is complete.
                if !frame.seenKeys.insert(value).inserted {
                    guard session.keepsLastDuplicateDictionaryKey else {
                        throw session.duplicateDictionaryKeyError(keys[frame.position], uid: frame.uid)
                    }
                    frame.holdsDuplicateKeys = true
                }
                frame.key = value
            }
        case .instance:
            let position = frame.position
            let stored: ArchiveInstance.FieldValue
            switch frame.items[position] {
            case .uid: stored = .object(value)
            case .array(let items) where !items.isEmpty && items.allSatisfy({ $0.uidValue != nil }):
                // An array of references, as NS.objects is stored: kept as one, so that its
                // plain strings and numbers are written back as objects, not inline.
                guard case .array(let elements, _) = value else { stored = .inline(value); break }
                stored = .objects(elements)
            default: stored = .inline(value)
            }
            frame.fields.append(ArchiveInstance.Field(key: frame.itemKeys[position], value: stored))
            frame.position += 1
        case .inlineDictionary:
            frame.entries.append(ArchiveValue.Entry(key: .string(frame.itemKeys[frame.position]), value: value))
            frame.position += 1
        case .array, .set, .orderedSet, .inlineArray, .inlineSet:
            frame.elements.append(value)
            frame.position += 1
        }
    }

    /// The node of a frame whose children are all decoded.
    private static func finish(_ finished: Frame, session: ArchiveDecodingSession) throws(ArchiveError) -> Node {
        var done = finished
        if session.identities != nil, done.elements.isEmpty, done.entries.isEmpty {
            // Storage of its own, so that an ArchiveIdentityTable tells this empty collection
            // from the others (Swift shares one storage for all of them).
            done.elements.reserveCapacity(1)
            done.entries.reserveCapacity(1)
        }
        if session.identities != nil, done.fields.isEmpty {
            // Likewise for an object's fields, which a field-mapped value keeps as decoded.
            done.fields.reserveCapacity(1)
        }
        var value: ArchiveValue
        switch done.container {
        case .array, .inlineArray: value = .array(done.elements, mutable: done.mutable)
        case .set, .inlineSet: value = .set(done.elements, mutable: done.mutable)
        case .orderedSet:
            let set = ArchiveOrderedSet(done.elements, archivesAsMutable: done.mutable)
            if set.count < done.elements.count, session.registry.inspectsUnknownClasses,
               let chain = ArchiveValueFidelity.chain(of: .orderedSet, mutable: done.mutable) {
                // An ordered set stored with an element twice keeps it once, so under
                // inspection it is shown as what it holds: writing it back loses nothing.
                // (The chain and keys are Foundation's: the check before it was read said so.)
                value = .instance(ArchiveInstance(classes: chain, fields: done.elements.enumerated().map {
                    ArchiveInstance.Field(key: "NS.object.\($0.offset)", value: .object($0.element))
                }))
            } else {
                value = .orderedSet(set)
            }
        case .dictionary, .inlineDictionary:
            value = .dictionary(done.holdsDuplicateKeys ? keepingLastEntries(done.entries) : done.entries, mutable: done.mutable)
        case .instance:
            var instance = ArchiveInstance(className: done.descriptor?.name ?? "", classes: done.descriptor?.classes ?? [], fields: done.fields)
            instance.storesClasses = done.descriptor?.storesClasses ?? true
            instance.classHints = done.descriptor?.hints
            if let mapping = done.mapping {
                do {
                    value = try FieldMappedFoundation.value(of: instance, as: mapping, session: session, uid: done.uid)
                } catch where session.registry.inspectsUnknownClasses && showsAsStored(error) {
                    // Under inspection an object that does not read as its class's value is
                    // shown as what it holds, as `keyedarchive dump` shows it.
                    value = .instance(instance)
                }
            } else {
                value = .instance(instance)
            }
        }
        if let shared = done.shared {
            shared.fill(value)
            value = .shared(shared)
        }
        // Sets, dictionaries and the values that hold dictionaries or compare their elements in
        // any order are compared by a call per level.
        let unordered = done.container == .set || done.container == .dictionary || done.container == .inlineSet || done.container == .inlineDictionary
            || done.mapping == .attributedString || done.mapping == .countedSet
        let node = Node(value: value, expandedCount: done.total, height: done.childHeight &+ 1,
                        unorderedHeight: done.childUnorderedHeight &+ (unordered ? 1 : 0),
                        releaseBytes: done.childReleaseBytes &+ releaseCost(of: done.container, mapping: done.mapping))
        if done.uid >= 0 {
            session.endContainer(uid: done.uid, type: nodeType, value: node)
            if session.identities != nil { session.recordIdentity(value, uid: done.uid) }
        }
        return node
    }

    /// Whether an error says an object does not read as its class's value (what it holds is
    /// wrong), rather than that a limit or the registry stopped the decode.
    static func showsAsStored(_ error: ArchiveError) -> Bool {
        [.typeMismatch, .valueOutOfRange, .valueNotFound].contains(error.code)
    }

    /// Each key once, with its last value, where it was stored last (as `NSDictionary` keeps the
    /// last of its initializer's equal keys).
    private static func keepingLastEntries(_ entries: [ArchiveValue.Entry]) -> [ArchiveValue.Entry] {
        var seen: Set<ArchiveValue> = []
        var kept: [ArchiveValue.Entry] = []
        for entry in entries.reversed() where seen.insert(entry.key).inserted { kept.append(entry) }
        return kept.reversed()
    }

    /// Pushes a container stored inline in a field: the elements count against the budget of
    /// the object holding it, and its nesting against the stack.
    private static func pushInline(_ frame: Frame, stack: inout [Frame], session: ArchiveDecodingSession, budget: ReleaseBudget) throws(ArchiveError) {
        let holder = owner(of: stack) ?? 0
        try session.chargeElements(frame.items.count, uid: holder)
        guard stack.count < session.options.maximumDepth else {
            throw session.error(.depthLimitExceeded, "values nest deeper than \(session.options.maximumDepth)", uid: holder)
        }
        var frame = frame
        frame.releaseDepth = (stack.last?.releaseDepth ?? 0) &+ releaseCost(of: frame.container, mapping: nil)
        guard budget.allows(frame.releaseDepth) else { throw budget.refusal(depth: stack.count &+ 1, session: session, uid: holder) }
        stack.append(frame)
    }

    /// A leaf or an already decoded collection as a finished node; otherwise the collection or
    /// object is marked as being decoded and pushed, and nil returned.
    private static func open(_ uid: Int, decoder: KeyedArchiveDecoder, stack: inout [Frame], budget: ReleaseBudget) throws(ArchiveError) -> Node? {
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
        var shared: ArchiveSharedObject?
        if !session.registry.inspectsUnknownClasses, let parent = stack.last, parent.container == .instance,
           parent.mapping == .value || parent.mapping == .affineTransform,
           let descriptor = session.store.classDescriptor(of: uid), descriptor.name.isExactlyEqual(to: FieldMappedFoundation.oldStyleArrayClass) {
            // The array of an NSValue of an Objective-C type (or of Linux's NSAffineTransform):
            // Foundation's own private class, part of that object, read as its fields.
            return try pushObject(uid, descriptor: descriptor, mapping: nil, shared: nil, stack: &stack, session: session, budget: budget)
        }
        switch try session.archiveValueClass(ofInstance: uid) {
        case .object(let object):
            if session.registry.decodesModelsInArchiveValues, let model = try session.archiveValueModel(uid: uid) {
                let object = ArchiveModelObject(model)
                session.identities?.recordLive(object, uid: uid)
                return leaf(.model(object))
            }
            return leaf(.object(object))
        case .foundation(let found):
            kind = found
        case .inspected(let descriptor):
            if let sharing = try sharing(session), sharing.isShared(uid) {
                if let known = sharing.objects[uid] { return leaf(sharing.reference(to: known)) }
                shared = sharing.make(uid)
                session.identities?.recordLive(shared, uid: uid)
            }
            return try pushObject(uid, descriptor: descriptor, mapping: nil, shared: shared, stack: &stack, session: session, budget: budget)
        }
        if session.registry.inspectsUnknownClasses, let sharing = try sharing(session), sharing.isShared(uid) {
            // An object several places refer to is one value: decoded once, here.
            if let known = sharing.objects[uid] { return leaf(sharing.reference(to: known)) }
            shared = sharing.make(uid)
            session.identities?.recordLive(shared, uid: uid)
        }
        let inspects = session.registry.inspectsUnknownClasses
        func sharedLeaf(_ value: ArchiveValue) throws(ArchiveError) -> Node? {
            if inspects, !ArchiveValueFidelity.isStoredAsWritten(value, uid: uid, session: session) {
                return try pushObject(uid, descriptor: session.store.classDescriptor(of: uid), mapping: nil, shared: shared, stack: &stack, session: session, budget: budget)
            }
            guard let shared else { return leaf(value) }
            shared.fill(value)
            return leaf(.shared(shared))
        }
        let reference = ArchiveReference(uid: PropertyListUID(UInt64(uid)))
        let chain = session.classChain(ofInstance: uid)
        let value: ArchiveValue?
        do {
            switch kind {
            case .string:
                value = .string(try ArchiveStringDecoding.decode(uid: uid, session: session), mutable: chain.contains("NSMutableString"))
            case .data:
                value = .data(try DataBytes.decode(uid: uid, session: session), mutable: chain.contains("NSMutableData"))
            case .date:
                value = .date(try Date.decode(uid: uid, session: session))
            case .url:
                value = .url(try typed(session) { try URL.decode(archiveReference: reference, from: decoder) })
            case .uuid:
                value = .uuid(try typed(session) { try UUID.decode(archiveReference: reference, from: decoder) })
            case .null:
                _ = try typed(session) { try ArchiveNull.decode(archiveReference: reference, from: decoder) }
                value = .null
            case .indexPath:
                value = .indexPath(try typed(session) { try IndexPath.decode(archiveReference: reference, from: decoder) })
            case .indexSet:
                value = .indexSet(try typed(session) { try ArchiveIndexSet.decode(archiveReference: reference, from: decoder) })
            case .value where FieldMappedFoundation.isSpecialValue(uid: uid, session: session):
                value = .special(try ArchiveSpecialValue.read(reference, from: decoder, requested: requested))
            default:
                value = nil
            }
        } catch where inspects && showsAsStored(error) {
            // Under inspection an object that does not read as its class's value is shown as
            // what it holds.
            return try pushObject(uid, descriptor: session.store.classDescriptor(of: uid), mapping: nil, shared: shared, stack: &stack, session: session, budget: budget)
        }
        if let value { return try sharedLeaf(value) }
        switch kind {
        case .array, .set, .dictionary, .orderedSet:
            break
        default:
            // Read field by field, then mapped.
            guard let instance = try session.foundationInstance(uid, kind: kind, requested: requested) else {
                throw session.error(.typeMismatch, "expected an \(kind.defaultNames.first ?? kind.rawValue), found \(session.describe(uid))", uid: uid)
            }
            if shared == nil, case let known as Node = session.decodedContainer(uid: uid, type: nodeType) { return known }
            return try pushObject(uid, descriptor: session.store.classDescriptor(of: uid), fields: instance.fields, mapping: kind, shared: shared, stack: &stack, session: session, budget: budget)
        }
        if shared == nil, case let known as Node = session.decodedContainer(uid: uid, type: nodeType) {
            let maximumDepth = session.options.maximumDepth
            guard stack.count &+ known.height <= maximumDepth else {
                throw session.error(.depthLimitExceeded, "a shared collection \(known.height) levels deep, referenced \(stack.count) levels down, nests deeper than \(maximumDepth)", uid: uid)
            }
            guard budget.allows((stack.last?.releaseDepth ?? 0) &+ known.releaseBytes) else {
                throw budget.refusal(depth: stack.count &+ known.height, session: session, uid: uid)
            }
            return known
        }
        let container: Container
        let objects: ArchiveReferenceList
        var keys: ArchiveReferenceList?
        let mutableName: String
        if inspects, !ArchiveValueFidelity.isCollectionStoredAsWritten(kind, mutable: chain.contains(kind == .orderedSet ? "NSMutableOrderedSet" : kind == .dictionary ? "NSMutableDictionary" : kind == .set ? "NSMutableSet" : "NSMutableArray"), uid: uid, session: session) {
            return try pushObject(uid, descriptor: session.store.classDescriptor(of: uid), mapping: nil, shared: shared, stack: &stack, session: session, budget: budget)
        }
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
        var frame = Frame(uid: uid, container: container, mutable: chain.contains(mutableName), keys: keys, objects: objects, shared: shared)
        try begin(&frame, on: stack, count: objects.count, session: session, budget: budget)
        stack.append(frame)
        return nil
    }

    /// Marks a collection or object as being decoded: the cycle, element and depth limits first,
    /// then whether the thread could release a value nested `depth` deep.
    private static func begin(_ frame: inout Frame, on stack: [Frame], count: Int, session: ArchiveDecodingSession, budget: ReleaseBudget) throws(ArchiveError) {
        try session.beginContainer(uid: frame.uid, type: nodeType, count: count, describing: ArchiveValue.self)
        frame.releaseDepth = (stack.last?.releaseDepth ?? 0) &+ releaseCost(of: frame.container, mapping: frame.mapping)
        guard budget.allows(frame.releaseDepth) else {
            session.unmarkContainer(uid: frame.uid)
            throw budget.refusal(depth: stack.count &+ 1, session: session, uid: frame.uid)
        }
    }

    /// The stack that releasing one level of a container takes, measured in a debug build
    /// (`Docs/Security.md`, "Thread stacks"), with a margin: an `ArchiveValue` array level takes
    /// about 530 bytes, a dictionary's 560, an object's fields 860, a counted set's or a
    /// measurement's 910, an attributed string's (its runs and its stored fields) 1,470.
    static func releaseCost(of container: Container, mapping: FoundationClass?) -> Int {
        switch container {
        case .array, .set, .orderedSet, .inlineArray, .inlineSet: return 608
        case .dictionary, .inlineDictionary: return 640
        case .instance:
            switch mapping {
            case nil: return 992
            case .attributedString?: return 1_696
            default: return 1_056
            }
        }
    }

    /// Marks the object at `uid` as being decoded and pushes it, to be read field by field.
    private static func pushObject(_ uid: Int, descriptor: ArchiveGraph.ClassDescriptor?, fields known: ArchiveFields? = nil, mapping: FoundationClass?,
                                   shared: ArchiveSharedObject?, stack: inout [Frame], session: ArchiveDecodingSession, budget: ReleaseBudget) throws(ArchiveError) -> Node? {
        let stored: ArchiveFields
        if let known {
            stored = known
        } else {
            guard let (instance, _) = session.store.instance(uid) else {
                throw session.error(.invalidClassReference, "$class does not refer to a class dictionary", uid: uid)
            }
            try session.checkKeysAreUnique(instance.fields, uid: uid)
            stored = instance.fields
        }
        // The fields in the order the archiver wrote them, as far as the file tells: a keyed
        // archiver numbers each new object when a field first refers to it, so fields referring
        // to objects go by the UIDs they refer to (`$null` first), then the inline ones in file
        // order (their order leaves no trace but in a hash table's collisions; last is how
        // Foundation's classes mostly write them: 55 of the corpus's 62 value archives come out
        // byte for byte, 52 with them first). Encoding them in this order numbers the objects as
        // the file does.
        var ordered: [(order: UInt64, key: String, item: PropertyListValue)] = []
        for entry in stored.dictionary.entries where !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) {
            var order: UInt64 = .max
            if case .uid(let target) = entry.value { order = target.value }
            ordered.append((order, entry.key, entry.value))
        }
        // A stable sort: equal orders keep file order.
        let sorted = ordered.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element)
        let keys = sorted.map(\.key)
        let items = sorted.map(\.item)
        var frame = Frame(uid: uid, container: .instance, items: items, itemKeys: keys, descriptor: descriptor, mapping: mapping, shared: shared)
        try begin(&frame, on: stack, count: items.count, session: session, budget: budget)
        stack.append(frame)
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

    /// The session's table of shared objects under ``ArchiveRegistry/inspectsUnknownClasses``,
    /// made on first use; nil without it.
    static func sharing(_ session: ArchiveDecodingSession) throws(ArchiveError) -> ArchiveValueSharing? {
        guard session.registry.inspectsUnknownClasses else { return nil }
        // Kept in the session's table of decoded values, under `$null`'s UID (never a
        // collection): the session is the one thing that lives as long as the decode.
        let type = ObjectIdentifier(ArchiveValueSharing.self)
        if case let known as ArchiveValueSharing = session.decodedContainer(uid: 0, type: type) { return known }
        let table = ArchiveValueSharing(store: session.store)
        try session.beginContainer(uid: 0, type: type, count: 0, describing: ArchiveValueSharing.self)
        session.endContainer(uid: 0, type: type, value: table)
        return table
    }
}

/// Whether the thread a decode runs on could release the value it builds: `ThreadStackLimit`
/// answers for levels of `PropertyListValue` (256 bytes each), where an `ArchiveValue` level
/// takes two to seven times that. Up to ``alwaysReleasable`` bytes — what `maximumDepth` 512
/// levels of property-list values take, which any thread of 256 KiB releases — nothing is
/// asked; past it, the thread's stack, looked up once per decode.
final class ReleaseBudget {
    static let alwaysReleasable = 512 * ThreadStackLimit.valueReleaseBytesPerLevel
    private var limit: ThreadStackLimit?

    /// Whether a value whose release takes `bytes` may be built here.
    func allows(_ bytes: Int) -> Bool {
        guard bytes > Self.alwaysReleasable else { return true }
        if limit == nil { limit = .current() }
        return (limit?.bytesLeft() ?? 0) > bytes
    }

    func refusal(depth: Int, session: ArchiveDecodingSession, uid: Int?) -> ArchiveError {
        session.error(.stackExhausted, "values nest \(depth) deep, more than this thread's stack could release; read it on a thread with a bigger stack, or keep maximumDepth lower", uid: uid)
    }
}

/// Which objects of an archive more than one reference reaches (or one that refers to itself),
/// and the ``ArchiveSharedObject`` each became: what makes a shared object one value under
/// ``ArchiveRegistry/inspectsUnknownClasses``.
final class ArchiveValueSharing {
    /// References to each `$objects` entry from `$top` and from every object's fields, up to 2.
    private var counts: [UInt8]
    /// The shared object of each UID decoded so far (filled in once its value is decoded).
    private(set) var objects: [Int: ArchiveSharedObject] = [:]

    init(store: ArchiveObjectStore) {
        counts = [UInt8](repeating: 0, count: store.count)
        var pending: [PropertyListValue] = []
        switch store {
        case .graph(let graph): pending.append(.dictionary(graph.topFields))
        case .binary(let table): pending.append(.dictionary(table.top))
        }
        for uid in 0..<store.count {
            switch store.object(uid) {
            case .instance(let instance):
                for entry in instance.fields.dictionary.entries where !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                    pending.append(entry.value)
                }
            case .other(let container):
                pending.append(container)
            default:
                break
            }
            while let value = pending.popLast() { count(value, pending: &pending) }
        }
        while let value = pending.popLast() { count(value, pending: &pending) }
    }

    private func count(_ value: PropertyListValue, pending: inout [PropertyListValue]) {
        switch value {
        case .uid(let uid):
            guard uid.value < UInt64(counts.count) else { return }
            let index = Int(uid.value)
            if counts[index] < 2 { counts[index] += 1 }
        case .array(let elements), .set(let elements):
            pending.append(contentsOf: elements)
        case .dictionary(let dictionary):
            for entry in dictionary.entries { pending.append(entry.value) }
        default:
            break
        }
    }

    /// Whether more than one reference reaches the object at `uid`.
    func isShared(_ uid: Int) -> Bool {
        uid < counts.count && counts[uid] > 1
    }

    /// A reference to a shared object met again: weak while the object is still being read
    /// (the reference closes a cycle through it), so that no decoded value keeps itself alive.
    func reference(to object: ArchiveSharedObject) -> ArchiveValue {
        object.isComplete ? .shared(object) : .backReference(ArchiveBackReference(object))
    }

    /// A new shared object for `uid`, its value to be filled in.
    func make(_ uid: Int) -> ArchiveSharedObject {
        let object = ArchiveSharedObject()
        objects[uid] = object
        return object
    }
}

extension ArchiveDecodingSession {
    /// What an instance is for ``ArchiveValue``.
    enum ArchiveValueClass {
        case foundation(FoundationClass)
        case object(ArchiveObjectReference)
        /// A class with no mapping, read as its fields (``ArchiveRegistry/inspectsUnknownClasses``).
        case inspected(ArchiveGraph.ClassDescriptor)
    }

    /// The Foundation class of the instance at `uid`, or, for a class the registry names as a
    /// model, a reference to it. Any other class is refused before anything is read of it, or,
    /// under ``ArchiveRegistry/inspectsUnknownClasses``, read as its fields. A registered name is
    /// never re-read through its `$classes`; other names are only with the registry's opt-in
    /// fallback, as for typed decoding.
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
        if registry.inspectsUnknownClasses { return .inspected(descriptor) }
        throw ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is neither a Foundation value class nor registered, so ArchiveValue does not admit it",
                           keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                           remedy: "registry.register(YourType.self, className: \(ArchiveRegistry.swiftLiteral(descriptor.name))) — only if that class is one you mean to accept; it is then an ArchiveValue.object reference; or, to look at every object as its fields, registry.inspectsUnknownClasses = true")
    }
}
