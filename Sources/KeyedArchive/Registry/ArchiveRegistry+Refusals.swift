import PropertyList

extension ArchiveRegistry {
    /// What a refusal of the class `name`, where the Foundation class `kind` was asked for,
    /// says the registry admits, and how to admit it. A registry made with
    /// ``init(foundationClasses:)`` may admit no name of `kind` at all: the refusal then says
    /// so and points at that set, not at ``addAlias(_:for:)``, which is for other classes'
    /// names (a private subclass another archiver wrote).
    func foundationRefusal(name: String, kind: FoundationClass) -> (admitted: String, remedy: String?) {
        let accepted = foundationNames[kind, default: []]
        let admitted = accepted.isEmpty
            ? "this registry admits no \(kind.defaultNames.first ?? kind.rawValue): it was made with ArchiveRegistry(foundationClasses:) without .\(kind.rawValue)"
            : "accepted: \(accepted.joined(separator: ", "))"
        guard entry(named: name) == nil else { return (admitted, nil) }
        if let named = FoundationClass.allCases.first(where: { $0.defaultNames.contains { $0.isExactlyEqual(to: name) } }) {
            guard named == kind else {
                return (admitted, "none: the object is an \(name), not an \(kind.defaultNames.first ?? kind.rawValue)")
            }
            return (admitted, "ArchiveRegistry(foundationClasses: […, .\(kind.rawValue)]) — only if this data may hold an \(kind.defaultNames.first ?? kind.rawValue)")
        }
        return (admitted, Self.remedy(admitting: name, kind: kind))
    }
}

extension ArchiveRegistry {
    /// The remedy for a module-qualified name of a registered class (`AppModelsV1.Pilot`, from a
    /// build whose classes were archived under their Swift module's name, where `Pilot` or
    /// `FleetApp.Pilot` is registered): an alias on that class's registration, not a new type.
    /// Nil unless the name's last part is that of exactly one admitted registration's name, and
    /// the object's chain does not name that registration after it (then the object is of a
    /// subclass of it: `MyAppV2.Glider < Glider < Airplane` is not a `Glider`).
    func aliasRemedy(admitting name: String, chain: [String], family: (entry: Int, includesDescendants: Bool)) -> String? {
        guard let unqualified = Self.moduleQualifiedLastPart(name) else { return nil }
        let matches = entries.indices.filter { index in
            admits(index, family: family) && registeredNames(index).contains { registered in
                (Self.moduleQualifiedLastPart(registered) ?? registered).isExactlyEqual(to: unqualified)
            }
        }
        guard matches.count == 1, let index = matches.first else { return nil }
        let names = registeredNames(index)
        guard !chain.dropFirst().contains(where: { ancestor in names.contains { $0.isExactlyEqual(to: ancestor) } }) else { return nil }
        let entry = entries[index]
        var arguments = ["\(entry.typeName).self"]
        if !entry.className.isExactlyEqual(to: entry.typeName) { arguments.append("className: \(Self.swiftLiteral(entry.className))") }
        arguments.append("aliases: [\((entry.aliases + [name]).map(Self.swiftLiteral).joined(separator: ", "))]")
        if let parent = entry.superclass { arguments.append("superclass: \(entries[parent].typeName).self") }
        return "registry.register(\(arguments.joined(separator: ", "))) in place of its registration — only if that class really is \(entry.typeName), archived under its module's name"
    }

    /// The archived names of a registration: its class name, then its aliases.
    private func registeredNames(_ index: Int) -> [String] {
        [entries[index].className] + entries[index].aliases
    }

    /// `Pilot` of `AppModelsV1.Pilot`; nil for a name without a module (no dot, or nothing
    /// on one side of the last one).
    private static func moduleQualifiedLastPart(_ name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let last = name[name.index(after: dot)...]
        return last.isEmpty ? nil : String(last)
    }
}
