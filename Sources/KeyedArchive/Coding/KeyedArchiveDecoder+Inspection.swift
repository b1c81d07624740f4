import PropertyList

/// What a field of an archived object holds, read without decoding it: so that a model can
/// branch on the archived type before choosing how to decode (`NSString` or `NSNumber`, one of
/// its own classes or an `NSDictionary`).
public enum ArchiveFieldContent: Hashable, Sendable {
    /// A value stored in the object itself, as `encodeInt:`, `encodeBool:`, `encodeDouble:` and
    /// `encodeBytes:` store them.
    case inline(PropertyListValue)
    /// A reference to `$null` (a nil object).
    case null
    /// A reference to a plain value, which has no class: an `NSString`, `NSNumber` or `NSData`
    /// (or a bare date). `kindName` is the property-list kind: `string`, `integer`, `real`,
    /// `boolean`, `data` or `date`.
    case plain(ArchiveReference, kindName: String)
    /// A reference to an object with a class.
    case object(ArchiveObjectReference)

    /// Whether the value is stored in the object itself rather than referenced.
    public var isInline: Bool {
        if case .inline = self { return true }
        return false
    }

    /// The archived class name of a referenced object; nil for anything else.
    public var className: String? {
        if case .object(let object) = self { return object.className }
        return nil
    }

    /// The archived `$classes` of a referenced object; nil for anything else.
    public var classes: [String]? {
        if case .object(let object) = self { return object.classes }
        return nil
    }

    /// The reference the field holds; nil for an inline value.
    public var reference: ArchiveReference? {
        switch self {
        case .inline: return nil
        case .null: return .null
        case .plain(let reference, _): return reference
        case .object(let object): return object.reference
        }
    }
}

extension KeyedArchiveDecoder {
    /// What the field under `key` holds, without decoding it (no class is admitted or refused,
    /// nothing is made); nil when the key is absent.
    /// - Throws: ``ArchiveError/Code/invalidReference`` for a reference outside `$objects`,
    ///   ``ArchiveError/Code/invalidClassReference`` for an object whose `$class` is not a class
    ///   dictionary, ``ArchiveError/Code/typeMismatch`` for a reference to a class dictionary.
    public func fieldContent(forKey key: String) throws(ArchiveError) -> ArchiveFieldContent? {
        try fieldContent(forStoredKey: ArchiveKeys.escape(key))
    }

    /// The same for a key exactly as the file spells it (`$0`, `$$name`).
    public func fieldContent(forStoredKey storedKey: String) throws(ArchiveError) -> ArchiveFieldContent? {
        guard let stored = fields[storedKey] else { return nil }
        guard case .uid(let uid) = stored else { return .inline(stored) }
        if uid.value == 0 { return .null }
        return try session.withPath(.key(ArchiveKeys.unescape(storedKey) ?? storedKey)) { () throws(ArchiveError) -> ArchiveFieldContent in
            let target = try session.index(uid)
            switch session.object(target) {
            case .null: return .null
            case .string: return .plain(ArchiveReference(uid: uid), kindName: "string")
            case .integer: return .plain(ArchiveReference(uid: uid), kindName: "integer")
            case .real: return .plain(ArchiveReference(uid: uid), kindName: "real")
            case .bool: return .plain(ArchiveReference(uid: uid), kindName: "boolean")
            case .data: return .plain(ArchiveReference(uid: uid), kindName: "data")
            case .date: return .plain(ArchiveReference(uid: uid), kindName: "date")
            case .other(let value): return .plain(ArchiveReference(uid: uid), kindName: value.kindName)
            case .instance:
                guard let descriptor = session.store.classDescriptor(of: target) else {
                    throw session.error(.invalidClassReference, "$class does not refer to a class dictionary", uid: target)
                }
                return .object(ArchiveObjectReference(reference: ArchiveReference(uid: uid), className: descriptor.name, classes: descriptor.classes))
            case .classDescriptor:
                throw session.error(.typeMismatch, "refers to a class dictionary, not to a value", uid: target)
            }
        }
    }

    /// The archived class name of the object the field under `key` refers to; nil when the key
    /// is absent, `$null`, inline or a plain value (see ``fieldContent(forKey:)``).
    public func archivedClassName(forKey key: String) throws(ArchiveError) -> String? {
        try fieldContent(forKey: key)?.className
    }

    /// The archived `$classes` of the object the field under `key` refers to, the class name
    /// first; nil as for ``archivedClassName(forKey:)``.
    public func archivedClasses(forKey key: String) throws(ArchiveError) -> [String]? {
        try fieldContent(forKey: key)?.classes
    }
}

extension KeyedUnarchiver {
    /// What the top-level key holds, without decoding it (see
    /// ``KeyedArchiveDecoder/fieldContent(forKey:)``).
    public func fieldContent(forKey key: String = "root") throws(ArchiveError) -> ArchiveFieldContent? {
        try topLevelDecoder.fieldContent(forKey: key)
    }
}
