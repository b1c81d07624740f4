@_spi(KeyedArchiveInternals) import PropertyList

/// The state of one archive being decoded: which objects are finished or still being built,
/// the decoded instances (so that shared objects decode once), budgets, the key path, and the
/// back-references waiting for the graph to be complete.
@usableFromInline
final class ArchiveDecodingSession {
    let store: ArchiveObjectStore
    let registry: ArchiveRegistry
    let options: ArchiveReadingOptions

    /// `failed`: its `init(from:)` threw and the model that asked for it caught the error.
    private enum ObjectState: UInt8 { case untouched, inProgress, finished, failed }
    private struct ValueKey: Hashable {
        let uid: Int
        let type: ObjectIdentifier
    }
    /// A decoded collection and the type it was decoded as.
    private struct DecodedValue {
        let type: ObjectIdentifier
        let value: Any
    }
    private static let noSlot: Int32 = -1

    /// Everything that changes while decoding. It lives behind a pointer because the session
    /// is a class: every access to a class's `var` is checked for exclusivity at run time,
    /// and those checks were a tenth of a fleet decode. The session is confined to one decode
    /// on one thread, so the pointer is never accessed concurrently.
    ///
    /// Per-UID tables are small integers (a few bytes per `$objects` entry) pointing into dense
    /// arrays of what was actually decoded: no hashing on the hot path, and little memory for
    /// the many entries (strings, numbers) that never get a slot.
    private struct State {
        /// The key path below `pathPrefix`, each level with the node of `pathNodes` that stands
        /// for the path up to it, once a back-reference registered below it needed one (-1
        /// until then: a level pushed anew has none, so a node is never reused for another path).
        var path: [(component: ArchiveKeyPath.Component, node: Int32)] = []
        var failed = false
        var objectStates: [ObjectState]
        /// Index into `models` of each finished model, by UID.
        var modelSlots: [Int32]
        var models: [ArchiveMadeModel] = []
        /// The error of each object whose initializer threw, by UID: a later reference to it
        /// fails with that error again.
        var failures: [Int: ArchiveError] = [:]
        /// Index into `values` of the first type each collection was decoded as, by UID; the
        /// rare further types of one collection go to `otherValues`.
        var valueSlots: [Int32]
        var values: [DecodedValue] = []
        var otherValues: [ValueKey: Any] = [:]
        /// How many decodes of each collection are under way (as any type), by UID, and which:
        /// the stack is searched only for a UID whose count is not zero.
        var inProgressCounts: [UInt16]
        var inProgress: [ValueKey] = []
        /// What the registry says of each class dictionary's name, by the dictionary's UID,
        /// looked up once: `classLookupUnknown`, `classLookupNone`, or the registry entry.
        var registeredEntries: [Int32]
        /// The family (entry × 2, plus 1 when it includes descendants) each class dictionary's
        /// registered class was last admitted for, by the dictionary's UID; -1 for none yet.
        var admittedFamilies: [Int32]
        /// The same for Foundation classes: a position in `FoundationClass.allCases`.
        var foundationKinds: [Int8]
        /// The families of the few types asked for, in asking order (a registry lookup hashes).
        var families: [(type: ObjectIdentifier, family: (entry: Int, includesDescendants: Bool))] = []
        var depth = 0
        /// The floor of the thread stack this decode may use, looked up when a decode starts.
        var stackLimit = ThreadStackLimit.unlimited
        var elementCount = 0
        var visitCount = 0
        /// The visit count at which `index(_:)` next leaves its fast lane: the visit budget, or
        /// sooner, the next time to ask `interruption` whether to stop. One comparison per
        /// reference serves both, so a decode that is never interrupted pays nothing for it.
        var visitCheckpoint = 0
        /// Values in all the property-list trees handed out so far, each counted as expanded.
        var treeValueCount = 0
        /// Back-references waiting for the graph, each with the path of its object: a node of
        /// `pathNodes`, a tree of the paths seen when references were registered. Registrations
        /// of one parent's children share all but their last components, so a registration
        /// usually adds one node instead of copying its whole path.
        var deferred: [DeferredWork] = []
        var pathNodes: [(parent: Int32, component: ArchiveKeyPath.Component)] = []
        /// While a back-reference resolves, the node of its object's path, which `keyPath` puts
        /// before `path`; -1 otherwise. Nothing is copied unless a key path is asked for.
        var pathPrefix: Int32 = -1
        /// How many components the key paths made so far hold together: the work errors and
        /// reports spend on paths, which tests hold linear in the archive (issue 31).
        var pathComponentsBuilt = 0
        /// ``ArchiveDecodingSession/identities``, here so that reading it takes no exclusivity check.
        var identities: ArchiveIdentityTable?
    }
    /// A struct rather than a tuple: an array of tuples holds the closure at its most general
    /// abstraction, which costs a thunk allocation per registration and a value-witness call
    /// per destruction.
    struct DeferredWork {
        var pathNode: Int32
        /// The decoder of the object that registered the work (its `objectUID` is -1 for
        /// `$top`: if that object's initializer threw, the work is dropped, so no closure receives
        /// or sets a failed object), handed to `work`, and the reference it read when the work
        /// was registered (nil when the work reads its field itself). Kept here rather than
        /// captured, so that the closure captures only what the model passed: its context is
        /// small, and the decoder's references are not copied into it and out again.
        var holder: KeyedArchiveDecoder
        var reference: ArchiveReference?
        var work: (KeyedArchiveDecoder, ArchiveReference?) throws(ArchiveError) -> Void
    }
    private static let classLookupUnknown: Int32 = -2
    private static let classLookupNone: Int32 = -1
    private let state: UnsafeMutablePointer<State>

    /// The store when it is a binary table, for the fast paths below (a `let`, so reading it
    /// costs no pattern match and no retain).
    let binaryTable: BinaryArchiveTable?
    /// `store.count`, kept: asking the store switches over it, and every reference asks.
    private let objectCount: Int
    private let admitsPlainStrings: Bool
    private let admitsPlainIntegers: Bool

    /// Set when ``ArchiveReadingOptions/reportsUnreadFields`` asks for it.
    let unreadFields: UnreadFieldTracker?
    /// Cancellation and the time budget, asked every ``WorkInterruption/interval`` references.
    let interruption: WorkInterruption

    init(store: ArchiveObjectStore, registry: ArchiveRegistry, options: ArchiveReadingOptions, interruption: WorkInterruption) {
        self.interruption = interruption
        unreadFields = options.reportsUnreadFields ? UnreadFieldTracker() : nil
        self.store = store
        self.registry = registry
        self.options = options
        if case .binary(let table) = store { binaryTable = table } else { binaryTable = nil }
        admitsPlainStrings = registry.primitives.contains(.strings)
        admitsPlainIntegers = registry.primitives.contains(.integers)
        let count = store.count
        objectCount = count
        state = .allocate(capacity: 1)
        state.initialize(to: State(objectStates: [ObjectState](repeating: .untouched, count: count),
                                   modelSlots: [Int32](repeating: Self.noSlot, count: count),
                                   valueSlots: [Int32](repeating: Self.noSlot, count: count),
                                   inProgressCounts: [UInt16](repeating: 0, count: count),
                                   registeredEntries: [Int32](repeating: Self.classLookupUnknown, count: count),
                                   admittedFamilies: [Int32](repeating: -1, count: count),
                                   foundationKinds: [Int8](repeating: Int8(Self.classLookupUnknown), count: count)))
        state.pointee.visitCheckpoint = nextVisitCheckpoint()
    }

    private func nextVisitCheckpoint() -> Int {
        let budget = options.maximumVisitCount
        guard interruption.isActive else { return budget }
        let (next, overflow) = state.pointee.visitCount.addingReportingOverflow(WorkInterruption.interval)
        return overflow ? budget : min(budget, next)
    }

    /// A visit past the checkpoint: the budget is spent, or it is time to ask whether to stop.
    @inline(never)
    private func passVisitCheckpoint(uid: Int) throws(ArchiveError) {
        guard state.pointee.visitCount <= options.maximumVisitCount else {
            throw error(.budgetExceeded, "decoding follows more than \(options.maximumVisitCount) references (maximumVisitCount)", uid: uid)
        }
        try checkInterruption(uid: uid)
        state.pointee.visitCheckpoint = nextVisitCheckpoint()
    }

    /// Throws `cancelled` or `timeLimitExceeded`, at the key path reached, when the work must stop.
    func checkInterruption(uid: Int? = nil) throws(ArchiveError) {
        if let stop = interruption.stop() {
            throw ArchiveError(stop, keyPath: keyPath, uid: uid.map { PropertyListUID(UInt64($0)) })
        }
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The registry entry registered under the name of the class dictionary at `classUID`.
    private func registeredEntry(classUID: Int, name: String) -> Int? {
        let known = state.pointee.registeredEntries[classUID]
        if known >= 0 { return Int(known) }
        if known == Self.classLookupNone { return nil }
        let entry = registry.entry(named: name)
        // Registries hold far fewer than 2^31 entries; anything else is simply not cached.
        state.pointee.registeredEntries[classUID] = entry.flatMap { Int32(exactly: $0) } ?? Self.classLookupNone
        return entry
    }

    private func family(forRequested type: Any.Type) -> (entry: Int, includesDescendants: Bool)? {
        let typeID = ObjectIdentifier(type)
        for known in state.pointee.families where known.type == typeID { return known.family }
        let family = registry.family(forRequested: type)
        if let family, state.pointee.families.count < 8 { state.pointee.families.append((typeID, family)) }
        return family
    }

    /// The Foundation class registered under the name of the class dictionary at `classUID`.
    private func foundationClass(classUID: Int, name: String) -> FoundationClass? {
        let known = Int(state.pointee.foundationKinds[classUID])
        if known >= 0 { return Self.foundationClasses[known] }
        if known == Int(Self.classLookupNone) { return nil }
        let found = registry.foundationClass(named: name)
        let position = found.flatMap { Self.foundationClasses.firstIndex(of: $0) }
        state.pointee.foundationKinds[classUID] = position.flatMap { Int8(exactly: $0) } ?? Int8(Self.classLookupNone)
        return found
    }
    private static let foundationClasses = FoundationClass.allCases.map { $0 }

    /// A family as one `admittedFamilies` value; -1 (never cached) for a registry too large
    /// for the packed form.
    private static func packed(_ family: (entry: Int, includesDescendants: Bool)) -> Int32 {
        guard family.entry >= 0, family.entry < Int(Int32.max / 2) else { return -1 }
        return Int32(family.entry * 2 + (family.includesDescendants ? 1 : 0))
    }

    var failed: Bool {
        get { state.pointee.failed }
        set { state.pointee.failed = newValue }
    }

    /// The components of every key path made by this session so far (see `State`).
    var pathComponentsBuilt: Int { state.pointee.pathComponentsBuilt }


    /// Where decoded values note the object they came from (``KeyedUnarchiver/identities``).
    @usableFromInline
    var identities: ArchiveIdentityTable? {
        get { state.pointee.identities }
        set { state.pointee.identities = newValue }
    }

    /// Notes that `value` was decoded from `uid`, for ``identities``: with the object's class
    /// chain, and for a single value (not a collection) the object as stored.
    @usableFromInline
    func recordIdentity<T>(_ value: T, uid: Int) {
        guard let identities else { return }
        guard let (_, descriptor) = instance(uid) else {
            // A plain entry (a date stored as a plain value): noted with no class, so that an
            // equal value an object also gave takes neither one's form.
            identities.record(value, uid: uid, chain: []) { nil }
            return
        }
        let kind = registry.foundationClass(named: descriptor.name)
        identities.record(value, uid: uid, chain: descriptor.classes) { () -> ArchiveGenericObject? in
            switch kind {
            case .array?, .set?, .dictionary?, .orderedSet?, nil: return nil
            default: return try? ArchiveGenericDecoding.decode(uid: uid, session: self)
            }
        }
    }

    @usableFromInline
    var keyPath: ArchiveKeyPath {
        var node = state.pointee.pathPrefix
        let path = state.pointee.path.map(\.component)
        defer { state.pointee.pathComponentsBuilt &+= state.pointee.path.count }
        guard node >= 0 else { return ArchiveKeyPath(path) }
        var prefix: [ArchiveKeyPath.Component] = []
        while node >= 0 {
            let (parent, component) = state.pointee.pathNodes[Int(node)]
            prefix.append(component)
            node = parent
        }
        state.pointee.pathComponentsBuilt &+= prefix.count
        return ArchiveKeyPath(prefix.reversed() + path)
    }

    @usableFromInline
    func error(_ code: ArchiveError.Code, _ message: String, uid: Int? = nil, classChain: [String] = []) -> ArchiveError {
        ArchiveError(code, message, keyPath: keyPath, uid: uid.map { PropertyListUID(UInt64($0)) }, classChain: classChain)
    }

    /// `withPath` for a walk that cannot nest closures (the property-list tree decoder, which
    /// keeps its own stack): every push is matched by a pop, on a throw too.
    func pushPath(_ component: ArchiveKeyPath.Component) {
        state.pointee.path.append((component, -1))
    }

    func popPath() {
        state.pointee.path.removeLast()
    }

    /// Adds `count` values to `total` (saturating), checked against the reader's expansion
    /// budget: for the size of one property-list tree as it is built, and for all the trees
    /// handed out to the caller (each is a copy for the caller to walk).
    func countTreeValues(_ count: Int, into total: inout Int, uid: Int) throws(ArchiveError) {
        let (sum, overflow) = total.addingReportingOverflow(count)
        total = overflow ? Int.max : sum
        let budget = options.propertyList.maximumExpandedValueCount
        guard total <= budget else {
            throw error(.budgetExceeded, "property-list values expand to more than \(budget) values (shared containers referenced repeatedly; maximumExpandedValueCount)", uid: uid)
        }
    }

    /// Counts a tree handed out to the caller against the budget for all of them together.
    func chargeTreeValues(_ count: Int, uid: Int) throws(ArchiveError) {
        try countTreeValues(count, into: &state.pointee.treeValueCount, uid: uid)
    }

    @usableFromInline
    func withPath<R>(_ component: ArchiveKeyPath.Component, _ body: () throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        state.pointee.path.append((component, -1))
        // Popped on a throw too: a model may catch an error and go on decoding, and the paths
        // of what it decodes next must not keep the failed field's key.
        defer { state.pointee.path.removeLast() }
        return try body()
    }

    /// Refuses an object that stores one key twice. Apple's writers never do; a hand-made
    /// binary archive can, and then Core Foundation's binary reader (what NSKeyedUnarchiver
    /// reads with) takes the first value where its XML reader takes the last. An archive that
    /// means one thing to a validating service and another to the app it forwards to is a
    /// parser-differential hole, so typed decoding takes neither (Docs/Security.md).
    func checkKeysAreUnique(_ fields: ArchiveFields, uid: Int?) throws(ArchiveError) {
        guard let (storedKey, occurrences) = fields.firstDuplicateKey() else { return }
        throw ArchiveGraph.duplicateKeyError(storedKey: storedKey, occurrences: occurrences, in: keyPath, uid: uid.map { PropertyListUID(UInt64($0)) })
    }

    // MARK: Objects

    func object(_ uid: Int) -> ArchiveObjectView {
        store.object(uid)
    }

    /// The `$objects` index of a reference, checked: a reference can be built by hand and passed
    /// to a public decode function, so it is never trusted to be in range.
    ///
    /// Every reference followed passes through here, so this is also where the visit budget is
    /// counted: however an archive shares its objects, decoding it takes at most
    /// `maximumVisitCount` steps.
    @usableFromInline
    func index(_ uid: PropertyListUID) throws(ArchiveError) -> Int {
        guard uid.value < UInt64(objectCount) else {
            throw error(.invalidReference, "refers to object \(uid.value), but $objects has \(objectCount) entries")
        }
        state.pointee.visitCount += 1
        if state.pointee.visitCount > state.pointee.visitCheckpoint { try passVisitCheckpoint(uid: Int(uid.value)) }
        return Int(uid.value)
    }

    /// The archived `$classes` of the instance at `uid` (empty when it is not an instance).
    func classChain(ofInstance uid: Int) -> [String] {
        instance(uid)?.descriptor.classes ?? []
    }

    /// The class dictionary of the instance at `uid`.
    func classDescriptor(ofInstance uid: Int) -> ArchiveGraph.ClassDescriptor? {
        instance(uid)?.descriptor
    }

    // MARK: Fast paths for binary tables

    /// `store.instanceClassUID(_:)`, from the binary table when there is one: a `let` of the
    /// session, read without copying (and retaining) the store.
    @inline(__always)
    private func instanceClassUID(_ uid: Int) -> Int? {
        guard let table = binaryTable else { return store.instanceClassUID(uid) }
        let entry = table.entries[uid]
        return entry.kind == .instance ? Int(entry.link) : nil
    }

    /// `store.instance(_:)`, the same way.
    @inline(__always)
    private func instance(_ uid: Int) -> (instance: ArchiveInstanceView, descriptor: ArchiveGraph.ClassDescriptor)? {
        guard let table = binaryTable else { return store.instance(uid) }
        return table.instance(uid)
    }

    // The common field — a reference to a plain string or integer — read from a binary table
    // without making values or views. Each answers nil when anything is unusual (another kind
    // of entry, a primitive the policy refuses, a spent visit budget), and the caller then takes
    // the general path, which says what is wrong. A visit is counted only on success, so the
    // general path never counts one reference twice.

    /// The string of the plain string entry at `uid` (a UID already read from a validated field).
    @inline(__always)
    func plainString(at uid: Int) -> String? {
        guard uid < objectCount, state.pointee.visitCount < state.pointee.visitCheckpoint,
              let string = indexedPlainString(uid) else { return nil }
        state.pointee.visitCount += 1
        return string
    }

    /// The same for a UID that `index(_:)` has already checked and counted.
    @inline(__always)
    func indexedPlainString(_ uid: Int) -> String? {
        guard let table = binaryTable, admitsPlainStrings else { return nil }
        return table.plainString(entry: uid)
    }

    /// The value of the plain integer entry at `uid`, if it fits `I` (the visit is counted only
    /// then: the general path, which reports the misfit, counts it itself).
    @inline(__always)
    func plainInteger<I: FixedWidthInteger>(at uid: Int, as type: I.Type) -> I? {
        guard let table = binaryTable, uid < table.count, admitsPlainIntegers,
              state.pointee.visitCount < state.pointee.visitCheckpoint else { return nil }
        let exact: I
        if let value = table.plainInteger(entry: uid) {
            guard let fits = I(exactly: value) else { return nil }
            exact = fits
        } else if let value = table.plainUnsignedInteger(entry: uid), let fits = I(exactly: value) {
            // A UInt64 of 2^63 or more, read in place too (issue 51).
            exact = fits
        } else {
            return nil
        }
        state.pointee.visitCount += 1
        return exact
    }

    /// Checks a plain `$objects` value (no class to check) against the registry's primitive
    /// policy. The caller has already established that the requested type maps to it.
    func admitPrimitive(_ kind: ArchivePrimitivePolicy, uid: Int, requested: @autoclosure () -> String) throws(ArchiveError) {
        guard registry.primitives.contains(kind) else {
            let name = ArchivePrimitivePolicy.names.first { $0.kind == kind }?.name ?? "values"
            throw ArchiveError(.classNotAllowed, "\(describe(uid)) for \(requested()), but the registry's primitive policy does not admit plain \(name)",
                               keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), remedy: "registry.primitives.insert(.\(name))")
        }
    }

    @usableFromInline
    func index(_ reference: ArchiveReference) throws(ArchiveError) -> Int {
        try index(reference.uid)
    }

    /// A short description of what a UID holds, for "expected …, found …" messages.
    @usableFromInline
    func describe(_ uid: Int) -> String {
        store.describe(uid)
    }

    /// The instance at `uid` if its archived class is one of the Foundation class `kind`'s
    /// admitted names; nil if `uid` holds a plain value (the caller decides about those).
    @usableFromInline
    func foundationInstance(_ uid: Int, kind: FoundationClass, requested: @autoclosure () -> String) throws(ArchiveError) -> ArchiveInstanceView? {
        guard case .instance = store.object(uid) else { return nil }
        guard let (instance, descriptor) = instance(uid) else {
            throw error(.invalidClassReference, "$class does not refer to a class dictionary", uid: uid)
        }
        let classUID = instance.classUID
        if let found = foundationClass(classUID: classUID, name: descriptor.name) {
            guard found == kind else {
                let admitted = registry.foundationRefusal(name: descriptor.name, kind: kind).admitted
                throw ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is a Foundation \(found.rawValue), not admitted for \(requested()) (\(admitted))",
                                   keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes)
            }
            try checkKeysAreUnique(instance.fields, uid: uid)
            return instance
        }
        // A model class name is never re-read as a Foundation class through its chain.
        if registeredEntry(classUID: classUID, name: descriptor.name) == nil, registry.fallbackFoundationClass(chain: descriptor.classes, kind: kind) != nil {
            try checkKeysAreUnique(instance.fields, uid: uid)
            return instance
        }
        let refusal = registry.foundationRefusal(name: descriptor.name, kind: kind)
        throw ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is not admitted for \(requested()) (\(refusal.admitted))",
                           keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes, remedy: refusal.remedy)
    }

    /// The Foundation class of the instance at `uid`, for a value whose type the archive decides
    /// (``PropertyList/PropertyListValue``): only the names the registry lists for a Foundation
    /// class count, and any other class is refused before anything is made of it.
    func foundationKind(ofInstance uid: Int, requested: @autoclosure () -> String) throws(ArchiveError) -> FoundationClass {
        guard let (instance, descriptor) = instance(uid) else {
            throw error(.invalidClassReference, "$class does not refer to a class dictionary", uid: uid)
        }
        if let found = foundationClass(classUID: instance.classUID, name: descriptor.name) { return found }
        throw ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is not one of the Foundation classes admitted for \(requested())",
                           keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes)
    }

    // MARK: Registered models

    /// Decodes the object at `reference` as a registered type or family `T`. The archived class
    /// name is checked against the registry for `T` before anything is created — and again on
    /// every later reference to the same object.
    ///
    /// Inlinable, so that a model's module gets a copy for its own types: there the cast below is
    /// a class check, where unspecialized it is a generic cast of some 700 instructions.
    @inlinable
    func decodeModel<T>(_ type: T.Type, reference: ArchiveReference) throws(ArchiveError) -> T {
        let (model, uid) = try decodeModelValue(T.self, reference: reference)
        switch model {
        case .object(let object):
            // The object's class or one of its superclasses is `T`: then it is a `T`, and the
            // runtime's general cast is not needed.
            if T.self is AnyClass {
                let wanted = ObjectIdentifier(T.self)
                var candidate: AnyClass? = Swift.type(of: object)
                while let current = candidate {
                    if ObjectIdentifier(current) == wanted { return unsafeBitCast(object, to: T.self) }
                    candidate = _getSuperclass(current)
                }
            }
            switch object {
            case let typed as T: return typed
            default: throw castFailure(object, to: T.self, uid: uid)
            }
        case .value(let box):
            switch box.value {
            case let typed as T: return typed
            default: throw castFailure(box.value, to: T.self, uid: uid)
            }
        }
    }

    /// Everything `decodeModel` does but the cast: the model (made now or earlier) and its UID.
    @usableFromInline
    func decodeModelValue(_ requested: Any.Type, reference: ArchiveReference) throws(ArchiveError) -> (model: ArchiveMadeModel, uid: Int) {
        let uid = try index(reference)
        guard uid != 0 else { throw nullModelError(requested) }
        guard let family = family(forRequested: requested) else { throw unregisteredTypeError(requested, uid: uid) }
        // A reference to an object already decoded and already admitted for this family (a
        // shared object, a back-reference) takes what the checks below took the first time.
        if state.pointee.objectStates[uid] == .finished, let classUID = instanceClassUID(uid) {
            let familyKey = Self.packed(family)
            let slot = Int(state.pointee.modelSlots[uid])
            if familyKey >= 0, state.pointee.admittedFamilies[classUID] == familyKey, slot >= 0 {
                return (state.pointee.models[slot], uid)
            }
        }
        guard let (instance, descriptor) = instance(uid) else { throw notAnObjectError(family: family, uid: uid) }
        let entry: Int
        let classUID = instance.classUID
        if let registered = registeredEntry(classUID: classUID, name: descriptor.name) {
            let familyKey = Self.packed(family)
            guard (familyKey >= 0 && state.pointee.admittedFamilies[classUID] == familyKey) || registry.admits(registered, family: family) else {
                throw notAKindError(requested, registered: registered, family: family, descriptor: descriptor, uid: uid)
            }
            state.pointee.admittedFamilies[classUID] = familyKey
            entry = registered
        } else if let fallback = registry.fallbackEntry(chain: descriptor.classes, family: family) {
            entry = fallback.entry
        } else {
            throw unregisteredClassError(requested, family: family, descriptor: descriptor, uid: uid)
        }
        switch state.pointee.objectStates[uid] {
        case .finished:
            let slot = Int(state.pointee.modelSlots[uid])
            guard slot >= 0 else { throw objectStateError(.invalidState, descriptor: descriptor, uid: uid) }
            return (state.pointee.models[slot], uid)
        case .failed:
            throw objectStateError(.modelError, descriptor: descriptor, uid: uid)
        case .inProgress:
            throw objectStateError(.cyclicReference, descriptor: descriptor, uid: uid)
        case .untouched:
            break
        }
        let make = registry.entries[entry].make
        guard state.pointee.depth < options.maximumDepth else { throw depthLimitError(uid: uid) }
        guard state.pointee.stackLimit.hasRoom() else { throw stackExhausted(uid: uid) }
        try checkKeysAreUnique(instance.fields, uid: uid)
        state.pointee.objectStates[uid] = .inProgress
        state.pointee.depth += 1
        let decoder = KeyedArchiveDecoder(session: self, uid: uid, fields: instance.fields, classChain: descriptor.classes)
        if unreadFields != nil { beginUnreadFields(uid: uid, descriptor: descriptor, fields: instance.fields) }
        let value: ArchiveMadeModel
        do {
            value = try make(decoder)
        } catch {
            throw markFailed(error, entry: entry, descriptor: descriptor, uid: uid)
        }
        state.pointee.depth -= 1
        state.pointee.objectStates[uid] = .finished
        // A class dictionary of another shape (no `$classes`, `$classhints`): noted, so that the
        // model is written back with it (``ArchiveIdentityTable``).
        if let identities, !descriptor.isPlain, case .object(let object) = value { identities.recordClassDictionary(descriptor, of: object) }
        if let slot = Int32(exactly: state.pointee.models.count) {
            state.pointee.modelSlots[uid] = slot
            state.pointee.models.append(value)
        }
        return (value, uid)
    }

    /// Records an object for the unread-field report, out of line: inlined, the path-node code
    /// made every model decode's frame bigger.
    @inline(never)
    private func beginUnreadFields(uid: Int, descriptor: ArchiveGraph.ClassDescriptor, fields: ArchiveFields) {
        unreadFields?.begin(uid: uid, pathNode: currentPathNode(), classChain: descriptor.classes, storedKeys: fields.storedKeys)
    }

    /// The model of a registered class for an ``ArchiveValue`` (see
    /// ``ArchiveRegistry/decodesModelsInArchiveValues``): the instance at `uid`, whose class the
    /// registry names; nil for a struct model, which an ``ArchiveValue`` keeps as a reference.
    func archiveValueModel(uid: Int) throws(ArchiveError) -> (any KeyedArchivable & AnyObject)? {
        guard let (instance, descriptor) = instance(uid) else { return nil }
        var found = registeredEntry(classUID: instance.classUID, name: descriptor.name)
        if found == nil, registry.classFallback == .nearestRegisteredAncestor {
            found = descriptor.classes.dropFirst().lazy.compactMap { self.registry.entry(named: $0) }.first
        }
        guard let entry = found, registry.entries[entry].isClass else { return nil }
        // Asked for as its own registered type, which admits it.
        guard case .object(let object) = try decodeModelValue(registry.entries[entry].type, reference: ArchiveReference(uid: PropertyListUID(UInt64(uid)))).model,
              let model = object as? any KeyedArchivable & AnyObject else { return nil }
        return model
    }

    // The errors of decodeModelValue, out of line: built in place, their messages' temporaries
    // took half the stack a nesting level of models costs (Docs/Security.md, "Thread stacks").

    @inline(never)
    private func nullModelError(_ requested: Any.Type) -> ArchiveError {
        error(.valueNotFound, "expected \(requested), found $null")
    }

    @inline(never)
    private func unregisteredTypeError(_ requested: Any.Type, uid: Int) -> ArchiveError {
        ArchiveError(.typeNotRegistered, "\(requested) is not registered in the archive registry, so nothing is admitted for it",
                     keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: store.classDescriptor(of: uid)?.classes ?? [],
                     remedy: "registry.register(\(requested).self) before decoding it (or registerFamily for a protocol)")
    }

    @inline(never)
    private func notAnObjectError(family: (entry: Int, includesDescendants: Bool), uid: Int) -> ArchiveError {
        error(.typeMismatch, "expected an object of class \(registry.entries[family.entry].className), found \(describe(uid))", uid: uid)
    }

    @inline(never)
    private func notAKindError(_ requested: Any.Type, registered: Int, family: (entry: Int, includesDescendants: Bool),
                               descriptor: ArchiveGraph.ClassDescriptor, uid: Int) -> ArchiveError {
        let admitted = registry.admittedNames(family: family).joined(separator: ", ")
        let typeName = registry.entries[registered].typeName
        let named = descriptor.name == typeName ? descriptor.name.excerptForMessage(128) : "\(descriptor.name.excerptForMessage(128)) (\(typeName))"
        let remedy: String
        if registry.entries[family.entry].isClass, registry.entries[family.entry].ancestors.contains(registered) {
            // The object is of a superclass of the type asked for: registering anything
            // would be wrong; asking for the superclass is the way.
            remedy = "decode it as \(typeName), the superclass it is, and check for \(requested) with as?"
        } else {
            remedy = "none for \(requested): \(descriptor.name.excerptForMessage(128)) is registered as \(typeName); register \(typeName) with superclass: \(registry.entries[family.entry].typeName).self only if it really is one"
        }
        return ArchiveError(.classNotAllowed, "class \(named) is not a kind of \(requested); \(requested) admits \(admitted)",
                            keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes, remedy: remedy)
    }

    @inline(never)
    private func unregisteredClassError(_ requested: Any.Type, family: (entry: Int, includesDescendants: Bool), descriptor: ArchiveGraph.ClassDescriptor, uid: Int) -> ArchiveError {
        let admitted = registry.admittedNames(family: family).joined(separator: ", ")
        return ArchiveError(.classNotAllowed, "class \(descriptor.name.excerptForMessage(128)) is not registered; \(requested) admits \(admitted)",
                            keyPath: keyPath, uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes,
                            remedy: registry.remedy(admitting: descriptor.name, chain: descriptor.classes, family: family, requested: "\(requested)"))
    }

    /// The error of a reference to an object that is not untouched: `invalidState` (finished
    /// without a value), `modelError` (failed earlier) or `cyclicReference` (still in progress).
    @inline(never)
    private func objectStateError(_ code: ArchiveError.Code, descriptor: ArchiveGraph.ClassDescriptor, uid: Int) -> ArchiveError {
        let name = descriptor.name.excerptForMessage(128)
        switch code {
        case .invalidState:
            return error(.invalidState, "object #\(uid) (\(name)) is marked decoded but has no value", uid: uid)
        case .cyclicReference:
            return error(.cyclicReference, "object #\(uid) (\(name)) was asked for while it is still being decoded; decode back-references with decode(_:forKey:for:assign:)",
                         uid: uid, classChain: descriptor.classes)
        default:
            return state.pointee.failures[uid] ?? error(.modelError, "object #\(uid) (\(name)) failed to decode earlier", uid: uid)
        }
    }

    @inline(never)
    private func depthLimitError(uid: Int) -> ArchiveError {
        error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth)", uid: uid)
    }

    /// Marks an object whose initializer threw as failed, gives its depth back, and returns the
    /// error to throw. A model may catch it and go on: a later reference fails with it again.
    @inline(never)
    private func markFailed(_ thrown: any Error, entry: Int, descriptor: ArchiveGraph.ClassDescriptor, uid: Int) -> ArchiveError {
        // An ArchiveError the model made without a place gets the object's key path and UID.
        let failure = (thrown as? ArchiveError)?.located(keyPath: keyPath, uid: PropertyListUID(UInt64(uid)))
            ?? modelInitializerError(thrown, entry: entry, descriptor: descriptor, uid: uid)
        state.pointee.depth -= 1
        state.pointee.objectStates[uid] = .failed
        state.pointee.failures[uid] = failure
        return failure
    }

    @inline(never)
    private func modelInitializerError(_ error: any Error, entry: Int, descriptor: ArchiveGraph.ClassDescriptor, uid: Int) -> ArchiveError {
        ArchiveError(.modelError, "init(from:) of \(registry.entries[entry].typeName) threw: \(String(describing: error).escapedForMessage)", keyPath: keyPath,
                     uid: PropertyListUID(UInt64(uid)), classChain: descriptor.classes, underlyingDescription: "\(error)", underlyingError: error)
    }

    /// Looks up how much of the current thread's stack this decode may use: once per decode,
    /// on the thread that runs it.
    func beginStackWatch() {
        state.pointee.stackLimit = ThreadStackLimit.current()
    }

    /// The stop before the thread's stack runs out: the depth reached and what was left, so that
    /// a caller can tell a hostile archive from a legitimately deep one that needs a bigger
    /// stack. Out of line, so that the checks' frames do not hold its message.
    @inline(never)
    func stackExhausted(uid: Int) -> ArchiveError {
        let limit = state.pointee.stackLimit
        let stack = limit.threadStackSize.map { "\($0 >> 10) KiB" } ?? "unknown size"
        return error(.stackExhausted, "objects nest \(state.pointee.depth) deep and only \(max(0, limit.bytesLeft() &+ ThreadStackLimit.headroom) >> 10) KiB of this thread's stack (\(stack)) are left, under the \(ThreadStackLimit.headroom >> 10) KiB kept for the frames below; decode on a thread with a bigger stack (Docs/Security.md, \"Thread stacks\")", uid: uid)
    }

    /// The error of a model that is not the type asked for: a registration that names the wrong
    /// superclass.
    @usableFromInline
    func castFailure(_ value: Any, to requested: Any.Type, uid: Int) -> ArchiveError {
        let className = store.classDescriptor(of: uid)?.name ?? "?"
        return error(.typeMismatch, "class \(className.excerptForMessage(128)) decoded to \(Swift.type(of: value)), which is not a \(requested) (check the registration)", uid: uid)
    }

    // MARK: Foundation containers

    /// Decodes a collection once per (object, requested type): a shared array referenced from
    /// many places costs its elements once, and an array that contains itself is a cycle error
    /// rather than endless work.
    @inlinable
    func decodeContainer<T>(_ type: T.Type, uid: Int, count: Int, _ build: () throws(ArchiveError) -> T) throws(ArchiveError) -> T {
        let typeID = ObjectIdentifier(T.self)
        if let known = decodedContainer(uid: uid, type: typeID) {
            switch known {
            case let value as T: return value
            default: break
            }
        }
        try beginContainer(uid: uid, type: typeID, count: count, describing: T.self)
        let value: T
        do {
            value = try build()
        } catch {
            // Caught by a model, a failed collection must not stay "in progress".
            unmarkContainer(uid: uid)
            throw error
        }
        endContainer(uid: uid, type: typeID, value: value)
        if identities != nil { recordIdentity(value, uid: uid) }
        return value
    }

    /// The collection already decoded from `uid` as the type `type`, if any.
    @usableFromInline
    func decodedContainer(uid: Int, type: ObjectIdentifier) -> Any? {
        let slot = Int(state.pointee.valueSlots[uid])
        guard slot >= 0 else { return nil }
        let known = state.pointee.values[slot]
        if known.type == type { return known.value }
        return state.pointee.otherValues[ValueKey(uid: uid, type: type)]
    }

    /// Counts `count` more collection elements against `maximumTotalElementCount`: at the start of a
    /// collection, or, for a value whose size is known only once its bytes are read (an index
    /// path's indexes), when they have been read.
    func chargeElements(_ count: Int, uid: Int) throws(ArchiveError) {
        let (total, overflow) = state.pointee.elementCount.addingReportingOverflow(count)
        guard !overflow, total <= options.maximumTotalElementCount else {
            throw error(.budgetExceeded, "decoding more than \(options.maximumTotalElementCount) collection elements", uid: uid)
        }
        state.pointee.elementCount = total
    }

    /// Checks the cycle, element and depth limits and marks the collection as being decoded.
    @usableFromInline
    func beginContainer(uid: Int, type: ObjectIdentifier, count: Int, describing requested: Any.Type) throws(ArchiveError) {
        let key = ValueKey(uid: uid, type: type)
        if state.pointee.inProgressCounts[uid] > 0, state.pointee.inProgress.contains(key) {
            throw error(.cyclicReference, "collection #\(uid) contains itself as \(requested)", uid: uid)
        }
        try chargeElements(count, uid: uid)
        // The stack below is at most maximumDepth deep; so is each UID's count, checked here
        // against the counter's width too.
        guard state.pointee.depth < options.maximumDepth, state.pointee.inProgressCounts[uid] < UInt16.max else {
            throw error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth)", uid: uid)
        }
        guard state.pointee.stackLimit.hasRoom() else { throw stackExhausted(uid: uid) }
        state.pointee.depth += 1
        state.pointee.inProgressCounts[uid] += 1
        state.pointee.inProgress.append(key)
    }

    /// Unmarks a collection being decoded (its decode finished or threw; after a throw, a
    /// later reference decodes it again).
    @usableFromInline
    func unmarkContainer(uid: Int) {
        state.pointee.inProgress.removeLast()
        state.pointee.inProgressCounts[uid] -= 1
        state.pointee.depth -= 1
    }

    /// Unmarks the collection and keeps its value for later references.
    @usableFromInline
    func endContainer(uid: Int, type: ObjectIdentifier, value: Any) {
        unmarkContainer(uid: uid)
        remember(value, uid: uid, type: type)
    }

    /// Keeps the value decoded from `uid` as `type` for later references.
    @inline(__always)
    func remember(_ value: Any, uid: Int, type: ObjectIdentifier) {
        if state.pointee.valueSlots[uid] < 0, let newSlot = Int32(exactly: state.pointee.values.count) {
            state.pointee.valueSlots[uid] = newSlot
            state.pointee.values.append(DecodedValue(type: type, value: value))
        } else {
            state.pointee.otherValues[ValueKey(uid: uid, type: type)] = value
        }
    }

    // MARK: Deferred back-references

    /// Registers a back-reference: `work` runs once the graph is complete, with `holder` (the
    /// decoder of the object that registered it) and `reference`.
    @usableFromInline
    func enqueue(holder: KeyedArchiveDecoder, reference: ArchiveReference?,
                 _ work: @escaping (KeyedArchiveDecoder, ArchiveReference?) throws(ArchiveError) -> Void) {
        state.pointee.deferred.append(DeferredWork(pathNode: currentPathNode(), holder: holder, reference: reference, work: work))
    }

    /// The node of `pathNodes` that stands for the current key path, made now for the levels
    /// that have none: a back-reference or an unread-field record keeps its place in a few
    /// bytes instead of a copy of its whole path.
    @inline(__always)
    func currentPathNode() -> Int32 {
        // The deepest level whose path already has a node; the levels above it get theirs.
        // Work registered while resolving (work may register more) hangs from the prefix.
        let depth = state.pointee.path.count
        var known = depth
        while known > 0, state.pointee.path[known &- 1].node < 0 { known &-= 1 }
        var node = known > 0 ? state.pointee.path[known &- 1].node : state.pointee.pathPrefix
        for level in known..<depth {
            // 2^31 nodes would take more memory than any decode has; stop rather than wrap.
            guard let next = Int32(exactly: state.pointee.pathNodes.count) else { break }
            state.pointee.pathNodes.append((node, state.pointee.path[level].component))
            state.pointee.path[level].node = next
            node = next
        }
        return node
    }

    /// The key path a node of `pathNodes` stands for (empty for -1).
    func keyPath(ofNode start: Int32) -> ArchiveKeyPath {
        var node = start
        var components: [ArchiveKeyPath.Component] = []
        while node >= 0, Int(node) < state.pointee.pathNodes.count {
            let (parent, component) = state.pointee.pathNodes[Int(node)]
            components.append(component)
            node = parent
        }
        state.pointee.pathComponentsBuilt &+= components.count
        return ArchiveKeyPath(components.reversed())
    }

    /// Drops the back-references of a failed decode. Their closures hold decoders, which hold
    /// this session: kept, they would leak the session, its graph and every object decoded
    /// (fuzz finding F4).
    func discardDeferred() {
        clearDeferred()
    }

    private func clearDeferred() {
        state.pointee.deferred.removeAll()
        state.pointee.pathPrefix = -1
        // The unread-field records keep their nodes until the report.
        guard unreadFields == nil else { return }
        state.pointee.pathNodes.removeAll()
        // The path's levels name nodes that are gone now.
        for level in state.pointee.path.indices { state.pointee.path[level].node = -1 }
    }

    /// Runs the back-references registered while decoding, once every object they may point to
    /// has been built. Work may register more work; it runs in registration order.
    func resolveDeferred() throws(ArchiveError) {
        guard !state.pointee.deferred.isEmpty else { return }
        let outer = state.pointee.path
        state.pointee.path.removeAll(keepingCapacity: true)
        var position = 0
        while position < state.pointee.deferred.count {
            let next = state.pointee.deferred[position]
            position += 1
            let owner = next.holder.objectUID
            if owner >= 0, owner < state.pointee.objectStates.count, state.pointee.objectStates[owner] == .failed { continue }
            // Work pops what it pushes (on a throw too), so the path is normally empty here;
            // `removeAll` of an empty array would still cost a generic call per entry.
            if !state.pointee.path.isEmpty { state.pointee.path.removeAll(keepingCapacity: true) }
            state.pointee.pathPrefix = next.pathNode
            try next.work(next.holder, next.reference)
        }
        state.pointee.path = outer
        clearDeferred()
    }
}
