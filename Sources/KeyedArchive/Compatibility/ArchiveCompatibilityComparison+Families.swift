import PropertyList

/// A change to a key that every class of a family stores alike — what one `encode(with:)` of
/// the family's superclass writes — is one change, reported once at the family's root, not
/// once per class (`Airplane.`, `Glider.`, `PoweredAirplane.registration`); a `Class.key`
/// pattern for the root names it, as it names the key of every subclass in `ignoring:`.
extension ArchiveCompatibilityComparison {
    mutating func foldFamilies() {
        // Key changes of classes, grouped by everything they say but the class.
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        for (index, finding) in found.enumerated() {
            let change = finding.change
            guard let key = change.key, change.className != Self.topName else { continue }
            let id = [change.rule.rawValue, key, change.renamedKey ?? "", change.breaks.map(\.rawValue).joined(separator: ","),
                      change.isWarning ? "warning" : ""].joined(separator: "\u{0}")
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(index)
        }
        var dropped = Set<Int>()
        var folded: [ArchiveCompatibilityFinding] = []
        for id in order {
            guard let indices = groups[id], indices.count > 1 else { continue }
            var members: [ArchiveExactKey: Int] = [:]
            for index in indices { members[ArchiveExactKey(found[index].change.className)] = index }
            // Roots to try, the highest first, so that a whole family folds before a branch of it.
            var candidates: [String] = []
            var seen = Set<ArchiveExactKey>()
            for index in indices {
                let change = found[index].change
                for name in ([change.className] + change.superclasses).reversed() where seen.insert(ArchiveExactKey(name)).inserted {
                    candidates.append(name)
                }
            }
            var taken = Set<ArchiveExactKey>()
            for root in candidates where new.class(named: root)?.isModel == true {
                let family = Self.familyMembers(of: root, in: new)
                guard family.count > 1, family.allSatisfy({ members[ArchiveExactKey($0)] != nil && !taken.contains(ArchiveExactKey($0)) }) else { continue }
                // Every class of the family the old side writes must show the change too.
                let oldFamily = Self.familyMembers(of: canonical(root), in: old)
                guard oldFamily.allSatisfy({ members[ArchiveExactKey(renameOldToNew[$0] ?? $0)] != nil }) else { continue }
                taken.formUnion(family.map(ArchiveExactKey.init))
                let familyIndices = family.compactMap { members[ArchiveExactKey($0)] }
                dropped.formUnion(familyIndices)
                folded.append(fold(familyIndices, root: root, family: family))
            }
        }
        guard !dropped.isEmpty else { return }
        found = found.enumerated().filter { !dropped.contains($0.offset) }.map(\.element) + folded
    }

    /// The model classes a schema has instances of whose archived chain holds `root` (itself
    /// included), in the schema's order.
    static func familyMembers(of root: String, in schema: ArchiveSchema) -> [String] {
        schema.classes.filter { type in
            type.instanceCount > 0 && type.isModel && (type.chains.first ?? [type.name]).contains { $0.isExactlyEqual(to: root) }
        }.map(\.name)
    }

    /// One change at `root` for the family's changes: the key's observations on every class of
    /// the family added up and compared again, so the counts are the family's.
    private func fold(_ indices: [Int], root: String, family: [String]) -> ArchiveCompatibilityFinding {
        let first = found[indices[0]]
        let change = first.change
        let storedKey = change.key ?? ""
        let newStoredKey = change.renamedKey ?? storedKey
        var oldKey = ArchiveSchema.Key(storedKey: storedKey)
        var newKey = ArchiveSchema.Key(storedKey: newStoredKey)
        var oldTotal = 0, newTotal = 0
        var oldSeen = false, newSeen = false
        for name in family {
            if let type = old.class(named: canonical(name)) {
                oldTotal = ArchiveSchemaBuilder.sum(oldTotal, type.instanceCount)
                if let key = type.keys.first(where: { $0.storedKey.isExactlyEqual(to: storedKey) }) {
                    ArchiveSchemaBuilder.add(key, to: &oldKey)
                    oldSeen = true
                }
            }
            if let type = new.class(named: name) {
                newTotal = ArchiveSchemaBuilder.sum(newTotal, type.instanceCount)
                if let key = type.keys.first(where: { $0.storedKey.isExactlyEqual(to: newStoredKey) }) {
                    ArchiveSchemaBuilder.add(key, to: &newKey)
                    newSeen = true
                }
            }
        }
        var scratch = self
        scratch.found = []
        let slot = Slot(className: root, oldClass: canonical(root), newClass: root, key: storedKey)
        if change.rule == .keyRenamed {
            scratch.addRename(slot, old: oldKey, new: newKey, oldTotal: oldTotal, newTotal: newTotal, sameValues: !oldArchives.isEmpty && !newArchives.isEmpty)
        } else {
            scratch.compareKey(slot, old: oldSeen ? oldKey : nil, new: newSeen ? newKey : nil, oldTotal: oldTotal, newTotal: newTotal)
        }
        var result = scratch.found.first { $0.change.rule == change.rule } ?? first
        let members = family.map(Self.quoted).joined(separator: ", ")
        result.change = ArchiveCompatibility.Change(
            rule: result.change.rule, breaks: change.breaks, isWarning: change.isWarning, className: root, key: storedKey,
            old: result.change.old, new: result.change.new, exampleArchive: nil, exampleKeyPath: nil,
            advice: result.change.advice + " (every class of the family stores it: \(members))")
        result.change.superclasses = superclasses(of: root)
        result.change.renamedKey = change.renamedKey
        // The example: an instance of a class of the family (the root may have none).
        result.query = first.query
        return result
    }
}
