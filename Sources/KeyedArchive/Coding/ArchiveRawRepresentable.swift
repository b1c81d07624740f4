import PropertyList

// Enums and other `RawRepresentable` values, stored as their raw value. Swift cannot conform
// every `RawRepresentable` type to a protocol at once, so a type opts in by declaring the
// conformance, with nothing to implement, as it declares `Codable`:
//
//     enum FlightRules: String, ArchiveObjectCodable { case vfr, ifr }
//
// It then encodes and decodes as a field, an optional, an element of arrays and sets, and a
// dictionary's value, as its raw value would: a string or number object. A field also decodes
// from a number stored inline, as apps store enums (`coder.encode(fuel.rawValue, forKey:)`,
// Foundation's `encodeInteger:`); a model that writes that form writes the raw value itself.

extension ArchiveObjectEncodable where Self: RawRepresentable, RawValue: ArchiveObjectEncodable {
    /// Stores the raw value (a string or number object, as the raw value's own type is stored).
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.reference(for: rawValue)
    }
}

extension ArchiveObjectDecodable where Self: RawRepresentable, RawValue: ArchiveObjectDecodable {
    /// Reads the raw value and makes the value of it.
    /// - Throws: ``ArchiveError/Code/valueOutOfRange`` when the stored raw value is not one of the
    ///   type's (an enum case this version does not know), with the key path; the raw value's
    ///   own faults (``ArchiveError/Code/typeMismatch`` for a number where a string belongs, …).
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Self {
        let raw = try decoder.decode(RawValue.self, reference: reference)
        guard let value = Self(rawValue: raw) else {
            throw ArchiveError(.valueOutOfRange, "\(String(describing: raw).excerptForMessage(128)) is not a raw value of \(Self.self)",
                               keyPath: decoder.keyPath, uid: reference.uid)
        }
        return value
    }
}

extension KeyedArchiveDecoder {
    /// The field under `key` as `T` when it holds a number inline and `T` reads one: a number
    /// type itself, or a `RawRepresentable` type whose raw value is a number type (an enum an
    /// app stores as `encode(fuel.rawValue, forKey:)`). Nil when the field is absent or a
    /// reference, or `T` reads no inline value: the caller's own error stands then.
    /// - Throws: the number's own faults (``ArchiveError/Code/typeMismatch`` for a real where an
    ///   integer belongs, ``ArchiveError/Code/valueOutOfRange`` when it does not fit), and
    ///   ``ArchiveError/Code/valueOutOfRange`` for a raw value that is not one of `T`'s.
    @usableFromInline
    func inlineValue<T>(_ type: T.Type, forKey key: String) throws(ArchiveError) -> T? {
        guard let stored = fields[ArchiveKeys.escape(key)] else { return nil }
        if case .uid = stored { return nil }
        if let scalar = T.self as? any TopLevelScalar.Type {
            return try scalar.decode(from: self, forKey: key) as? T
        }
        if let raw = T.self as? any RawRepresentable.Type {
            return try inlineRawValue(raw, forKey: key) as? T
        }
        return nil
    }

    private func inlineRawValue<R: RawRepresentable>(_ type: R.Type, forKey key: String) throws(ArchiveError) -> R? {
        guard let scalar = R.RawValue.self as? any TopLevelScalar.Type else { return nil }
        let decoded = try scalar.decode(from: self, forKey: key)
        guard let raw = decoded as? R.RawValue else { return nil }
        guard let value = R(rawValue: raw) else {
            throw error(.valueOutOfRange, "\(String(describing: raw).excerptForMessage(128)) is not a raw value of \(R.self)", key: key)
        }
        return value
    }
}
