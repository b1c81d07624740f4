import PropertyList

/// Renamed keys: a key one version stops writing whose value another key of the same class
/// now holds. Reported as a removed key and an added key, the advice for each (keep writing a
/// default; decode with a default) makes the check pass while the value is lost; reported as
/// one change, the fix keeps it.
extension ArchiveCompatibilityComparison {
    /// A removed key and the added key its value moved to.
    struct RenamedKey {
        let old: ArchiveSchema.Key
        let new: ArchiveSchema.Key
        /// Whether the archives on both sides show the same values under the two keys (false:
        /// the kinds alone pair them, a schema file having no values).
        let sameValues: Bool
    }

    /// Most values of one key gathered from one side's archives to compare.
    static let maximumRenameSamples = 4_096

    /// Pairs removed keys of a class with added ones. A pair needs the same kinds (what each
    /// side's readers decode); then, where both sides are archives, values in common (most of
    /// the fewer side's distinct values), the pair with most in common first; where a side is
    /// a schema file, only a removed key with exactly one added key of its kinds, and that key
    /// with exactly one removed key of its kinds, pairs: the kinds alone name no value.
    func pairRenamedKeys(oldClass: String, newClass: String, removed: [ArchiveSchema.Key], added: [ArchiveSchema.Key],
                         oldTotal: Int, newTotal: Int) -> [RenamedKey] {
        guard !removed.isEmpty, !added.isEmpty else { return [] }
        func shapes(_ key: ArchiveSchema.Key) -> Set<Shape> { Set(key.kinds.kinds.filter { $0 != .null }.map(Self.shape)) }
        let withValues = !oldArchives.isEmpty && !newArchives.isEmpty
        var kindPairs: [(removed: Int, added: Int)] = []
        for (r, old) in removed.enumerated() where !shapes(old).isEmpty {
            for (a, new) in added.enumerated() where shapes(new) == shapes(old) { kindPairs.append((r, a)) }
        }
        var candidates: [(removed: Int, added: Int, common: Int)] = []
        if withValues, !kindPairs.isEmpty {
            // One walk of each side's archives for all the keys in question.
            let oldValues = Self.values(of: Set(kindPairs.map { removed[$0.removed].storedKey }), inClass: oldClass, in: oldArchives)
            let newValues = Self.values(of: Set(kindPairs.map { added[$0.added].storedKey }), inClass: newClass, in: newArchives)
            for pair in kindPairs {
                let x = oldValues[removed[pair.removed].storedKey] ?? [], y = newValues[added[pair.added].storedKey] ?? []
                let common = x.intersection(y).count
                // Most of the fewer side's distinct values: one shared "0" between two counters is
                // no rename.
                if common > 0, common * 2 > min(x.count, y.count) { candidates.append((pair.removed, pair.added, common)) }
            }
        } else {
            candidates = kindPairs.map { ($0.removed, $0.added, 0) }
        }
        var pairs: [RenamedKey] = []
        if withValues {
            var usedOld = Set<Int>(), usedNew = Set<Int>()
            for candidate in candidates.sorted(by: { $0.common > $1.common }) where !usedOld.contains(candidate.removed) && !usedNew.contains(candidate.added) {
                usedOld.insert(candidate.removed)
                usedNew.insert(candidate.added)
                pairs.append(RenamedKey(old: removed[candidate.removed], new: added[candidate.added], sameValues: true))
            }
        } else {
            for candidate in candidates {
                let oneOld = candidates.filter { $0.added == candidate.added }.count == 1
                let oneNew = candidates.filter { $0.removed == candidate.removed }.count == 1
                if oneOld && oneNew { pairs.append(RenamedKey(old: removed[candidate.removed], new: added[candidate.added], sameValues: false)) }
            }
        }
        return pairs.sorted { ArchiveSchema.precedes($0.old.storedKey, $1.old.storedKey) }
    }

    /// The distinct values (canonical texts, as `ArchiveDiff` matches set elements) stored under
    /// each of `storedKeys` in instances of `className`, at most ``maximumRenameSamples`` a key:
    /// one walk of the archives.
    static func values(of storedKeys: Set<String>, inClass className: String, in graphs: [ArchiveGraph]) -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for graph in graphs {
            let side = DiffSide(graph: graph)
            for object in graph.objects {
                guard case .instance(let instance) = object, case .classDescriptor(let descriptor)? = graph.object(instance.classUID),
                      descriptor.name.isExactlyEqual(to: className) else { continue }
                for key in storedKeys where found[key, default: []].count < maximumRenameSamples {
                    guard let value = instance.storage[key] else { continue }
                    found[key, default: []].insert(side.fingerprint(value))
                }
            }
        }
        return found
    }

    /// Reports a rename once, naming both keys, with the fix that keeps the value.
    mutating func addRename(_ slot: Slot, old: ArchiveSchema.Key, new: ArchiveSchema.Key, oldTotal: Int, newTotal: Int, sameValues: Bool) {
        let oldKey = Self.quoted(old.userKey ?? old.storedKey)
        let newKey = Self.quoted(new.userKey ?? new.storedKey)
        let oldDemands = Self.demands(old, total: oldTotal)
        let newDemands = Self.demands(new, total: newTotal)
        var breaks: [ArchiveCompatibility.Direction] = []
        if newDemands { breaks.append(.backward) }
        if oldDemands { breaks.append(.forward) }
        let evidence = sameValues
            ? "the values of \(oldKey) are now under \(newKey)"
            : "\(oldKey) is no longer written and \(newKey), of the same kinds, is new (a schema file holds no values to confirm a rename)"
        var advice = "\(evidence): the value moved. Read \(newKey) falling back to \(oldKey) (decodeIfPresent(forKey: \(newKey)) ?? decode(forKey: \(oldKey)))"
        advice += oldDemands
            ? ", and keep writing \(oldKey) with the real value beside \(newKey) until no old reader remains (old readers require it); never a default there, which old readers would take for the value"
            : "; old readers treat \(oldKey) as optional, so writing it too is only needed for them to see the value"
        var finding = ArchiveCompatibilityFinding(change: ArchiveCompatibility.Change(
            rule: .keyRenamed, breaks: breaks, isWarning: false, className: slot.className, key: slot.key,
            old: "\(oldKey): \(Self.describe(old, total: oldTotal))", new: "\(newKey): \(Self.describe(new, total: newTotal))",
            exampleArchive: nil, exampleKeyPath: nil, advice: advice),
            query: .init(side: .new, className: slot.newClass, match: .hasKey(new.storedKey)))
        finding.change.superclasses = superclasses(of: slot.className)
        finding.change.renamedKey = new.storedKey
        found.append(finding)
    }

    /// The superclasses of a class as the archives chain it (the new side's chain first).
    func superclasses(of className: String) -> [String] {
        let chain = new.class(named: className)?.chains.first ?? old.class(named: className)?.chains.first ?? []
        return Array(chain.dropFirst())
    }
}
