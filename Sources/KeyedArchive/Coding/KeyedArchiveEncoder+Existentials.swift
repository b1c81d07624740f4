import PropertyList

// Values whose type is known only at run time (`any ArchiveObjectEncodable`: the members of a
// heterogeneous collection, a `userInfo` payload). A bare existential already opens into the
// generic `encode(_:forKey:)`; an optional one and a dictionary of them do not, and would need a
// generic helper in the caller to open them.
//
// Every overload here is disfavored: a concrete type must keep going to the generic functions,
// which its module specializes (the hot path of a model's encode); these take only what the
// generic ones cannot.

extension KeyedArchiveEncoder {
    /// Encodes a value of any archivable type, known only at run time, as its own type would be
    /// encoded.
    @_disfavoredOverload
    public func encode(_ value: any ArchiveObjectEncodable, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let number = try session.fieldKey(key)
        let reference = try session.withPath(.key(key)) { () throws(ArchiveError) in try self.reference(for: value) }
        session.setField(.uid(reference.uid), key: number, frame: frame)
    }

    /// Encodes an optional value of any archivable type; nil is stored as a reference to
    /// `$null`, as Apple does.
    @_disfavoredOverload
    public func encode(_ value: (any ArchiveObjectEncodable)?, forKey key: String) throws(ArchiveError) {
        guard let value else {
            try session.checkUsable(frame: frame, owner: owner)
            session.setField(.uid(PropertyListUID(0)), key: try session.fieldKey(key), frame: frame)
            return
        }
        try encode(value, forKey: key)
    }

    /// Encodes string-keyed values of any archivable types as an `NSDictionary`, entries in
    /// ascending key order (so that the bytes do not depend on Swift's per-process hash seed),
    /// all keys before the values, as Foundation writes them.
    @_disfavoredOverload
    public func encode(_ values: [String: any ArchiveObjectEncodable], forKey key: String) throws(ArchiveError) {
        let entries = values.sorted { $0.key < $1.key }.map { (key: $0.key as any ArchiveObjectEncodable, value: $0.value) }
        try encode(ArchiveDictionary(entries), forKey: key)
    }
}

extension KeyedArchiver {
    /// A top-level value of any archivable type, known only at run time.
    @_disfavoredOverload
    public func encode(_ value: any ArchiveObjectEncodable, forKey key: String = "root") throws(ArchiveError) {
        try topLevelEncoder.encode(value, forKey: key)
    }

    /// An optional top-level value of any archivable type; nil is stored as `$null`.
    @_disfavoredOverload
    public func encode(_ value: (any ArchiveObjectEncodable)?, forKey key: String = "root") throws(ArchiveError) {
        try topLevelEncoder.encode(value, forKey: key)
    }

    /// A top-level `NSDictionary` of string-keyed values of any archivable types (see
    /// ``KeyedArchiveEncoder/encode(_:forKey:)-([String:ArchiveObjectEncodable],_)``).
    @_disfavoredOverload
    public func encode(_ values: [String: any ArchiveObjectEncodable], forKey key: String = "root") throws(ArchiveError) {
        try topLevelEncoder.encode(values, forKey: key)
    }
}
