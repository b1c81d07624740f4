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
