@_spi(KeyedArchiveInternals) import PropertyList

/// The state of one archive being encoded: the object table, identity and value sharing, the
/// stack of objects whose fields are being written, and the key path for errors.
final class ArchiveEncodingSession {
    struct Frame {
        /// UID of the object, or -1 for `$top`.
        let uid: Int
        /// Where the object's fields start in `openFields`: an object's fields are always the
        /// top of that list while it is being encoded (an inner object's are moved to the table
        /// when it ends).
        let firstField: Int
        var unkeyedCount = 0
    }

    let registry: ArchiveRegistry
    let options: ArchiveWritingOptions

    /// Everything that changes while encoding, behind a pointer: every access to a class's
    /// `var` is checked for exclusivity at run time, and those checks were a seventh of a fleet
    /// encode. The session is confined to one archiver on one thread.
    private struct State {
        var frames: [Frame] = [Frame(uid: -1, firstField: 0)]
        /// The innermost frame and its object's UID, the only ones an encoder may write to;
        /// -1 once the encoding failed or finished. Kept apart from `frames` so that the check
        /// every field makes is two comparisons.
        var activeFrame = 0
        var activeOwner = -1
        /// The fields of the objects being encoded, innermost last. They are moved to the
        /// table's flat field lists when their object ends, so that no object has lists of its own.
        /// Only the first `openCount` entries are open fields: the list never shrinks (the
        /// generic `removeLast(_:)` cost more than the move itself), later fields overwrite.
        var openFields: [(key: Int32, value: ArchiveObjectTable.FieldValue)] = []
        var openCount = 0
        /// The elements of the reference lists being encoded, innermost last (an element's
        /// object may encode lists of its own); the first `openListCount` are open.
        var openListUIDs: [PropertyListUID] = []
        var openListCount = 0
        /// Stored keys (escaped) by text → their number in `table.keyTexts`.
        var keyNumbers = ArchiveUIDTable<String>()
        /// User keys (before escaping) → their number.
        var keyMemo = StringWordsMemo()
        var path: [ArchiveKeyPath.Component] = []
        /// How many components the key paths made so far hold together (errors' work on paths,
        /// which tests hold linear in the depth).
        var pathComponentsBuilt = 0
        /// Instances to encode before `interruption` is asked again; the first is asked at once.
        var instancesUntilCheck = 1
        var instanceUIDs = ArchiveUIDTable<UInt64>()
        /// Every instance that got a UID is kept alive until the end, so that its ObjectIdentifier
        /// cannot be reused by a new object (a temporary created in some `encode(to:)`).
        var retained: [AnyObject] = []
        var stringUIDs = ArchiveUIDTable<String>()
        /// Strings met more than once → their UID, found without hashing their text.
        var repeatedStrings = StringWordsMemo()
        var scalarUIDs: [PropertyListValue: Int] = [:]
        /// Integers in the ordinary (not 128-bit) form: the same sharing as `scalarUIDs`, keyed
        /// without hashing a whole `PropertyListValue`.
        var integerUIDs = ArchiveUIDTable<UInt64>()
        /// Class chain and class UID of each model type already encoded (by metatype), so that
        /// the registry lookup, the chain and its hashing happen once per type, not per object.
        /// Most archives have a few model types: those are found by comparison, without hashing;
        /// past `modelTypeScanLimit` of them, through `modelTypeIndex`.
        var modelTypes: [(type: ObjectIdentifier, chain: [String], classUID: Int)] = []
        var modelTypeIndex: [ObjectIdentifier: Int] = [:]
        var dataUIDs: [[UInt8]: Int] = [:]
        var classUIDs: [[ArchiveExactKey]: Int] = [:]
        /// Class dictionaries of another shape than `$classname` and `$classes`, by
        /// ``ArchiveEncodingSession/storedClassKey(_:)``.
        var storedClassUIDs: [[ArchiveExactKey]: Int] = [:]
        var pendingConditionals: [(owner: Int, key: Int32, object: ObjectIdentifier)] = []
        var recentChains: [(chain: [String], uid: Int)] = []
        var table = ArchiveObjectTable()
        var failed = false
        var finished = false
        /// The floor of the thread stack the encode under way may use, looked up as each
        /// top-level object starts (on the thread that encodes it).
        var stackLimit = ThreadStackLimit.unlimited
        /// The `$classes` the next object encoded takes instead of its own, when it names the
        /// same class first: how an unchanged value gets the chain its source object had
        /// (``ArchiveIdentityTable``).
        var chainOverride: [String]?
        /// The chain each object that took an override is written with, by UID, until its
        /// class is written (after its fields).
        var chainOverrides: [Int: [String]] = [:]
        /// ``ArchiveEncodingSession/identities``, here so that reading it takes no exclusivity check.
        var identities: ArchiveIdentityTable?
        var sharedReferences: [Int: ArchiveReference] = [:]
        /// The archived objects whose copies are being written as their decoded shared object
        /// or model: a copy met again inside is written itself, not redirected once more.
        var redirectedCopies: Set<Int> = []
    }
    private let state: UnsafeMutablePointer<State>

    var table: ArchiveObjectTable {
        get { state.pointee.table }
        _modify { yield &state.pointee.table }
    }
    var failed: Bool {
        get { state.pointee.failed }
        set {
            state.pointee.failed = newValue
            if newValue { state.pointee.activeFrame = -1 }
        }
    }

    /// Cancellation and the time budget, asked every ``WorkInterruption/interval`` objects.
    let interruption: WorkInterruption

    init(registry: ArchiveRegistry, options: ArchiveWritingOptions) {
        self.registry = registry
        self.options = options
        interruption = WorkInterruption(maximumDuration: options.maximumDuration, respondsToCancellation: options.respondsToCancellation)
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var keyPath: ArchiveKeyPath {
        state.pointee.pathComponentsBuilt &+= state.pointee.path.count
        return ArchiveKeyPath(state.pointee.path)
    }

    /// The components of every key path made by this session so far.
    var pathComponentsBuilt: Int { state.pointee.pathComponentsBuilt }

    /// The values a decode noted (``KeyedArchiver/identities``), and the object written for
    /// each archived object they came from.
    var identities: ArchiveIdentityTable? {
        get { state.pointee.identities }
        set { state.pointee.identities = newValue }
    }
    /// Runs `encode` with the copies of `uid` not redirected (see `State.redirectedCopies`);
    /// nil when they already are not.
    func redirectingCopies(of uid: Int, _ encode: () throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) -> ArchiveReference? {
        guard state.pointee.redirectedCopies.insert(uid).inserted else { return nil }
        defer { state.pointee.redirectedCopies.remove(uid) }
        return try encode()
    }

    var sharedReferences: [Int: ArchiveReference] {
        get { state.pointee.sharedReferences }
        _modify { yield &state.pointee.sharedReferences }
    }

    /// Takes the pending chain override for the object `uid`, about to be written with `chain`:
    /// it is kept for the object when it names the same class first. Taken before the object's
    /// fields are encoded, so that none of their objects takes it.
    private func takeChainOverride(uid: Int, chain: [String]) {
        guard let override = state.pointee.chainOverride else { return }
        state.pointee.chainOverride = nil
        if let first = override.first, let own = chain.first, first.isExactlyEqual(to: own) {
            state.pointee.chainOverrides[uid] = override
        }
    }

    /// Runs `encode` with `chain` as the `$classes` of the first object it writes (when that
    /// object names the same class first).
    func withChain(_ chain: [String]?, _ encode: () throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) -> ArchiveReference {
        guard let chain else { return try encode() }
        state.pointee.chainOverride = chain
        defer { state.pointee.chainOverride = nil }
        return try encode()
    }

    func error(_ code: ArchiveError.Code, _ message: String) -> ArchiveError {
        ArchiveError(code, message, keyPath: keyPath)
    }

    // MARK: Fields

    /// - Parameter owner: the UID of the object the encoder was made for (-1 for `$top`): an
    ///   encoder kept past its `encode(to:)` call must not write into a later object that happens
    ///   to sit at the same depth.
    func checkUsable(frame index: Int, owner: Int) throws(ArchiveError) {
        // The common case, two comparisons: a failed or finished encoding has no active frame.
        if index == state.pointee.activeFrame && owner == state.pointee.activeOwner { return }
        guard !state.pointee.failed, !state.pointee.finished else {
            throw error(.invalidState, state.pointee.finished ? "the archive was already finished" : "an earlier error ended this encoding")
        }
        guard index == state.pointee.frames.count - 1, state.pointee.frames[index].uid == owner else {
            throw error(.invalidState, "an encoder was used outside the encode(to:) call it was passed to")
        }
    }

    /// The number of a user key (escaped as Apple does when it starts with `$`).
    func fieldKey(_ key: String) throws(ArchiveError) -> Int32 {
        // Models pass the same few key literals for every object: their words find the number
        // without hashing or escaping the text again.
        guard let words = key.representationWords else { return try storedFieldKey(ArchiveKeys.escape(key)) }
        if let known = state.pointee.keyMemo.value(for: words) { return Int32(truncatingIfNeeded: known) }
        let number = try storedFieldKey(ArchiveKeys.escape(key))
        state.pointee.keyMemo.remember(Int(number), for: key, words: words)
        return number
    }

    /// The number of a key exactly as stored (`$0`, a raw field).
    func storedFieldKey(_ storedKey: String) throws(ArchiveError) -> Int32 {
        let next = state.pointee.table.keyTexts.count
        if let known = state.pointee.keyNumbers.existingUID(for: storedKey, insertingIfAbsent: next) {
            return Int32(truncatingIfNeeded: known)
        }
        guard let number = Int32(exactly: next) else {
            failed = true
            throw error(.invalidState, "more than \(Int32.max) distinct keys in one archive")
        }
        state.pointee.table.keyTexts.append(storedKey)
        return number
    }

    /// Any property-list value as a field.
    func setField(propertyList value: PropertyListValue, key: Int32, frame index: Int) {
        setField(state.pointee.table.fieldValue(value), key: key, frame: index)
    }

    /// Setting a key twice replaces the value where the key first stood, as a CFDictionary does.
    func setField(_ value: ArchiveObjectTable.FieldValue, key: Int32, frame index: Int) {
        let first = state.pointee.frames[index].firstField
        let count = state.pointee.openCount
        var position = count
        while position > first {
            position &-= 1
            if state.pointee.openFields[position].key == key {
                state.pointee.openFields[position].value = value
                // The last value set wins, as in Apple's archiver: a conditional reference this
                // key held before must not be patched back in at the end.
                if !state.pointee.pendingConditionals.isEmpty {
                    let owner = state.pointee.frames[index].uid
                    state.pointee.pendingConditionals.removeAll { $0.owner == owner && $0.key == key }
                }
                return
            }
        }
        if count < state.pointee.openFields.count {
            state.pointee.openFields[count] = (key, value)
        } else {
            state.pointee.openFields.append((key, value))
        }
        state.pointee.openCount = count &+ 1
    }

    // MARK: Reference lists

    /// Where a reference list being started begins on the open-list stack.
    func beginUIDList() -> Int { state.pointee.openListCount }

    func appendToUIDList(_ uid: PropertyListUID) {
        let count = state.pointee.openListCount
        if count < state.pointee.openListUIDs.count {
            state.pointee.openListUIDs[count] = uid
        } else {
            state.pointee.openListUIDs.append(uid)
        }
        state.pointee.openListCount = count &+ 1
    }

    /// Moves the list begun at `start` (every list begun after it has ended) to the table.
    func endUIDList(from start: Int) -> ArchiveObjectTable.FieldValue {
        let end = state.pointee.openListCount
        state.pointee.openListCount = start
        let tableStart = state.pointee.table.listUIDs.count
        let count = end &- start
        guard let start32 = Int32(exactly: tableStart), let count32 = Int32(exactly: count), Int32(exactly: tableStart + count) != nil else {
            // Past 2³¹ list elements in one archive: kept as a plain array.
            let elements = state.pointee.openListUIDs[start..<end].map(PropertyListValue.uid)
            return state.pointee.table.fieldValue(.array(elements))
        }
        state.pointee.openListUIDs.withUnsafeBufferPointer { open in
            state.pointee.table.listUIDs.append(contentsOf: UnsafeBufferPointer(rebasing: open[start..<end]))
        }
        return .uidList(start: start32, count: count32)
    }

    func nextUnkeyedKey(frame index: Int) -> String {
        let key = "$\(state.pointee.frames[index].unkeyedCount)"
        state.pointee.frames[index].unkeyedCount += 1
        return key
    }

    /// Runs `body` with `component` on the key path; a failure marks the session unusable.
    func withPath<R>(_ component: ArchiveKeyPath.Component, _ body: () throws(ArchiveError) -> R) throws(ArchiveError) -> R {
        state.pointee.path.append(component)
        do {
            let result = try body()
            state.pointee.path.removeLast()
            return result
        } catch {
            failed = true
            throw error
        }
    }

    // MARK: Plain objects

    private func append(_ entry: ArchiveObjectTable.Entry) -> ArchiveReference {
        state.pointee.table.entries.append(entry)
        return ArchiveReference(uid: PropertyListUID(UInt64(state.pointee.table.entries.count - 1)))
    }

    func encodeString(_ string: String) -> ArchiveReference {
        let shared = options.sharing == .byValue || Self.isTaggedPointerString(string)
        guard shared else { return append(.string(string)) }
        let words = string.representationWords
        if let words, let known = state.pointee.repeatedStrings.value(for: words) {
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        if let known = state.pointee.stringUIDs.existingUID(for: string, insertingIfAbsent: state.pointee.table.entries.count) {
            // Only strings seen twice enter the memo: unique ones (names, serial numbers) would
            // push out the ones that repeat.
            if let words { state.pointee.repeatedStrings.remember(known, for: string, words: words) }
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        return append(.string(string))
    }

    /// An NSNumber: a plain integer, real or boolean in `$objects`.
    func encodeNumber(_ value: PropertyListValue) -> ArchiveReference {
        if case .integer(let integer) = value, !integer.isStoredAs128Bit, let signed = integer.int64Value {
            guard options.sharing == .byValue || (signed >= -(1 << 55) && signed < (1 << 55)) else {
                return append(.integer(integer))
            }
            let next = state.pointee.table.entries.count
            if let known = state.pointee.integerUIDs.existingUID(for: UInt64(bitPattern: signed), insertingIfAbsent: next) {
                return ArchiveReference(uid: PropertyListUID(UInt64(known)))
            }
            return append(.integer(integer))
        }
        var shared = options.sharing == .byValue
        switch value {
        case .bool: shared = true
        case .integer(let integer):
            if let signed = integer.int64Value, !integer.isStoredAs128Bit, signed >= -(1 << 55), signed < (1 << 55) { shared = true }
        case .real: shared = true
        default: break
        }
        let entry: ArchiveObjectTable.Entry
        switch value {
        case .integer(let integer): entry = .integer(integer)
        case .real(let real): entry = .real(real)
        case .bool(let flag): entry = .bool(flag)
        default: entry = .null
        }
        guard shared else { return append(entry) }
        if let known = state.pointee.scalarUIDs[value] { return ArchiveReference(uid: PropertyListUID(UInt64(known))) }
        let reference = append(entry)
        state.pointee.scalarUIDs[value] = Int(reference.uid.value)
        return reference
    }

    func encodeData(_ bytes: [UInt8]) -> ArchiveReference {
        guard options.sharing == .byValue else { return append(.data(bytes)) }
        if let known = state.pointee.dataUIDs[bytes] { return ArchiveReference(uid: PropertyListUID(UInt64(known))) }
        let reference = append(.data(bytes))
        state.pointee.dataUIDs[bytes] = Int(reference.uid.value)
        return reference
    }

    /// A plain value that stands for one instance: encoded once, then referred to.
    func encodePlain(_ value: PropertyListValue, identity: AnyObject) throws(ArchiveError) -> ArchiveReference {
        if let known = state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] {
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        let reference: ArchiveReference
        let byValue = options.sharing == .byValue
        switch value {
        // The caller said which values are one instance, so in Apple's mode nothing else is merged.
        case .string(let string): reference = byValue ? encodeString(string) : append(.string(string))
        case .integer(let integer): reference = byValue ? encodeNumber(value) : append(.integer(integer))
        case .real(let real): reference = byValue ? encodeNumber(value) : append(.real(real))
        case .bool: reference = encodeNumber(value)
        case .data(let bytes): reference = encodeData(bytes)
        default:
            failed = true
            throw error(.invalidState, "\(value.kindNameWithArticle) cannot stand as a plain object of its own")
        }
        state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] = Int(reference.uid.value)
        state.pointee.retained.append(identity)
        return reference
    }

    /// The object already written for `identity`, if any (``ArchiveSharedObject`` encodes once).
    func knownReference(for identity: AnyObject) -> ArchiveReference? {
        state.pointee.instanceUIDs[object: ObjectIdentifier(identity)].map { ArchiveReference(uid: PropertyListUID(UInt64($0))) }
    }

    /// Records that `identity` stands for the object at `reference`, written without it (a value
    /// that cannot contain a reference back to itself, so none was needed while writing it).
    func remember(identity: AnyObject, as reference: ArchiveReference) {
        state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] = Int(reference.uid.value)
        state.pointee.retained.append(identity)
    }

    /// Whether a Mac holds this string as a tagged pointer (one instance per value): up to 7
    /// ASCII characters, 8–9 from a 64-character alphabet, 10–11 from a 32-character one.
    static func isTaggedPointerString(_ string: String) -> Bool {
        let units = Array(string.utf16)
        if units.isEmpty { return true }
        if units.count <= 7 { return units.allSatisfy { $0 < 0x80 } }
        let alphabet = units.count <= 9 ? sixBitAlphabet : (units.count <= 11 ? fiveBitAlphabet : [])
        return !alphabet.isEmpty && units.allSatisfy { alphabet.contains($0) }
    }

    private static let sixBitAlphabet = Set("eilotrm.apdnsIc ufkMShjTRxgC4013bDNvwyUL2O856P-B79AFKEWV_zGJ/HYX".utf16)
    private static let fiveBitAlphabet = Set("eilotrm.apdnsIc ufkMShjTRxgC4013".utf16)

    // MARK: Instances

    func classUID(chain: [String]) -> Int {
        // The first few chains are found by comparing (a collection's chain comes with every
        // NSArray or NSDictionary), the others by hashing.
        for recent in state.pointee.recentChains where recent.chain.isSameStorage(as: chain) { return recent.uid }
        for recent in state.pointee.recentChains where recent.chain.isExactlyEqual(to: chain) { return recent.uid }
        let key = chain.map(ArchiveExactKey.init)
        if let known = state.pointee.classUIDs[key] { return known }
        let name = chain.first ?? "NSObject"
        let reference = append(.classDescriptor(name: name, classes: chain))
        state.pointee.classUIDs[key] = Int(reference.uid.value)
        if state.pointee.recentChains.count < 8 { state.pointee.recentChains.append((chain, Int(reference.uid.value))) }
        return Int(reference.uid.value)
    }

    /// The UID of a class dictionary of another shape than `$classname` and `$classes` (no
    /// `$classes`, or `$classhints`), written as it is described.
    func classUID(storedAs descriptor: ArchiveGraph.ClassDescriptor) -> Int {
        let key = Self.storedClassKey(descriptor)
        if let known = state.pointee.storedClassUIDs[key] { return known }
        let reference = append(.storedClassDescriptor(descriptor))
        state.pointee.storedClassUIDs[key] = Int(reference.uid.value)
        return Int(reference.uid.value)
    }

    /// A descriptor as exact keys: the name, the lengths of its lists (which say where each
    /// ends, and whether each is present), then the names of each.
    static func storedClassKey(_ descriptor: ArchiveGraph.ClassDescriptor) -> [ArchiveExactKey] {
        let shape = "\(descriptor.storesClasses ? descriptor.classes.count : -1) \(descriptor.hints?.count ?? -1)"
        return ([descriptor.name, shape] + descriptor.classes + (descriptor.hints ?? [])).map(ArchiveExactKey.init)
    }

    /// The stop before the thread's stack runs out (see the decoding session's).
    @inline(never)
    private func stackExhausted() -> ArchiveError {
        let limit = state.pointee.stackLimit
        let stack = limit.threadStackSize.map { "\($0 >> 10) KiB" } ?? "unknown size"
        return error(.stackExhausted, "objects nest \(state.pointee.frames.count &- 1) deep while encoding and only \(max(0, limit.bytesLeft() &+ ThreadStackLimit.headroom) >> 10) KiB of this thread's stack (\(stack)) are left, under the \(ThreadStackLimit.headroom >> 10) KiB kept for the frames below; encode on a thread with a bigger stack (Docs/Security.md, \"Thread stacks\")")
    }

    /// Encodes an object with a class: it takes its UID first, then its fields are written
    /// (their objects follow it depth-first), then its class dictionary is appended if this is
    /// the class's first use — Apple's order (format-notes §4).
    /// - Parameter identityIsNew: the caller has just looked `identity` up and not found it.
    /// - Parameter descriptor: the class dictionary to write instead of `chain`'s, when it has
    ///   another shape (no `$classes`, or `$classhints`).
    func encodeInstance(chain: [String], descriptor: ArchiveGraph.ClassDescriptor? = nil, identity: AnyObject?, identityIsNew: Bool = false, type: ObjectIdentifier? = nil,
                        body: (KeyedArchiveEncoder) throws -> Void) throws(ArchiveError) -> ArchiveReference {
        guard state.pointee.frames.count <= options.maximumDepth else {
            failed = true
            throw error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth) while encoding")
        }
        if state.pointee.frames.count == 1 {
            state.pointee.stackLimit = ThreadStackLimit.current()
        } else if !state.pointee.stackLimit.hasRoom() {
            failed = true
            throw stackExhausted()
        }
        if !identityIsNew, let identity, let known = state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] {
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        // An object of a value's stored copy that stands for an archived object already written
        // (or being written) through another copy or value: that object (``ArchiveIdentityTable``).
        var sourceUID: Int?
        if let identity, let identities = state.pointee.identities, let source = identities.sourceUID(of: identity) {
            if let known = state.pointee.sharedReferences[source] { return known }
            sourceUID = source
        }
        let uid = state.pointee.table.entries.count
        if let sourceUID { state.pointee.sharedReferences[sourceUID] = ArchiveReference(uid: PropertyListUID(UInt64(uid))) }
        state.pointee.instancesUntilCheck &-= 1
        if state.pointee.instancesUntilCheck <= 0 {
            state.pointee.instancesUntilCheck = WorkInterruption.interval
            if let stop = interruption.stop() {
                failed = true
                throw ArchiveError(stop, keyPath: keyPath)
            }
        }
        if state.pointee.chainOverride != nil { takeChainOverride(uid: uid, chain: chain) }
        state.pointee.table.entries.append(.reserved)
        if let identity {
            state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] = uid
            state.pointee.retained.append(identity)
        }
        let typePosition = type.map(modelTypePosition) ?? -1
        state.pointee.frames.append(Frame(uid: uid, firstField: state.pointee.openCount))
        state.pointee.activeFrame = state.pointee.frames.count - 1
        state.pointee.activeOwner = uid
        let encoder = KeyedArchiveEncoder(session: self, frame: state.pointee.frames.count - 1, owner: uid)
        do {
            try body(encoder)
        } catch let failure as ArchiveError {
            failed = true
            throw failure.located(keyPath: keyPath, uid: PropertyListUID(UInt64(uid)))
        } catch {
            failed = true
            throw ArchiveError(.modelError, "encode(to:) of \(chain.first?.escapedForMessage ?? "?") threw: \(String(describing: error).escapedForMessage)", keyPath: keyPath,
                               uid: PropertyListUID(UInt64(uid)), classChain: chain, underlyingDescription: "\(error)", underlyingError: error)
        }
        let finished = state.pointee.frames.removeLast()
        // A failure inside `body` threw above, so the encoding is still usable here.
        state.pointee.activeFrame = state.pointee.frames.count - 1
        state.pointee.activeOwner = state.pointee.frames[state.pointee.activeFrame].uid
        var classUID = typePosition >= 0 ? state.pointee.modelTypes[typePosition].classUID : -1
        // A model decoded from a class dictionary of another shape, written back with it (the
        // type's usual class UID left as it is for its other objects).
        if let identity, let stored = state.pointee.identities?.classDictionary(of: identity), let name = chain.first, stored.name.isExactlyEqual(to: name) {
            classUID = self.classUID(storedAs: stored)
        }
        if classUID < 0, let descriptor, !descriptor.isPlain {
            if !state.pointee.chainOverrides.isEmpty { state.pointee.chainOverrides.removeValue(forKey: uid) }
            classUID = self.classUID(storedAs: descriptor)
        }
        if classUID < 0 {
            if !state.pointee.chainOverrides.isEmpty, let override = state.pointee.chainOverrides.removeValue(forKey: uid) {
                classUID = self.classUID(chain: override)
            } else {
                classUID = self.classUID(chain: chain)
                if typePosition >= 0 { state.pointee.modelTypes[typePosition].classUID = classUID }
            }
        }
        let fields = moveOpenFields(from: finished.firstField)
        state.pointee.table.entries[uid] = .instance(classUID: classUID, fields: fields)
        return ArchiveReference(uid: PropertyListUID(UInt64(uid)))
    }

    /// Moves the open fields from `first` on to the end of the table's field lists.
    private func moveOpenFields(from first: Int) -> Range<Int> {
        let start = state.pointee.table.fieldKeys.count
        let end = state.pointee.openCount
        // Element by element: an object has a few fields, and `append(contentsOf:)` costs more
        // in setting up than it saves in copying (a slice goes through the generic sequence
        // path, an iterator call per element).
        var position = first
        while position < end {
            let field = state.pointee.openFields[position]
            state.pointee.table.fieldKeys.append(field.key)
            state.pointee.table.fieldValues.append(field.value)
            position &+= 1
        }
        state.pointee.openCount = first
        return start..<state.pointee.table.fieldKeys.count
    }

    func encodeModel<T: KeyedArchivable>(_ value: T) throws(ArchiveError) -> ArchiveReference {
        try encodeModel(value, object: (type(of: value) is AnyClass) ? value as AnyObject : nil)
    }

    /// A class model: no conversion to AnyObject (which, through a generic value, asks the
    /// runtime for a bridging conformance on every call).
    func encodeClassModel<T: KeyedArchivable & AnyObject>(_ value: T) throws(ArchiveError) -> ArchiveReference {
        try encodeModel(value, object: value)
    }

    private static let modelTypeScanLimit = 16

    /// Where a model type is in `modelTypes`, or -1.
    private func modelTypePosition(_ type: ObjectIdentifier) -> Int {
        let count = state.pointee.modelTypes.count
        guard count <= Self.modelTypeScanLimit else { return state.pointee.modelTypeIndex[type] ?? -1 }
        var position = 0
        while position < count {
            if state.pointee.modelTypes[position].type == type { return position }
            position += 1
        }
        return -1
    }

    private func addModelType(_ type: ObjectIdentifier, chain: [String]) {
        state.pointee.modelTypes.append((type, chain, -1))
        let count = state.pointee.modelTypes.count
        if count == Self.modelTypeScanLimit + 1 {
            for (position, known) in state.pointee.modelTypes.enumerated() { state.pointee.modelTypeIndex[known.type] = position }
        } else if count > Self.modelTypeScanLimit + 1 {
            state.pointee.modelTypeIndex[type] = count - 1
        }
    }

    private func encodeModel<T: KeyedArchivable>(_ value: T, object: AnyObject?) throws(ArchiveError) -> ArchiveReference {
        try encodeModel(ofType: type(of: value), identity: object) { encoder in try value.encode(to: encoder) }
    }

    /// A model of `dynamicType` (a class instance `identity` found again by identity) whose
    /// fields `body` writes.
    @inline(__always)
    func encodeModel(ofType dynamicType: Any.Type, identity object: AnyObject?, body: (KeyedArchiveEncoder) throws -> Void) throws(ArchiveError) -> ArchiveReference {
        if let object, let known = state.pointee.instanceUIDs[object: ObjectIdentifier(object)] {
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        let typeID = ObjectIdentifier(dynamicType)
        let chain: [String]
        let position = modelTypePosition(typeID)
        if position >= 0 {
            chain = state.pointee.modelTypes[position].chain
        } else {
            guard let entry = registry.entry(forType: dynamicType) else {
                failed = true
                throw ArchiveError(.typeNotRegistered, "\(dynamicType) is not registered in the archive registry", keyPath: keyPath,
                                   remedy: registry.registrationAdvice(for: dynamicType))
            }
            chain = registry.classChain(of: entry)
            addModelType(typeID, chain: chain)
        }
        return try encodeInstance(chain: chain, identity: object, identityIsNew: object != nil, type: typeID, body: body)
    }

    // MARK: Conditional references

    /// Apple's conditional object under `key`: the target's UID if it is encoded already, else
    /// `$null`, patched at the end if something encodes the target unconditionally later.
    func setConditionalField(_ object: AnyObject, key: Int32, frame index: Int) {
        if let known = state.pointee.instanceUIDs[object: ObjectIdentifier(object)] {
            setField(.uid(PropertyListUID(UInt64(known))), key: key, frame: index)
            return
        }
        // Set first: setting the key drops what an earlier conditional left pending for it.
        setField(.uid(PropertyListUID(0)), key: key, frame: index)
        state.pointee.retained.append(object)
        state.pointee.pendingConditionals.append((state.pointee.frames[index].uid, key, ObjectIdentifier(object)))
    }

    /// Points each pending conditional field at its target, if the target was encoded after all.
    /// `$top`'s fields (owner -1) are `topKeys`/`topValues` by then.
    private func resolveConditionals(topKeys: [Int32]) {
        for pending in state.pointee.pendingConditionals {
            guard let target = state.pointee.instanceUIDs[object: pending.object] else { continue }
            let uid = PropertyListUID(UInt64(target))
            if pending.owner < 0 {
                if let position = topKeys.lastIndex(of: pending.key) { state.pointee.table.topValues[position] = .uid(uid) }
            } else if case .instance(_, let fields) = state.pointee.table.entries[pending.owner],
                      let position = state.pointee.table.fieldKeys[fields].lastIndex(of: pending.key) {
                state.pointee.table.fieldValues[position] = .uid(uid)
            }
        }
        state.pointee.pendingConditionals.removeAll()
    }

    func finish() throws(ArchiveError) -> ArchiveObjectTable {
        guard !state.pointee.failed else { throw error(.invalidState, "an earlier error ended this encoding") }
        guard !state.pointee.finished else { throw error(.invalidState, "the archive was already finished") }
        guard state.pointee.frames.count == 1 else {
            throw error(.invalidState, "the archive was finished while an object was being encoded")
        }
        // Every object ended without an error, so only `$top`'s fields are open.
        let topCount = state.pointee.openCount
        let topKeys = state.pointee.openFields[..<topCount].map(\.key)
        state.pointee.table.topValues = state.pointee.openFields[..<topCount].map { state.pointee.table.propertyListValue($0.value) }
        state.pointee.openFields.removeAll()
        state.pointee.openCount = 0
        resolveConditionals(topKeys: topKeys)
        state.pointee.table.topKeys = topKeys.map { state.pointee.table.keyTexts[Int($0)] }
        // Every string entry went through `encodeString`'s by-value table and every integer
        // entry through one of `encodeNumber`'s. (Those tables stop remembering past 2³²
        // entries; the writer refuses a document of that many objects.)
        state.pointee.table.entriesAreDistinctByValue = options.sharing == .byValue
        state.pointee.finished = true
        state.pointee.activeFrame = -1
        state.pointee.retained.removeAll()
        return state.pointee.table
    }
}
