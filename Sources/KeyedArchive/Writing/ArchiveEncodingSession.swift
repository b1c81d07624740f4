import PropertyList

/// The state of one archive being encoded: the object table, identity and value sharing, the
/// stack of objects whose fields are being written, and the key path for errors.
final class ArchiveEncodingSession {
    struct Frame {
        /// UID of the object, or -1 for `$top`.
        let uid: Int
        var keys: [String] = []
        var values: [PropertyListValue] = []
        var unkeyedCount = 0

        /// Setting a key twice replaces the value where the key first stood, as a CFDictionary does.
        mutating func set(_ value: PropertyListValue, forKey key: String) {
            // The UTF-8 count (constant time for native strings) rules out most keys before
            // the byte comparison.
            let length = key.utf8.count
            if let existing = keys.lastIndex(where: { $0.utf8.count == length && $0.isExactlyEqual(to: key) }) {
                values[existing] = value
            } else {
                keys.append(key)
                values.append(value)
            }
        }
    }

    let registry: ArchiveRegistry
    let options: ArchiveWritingOptions

    /// Everything that changes while encoding, behind a pointer: every access to a class's
    /// `var` is checked for exclusivity at run time, and those checks were a seventh of a fleet
    /// encode. The session is confined to one archiver on one thread.
    private struct State {
        var frames: [Frame] = [Frame(uid: -1)]
        var path: [ArchiveKeyPath.Component] = []
        var instanceUIDs = ArchiveUIDTable<UInt64>()
        /// Every instance that got a UID is kept alive until the end, so that its ObjectIdentifier
        /// cannot be reused by a new object (a temporary created in some `encode(to:)`).
        var retained: [AnyObject] = []
        var stringUIDs = ArchiveUIDTable<String>()
        var scalarUIDs: [PropertyListValue: Int] = [:]
        /// Integers in the ordinary (not 128-bit) form: the same sharing as `scalarUIDs`, keyed
        /// without hashing a whole `PropertyListValue`.
        var integerUIDs = ArchiveUIDTable<UInt64>()
        /// Class chain and class UID of each model type already encoded (by metatype), so that
        /// the registry lookup, the chain and its hashing happen once per type, not per object.
        /// Most archives have a few model types: those are found by comparison, without hashing;
        /// past `modelTypeScanLimit` of them, through `modelTypeIndex`.
        /// `fieldCount` is how many fields the type's last object had: the next one's field
        /// lists are allocated that large at once instead of growing field by field.
        var modelTypes: [(type: ObjectIdentifier, chain: [String], classUID: Int, fieldCount: Int)] = []
        var modelTypeIndex: [ObjectIdentifier: Int] = [:]
        var dataUIDs: [[UInt8]: Int] = [:]
        var classUIDs: [[ArchiveExactKey]: Int] = [:]
        var pendingConditionals: [(owner: Int, key: String, object: ObjectIdentifier)] = []
        var recentChains: [(chain: [String], uid: Int)] = []
        var table = ArchiveObjectTable()
        var failed = false
        var finished = false
    }
    private let state: UnsafeMutablePointer<State>

    var table: ArchiveObjectTable {
        get { state.pointee.table }
        _modify { yield &state.pointee.table }
    }
    var failed: Bool {
        get { state.pointee.failed }
        set { state.pointee.failed = newValue }
    }

    init(registry: ArchiveRegistry, options: ArchiveWritingOptions) {
        self.registry = registry
        self.options = options
        state = .allocate(capacity: 1)
        state.initialize(to: State())
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    var keyPath: ArchiveKeyPath { ArchiveKeyPath(state.pointee.path) }

    func error(_ code: ArchiveError.Code, _ message: String) -> ArchiveError {
        ArchiveError(code, message, keyPath: keyPath)
    }

    // MARK: Fields

    func checkUsable(frame index: Int) throws(ArchiveError) {
        guard !state.pointee.failed, !state.pointee.finished else {
            throw error(.invalidState, state.pointee.finished ? "the archive was already finished" : "an earlier error ended this encoding")
        }
        guard index == state.pointee.frames.count - 1 else {
            throw error(.invalidState, "an encoder was used outside the encode(to:) call it was passed to")
        }
    }

    func setField(_ value: PropertyListValue, storedKey: String, frame index: Int) {
        // One in-place access: copying the frame out would copy its arrays on every field.
        state.pointee.frames[index].set(value, forKey: storedKey)
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
            state.pointee.failed = true
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
        if let known = state.pointee.stringUIDs[string] { return ArchiveReference(uid: PropertyListUID(UInt64(known))) }
        let reference = append(.string(string))
        state.pointee.stringUIDs[string] = Int(reference.uid.value)
        return reference
    }

    /// An NSNumber: a plain integer, real or boolean in `$objects`.
    func encodeNumber(_ value: PropertyListValue) -> ArchiveReference {
        if case .integer(let integer) = value, !integer.isStoredAs128Bit, let signed = integer.int64Value {
            guard options.sharing == .byValue || (signed >= -(1 << 55) && signed < (1 << 55)) else {
                return append(.integer(integer))
            }
            if let known = state.pointee.integerUIDs[integer: signed] { return ArchiveReference(uid: PropertyListUID(UInt64(known))) }
            let reference = append(.integer(integer))
            state.pointee.integerUIDs[integer: signed] = Int(reference.uid.value)
            return reference
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
            state.pointee.failed = true
            throw error(.invalidState, "a \(value.kindName) cannot stand as a plain object of its own")
        }
        state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] = Int(reference.uid.value)
        state.pointee.retained.append(identity)
        return reference
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
        for recent in state.pointee.recentChains where recent.chain.isExactlyEqual(to: chain) { return recent.uid }
        let key = chain.map(ArchiveExactKey.init)
        if let known = state.pointee.classUIDs[key] { return known }
        let name = chain.first ?? "NSObject"
        let reference = append(.classDescriptor(name: name, classes: chain))
        state.pointee.classUIDs[key] = Int(reference.uid.value)
        if state.pointee.recentChains.count < 8 { state.pointee.recentChains.append((chain, Int(reference.uid.value))) }
        return Int(reference.uid.value)
    }

    /// Encodes an object with a class: it takes its UID first, then its fields are written
    /// (their objects follow it depth-first), then its class dictionary is appended if this is
    /// the class's first use — Apple's order (format-notes §4).
    /// - Parameter identityIsNew: the caller has just looked `identity` up and not found it.
    func encodeInstance(chain: [String], identity: AnyObject?, identityIsNew: Bool = false, type: ObjectIdentifier? = nil,
                        body: (KeyedArchiveEncoder) throws -> Void) throws(ArchiveError) -> ArchiveReference {
        guard state.pointee.frames.count <= options.maximumDepth else {
            state.pointee.failed = true
            throw error(.depthLimitExceeded, "objects nest deeper than \(options.maximumDepth) while encoding")
        }
        if !identityIsNew, let identity, let known = state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] {
            return ArchiveReference(uid: PropertyListUID(UInt64(known)))
        }
        let uid = state.pointee.table.entries.count
        state.pointee.table.entries.append(.reserved)
        if let identity {
            state.pointee.instanceUIDs[object: ObjectIdentifier(identity)] = uid
            state.pointee.retained.append(identity)
        }
        let typePosition = type.map(modelTypePosition) ?? -1
        var frame = Frame(uid: uid)
        if typePosition >= 0 {
            let expected = state.pointee.modelTypes[typePosition].fieldCount
            frame.keys.reserveCapacity(expected)
            frame.values.reserveCapacity(expected)
        }
        state.pointee.frames.append(frame)
        let encoder = KeyedArchiveEncoder(session: self, frame: state.pointee.frames.count - 1)
        do {
            try body(encoder)
        } catch let failure as ArchiveError {
            state.pointee.failed = true
            throw failure
        } catch {
            state.pointee.failed = true
            throw ArchiveError(.modelError, "encode(to:) of \(chain.first ?? "?") threw: \(error)", keyPath: keyPath,
                               uid: PropertyListUID(UInt64(uid)), classChain: chain, underlyingDescription: "\(error)")
        }
        let finished = state.pointee.frames.removeLast()
        var classUID = -1
        if typePosition >= 0 {
            classUID = state.pointee.modelTypes[typePosition].classUID
            state.pointee.modelTypes[typePosition].fieldCount = finished.keys.count
        }
        if classUID < 0 {
            classUID = self.classUID(chain: chain)
            if typePosition >= 0 { state.pointee.modelTypes[typePosition].classUID = classUID }
        }
        state.pointee.table.entries[uid] = .instance(classUID: classUID, keys: finished.keys, values: finished.values)
        return ArchiveReference(uid: PropertyListUID(UInt64(uid)))
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
        state.pointee.modelTypes.append((type, chain, -1, 0))
        let count = state.pointee.modelTypes.count
        if count == Self.modelTypeScanLimit + 1 {
            for (position, known) in state.pointee.modelTypes.enumerated() { state.pointee.modelTypeIndex[known.type] = position }
        } else if count > Self.modelTypeScanLimit + 1 {
            state.pointee.modelTypeIndex[type] = count - 1
        }
    }

    private func encodeModel<T: KeyedArchivable>(_ value: T, object: AnyObject?) throws(ArchiveError) -> ArchiveReference {
        let dynamicType = type(of: value)
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
                state.pointee.failed = true
                throw error(.typeNotRegistered, "\(dynamicType) is not registered in the archive registry")
            }
            chain = registry.classChain(of: entry)
            addModelType(typeID, chain: chain)
        }
        return try encodeInstance(chain: chain, identity: object, identityIsNew: object != nil, type: typeID) { encoder in
            try value.encode(to: encoder)
        }
    }

    // MARK: Conditional references

    func conditionalReference(_ object: AnyObject, storedKey: String, frame index: Int) -> PropertyListValue {
        if let known = state.pointee.instanceUIDs[object: ObjectIdentifier(object)] {
            return .uid(PropertyListUID(UInt64(known)))
        }
        // Not encoded (yet): patched at the end if something encodes it unconditionally later.
        state.pointee.retained.append(object)
        state.pointee.pendingConditionals.append((state.pointee.frames[index].uid, storedKey, ObjectIdentifier(object)))
        return .uid(PropertyListUID(0))
    }

    func resolveConditionals() {
        for pending in state.pointee.pendingConditionals {
            guard let target = state.pointee.instanceUIDs[object: pending.object] else { continue }
            let value = PropertyListValue.uid(PropertyListUID(UInt64(target)))
            if pending.owner < 0 {
                if let position = state.pointee.table.topKeys.lastIndex(where: { $0.isExactlyEqual(to: pending.key) }) {
                    state.pointee.table.topValues[position] = value
                }
            } else if case .instance(let classUID, let keys, var values) = state.pointee.table.entries[pending.owner],
                      let position = keys.lastIndex(where: { $0.isExactlyEqual(to: pending.key) }) {
                values[position] = value
                state.pointee.table.entries[pending.owner] = .instance(classUID: classUID, keys: keys, values: values)
            }
        }
        state.pointee.pendingConditionals.removeAll()
    }

    func finish() throws(ArchiveError) -> ArchiveObjectTable {
        guard !state.pointee.failed else { throw error(.invalidState, "an earlier error ended this encoding") }
        guard !state.pointee.finished else { throw error(.invalidState, "the archive was already finished") }
        let top = state.pointee.frames[0]
        state.pointee.table.topKeys = top.keys
        state.pointee.table.topValues = top.values
        resolveConditionals()
        state.pointee.finished = true
        state.pointee.retained.removeAll()
        return state.pointee.table
    }
}
