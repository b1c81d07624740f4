import PropertyList

/// Foundation classes that ``ArchiveValue`` reads field by field (each field an
/// ``ArchiveValue``) and then maps to their typed value.
enum FieldMappedFoundation {
    /// Whether the `NSValue` at `uid` holds one of the structures archived by `NS.special`
    /// (read by ``ArchiveSpecialValue``) rather than a value archived by its Objective-C type.
    static func isSpecialValue(uid: Int, session: ArchiveDecodingSession) -> Bool {
        true
    }

    /// The typed value of an object of the Foundation class `kind`, from its fields.
    static func value(of instance: ArchiveInstance, as kind: FoundationClass, session: ArchiveDecodingSession, uid: Int) throws(ArchiveError) -> ArchiveValue {
        throw session.error(.typeMismatch, "\(kind.rawValue) has no field mapping", uid: uid)
    }
}
