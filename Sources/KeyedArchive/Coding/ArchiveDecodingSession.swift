import PropertyList

/// The state of one archive being decoded: which objects are finished or still being built,
/// the decoded instances (so that shared objects decode once), budgets, the key path, and the
/// back-references waiting for the graph to be complete.
final class ArchiveDecodingSession {
    let graph: ArchiveGraph
    let registry: ArchiveRegistry
    let options: ArchiveReadingOptions
    var path: [ArchiveKeyPath.Component] = []
    var failed = false

    private enum State: UInt8 { case untouched, inProgress, finished }
    private var states: [State]
    private var models: [Int: Any] = [:]
    private struct ValueKey: Hashable {
        let uid: Int
        let type: ObjectIdentifier
    }
    private var values: [ValueKey: Any] = [:]
    private var containersInProgress: Set<ValueKey> = []
    private var depth = 0
    private var elementCount = 0
    private var visitCount = 0
    private var deferred: [(path: [ArchiveKeyPath.Component], work: () throws(ArchiveError) -> Void)] = []

    init(graph: ArchiveGraph, registry: ArchiveRegistry, options: ArchiveReadingOptions) {
        self.graph = graph
        self.registry = registry
        self.options = options
        self.states = [State](repeating: .untouched, count: graph.objects.count)
    }

    var keyPath: ArchiveKeyPath { ArchiveKeyPath(path) }

    func error(_ code: ArchiveError.Code, _ message: String, uid: Int? = nil, classChain: [String] = []) -> ArchiveError {
        ArchiveError(code, message, keyPath: keyPath, uid: uid.map { PropertyListUID(UInt64($0)) }, classChain: classChain)
    }

    func withPath<R>(_ component: ArchiveKeyPath.Component, _ body: () throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        path.append(component)
        let result = try body()
        path.removeLast()
        return result
    }

    /// Refuses an object that stores one key twice. Apple's writers never do; a hand-made
    /// binary archive can, and then Core Foundation's binary reader (what NSKeyedUnarchiver
    /// reads with) takes the first value where its XML reader takes the last. An archive that
    /// means one thing to a validating service and another to the app it forwards to is a
    /// parser-differential hole, so typed decoding takes neither (Docs/Security.md).
    func checkKeysAreUnique(_ fields: PropertyListDictionary, uid: Int?) throws(ArchiveError) {
        guard let (storedKey, occurrences) = fields.firstDuplicateKey() else { return }
        throw ArchiveGraph.duplicateKeyError(storedKey: storedKey, occurrences: occurrences, in: keyPath, uid: uid.map { PropertyListUID(UInt64($0)) })
    }

    // MARK: Objects

    func object(_ uid: Int) -> ArchiveGraph.Object {
        graph.objects[uid]
    }

    /// The `$objects` index of a reference, checked: a reference can be built by hand and passed
    /// to a public decode function, so it is never trusted to be in range.
    ///
    /// Every reference followed passes through here, so this is also where the visit budget is
    /// counted: however an archive shares its objects, decoding it takes at most
    /// `maximumVisitCount` steps.
    func index(_ uid: PropertyListUID) throws(ArchiveError) -> Int {
        guard uid.value < UInt64(graph.objects.count) else {
            throw error(.invalidReference, "refers to object \(uid.value), but $objects has \(graph.objects.count) entries")
        }
        visitCount += 1
        guard visitCount <= options.maximumVisitCount else {
            throw error(.budgetExceeded, "decoding follows more than \(options.maximumVisitCount) references (maximumVisitCount)", uid: Int(uid.value))
        }
        return Int(uid.value)
    }

    /// Checks a plain `$objects` value (no class to check) against the registry's primitive
    /// policy. The caller has already established that the requested type maps to it.
    func admitPrimitive(_ kind: ArchivePrimitivePolicy, uid: Int, requested: String) throws(ArchiveError) {
        guard registry.primitives.contains(kind) else {
            let name = ArchivePrimitivePolicy.names.first { $0.kind == kind }?.name ?? "values"
            throw ArchiveError(.classNotAllowed, "\(describe(uid)) for \(requested), but the registry's primitive policy does not admit plain \(name)",
                               keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), remedy: "registry.primitives.insert(.\(name))")
        }
    }

    func index(_ reference: ArchiveReference) throws(ArchiveError) -> Int {
        try index(reference.uid)
    }

    /// A short description of what a UID holds, for "expected …, found …" messages.
    func describe(_ uid: Int) -> String {
        switch graph.objects[uid] {
        case .instance:
            return "an object of class \(graph.className(of: PropertyListUID(UInt64(uid))) ?? "?")"
        default:
            return ArchiveGraph.describeKind(graph.objects[uid])
        }
    }

    /// The instance at `uid` if its archived class is one of the Foundation class `kind`'s
    /// admitted names; nil if `uid` holds a plain value (the caller decides about those).
    func foundationInstance(_ uid: Int, kind: FoundationClass, requested: String) throws(ArchiveError) -> ArchiveGraph.Instance? {
        guard case .instance(let instance) = graph.objects[uid] else { return nil }
        guard case .classDescriptor(let descriptor) = graph.objects[Int(instance.classUID.value)] else {
            throw error(.invalidClassReference, "$class does not refer to a class dictionary", uid: uid)
        }
        if let found = registry.foundationClass(named: descriptor.name) {
            guard found == kind else {
                let accepted = registry.foundationNames[kind, default: []].joined(separator: ", ")
                throw ArchiveError(.classNotAllowed, "class \(descriptor.name) is a Foundation \(found.rawValue), not admitted for \(requested) (accepted: \(accepted))",
                                   keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes)
            }
            try checkKeysAreUnique(instance.storage, uid: uid)
            return instance
        }
        // A model class name is never re-read as a Foundation class through its chain.
        if registry.entry(named: descriptor.name) == nil, registry.fallbackFoundationClass(chain: descriptor.classes, kind: kind) != nil {
            try checkKeysAreUnique(instance.storage, uid: uid)
            return instance
        }
        let accepted = registry.foundationNames[kind, default: []].joined(separator: ", ")
        throw ArchiveError(.classNotAllowed, "class \(descriptor.name) is not admitted for \(requested) (accepted: \(accepted))",
                           keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                           remedy: registry.entry(named: descriptor.name) == nil ? ArchiveRegistry.remedy(admitting: descriptor.name, kind: kind) : nil)
    }

    // MARK: Registered models

    /// Decodes the object at `reference` as a registered type or family `T`. The archived class
    /// name is checked against the registry for `T` before anything is created — and again on
    /// every later reference to the same object.
    func decodeModel<T>(_ type: T.Type, reference: ArchiveReference) throws(ArchiveError) -> T {
        let uid = try index(reference)
        guard uid != 0 else {
            throw error(.valueNotFound, "expected \(T.self), found $null")
        }
        let archivedChain = graph.classDescriptor(of: PropertyListUID(UInt64(uid)))?.classes ?? []
        guard let family = registry.family(forRequested: T.self) else {
            throw ArchiveError(.typeNotRegistered, "\(T.self) is not registered in the archive registry, so nothing is admitted for it",
                               keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: archivedChain,
                               remedy: "registry.register(\(T.self).self) before decoding it (or registerFamily for a protocol)")
        }
        guard case .instance(let instance) = graph.objects[uid],
              case .classDescriptor(let descriptor) = graph.objects[Int(instance.classUID.value)] else {
            throw error(.typeMismatch, "expected an object of class \(registry.entries[family.entry].className), found \(describe(uid))", uid: uid)
        }
        let entry: Int
        if let registered = registry.entry(named: descriptor.name) {
            guard registry.admits(registered, family: family) else {
                let admitted = registry.admittedNames(family: family).joined(separator: ", ")
                let typeName = registry.entries[registered].typeName
                throw ArchiveError(.classNotAllowed, "class \(descriptor.name) (\(typeName)) is not a kind of \(T.self); \(T.self) admits \(admitted)",
                                   keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                                   remedy: "none for \(T.self): \(descriptor.name) is registered as \(typeName); register \(typeName) with superclass: \(registry.entries[family.entry].typeName).self only if it really is one")
            }
            entry = registered
        } else if let fallback = registry.fallbackEntry(chain: descriptor.classes, family: family) {
            entry = fallback.entry
        } else {
            let admitted = registry.admittedNames(family: family).joined(separator: ", ")
            throw ArchiveError(.classNotAllowed, "class \(descriptor.name) is not registered; \(T.self) admits \(admitted)",
                               keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                               remedy: registry.remedy(admitting: descriptor.name, family: family, requested: "\(T.self)"))
        }
        switch states[uid] {
        case .finished:
            return try cast(models[uid], to: T.self, uid: uid, className: descriptor.name)
        case .inProgress:
            throw error(.cyclicReference, "object #\(uid) (\(descriptor.name)) was asked for while it is still being decoded; decode back-references with decode(_:forKey:whenResolved:)",
                        uid: uid, classChain: descriptor.classes)
        case .untouched:
            break
        }
        let make = registry.entries[entry].make
        guard depth < options.maximumDepth else {
            throw error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth)", uid: uid)
        }
        try checkKeysAreUnique(instance.storage, uid: uid)
        states[uid] = .inProgress
        depth += 1
        let decoder = KeyedArchiveDecoder(session: self, uid: uid, fields: instance.storage, classChain: descriptor.classes)
        let value: Any
        do {
            value = try make(decoder)
        } catch let failure as ArchiveError {
            throw failure
        } catch {
            throw ArchiveError(.modelError, "init(from:) of \(registry.entries[entry].typeName) threw: \(error)", keyPath: keyPath,
                               uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes, underlyingDescription: "\(error)")
        }
        depth -= 1
        states[uid] = .finished
        models[uid] = value
        return try cast(value, to: T.self, uid: uid, className: descriptor.name)
    }

    private func cast<T>(_ value: Any?, to type: T.Type, uid: Int, className: String) throws(ArchiveError) -> T {
        guard let typed = value as? T else {
            throw error(.typeMismatch, "class \(className) decoded to \(value.map { "\(Swift.type(of: $0))" } ?? "nothing"), which is not a \(T.self) (check the registration)", uid: uid)
        }
        return typed
    }

    // MARK: Foundation containers

    /// Decodes a collection once per (object, requested type): a shared array referenced from
    /// many places costs its elements once, and an array that contains itself is a cycle error
    /// rather than endless work.
    func decodeContainer<T>(_ type: T.Type, uid: Int, count: Int, _ build: () throws(ArchiveError) -> T) throws(ArchiveError) -> T {
        let key = ValueKey(uid: uid, type: ObjectIdentifier(T.self))
        if let known = values[key] as? T { return known }
        guard !containersInProgress.contains(key) else {
            throw error(.cyclicReference, "collection #\(uid) contains itself as \(T.self)", uid: uid)
        }
        let (total, overflow) = elementCount.addingReportingOverflow(count)
        guard !overflow, total <= options.maximumElementCount else {
            throw error(.budgetExceeded, "decoding more than \(options.maximumElementCount) collection elements", uid: uid)
        }
        elementCount = total
        guard depth < options.maximumDepth else {
            throw error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth)", uid: uid)
        }
        depth += 1
        containersInProgress.insert(key)
        let value = try build()
        containersInProgress.remove(key)
        depth -= 1
        values[key] = value
        return value
    }

    // MARK: Deferred back-references

    func enqueue(_ work: @escaping () throws(ArchiveError) -> Void) {
        deferred.append((path, work))
    }

    /// Drops the back-references of a failed decode. Their closures hold decoders, which hold
    /// this session: kept, they would leak the session, its graph and every object decoded
    /// (fuzz finding F4).
    func discardDeferred() {
        deferred.removeAll()
    }

    /// Runs the back-references registered while decoding, once every object they may point to
    /// has been built. Work may register more work; it runs in registration order.
    func resolveDeferred() throws(ArchiveError) {
        var position = 0
        while position < deferred.count {
            let (savedPath, work) = deferred[position]
            position += 1
            let outer = path
            path = savedPath
            try work()
            path = outer
        }
        deferred.removeAll()
    }
}
