/// What changed between two versions' schemas, and which of the changes break which
/// direction: can every version still in users' hands read what we write now (forward), and
/// can we read everything they wrote (backward)?
///
/// ```swift
/// let old = try ArchiveSchemaSource.load(path: "contracts/v1.schema.json")
/// let new = try ArchiveSchemaSource.load(path: "Fixtures/v2")
/// let compatibility = ArchiveCompatibility(old: old, new: new)
/// if !compatibility.isCompatible(under: .full) {
///     for change in compatibility.changes { print(change.rule, change.breaks, change.className, change.key ?? "") }
/// }
/// ```
///
/// Every change is reported once, as a named ``ArchiveCompatibilityRule`` with the directions
/// it breaks, from one assumption NSCoding relies on: a version reads the keys it writes. A key
/// written in every instance of its class and never `$null` is one its readers require; one
/// written only sometimes, or sometimes `$null`, is one they treat as optional. Where a side
/// was inferred from archives, each change carries an example: the archive and key path where
/// it shows. Docs/Compatibility.md tells the rules with a versioning story.
///
/// The comparison is linear in the two schemas' size; examples take one breadth-first walk of
/// the archives that have them, and only when a change needs one.
public struct ArchiveCompatibility: Sendable {
    /// Which readers a change breaks.
    public enum Direction: String, CaseIterable, Hashable, Sendable, Comparable {
        /// Readers of the new version, archives of the old: can we still open what users have?
        case backward
        /// Readers of the old version, archives of the new: can the version in users' hands open
        /// what we write now?
        case forward

        public static func < (lhs: Direction, rhs: Direction) -> Bool {
            lhs == .backward && rhs == .forward
        }
    }

    /// Which directions fail a check (Confluent's compatibility types; ``ArchiveCompatibilityReport``
    /// applies them to several old versions for the transitive forms).
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        /// Only changes that break backward fail: new readers must read old archives.
        case backward
        /// Only changes that break forward fail: old readers must read new archives.
        case forward
        /// Changes that break either direction fail. The default.
        case full

        /// The directions this mode checks.
        public var directions: Set<Direction> {
            switch self {
            case .backward: return [.backward]
            case .forward: return [.forward]
            case .full: return [.backward, .forward]
            }
        }
    }

    /// One change between the two schemas.
    public struct Change: Hashable, Sendable {
        /// What kind of change it is.
        public let rule: ArchiveCompatibilityRule
        /// The directions it breaks, backward first; empty for a compatible change.
        public let breaks: [Direction]
        /// Whether it only may break (``ArchiveCompatibilityRule/integerWidened``): reported, but
        /// no mode fails on it.
        public let isWarning: Bool
        /// The class (its new name where a class was renamed, except for the rename itself and
        /// class-level changes to an old class), or `$top` for a top-level key.
        public let className: String
        /// The key as stored, for a change to a key; nil for a change to a class.
        public let key: String?
        /// What the old version has, in words (`required NSString`, `absent`, `MyApp.Pilot`).
        public let old: String
        /// What the new version has.
        public let new: String
        /// The archive where the change shows, when that side was inferred from archives.
        public internal(set) var exampleArchive: String?
        /// The key path in ``exampleArchive`` where the change shows (`root.airplanes[1].wingspan`).
        public internal(set) var exampleKeyPath: String?
        /// Whether ``exampleArchive`` is one of the new side's archives.
        package var exampleIsNew = false
        /// What breaks, and the fix: an alias, `decodeIfPresent`, a default, a migration.
        public let advice: String
        /// The superclasses of ``className`` as the archives chain them (nearest first): a
        /// `Superclass.key` pattern names a change to a subclass's key, as `ignoring:` does.
        var superclasses: [String] = []
        /// For ``ArchiveCompatibilityRule/keyRenamed``: the key the value moved to (``key`` is
        /// the key it moved from).
        public internal(set) var renamedKey: String?

        /// `ARCHIVE: KEYPATH`, when there is an example.
        public var example: String? {
            guard let exampleArchive else { return nil }
            return "\(exampleArchive): \(exampleKeyPath ?? "")"
        }

        /// `Class.key`, or the class alone for a class-level change: what `--ignore` matches.
        public var location: String {
            key.map { "\(className).\($0)" } ?? className
        }

        /// Whether the change fails a check under `mode`.
        public func isBreaking(under mode: Mode) -> Bool {
            !isWarning && breaks.contains { mode.directions.contains($0) }
        }

        /// Whether `pattern` names this change: a rule's name, a class, `Class.key`, or a rule
        /// and a class or key (`key-removed:Airplane.licenses`), which names only that kind of
        /// change there. `Class.key` means what it means in `ignoring:` (`ArchiveFieldPattern`
        /// in KeyedArchiveTesting): the key in objects of the class or of any subclass, so
        /// `Airplane.registration` names a change to `Glider.registration` too. A class alone
        /// names the class's own changes. A rename is named by either of its keys.
        public func matches(_ pattern: String) -> Bool {
            if let colon = pattern.firstIndex(of: ":"), let named = ArchiveCompatibilityRule(rawValue: String(pattern[..<colon])) {
                let target = String(pattern[pattern.index(after: colon)...])
                return named == rule && (target == className || names(classKey: target))
            }
            return pattern == rule.rawValue || pattern == className || names(classKey: pattern)
        }

        /// Whether `pattern` is `Class.key` for this change's key (or the key a rename moved it
        /// to), `Class` being its class or a superclass.
        private func names(classKey pattern: String) -> Bool {
            guard let key else { return false }
            for name in [className] + superclasses {
                for stored in [key] + (renamedKey.map { [$0] } ?? []) where pattern == "\(name).\(stored)" {
                    return true
                }
            }
            return false
        }
    }

    /// How reports name the old side.
    public let oldName: String
    /// How reports name the new side.
    public let newName: String
    /// The new side's first archive, when it was inferred from archives: where a GitHub
    /// annotation points for a change whose example is on the old side.
    let newArchiveName: String?
    /// Every change, ordered by class, key and rule.
    public internal(set) var changes: [Change]
    /// How many changes were taken out by ``ignoring(_:)``.
    public internal(set) var ignoredCount = 0
    /// How many changes a report's decisions accepted (``ArchiveCompatibilityDecisions``).
    public internal(set) var acceptedCount = 0
    /// How many instances of a class a schema should hold before its "required" is trusted:
    /// a key every sample has is called required, and with one or two samples that is chance as
    /// often as design (Docs/Compatibility.md, "How many samples to keep").
    public static let recommendedInstanceCount = 3

    /// A model class one side holds fewer than ``recommendedInstanceCount`` instances of, so
    /// that its keys' "required" rests on little evidence.
    public struct FewSamples: Hashable, Sendable, CustomStringConvertible {
        /// Whether it is the old side's (the contract's) class.
        public let isOld: Bool
        /// The archived class name.
        public let className: String
        /// Its instances on that side.
        public let instanceCount: Int

        /// `FleetApp.Pilot: 1 instance in the old side`.
        public var description: String {
            "\(className.escapedForMessage): \(instanceCount) instance\(instanceCount == 1 ? "" : "s") in the \(isOld ? "old" : "new") side"
        }
    }

    /// The model classes with keys that either side holds fewer than
    /// ``recommendedInstanceCount`` instances of, old side first.
    public let fewSamples: [FewSamples]

    /// What an ignore pattern may name here: every rule, and each side's classes and
    /// `Class.key`s (for the nearest name to a pattern that matches nothing).
    let nameablePatterns: Set<String>

    /// The kinds of archive (``ArchiveSchemaSource`` kinds: what `$top` refers to) the old side
    /// holds that the new side has none of, so that they were not compared; empty when the old
    /// side is of one kind.
    public let uncomparedKinds: [String]

    /// Compares `new` with `old` (the schema of the version in users' hands).
    ///
    /// Like with like: when the old side holds archives of several kinds — a contract folder
    /// with a schema file per kind, fixtures of pilots beside fixtures of schedules — each kind
    /// of the new side is compared with the old side's archives of the same kind only, so that a
    /// schedule archive is not reported as a pilot archive whose root changed. A new kind the old
    /// side does not have (a renamed root class, say) is compared with the whole old side.
    public init(old: ArchiveSchemaSource, new: ArchiveSchemaSource) {
        self.init(old: old, new: new, newReaders: nil)
    }

    /// The same, with the registry new readers decode with (the testing toolkit encodes the new
    /// side with it): whether new readers admit a class where old archives hold it is asked of
    /// the registry (a class registered in one family with the classes the new samples hold
    /// there is admitted), not guessed from which subclasses a few samples happen to hold.
    package init(old: ArchiveSchemaSource, new: ArchiveSchemaSource, newReaders: ArchiveRegistry?) {
        oldName = old.name
        newName = new.name
        newArchiveName = new.archives.first?.name
        var pairs: [(old: ArchiveSchemaSource, new: ArchiveSchemaSource)] = [(old, new)]
        var uncompared: [String] = []
        // One input is one kind: only a side of several inputs is sorted into kinds (each archive's
        // signature costs a schema of its own), so a single contract file costs nothing more.
        let oldKinds = old.parts.count > 1 ? old.kinds : []
        if oldKinds.count > 1 {
            let newKinds = new.kinds
            pairs = []
            var againstAll = false
            for kind in newKinds {
                let newOfKind = newKinds.count == 1 ? new : new.restricted(to: kind.parts, name: new.name)
                if let like = oldKinds.first(where: { $0.signature == kind.signature }) {
                    pairs.append((old.restricted(to: like.parts, name: old.name), newOfKind))
                } else {
                    pairs.append((old, newOfKind))
                    againstAll = true
                }
            }
            if !againstAll {
                uncompared = oldKinds.map(\.signature).filter { signature in !newKinds.contains { $0.signature == signature } }
            }
        }
        uncomparedKinds = uncompared
        var found: [Change] = []
        for pair in pairs {
            var comparison = ArchiveCompatibilityComparison(old: pair.old.schema, new: pair.new.schema)
            comparison.oldArchives = pair.old.archives.map(\.graph)
            comparison.newArchives = pair.new.archives.map(\.graph)
            comparison.newReaders = newReaders
            comparison.compare()
            found += ArchiveCompatibilityExamples.resolve(comparison.found, old: pair.old, new: pair.new)
        }
        if pairs.count > 1 {
            // One change found in two kinds (a class both hold) is one change.
            var seen: Set<String> = []
            found = found.filter { seen.insert("\($0.rule.rawValue)\u{0}\($0.location)\u{0}\($0.old)\u{0}\($0.new)").inserted }
            found.sort { ($0.className, $0.key ?? "", $0.rule.rawValue) < ($1.className, $1.key ?? "", $1.rule.rawValue) }
        }
        var few: [FewSamples] = []
        for (isOld, schema) in [(true, old.schema), (false, new.schema)] {
            for type in schema.classes where type.isModel && !type.keys.isEmpty && type.instanceCount > 0 && type.instanceCount < Self.recommendedInstanceCount {
                few.append(FewSamples(isOld: isOld, className: type.name, instanceCount: type.instanceCount))
            }
        }
        fewSamples = few
        changes = found
        var names = Set(ArchiveCompatibilityRule.allCases.map(\.rawValue))
        for schema in [old.schema, new.schema] {
            for type in schema.classes {
                names.insert(type.name)
                for key in type.keys { names.insert("\(type.name).\(key.userKey ?? key.storedKey)") }
            }
        }
        nameablePatterns = names
    }

    /// Whether no change fails `mode`.
    public func isCompatible(under mode: Mode) -> Bool {
        !changes.contains { $0.isBreaking(under: mode) }
    }

    /// The same comparison without the changes `patterns` name (rule names, classes, or
    /// `Class.key`): changes a team has accepted. ``ignoredCount`` counts them.
    public func ignoring(_ patterns: [String]) -> ArchiveCompatibility {
        guard !patterns.isEmpty else { return self }
        var copy = self
        copy.changes = changes.filter { change in !patterns.contains { change.matches($0) } }
        copy.ignoredCount += changes.count - copy.changes.count
        return copy
    }
}
