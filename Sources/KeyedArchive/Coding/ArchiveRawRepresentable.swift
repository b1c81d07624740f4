import PropertyList

// Enums and other `RawRepresentable` values, stored as their raw value. Swift cannot conform
// every `RawRepresentable` type to a protocol at once, so a type opts in by declaring the
// conformance, with nothing to implement, as it declares `Codable`:
//
//     enum FlightRules: String, ArchiveObjectCodable { case vfr, ifr }
//
// It then encodes and decodes as a field, an optional, an element of arrays and sets, and a
// dictionary's value, as its raw value would: a string or number object.

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
