import PropertyList

/// Where to look for an example of a change: an instance of a class (or `$top`) on one side
/// that shows it.
struct ArchiveCompatibilityExampleQuery: Hashable {
    enum Side: Hashable { case old, new }
    enum Match: Hashable {
        case any
        case hasKey(String)
        case lacksKey(String)
        case nullUnder(String)
        case kinds(String, Set<ArchiveSchema.ValueKind>)
    }
    let side: Side
    /// The class as that side names it, or `$top`.
    let className: String
    let match: Match
}

/// A change found, with where to look for its example.
struct ArchiveCompatibilityFinding {
    var change: ArchiveCompatibility.Change
    var query: ArchiveCompatibilityExampleQuery?
}

/// The rules, applied to two schemas: classes paired (same name, module moved, renamed), then
/// `$top` and every key of every class written by both, then the class-level findings that
/// need to know where classes appear.
struct ArchiveCompatibilityComparison {
    let old: ArchiveSchema
    let new: ArchiveSchema
    var found: [ArchiveCompatibilityFinding] = []

    /// Pairs of an old class and the new class it likely became (moved or renamed).
    var renameOldToNew: [String: String] = [:]
    var renameNewToOld: [String: String] = [:]
    var pairRules: [String: ArchiveCompatibilityRule] = [:]
    /// Classes one side writes that the other does not know, unpaired.
    var removedClasses: Set<String> = []
    var addedClasses: Set<String> = []
    /// Where an unknown class appears under a key both sides have: where readers meet it.
    var removedPlaces: [String: [String]] = [:]
    var addedPlaces: [String: [String]] = [:]

    /// The archives each side was inferred from (none for a schema file): the values they hold
    /// tell a renamed key from a removed one and an added one.
    var oldArchives: [ArchiveGraph] = []
    var newArchives: [ArchiveGraph] = []
    /// The registry new readers decode with, when the caller has it (the testing toolkit
    /// encodes the new side with it): what they admit is then asked of it, not guessed from the
    /// classes a few samples happen to hold.
    var newReaders: ArchiveRegistry?

    init(old: ArchiveSchema, new: ArchiveSchema) {
        self.old = old
        self.new = new
    }

    static let topName = "$top"

    mutating func compare() {
        pairClasses()
        compareKeys(slotClass: Self.topName, oldClass: Self.topName, newClass: Self.topName,
                    old: old.topKeys, new: new.topKeys, oldTotal: old.archiveCount, newTotal: new.archiveCount)
        for type in Self.writtenModels(old) {
            let newName = renameOldToNew[type.name] ?? type.name
            guard let counterpart = new.class(named: newName), counterpart.instanceCount > 0 else { continue }
            compareKeys(slotClass: newName, oldClass: type.name, newClass: newName, old: type.keys, new: counterpart.keys,
                        oldTotal: type.instanceCount, newTotal: counterpart.instanceCount)
            compareChains(type, counterpart)
        }
        reportClasses()
        foldFamilies()
        found.sort { a, b in
            let (x, y) = (a.change, b.change)
            if x.className != y.className { return ArchiveSchema.precedes(x.className, y.className) }
            if x.key != y.key {
                guard let keyA = x.key else { return true }
                guard let keyB = y.key else { return false }
                return ArchiveSchema.precedes(keyA, keyB)
            }
            return Self.ruleOrder[x.rule] ?? 0 < Self.ruleOrder[y.rule] ?? 0
        }
    }

    static let ruleOrder: [ArchiveCompatibilityRule: Int] = Dictionary(uniqueKeysWithValues: ArchiveCompatibilityRule.allCases.enumerated().map { ($1, $0) })

    /// Classes a schema has instances of that are not Foundation's.
    static func writtenModels(_ schema: ArchiveSchema) -> [ArchiveSchema.Class] {
        schema.classes.filter { $0.instanceCount > 0 && $0.isModel }.sorted { ArchiveSchema.precedes($0.name, $1.name) }
    }

    /// A class name without its module (`MyApp.Pilot` → `Pilot`), also for a Swift mangled
    /// name (`_TtC5MyApp5Pilot` → `Pilot`).
    static func unqualified(_ name: String) -> String {
        if name.hasPrefix("_TtC"), let last = mangledComponents(name.dropFirst(4)).last { return last }
        guard let dot = name.lastIndex(of: "."), name.index(after: dot) < name.endIndex else { return name }
        return String(name[name.index(after: dot)...])
    }

    /// The length-prefixed identifiers of a simple mangled class name, or [] when it is not one.
    private static func mangledComponents(_ text: Substring) -> [String] {
        var components: [String] = []
        var rest = text
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard let length = Int(digits), length > 0, length <= rest.count - digits.count else { return [] }
            rest = rest.dropFirst(digits.count)
            components.append(String(rest.prefix(length)))
            rest = rest.dropFirst(length)
        }
        return components
    }

    /// The name a class has in the old schema's terms (a new class that one was renamed to
    /// counts as the old one).
    func canonical(_ newName: String) -> String {
        renameNewToOld[newName] ?? newName
    }

    // MARK: Classes

    mutating func pairClasses() {
        let removed = Self.writtenModels(old).filter { new.class(named: $0.name) == nil }
        var added = Self.writtenModels(new).filter { old.class(named: $0.name) == nil }
        var unpaired: [ArchiveSchema.Class] = []
        for type in removed {
            let base = Self.unqualified(type.name)
            if let index = added.firstIndex(where: { Self.unqualified($0.name) == base }) {
                pair(type.name, added.remove(at: index).name, rule: .classModuleChanged)
            } else {
                unpaired.append(type)
            }
        }
        for type in unpaired {
            let keys = Set(type.keys.map { ArchiveExactKey($0.storedKey) })
            if !keys.isEmpty, let index = added.firstIndex(where: { Set($0.keys.map { ArchiveExactKey($0.storedKey) }) == keys }) {
                pair(type.name, added.remove(at: index).name, rule: .classRenamed)
            } else {
                removedClasses.insert(type.name)
            }
        }
        addedClasses = Set(added.map(\.name))
    }

    private mutating func pair(_ oldName: String, _ newName: String, rule: ArchiveCompatibilityRule) {
        renameOldToNew[oldName] = newName
        renameNewToOld[newName] = oldName
        pairRules[oldName] = rule
    }

    mutating func compareChains(_ oldType: ArchiveSchema.Class, _ newType: ArchiveSchema.Class) {
        let oldChains = Set(oldType.chains.map { $0.map(ArchiveExactKey.init) })
        let newChains = Set(newType.chains.map { $0.map { ArchiveExactKey(canonical($0)) } })
        guard oldChains != newChains else { return }
        func text(_ chains: [[String]]) -> String {
            chains.map { $0.joined(separator: " < ") }.sorted(by: ArchiveSchema.precedes).joined(separator: " | ")
        }
        add(.classChainChanged, breaks: [], className: newType.name, key: nil, old: text(oldType.chains), new: text(newType.chains),
            advice: "readers that know \(Self.quoted(newType.name)) by name decode it as before; the keys its old and new superclasses write are checked as keys of the class",
            query: ArchiveCompatibilityExampleQuery(side: .new, className: newType.name, match: .any))
    }

    mutating func reportClasses() {
        for (oldName, newName) in renameOldToNew.sorted(by: { ArchiveSchema.precedes($0.key, $1.key) }) {
            let rule = pairRules[oldName] ?? .classRenamed
            let alias = "registry.register(\(Self.unqualified(newName)).self, className: \(Self.quoted(newName)), aliases: [\(Self.quoted(oldName))])"
            let advice: String
            if rule == .classModuleChanged {
                advice = "the same class under another module-qualified name: new readers refuse old archives' \(Self.quoted(oldName)) (\"cannot decode object of class\") unless they register it as an alias, \(alias); old readers refuse \(Self.quoted(newName)): keep archiving it as \(Self.quoted(oldName)) (register it with className: \(Self.quoted(oldName)); NSKeyedArchiver.setClassName) until no old reader remains"
            } else {
                advice = "likely renamed (\(Self.quoted(newName)) has the same keys): new readers need the old name as an alias, \(alias) (NSKeyedUnarchiver.setClass(_:forClassName:)); old readers refuse \(Self.quoted(newName)): keep archiving it as \(Self.quoted(oldName)) until no old reader remains"
            }
            add(rule, breaks: [.backward, .forward], className: oldName, key: nil, old: oldName, new: newName, advice: advice,
                query: ArchiveCompatibilityExampleQuery(side: .new, className: newName, match: .any))
        }
        for name in removedClasses.sorted(by: ArchiveSchema.precedes) {
            let places = removedPlaces[name] ?? []
            let count = old.class(named: name)?.instanceCount ?? 0
            let advice = places.isEmpty
                ? "old archives hold it only where new readers no longer read"
                : "old archives hold it under \(Self.places(places)); new readers refuse it (classNotAllowed): keep it registered, registry.register(\(Self.unqualified(name)).self, className: \(Self.quoted(name))), or migrate those archives"
            add(.classRemoved, breaks: places.isEmpty ? [] : [.backward], className: name, key: nil,
                old: "\(count) instance\(count == 1 ? "" : "s")", new: "unknown", advice: advice,
                query: ArchiveCompatibilityExampleQuery(side: .old, className: name, match: .any))
        }
        for name in addedClasses.sorted(by: ArchiveSchema.precedes) {
            let places = addedPlaces[name] ?? []
            let count = new.class(named: name)?.instanceCount ?? 0
            var advice: String
            if places.isEmpty {
                advice = "new archives hold it only where old readers do not read"
            } else {
                advice = "old readers do not know it: an allowlist refusal (classNotAllowed) under \(Self.places(places)); ship readers that register it before archiving it there"
                if let type = new.class(named: name), let known = type.chains.first?.dropFirst().first(where: { old.class(named: canonical($0))?.isModel == true }) {
                    advice += " (readers with ArchiveClassFallback.nearestRegisteredAncestor decode it as \(Self.quoted(known)), its archived superclass, losing its own keys)"
                }
            }
            add(.classAdded, breaks: places.isEmpty ? [] : [.forward], className: name, key: nil,
                old: "unknown", new: "\(count) instance\(count == 1 ? "" : "s")", advice: advice,
                query: ArchiveCompatibilityExampleQuery(side: .new, className: name, match: .any))
        }
    }

    // MARK: Keys

    /// Compares the keys of one class (or `$top`) on both sides.
    mutating func compareKeys(slotClass: String, oldClass: String, newClass: String, old oldKeys: [ArchiveSchema.Key], new newKeys: [ArchiveSchema.Key],
                              oldTotal: Int, newTotal: Int) {
        var oldByKey: [ArchiveExactKey: ArchiveSchema.Key] = [:]
        for key in oldKeys { oldByKey[ArchiveExactKey(key.storedKey)] = key }
        var newByKey: [ArchiveExactKey: ArchiveSchema.Key] = [:]
        for key in newKeys { newByKey[ArchiveExactKey(key.storedKey)] = key }
        let names = Set(oldByKey.keys).union(newByKey.keys).map(\.string).sorted(by: ArchiveSchema.precedes)
        let renames = slotClass == Self.topName ? [] : pairRenamedKeys(oldClass: oldClass, newClass: newClass,
                                                                       removed: oldKeys.filter { newByKey[ArchiveExactKey($0.storedKey)] == nil },
                                                                       added: newKeys.filter { oldByKey[ArchiveExactKey($0.storedKey)] == nil },
                                                                       oldTotal: oldTotal, newTotal: newTotal)
        let renamed = Set(renames.flatMap { [ArchiveExactKey($0.old.storedKey), ArchiveExactKey($0.new.storedKey)] })
        for name in names where !renamed.contains(ArchiveExactKey(name)) {
            let slot = Slot(className: slotClass, oldClass: oldClass, newClass: newClass, key: name)
            compareKey(slot, old: oldByKey[ArchiveExactKey(name)], new: newByKey[ArchiveExactKey(name)], oldTotal: oldTotal, newTotal: newTotal)
        }
        for rename in renames {
            let slot = Slot(className: slotClass, oldClass: oldClass, newClass: newClass, key: rename.old.storedKey)
            addRename(slot, old: rename.old, new: rename.new, oldTotal: oldTotal, newTotal: newTotal, sameValues: rename.sameValues)
        }
    }

    /// One key's place: the class as reports name it and as each side names it.
    struct Slot {
        let className: String
        let oldClass: String
        let newClass: String
        let key: String
        var isTop: Bool { className == ArchiveCompatibilityComparison.topName }
        var label: String { "\(className).\(key)" }
    }

    mutating func compareKey(_ slot: Slot, old: ArchiveSchema.Key?, new: ArchiveSchema.Key?, oldTotal: Int, newTotal: Int) {
        let key = slot.key
        let quotedKey = Self.quoted(key)
        guard let old else {
            guard let new else { return }
            let demands = Self.demands(new, total: newTotal)
            add(slot.isTop ? .topKeyAdded : .keyAdded, breaks: demands ? [.backward] : [], slot: slot,
                old: "absent", new: Self.describe(new, total: newTotal),
                advice: demands
                    ? "new readers that decode \(quotedKey) with decode(_:forKey:) fail on old archives, which lack it: decode it with decodeIfPresent and a default"
                    : "written only sometimes (or sometimes $null), so new readers treat it as optional; old readers never read it",
                query: .init(side: .new, className: slot.newClass, match: .hasKey(key)))
            return
        }
        guard let new else {
            let demands = Self.demands(old, total: oldTotal)
            add(slot.isTop ? .topKeyRemoved : .keyRemoved, breaks: demands ? [.forward] : [], slot: slot,
                old: Self.describe(old, total: oldTotal), new: "absent",
                advice: demands
                    ? "old readers require \(quotedKey), which new archives lack: keep writing it (a default value) until no old reader remains"
                    : "old archives had it only sometimes (or sometimes $null), so old readers treat it as optional",
                query: .init(side: .old, className: slot.oldClass, match: .hasKey(key)))
            return
        }
        let oldRequired = old.presentCount >= oldTotal
        let newRequired = new.presentCount >= newTotal
        let oldDemands = Self.demands(old, total: oldTotal)
        let newDemands = Self.demands(new, total: newTotal)
        if oldRequired && !newRequired {
            add(.keyBecameOptional, breaks: oldDemands ? [.forward] : [], slot: slot,
                old: Self.presence(old, total: oldTotal), new: Self.presence(new, total: newTotal),
                advice: oldDemands
                    ? "old readers require \(quotedKey), which some new archives lack: write it every time (a default when there is no value)"
                    : "old archives sometimes stored $null there, so old readers treat it as optional",
                query: .init(side: .new, className: slot.newClass, match: .lacksKey(key)))
        } else if !oldRequired && newRequired {
            add(.keyBecameRequired, breaks: newDemands ? [.backward] : [], slot: slot,
                old: Self.presence(old, total: oldTotal), new: Self.presence(new, total: newTotal),
                advice: newDemands
                    ? "new readers that require \(quotedKey) fail on old archives without it: decode it with decodeIfPresent and a default"
                    : "new archives sometimes store $null there, so new readers treat it as optional",
                query: .init(side: .old, className: slot.oldClass, match: .lacksKey(key)))
        }
        let oldNull = old.kinds.counts[.null] != nil
        let newNull = new.kinds.counts[.null] != nil
        if !oldNull && newNull {
            add(.nullAdded, breaks: oldDemands ? [.forward] : [], slot: slot,
                old: "never $null", new: "$null in \(new.kinds.counts[.null] ?? 0) of \(newTotal)",
                advice: oldDemands
                    ? "old readers require a value under \(quotedKey); new archives store $null there: archive a default instead of nil until no old reader remains"
                    : "old archives sometimes lacked the key, so old readers treat it as optional",
                query: .init(side: .new, className: slot.newClass, match: .nullUnder(key)))
        } else if oldNull && !newNull {
            add(.nullRemoved, breaks: newDemands ? [.backward] : [], slot: slot,
                old: "$null in \(old.kinds.counts[.null] ?? 0) of \(oldTotal)", new: "never $null",
                advice: newDemands
                    ? "old archives store $null under \(quotedKey): new readers must decode it with decodeIfPresent (or treat nil as a default)"
                    : "new archives sometimes lack the key, so new readers treat it as optional",
                query: .init(side: .old, className: slot.oldClass, match: .nullUnder(key)))
        }
        compareKinds(slot, old: old.kinds, new: new.kinds, elements: nil)
        compareIntegers(slot, old: old.kinds, new: new.kinds)
        compareContents(slot, old: old, new: new)
    }

    /// Whether readers of a version require a value under the key: it is always written and
    /// never `$null`.
    static func demands(_ key: ArchiveSchema.Key, total: Int) -> Bool {
        key.presentCount >= total && key.kinds.counts[.null] == nil
    }

    /// How a version treats a key, with the evidence: `required (4 of 4)` — written on every
    /// instance seen, never `$null`, so readers may require it (on the strength of 4 samples);
    /// `optional (written 4 of 4, $null in 1)`; `optional (3 of 4)`.
    static func presence(_ key: ArchiveSchema.Key, total: Int) -> String {
        guard key.presentCount >= total else { return "optional (\(key.presentCount) of \(total))" }
        if let nulls = key.kinds.counts[.null], nulls > 0 { return "optional (written \(key.presentCount) of \(total), $null in \(nulls))" }
        return "required (\(key.presentCount) of \(total))"
    }

    static func describe(_ key: ArchiveSchema.Key, total: Int) -> String {
        "\(presence(key, total: total)) \(kindList(key.kinds.kinds))"
    }

    static func kindList(_ kinds: [ArchiveSchema.ValueKind]) -> String {
        names(kinds.sorted(by: ArchiveSchema.ValueKind.fileOrder).map(\.description))
    }

    /// Names joined with `|`, the first eight of a longer list and how many there are in all.
    static func names(_ names: [String]) -> String {
        guard names.count > 8 else { return names.joined(separator: " | ") }
        return names.prefix(8).joined(separator: " | ") + " | … (\(names.count) in all)"
    }

    // MARK: Kinds

    /// What a kind is, for comparing: its family, and whether it is stored inline.
    struct Shape: Hashable {
        enum Family: Hashable {
            case integer, real, bool, string, data, date, null, object
            case inlineContainer(String)
            case collection(FoundationClass)
            case foundation(FoundationClass)
            case other(String)

            var isCollection: Bool {
                if case .collection = self { return true }
                return false
            }
        }
        let family: Family
        let isInline: Bool
    }

    static let foundationClassByName: [String: FoundationClass] = {
        var table: [String: FoundationClass] = [:]
        for kind in FoundationClass.allCases { for name in kind.defaultNames { table[name] = kind } }
        return table
    }()

    static func shape(_ kind: ArchiveSchema.ValueKind) -> Shape {
        switch kind {
        case .inlineInteger: return Shape(family: .integer, isInline: true)
        case .inlineReal: return Shape(family: .real, isInline: true)
        case .inlineBool: return Shape(family: .bool, isInline: true)
        case .inlineData: return Shape(family: .data, isInline: true)
        case .inlineString: return Shape(family: .string, isInline: true)
        case .inlineDate: return Shape(family: .date, isInline: true)
        case .inlineContainer(let shape): return Shape(family: .inlineContainer(shape), isInline: true)
        case .null: return Shape(family: .null, isInline: false)
        case .string: return Shape(family: .string, isInline: false)
        case .integer: return Shape(family: .integer, isInline: false)
        case .real: return Shape(family: .real, isInline: false)
        case .bool: return Shape(family: .bool, isInline: false)
        case .data: return Shape(family: .data, isInline: false)
        case .date: return Shape(family: .date, isInline: false)
        case .otherObject(let shape): return Shape(family: .other(shape), isInline: false)
        case .object(let name):
            switch foundationClassByName[name] {
            case .string?: return Shape(family: .string, isInline: false)
            case .data?: return Shape(family: .data, isInline: false)
            case .date?: return Shape(family: .date, isInline: false)
            case .array?, .set?, .orderedSet?, .dictionary?: return Shape(family: .collection(foundationClassByName[name] ?? .array), isInline: false)
            case let other?: return Shape(family: .foundation(other), isInline: false)
            case nil: return Shape(family: .object, isInline: false)
            }
        }
    }

    /// Compares the kinds under a key (`elements` nil) or of a collection's elements or keys
    /// (`elements` names them: `NSArray elements`), family first, then the classes of objects.
    mutating func compareKinds(_ slot: Slot, old: ArchiveSchema.KindCounts, new: ArchiveSchema.KindCounts, elements: String?) {
        let includeNull = elements != nil
        let oldKinds = old.kinds.filter { includeNull || $0 != .null }
        let newKinds = new.kinds.filter { includeNull || $0 != .null }
        let oldShapes = Set(oldKinds.map(Self.shape))
        let newShapes = Set(newKinds.map(Self.shape))
        let queryKey = slot.key
        if !oldShapes.isEmpty, !newShapes.isEmpty, oldShapes != newShapes {
            let added = newShapes.subtracting(oldShapes)
            let removed = oldShapes.subtracting(newShapes)
            let changedFamilies = Set(added.map(\.family)).symmetricDifference(Set(removed.map(\.family)))
            let rule: ArchiveCompatibilityRule
            if elements != nil {
                rule = .elementKindChanged
            } else if Set(oldShapes.map(\.family)) == Set(newShapes.map(\.family)) {
                rule = .storageChanged
            } else if changedFamilies.allSatisfy(\.isCollection) {
                rule = .collectionChanged
            } else {
                rule = .kindChanged
            }
            // What the other side's readers cannot take: a reader of reals takes an integer
            // too (decodeDouble converts one, in Foundation and here), nothing else converts.
            let unreadableByNew = removed.filter { !Self.accepts(newShapes, $0) }
            let unreadableByOld = added.filter { !Self.accepts(oldShapes, $0) }
            var breaks: [ArchiveCompatibility.Direction] = []
            if !unreadableByNew.isEmpty { breaks.append(.backward) }
            if !unreadableByOld.isEmpty { breaks.append(.forward) }
            let what = elements.map { "the \($0)" } ?? "the value under \(Self.quoted(slot.key))"
            var advice: [String] = []
            if !unreadableByNew.isEmpty {
                advice.append("new readers must still accept \(Self.kindList(oldKinds.filter { unreadableByNew.contains(Self.shape($0)) })) as \(what): a migration in init(from:) that reads the old kind and converts it")
            }
            if !unreadableByOld.isEmpty {
                advice.append("old readers cannot read \(Self.kindList(newKinds.filter { unreadableByOld.contains(Self.shape($0)) })) there: write it under a new key and keep writing the old kind under this one until no old reader remains")
            }
            if advice.isEmpty {
                advice.append("readers that decode a real take an integer too (decodeDouble converts it)")
            }
            let query: ArchiveCompatibilityExampleQuery
            if !added.isEmpty {
                query = .init(side: .new, className: slot.newClass, match: elements == nil ? .kinds(queryKey, Set(newKinds.filter { added.contains(Self.shape($0)) })) : .hasKey(queryKey))
            } else {
                query = .init(side: .old, className: slot.oldClass, match: elements == nil ? .kinds(queryKey, Set(oldKinds.filter { removed.contains(Self.shape($0)) })) : .hasKey(queryKey))
            }
            add(rule, breaks: breaks, slot: slot, old: Self.prefixed(elements, Self.kindList(oldKinds)), new: Self.prefixed(elements, Self.kindList(newKinds)),
                advice: advice.joined(separator: "; "), query: query)
        }
        compareClasses(slot, old: oldKinds, new: newKinds, elements: elements)
    }

    /// Whether readers that decode the kinds `reader` take a value of `shape`: the same shape,
    /// or an integer where they decode a real stored the same way.
    static func accepts(_ reader: Set<Shape>, _ shape: Shape) -> Bool {
        reader.contains(shape) || (shape.family == .integer && reader.contains(Shape(family: .real, isInline: shape.isInline)))
    }

    private static func prefixed(_ elements: String?, _ text: String) -> String {
        elements.map { "\($0): \(text)" } ?? text
    }

    /// The classes of the objects under a key: which the other side's readers do not admit.
    mutating func compareClasses(_ slot: Slot, old oldKinds: [ArchiveSchema.ValueKind], new newKinds: [ArchiveSchema.ValueKind], elements: String?) {
        func objectClasses(_ kinds: [ArchiveSchema.ValueKind], canonicalize: Bool) -> [String] {
            kinds.compactMap { kind -> String? in
                guard case .object(let name) = kind, Self.shape(kind).family == .object else { return nil }
                return canonicalize ? canonical(name) : name
            }.sorted(by: ArchiveSchema.precedes)
        }
        let oldClasses = objectClasses(oldKinds, canonicalize: false)
        let newClasses = objectClasses(newKinds, canonicalize: true)
        let oldSet = Set(oldClasses.map(ArchiveExactKey.init))
        let newSet = Set(newClasses.map(ArchiveExactKey.init))
        let place = elements.map { "\(slot.label) (\($0))" } ?? slot.label
        var widened: [String] = [], narrowed: [String] = [], admittedChange = false
        for name in newClasses where !oldSet.contains(ArchiveExactKey(name)) {
            if addedClasses.contains(name) || old.class(named: name) == nil {
                addedPlaces[name, default: []].append(place)
            } else if admits(old, name, oldSet, inNew: false) {
                admittedChange = true
            } else {
                widened.append(name)
            }
        }
        for name in oldClasses where !newSet.contains(ArchiveExactKey(name)) {
            let newName = renameOldToNew[name] ?? name
            if removedClasses.contains(name) || new.class(named: newName) == nil {
                removedPlaces[name, default: []].append(place)
            } else if admits(new, newName, newSet, inNew: true) {
                admittedChange = true
            } else {
                narrowed.append(name)
            }
        }
        guard !oldClasses.isEmpty, !newClasses.isEmpty, !widened.isEmpty || !narrowed.isEmpty || admittedChange else { return }
        var breaks: [ArchiveCompatibility.Direction] = []
        var advice: [String] = []
        if !narrowed.isEmpty {
            breaks.append(.backward)
            advice.append("new readers no longer admit \(narrowed.map(Self.quoted).joined(separator: ", ")) there, which old archives hold: decode it as a type that admits both (a common superclass registered with both) or migrate")
        }
        if !widened.isEmpty {
            breaks.append(.forward)
            advice.append("old readers do not admit \(widened.map(Self.quoted).joined(separator: ", ")) there (a class they know, but not as what they decode): keep archiving what they admit until no old reader remains")
        }
        if advice.isEmpty {
            advice.append("every class that changed is a subclass the other side's readers admit there")
        }
        let query: ArchiveCompatibilityExampleQuery
        if let first = widened.first {
            let newName = renameOldToNew[first] ?? first
            query = .init(side: .new, className: slot.newClass, match: elements == nil ? .kinds(slot.key, [.object(newName)]) : .hasKey(slot.key))
        } else if let first = narrowed.first {
            query = .init(side: .old, className: slot.oldClass, match: elements == nil ? .kinds(slot.key, [.object(first)]) : .hasKey(slot.key))
        } else {
            query = .init(side: .new, className: slot.newClass, match: .hasKey(slot.key))
        }
        add(elements == nil ? .classChanged : .elementClassChanged, breaks: breaks, slot: slot,
            old: Self.prefixed(elements, Self.names(oldClasses)),
            new: Self.prefixed(elements, Self.names(objectClasses(newKinds, canonicalize: false))),
            advice: advice.joined(separator: "; "), query: query)
    }

    /// Whether a version's readers admit `name` where its archives hold `admitted`: one of them,
    /// or a class whose archived chains descend from one; for the new version, also a class its
    /// registry (when given) registers in one family with a class it holds there.
    private func admits(_ schema: ArchiveSchema, _ name: String, _ admitted: Set<ArchiveExactKey>, inNew: Bool) -> Bool {
        if inNew, let newReaders, admitted.contains(where: { newReaders.registersInOneFamily(name, $0.string) }) { return true }
        guard let type = schema.class(named: name) else { return false }
        return type.chains.contains { chain in
            chain.dropFirst().contains { admitted.contains(ArchiveExactKey(inNew ? canonical($0) : $0)) }
        }
    }

    mutating func compareIntegers(_ slot: Slot, old: ArchiveSchema.KindCounts, new: ArchiveSchema.KindCounts) {
        func widths(_ kinds: [ArchiveSchema.ValueKind]) -> [Int] {
            kinds.compactMap { kind in
                switch kind {
                case .inlineInteger(let width), .integer(let width): return width
                default: return nil
                }
            }
        }
        guard let oldWidest = widths(old.kinds).max(), let newWidest = widths(new.kinds).max(), newWidest > oldWidest else { return }
        let wider = new.kinds.filter { kind in
            switch kind {
            case .inlineInteger(let width), .integer(let width): return width > oldWidest
            default: return false
            }
        }
        add(.integerWidened, breaks: [.forward], warning: true, slot: slot, old: "int\(oldWidest * 8) at most", new: "int\(newWidest * 8)",
            advice: "old archives never held an integer wider than \(oldWidest * 8) bits under \(Self.quoted(slot.key)): old readers that decode a narrower type may truncate or refuse it; decode Int64 (Int) on both sides",
            query: .init(side: .new, className: slot.newClass, match: .kinds(slot.key, Set(wider))))
    }

    /// The element kinds of the collections under a key, per kind of collection both sides hold.
    mutating func compareContents(_ slot: Slot, old: ArchiveSchema.Key, new: ArchiveSchema.Key) {
        func grouped(_ key: ArchiveSchema.Key) -> [FoundationClass: ArchiveSchema.Contents] {
            var groups: [FoundationClass: ArchiveSchema.Contents] = [:]
            for contents in key.contents {
                guard case .collection(let family) = Self.shape(.object(contents.className)).family else { continue }
                var group = groups[family] ?? ArchiveSchema.Contents(className: family.defaultNames.first ?? contents.className)
                group.elements.merge(contents.elements)
                group.keys.merge(contents.keys)
                groups[family] = group
            }
            return groups
        }
        let oldGroups = grouped(old)
        let newGroups = grouped(new)
        for family in FoundationClass.allCases {
            guard let oldGroup = oldGroups[family], let newGroup = newGroups[family] else { continue }
            compareKinds(slot, old: oldGroup.elements, new: newGroup.elements, elements: "\(oldGroup.className) elements")
            if !oldGroup.keys.isEmpty || !newGroup.keys.isEmpty {
                compareKinds(slot, old: oldGroup.keys, new: newGroup.keys, elements: "\(oldGroup.className) keys")
            }
        }
    }

    // MARK: Findings

    mutating func add(_ rule: ArchiveCompatibilityRule, breaks: [ArchiveCompatibility.Direction], warning: Bool = false, slot: Slot,
                      old: String, new: String, advice: String, query: ArchiveCompatibilityExampleQuery?) {
        // At $top, every change but an added or removed key (and a warning) is "changed".
        var reported = rule
        if slot.isTop, ![.topKeyAdded, .topKeyRemoved, .integerWidened, .elementKindChanged, .elementClassChanged].contains(rule) {
            reported = .topKeyChanged
        }
        add(reported, breaks: breaks, warning: warning, className: slot.className, key: slot.key, old: old, new: new, advice: advice, query: query)
    }

    mutating func add(_ rule: ArchiveCompatibilityRule, breaks: [ArchiveCompatibility.Direction], warning: Bool = false, className: String, key: String?,
                      old: String, new: String, advice: String, query: ArchiveCompatibilityExampleQuery?) {
        var change = ArchiveCompatibility.Change(rule: rule, breaks: breaks.sorted(), isWarning: warning, className: className, key: key,
                                                 old: old, new: new, exampleArchive: nil, exampleKeyPath: nil, advice: advice)
        change.superclasses = superclasses(of: className)
        found.append(ArchiveCompatibilityFinding(change: change, query: query))
    }

    static func quoted(_ text: String) -> String {
        "\"\(text)\""
    }

    /// The first place a class appears, and how many more.
    static func places(_ places: [String]) -> String {
        guard let first = places.first else { return "" }
        return places.count == 1 ? first : "\(first) and \(places.count - 1) other place\(places.count == 2 ? "" : "s")"
    }
}
