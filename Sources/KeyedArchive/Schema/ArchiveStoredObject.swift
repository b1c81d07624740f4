import PropertyList

/// What an archive stores at a reference, read without decoding it: generated models
/// (`keyedarchive schema --swift`) use it to decode a field whose objects differ in kind from
/// one instance to the next, choosing the Swift type from the stored class.
public enum ArchiveStoredObject: Sendable {
    /// `$null`.
    case null
    /// A plain string, integer, real, boolean, data or date entry (no class).
    case plain(PropertyListValue)
    /// An object with a class: its archived `$classes` (class name first) and its fields as
    /// stored (keys as the file spells them, `$class` left out; references are UIDs).
    case instance(classes: [String], fields: PropertyListDictionary)
    /// Any other property-list value stored as an `$objects` entry (Apple's archiver writes none).
    case other(PropertyListValue)
}

extension KeyedArchiveDecoder {
    /// The entry a reference points to, as stored. Following the reference counts against
    /// ``ArchiveReadingOptions/maximumVisitCount`` like any decode, and a reference out of
    /// range is an ``ArchiveError`` naming this object's key path. Nothing is created and no
    /// class is checked against the registry: the result is the generic view of one entry.
    public func storedObject(_ reference: ArchiveReference) throws(ArchiveError) -> ArchiveStoredObject {
        let index = try session.index(reference)
        switch session.store.object(index) {
        case .null:
            return .null
        case .string(let string): return .plain(.string(string))
        case .integer(let integer): return .plain(.integer(integer))
        case .real(let real): return .plain(.real(real))
        case .bool(let flag): return .plain(.bool(flag))
        case .data(let bytes): return .plain(.data(bytes))
        case .date(let date): return .plain(.date(date))
        case .instance(let view):
            var fields = PropertyListDictionary()
            for entry in view.fields.dictionary.entries where !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                fields.append(key: entry.key, value: entry.value)
            }
            return .instance(classes: session.classChain(ofInstance: index), fields: fields)
        case .classDescriptor(let descriptor):
            return .other(.string(descriptor.name))
        case .other(let value):
            return .other(value)
        }
    }
}
