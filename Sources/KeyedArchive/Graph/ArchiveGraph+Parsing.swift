import PropertyList

/// Limits applied while reading an archive. Each guards against one kind of hostile input.
public struct ArchiveReadingOptions: Hashable, Sendable {
    /// The property-list reader's limits (depth, object count, lengths).
    public var propertyList: PropertyListReadingOptions = .default
    /// Most `$objects` entries accepted. Default 16 Mi.
    public var maximumObjectCount: Int = 16 << 20
    /// Deepest nesting of objects decoded inside objects (typed decoding recurses through each
    /// model's initializer, so this guards the stack). Default 512.
    public var maximumDepth: Int = 512
    /// Most collection elements that typed decoding produces in all (a shared array referenced
    /// from many places counts once per requested type). Default 64 Mi.
    public var maximumTotalElementCount: Int = 64 << 20
    /// Most object references that typed decoding follows in all, a shared object counting
    /// once per reference to it (each is class-checked). Bounds the work of decoding an archive
    /// to this many steps whatever its sharing. Default 64 Mi.
    public var maximumVisitCount: Int = 64 << 20
    /// Longest string (in UTF-8 bytes) or data (in bytes) accepted anywhere in the archive:
    /// `$objects` entries, inline fields and class names. Default 64 MiB.
    public var maximumValueByteCount: Int = 64 << 20
    /// Most names in one class dictionary's `$classes` (or `$classhints`). Real class chains
    /// are a few names long. Default 1024.
    public var maximumClassChainLength: Int = 1024
    /// Most nodes (objects, values and back-reference markers) that anything walking the
    /// graph as a tree may produce: `keyedarchive dump` and `json`, and
    /// ``ArchiveDumper/dump(_:rendering:options:budget:)``. The renderers expand each object once, so their output
    /// is linear in the archive anyway; this caps it outright. Default 64 Mi.
    public var maximumExpansionCount: Int = 64 << 20

    /// What typed decoding does with an `NSDictionary` whose `NS.keys` hold one key twice. Apple's
    /// writers never store two equal keys, but an XML archive can read back with them: Core
    /// Foundation's XML reader drops a string's leading U+FEFF, so keys `"x"` and
    /// `"\u{FEFF}x"` written by Foundation read back as `"x"` twice.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum DuplicateDictionaryKeys: Hashable, Sendable {
        /// Refuse the dictionary with ``ArchiveError/Code/duplicateKey``, naming the key. Readers
        /// disagree about such a dictionary (this one could keep either entry, a validator in
        /// front of an app another), so it is refused as an object storing a field twice is
        /// (Docs/Security.md). The default.
        case refuse
        /// Keep the entry stored last in `NS.keys`, as Foundation's `NSKeyedUnarchiver` does
        /// (`NSDictionary` of the decoded keys and objects, checked against Foundation on Linux).
        case keepLast
    }

    /// What typed decoding (`[K: V]`, and `PropertyListValue` trees through the `Codable` bridge)
    /// does with an `NSDictionary` holding one key twice. Default ``DuplicateDictionaryKeys/refuse``.
    /// The generic view (``ArchiveGraph``, `dump`, `json`) shows every entry either way.
    public var duplicateDictionaryKeys: DuplicateDictionaryKeys = .refuse
    /// The longest reading an archive may take; nil (the default) for no limit. The budget
    /// starts when the unarchiver (or graph) is made and covers all it does: the file's checks,
    /// building the graph, and every decode call. Past it, the work stops with
    /// ``ArchiveError/Code/timeLimitExceeded`` and the key path it had reached: a budget for
    /// callers outside structured concurrency, which cannot cancel a task. The clock is read
    /// about every thousand objects or references, so the stop comes within a millisecond or
    /// so, plus whatever one model's own `init(from:)` takes. It replaces
    /// `propertyList.maximumDuration` for the property list inside.
    public var maximumDuration: Duration? = nil
    /// Whether reading stops with ``ArchiveError/Code/cancelled`` when the task running it is
    /// cancelled (`Task.isCancelled`, checked as often as the clock). Default true; false for a
    /// decode that must finish even in a cancelled task. It replaces
    /// `propertyList.respondsToCancellation`.
    public var respondsToCancellation = true

    /// The interruption of a read starting now.
    func startInterruption() -> WorkInterruption {
        WorkInterruption(maximumDuration: maximumDuration, respondsToCancellation: respondsToCancellation)
    }

    /// The property-list options for a read under `interruption`: its remaining budget.
    func propertyListOptions(under interruption: WorkInterruption) -> PropertyListReadingOptions {
        var options = propertyList
        options.respondsToCancellation = interruption.respondsToCancellation
        options.maximumDuration = interruption.deadline.map { max(.zero, ContinuousClock.now.duration(to: $0)) }
        return options
    }

    /// Whether typed decoding records every field present in a decoded object that its
    /// `init(from:)` never read, for ``KeyedUnarchiver/unreadFields`` (with key path and class).
    /// Default false; when off it costs one nil check per field read (Docs/Performance.md).
    public var reportsUnreadFields = false

    /// The default limits and policies, as listed on each property.
    public init() {}

    /// The default limits and policies, as ``init()`` makes them.
    public static let `default` = ArchiveReadingOptions()
}

extension ArchiveGraph {
    /// Reads and validates an archive from binary (`bplist00`) or XML property-list bytes.
    /// - Throws: ``ArchiveError`` with ``ArchiveError/Code/invalidPropertyList`` for a malformed
    ///   property list, or a structural code (header, reference, class) naming the object's UID.
    public init(bytes: [UInt8], options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(bytes: bytes, options: options, interruption: options.startInterruption())
    }

    /// The same, under a budget already started (an unarchiver's, which began with its file check).
    init(bytes: [UInt8], options: ArchiveReadingOptions, interruption: WorkInterruption) throws(ArchiveError) {
        if let stop = interruption.stop() { throw ArchiveError(stop) }
        // A binary archive of the shapes NSKeyedArchiver writes is read from its object table,
        // without the value tree of the whole file; anything else, and every fault, the usual way.
        if let graph = bytes.withUnsafeBytes({ ArchiveGraph.fromObjectTable($0, options: options, interruption: interruption) }) {
            self = graph
            return
        }
        let built: Result<ArchiveGraph, ArchiveError> = bytes.withUnsafeBytes { raw in
            do throws(ArchiveError) { return .success(try ArchiveGraph(valueTreeOf: raw, options: options, interruption: interruption)) } catch { return .failure(error) }
        }
        self = try built.get()
    }

    /// The usual path: the property list's value tree, then ``init(propertyList:options:)``.
    /// Every file goes this way but those the binary table takes (and tests compare the two).
    init(valueTreeOf bytes: UnsafeRawBufferPointer, options: ArchiveReadingOptions, interruption: WorkInterruption? = nil) throws(ArchiveError) {
        let interruption = interruption ?? options.startInterruption()
        // The table may have left the file because the work was stopped.
        if let stop = interruption.stop() { throw ArchiveError(stop) }
        let value: PropertyListValue
        do {
            value = try PropertyListCodec.decode(bytes, options: options.propertyListOptions(under: interruption))
        } catch {
            throw ArchiveError(error)
        }
        try self.init(propertyList: value, options: options, interruption: interruption)
    }

    /// Validates a property list as a keyed archive.
    /// - Throws: ``ArchiveError`` naming the faulty header field, or the UID of the faulty object.
    public init(propertyList: PropertyListValue, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        try self.init(propertyList: propertyList, options: options, interruption: options.startInterruption())
    }

    init(propertyList: PropertyListValue, options: ArchiveReadingOptions, interruption: WorkInterruption) throws(ArchiveError) {
        guard case .dictionary(let root) = propertyList else {
            throw ArchiveError(.invalidArchiveHeader, "the top of the property list is \(propertyList.kindNameWithArticle), not a dictionary")
        }
        for key in [ArchiveKeys.archiver, ArchiveKeys.version, ArchiveKeys.objects, ArchiveKeys.top] {
            let occurrences = Self.occurrences(of: key, in: root)
            guard occurrences <= 1 else {
                throw ArchiveError(.invalidArchiveHeader, "\(key) appears \(occurrences) times\(Self.duplicateNote)")
            }
        }
        guard let archiverValue = root[ArchiveKeys.archiver] else {
            throw ArchiveError(.invalidArchiveHeader, "$archiver is missing")
        }
        // Any archiver's name: Apple's NSKeyedUnarchiver never reads `$archiver` (it checks
        // `$version`, then takes `$top` and `$objects`), and SceneKit's SCNKeyedArchiver, a
        // subclass of NSKeyedArchiver, writes its own name (issue 51).
        guard case .string(let archiver) = archiverValue else {
            throw ArchiveError(.invalidArchiveHeader, "$archiver is \(archiverValue.kindNameWithArticle), expected a string (NSKeyedArchiver, or a subclass's name)")
        }
        try Self.checkLength(archiver.utf8.count, of: "string", options: options, uid: nil)
        guard let versionValue = root[ArchiveKeys.version] else {
            throw ArchiveError(.invalidArchiveHeader, "$version is missing")
        }
        guard case .integer(let version) = versionValue else {
            throw ArchiveError(.invalidArchiveHeader, "$version is \(versionValue.kindNameWithArticle), expected the integer 100000")
        }
        guard version.int64Value == ArchiveKeys.formatVersion else {
            throw ArchiveError(.invalidArchiveHeader, "$version is \(version), expected 100000")
        }
        guard let objectsValue = root[ArchiveKeys.objects] else {
            throw ArchiveError(.invalidArchiveHeader, "$objects is missing")
        }
        guard case .array(let storedObjects) = objectsValue else {
            throw ArchiveError(.invalidArchiveHeader, "$objects is \(objectsValue.kindNameWithArticle), expected an array")
        }
        guard storedObjects.count <= options.maximumObjectCount else {
            throw ArchiveError(.budgetExceeded, "$objects has \(storedObjects.count) entries, more than the limit of \(options.maximumObjectCount)")
        }
        guard let first = storedObjects.first else {
            throw ArchiveError(.invalidArchiveHeader, "$objects is empty; index 0 must be $null")
        }
        guard case .string(let nullMarker) = first, nullMarker.isExactlyEqual(to: ArchiveKeys.null) else {
            throw ArchiveError(.invalidArchiveHeader, "$objects[0] is not the string $null", uid: PropertyListUID(0))
        }
        guard let topValue = root[ArchiveKeys.top] else {
            throw ArchiveError(.invalidArchiveHeader, "$top is missing")
        }
        guard case .dictionary(let topDictionary) = topValue else {
            throw ArchiveError(.invalidArchiveHeader, "$top is \(topValue.kindNameWithArticle), expected a dictionary")
        }
        let count = UInt64(storedObjects.count)
        var top: [TopEntry] = []
        top.reserveCapacity(topDictionary.count)
        for entry in topDictionary.entries {
            do {
                try Self.checkReferences(in: entry.value, count: count, owner: nil, options: options)
            } catch {
                throw ArchiveError(error.code, "$top[\(entry.key.excerptForMessage(128))] \(error.message)", keyPath: ArchiveKeyPath([.key(entry.key)]))
            }
            top.append(TopEntry(key: entry.key, value: entry.value))
        }

        // First pass: classify every entry; class references are checked once all kinds are known.
        var chains = SharedChains()
        var objects: [Object] = []
        objects.reserveCapacity(storedObjects.count)
        objects.append(.null)
        for index in 1..<storedObjects.count {
            let uid = PropertyListUID(UInt64(index))
            if index & (WorkInterruption.interval &- 1) == 0, let stop = interruption.stop() { throw ArchiveError(stop, uid: uid) }
            switch storedObjects[index] {
            case .string(let string):
                try Self.checkLength(string.utf8.count, of: "string", options: options, uid: uid)
                objects.append(.string(string))
            case .integer(let integer): objects.append(.integer(integer))
            case .real(let real): objects.append(.real(real))
            case .bool(let flag): objects.append(.bool(flag))
            case .data(let bytes):
                try Self.checkLength(bytes.count, of: "data", options: options, uid: uid)
                objects.append(.data(bytes))
            case .date(let date): objects.append(.date(date))
            case .dictionary(let dictionary):
                if let classValue = dictionary[ArchiveKeys.classKey] {
                    let occurrences = Self.occurrences(of: ArchiveKeys.classKey, in: dictionary)
                    guard occurrences == 1 else {
                        throw ArchiveError(.invalidClassReference, "$class appears \(occurrences) times\(Self.duplicateNote)", uid: uid)
                    }
                    guard case .uid(let classUID) = classValue else {
                        throw ArchiveError(.invalidClassReference, "$class is \(classValue.kindNameWithArticle), expected a UID", uid: uid)
                    }
                    try Self.checkReferences(in: .dictionary(dictionary), count: count, owner: uid, options: options)
                    objects.append(.instance(Instance(classUID: classUID, storage: dictionary)))
                } else if dictionary[ArchiveKeys.className] != nil {
                    objects.append(.classDescriptor(try Self.classDescriptor(dictionary, uid: uid, options: options, chains: &chains)))
                } else {
                    try Self.checkReferences(in: .dictionary(dictionary), count: count, owner: uid, options: options)
                    objects.append(.other(.dictionary(dictionary)))
                }
            case .uid(let target):
                // A bare UID as an $objects entry is meaningless but harmless once in range.
                guard target.value < count else {
                    throw ArchiveError(.invalidReference, "entry is a UID to object \(target.value), but $objects has \(count) entries", uid: uid)
                }
                objects.append(.other(.uid(target)))
            case .array, .set:
                try Self.checkReferences(in: storedObjects[index], count: count, owner: uid, options: options)
                objects.append(.other(storedObjects[index]))
            }
        }
        for index in objects.indices {
            guard case .instance(let instance) = objects[index] else { continue }
            let uid = PropertyListUID(UInt64(index))
            guard instance.classUID.value < count else {
                throw ArchiveError(.invalidClassReference, "$class refers to object \(instance.classUID.value), but $objects has \(count) entries", uid: uid)
            }
            guard case .classDescriptor = objects[Int(instance.classUID.value)] else {
                let found = Self.describeKind(objects[Int(instance.classUID.value)])
                throw ArchiveError(.invalidClassReference, "$class refers to object \(instance.classUID.value), which is \(found), not a class dictionary", uid: uid)
            }
        }
        self.archiver = archiver
        self.version = version
        self.top = top
        self.objects = objects
        self.headerKeyOrder = root.keys
    }

    static func describeKind(_ object: Object) -> String {
        ArchiveObjectView(object).kindDescription
    }

    static func checkLength(_ length: Int, of kind: String, options: ArchiveReadingOptions, uid: PropertyListUID?) throws(ArchiveError) {
        guard length <= options.maximumValueByteCount else {
            throw ArchiveError(.budgetExceeded, "a \(kind) of \(length) bytes, more than the limit of \(options.maximumValueByteCount) (maximumValueByteCount)", uid: uid)
        }
    }

    /// Checks every UID inside a value, and the length of every string and data in it, without
    /// recursion (the value's own nesting is bounded by the property-list reader, but a value
    /// built in memory need not be).
    static func checkReferences(in value: PropertyListValue, count: UInt64, owner: PropertyListUID?, options: ArchiveReadingOptions = .default) throws(ArchiveError) {
        // Almost every object is a flat dictionary of UIDs and scalars: its fields are checked
        // before the walk, which then never allocates its stack.
        var stack: [PropertyListValue] = []
        if case .dictionary(let dictionary) = value {
            try checkFields(of: dictionary, count: count, owner: owner, options: options, containers: &stack, within: value)
        } else {
            stack.append(value)
        }
        while let next = stack.popLast() {
            switch next {
            case .uid(let uid):
                guard uid.value < count else { throw outOfRange(uid, in: value, count: count, owner: owner) }
            case .string(let string):
                try checkLength(string.utf8.count, of: "string", options: options, uid: owner)
            case .data(let bytes):
                try checkLength(bytes.count, of: "data", options: options, uid: owner)
            case .array(let elements), .set(let elements):
                for element in elements {
                    switch element {
                    case .uid(let uid):
                        guard uid.value < count else { throw outOfRange(uid, in: value, count: count, owner: owner) }
                    case .string(let string): try checkLength(string.utf8.count, of: "string", options: options, uid: owner)
                    case .data(let bytes): try checkLength(bytes.count, of: "data", options: options, uid: owner)
                    case .array, .set, .dictionary: stack.append(element)
                    default: break
                    }
                }
            case .dictionary(let dictionary):
                try checkFields(of: dictionary, count: count, owner: owner, options: options, containers: &stack, within: value)
            default: break
            }
        }
    }

    /// The refusal of a reference past `$objects` found somewhere inside `value`, naming where
    /// in the object it stands (`items[0]`, `x.deep`). The path is worked out only now, on the
    /// error path, by a second walk that looks for that reference in file order.
    private static func outOfRange(_ target: PropertyListUID, in value: PropertyListValue, count: UInt64, owner: PropertyListUID?) -> ArchiveError {
        var pending: [(value: PropertyListValue, path: [ArchiveKeyPath.Component])] = [(value, [])]
        var found: [ArchiveKeyPath.Component]?
        search: while let (next, path) = pending.popLast() {
            switch next {
            case .uid(let uid) where uid == target:
                found = path
                break search
            case .array(let elements), .set(let elements):
                for index in elements.indices.reversed() { pending.append((elements[index], path + [.index(index)])) }
            case .dictionary(let dictionary):
                for entry in dictionary.entries.reversed() {
                    pending.append((entry.value, path + [.key(ArchiveKeys.unescape(entry.key) ?? entry.key)]))
                }
            default:
                continue
            }
        }
        let place: String
        switch found?.first {
        case .key?: place = "field \(ArchiveKeyPath(found ?? []).description) "
        case .index?: place = "element \(ArchiveKeyPath(found ?? []).description) "
        case nil: place = ""
        }
        return ArchiveError(.invalidReference, "\(place)refers to object \(target.value), but $objects has \(count) entries", uid: owner)
    }

    /// Checks a dictionary's keys and its UID, string and data values; values that are
    /// containers are appended to `containers` for the caller's walk.
    private static func checkFields(of dictionary: PropertyListDictionary, count: UInt64, owner: PropertyListUID?, options: ArchiveReadingOptions,
                                    containers: inout [PropertyListValue], within whole: PropertyListValue) throws(ArchiveError) {
        for entry in dictionary.entries {
            try checkLength(entry.key.utf8.count, of: "key", options: options, uid: owner)
            switch entry.value {
            case .uid(let uid):
                guard uid.value < count else { throw outOfRange(uid, in: whole, count: count, owner: owner) }
            case .string(let string): try checkLength(string.utf8.count, of: "string", options: options, uid: owner)
            case .data(let bytes): try checkLength(bytes.count, of: "data", options: options, uid: owner)
            case .array, .set, .dictionary: containers.append(entry.value)
            default: break
            }
        }
    }

    /// How many entries of a dictionary have exactly this key.
    static func occurrences(of key: String, in dictionary: PropertyListDictionary) -> Int {
        var count = 0
        for entry in dictionary.entries where entry.key.isExactlyEqual(to: key) { count += 1 }
        return count
    }

    /// Why a key may appear only once in an object (fuzz finding F5 for reserved keys).
    static let duplicateNote = "; readers disagree on which one counts (Core Foundation's binary reader keeps the first, its XML reader and ours the last), so the archive is ambiguous"

    /// The refusal of a user key stored twice in one object (`storedKey` as the file spells it),
    /// located at that key: typed decoding and `keyedarchive validate` both give it.
    static func duplicateKeyError(storedKey: String, occurrences: Int, in objectPath: ArchiveKeyPath, uid: PropertyListUID?) -> ArchiveError {
        let key = ArchiveKeys.unescape(storedKey) ?? storedKey
        return ArchiveError(.duplicateKey, "key \(key.excerptForMessage(128)) appears \(occurrences) times in one object\(duplicateNote)", keyPath: objectPath.appending(key: key), uid: uid)
    }

    /// The names of each `$classes`/`$classhints` array already read, by the array's storage: a
    /// binary file may list one long array in many class dictionaries (the value tree shares it),
    /// and copying its names for each would turn a small file into a large graph.
    struct SharedChains {
        var names: [Int: [String]] = [:]
    }

    static func classDescriptor(_ dictionary: PropertyListDictionary, uid: PropertyListUID, options: ArchiveReadingOptions,
                                chains: inout SharedChains) throws(ArchiveError) -> ClassDescriptor {
        for key in [ArchiveKeys.className, ArchiveKeys.classes, ArchiveKeys.classHints] {
            let occurrences = occurrences(of: key, in: dictionary)
            guard occurrences <= 1 else {
                throw ArchiveError(.invalidClassDescriptor, "\(key) appears \(occurrences) times\(duplicateNote)", uid: uid)
            }
        }
        guard case .string(let name)? = dictionary[ArchiveKeys.className] else {
            let kind = dictionary[ArchiveKeys.className]?.kindName ?? "missing"
            throw ArchiveError(.invalidClassDescriptor, "$classname is \(kind), expected a string", uid: uid)
        }
        try checkLength(name.utf8.count, of: "class name", options: options, uid: uid)
        var hints: [String]?
        if let hintsValue = dictionary[ArchiveKeys.classHints] {
            hints = try stringArray(hintsValue, key: ArchiveKeys.classHints, uid: uid, name: name, options: options, chains: &chains)
        }
        // Apple's unarchiver looks the class up by `$classname`; `$classes` only feeds its
        // fallbacks, and Xcode's SpriteKit scene editor leaves it out (issue 51).
        guard let classesValue = dictionary[ArchiveKeys.classes] else {
            return ClassDescriptor(nameOnly: name, hints: hints)
        }
        let classes = try stringArray(classesValue, key: ArchiveKeys.classes, uid: uid, name: name, options: options, chains: &chains)
        return ClassDescriptor(name: name, classes: classes, hints: hints)
    }

    private static func stringArray(_ value: PropertyListValue, key: String, uid: PropertyListUID, name: String, options: ArchiveReadingOptions,
                                    chains: inout SharedChains) throws(ArchiveError) -> [String] {
        guard case .array(let elements) = value else {
            throw ArchiveError(.invalidClassDescriptor, "\(key) is \(value.kindNameWithArticle), expected an array of strings", uid: uid, classChain: [String(name.prefix(256))])
        }
        // The same storage is the same array while the tree holding it lives (it does, here).
        let storage = elements.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
        if storage != 0, let known = chains.names[storage] { return known }
        let names = try checkedStrings(elements, key: key, uid: uid, name: name, options: options)
        if storage != 0 { chains.names[storage] = names }
        return names
    }

    private static func checkedStrings(_ elements: [PropertyListValue], key: String, uid: PropertyListUID, name: String, options: ArchiveReadingOptions) throws(ArchiveError) -> [String] {
        guard elements.count <= options.maximumClassChainLength else {
            throw ArchiveError(.budgetExceeded, "\(key) lists \(elements.count) names, more than the limit of \(options.maximumClassChainLength) (maximumClassChainLength)",
                               uid: uid, classChain: [String(name.prefix(256))])
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else {
                throw ArchiveError(.invalidClassDescriptor, "\(key) holds \(element.kindNameWithArticle), expected only strings", uid: uid, classChain: [String(name.prefix(256))])
            }
            try checkLength(string.utf8.count, of: "class name", options: options, uid: uid)
            strings.append(string)
        }
        return strings
    }
}
