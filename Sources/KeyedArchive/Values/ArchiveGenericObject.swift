import PropertyList

/// An object of any class, described by its class chain and its fields: for producing archives
/// of classes that have no Swift model (Foundation's own classes, another app's classes), and
/// for reproducing an archive's exact shape. A class instance, so it is shared by identity and
/// can take part in cycles (an array that contains itself).
///
/// Keys are stored exactly as given (no `$` escaping), in the order given.
public final class ArchiveGenericObject: ArchiveObjectEncodable {
    /// How one field of the object is stored.
    public enum Field {
        /// A value stored inline in the object (numbers, booleans, inline bytes).
        case inline(PropertyListValue)
        /// An object referenced by UID; nil is `$null`.
        case object((any ArchiveObjectEncodable)?)
        /// An inline array of references (`NS.objects`).
        case objects([any ArchiveObjectEncodable])
        /// Apple's conditional reference (see ``KeyedArchiveEncoder/encodeConditional(_:forKey:)``).
        case conditional(any AnyObject & ArchiveObjectEncodable)
    }

    /// `$classes`, the class name first.
    public let classes: [String]
    /// The fields, by stored key, written in this order.
    public var fields: [(key: String, value: Field)]

    /// An object archived with the `$classes` chain `classes` (class name first) and `fields`.
    public init(classes: [String], fields: [(key: String, value: Field)] = []) {
        self.classes = classes
        self.fields = fields
    }

    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: classes, identity: self) { object in
            for (key, field) in self.fields {
                switch field {
                case .inline(let value):
                    try object.encodeRaw(value, forStoredKey: key)
                case .object(let value?):
                    let reference = try object.session.withPath(.key(key)) { () throws(ArchiveError) in try object.reference(for: value) }
                    try object.encodeRaw(.uid(reference.uid), forStoredKey: key)
                case .object(nil):
                    try object.encodeRaw(.uid(PropertyListUID(0)), forStoredKey: key)
                case .objects(let values):
                    var references: [PropertyListValue] = []
                    for (position, value) in values.enumerated() {
                        let reference = try object.session.withPath(.key(key)) { () throws(ArchiveError) in
                            try object.session.withPath(.index(position)) { () throws(ArchiveError) in try object.reference(for: value) }
                        }
                        references.append(.uid(reference.uid))
                    }
                    try object.encodeRaw(.array(references), forStoredKey: key)
                case .conditional(let target):
                    try object.session.checkUsable(frame: object.frame, owner: object.owner)
                    let number = try object.session.storedFieldKey(key)
                    object.session.setConditionalField(target, key: number, frame: object.frame)
                }
            }
        }
    }
}

/// A plain string, number or data object that keeps its identity: every field that refers to
/// the same `ArchiveSharedValue` refers to one `$objects` entry. (A Swift `String` has no
/// identity, so encoding one twice may store it twice under ``ArchiveWritingOptions/Sharing/appleInstances``.)
public final class ArchiveSharedValue: ArchiveObjectEncodable {
    /// The value stored in the shared object.
    public let value: PropertyListValue

    /// - Parameter value: a string, integer, real, boolean or data value.
    public init(_ value: PropertyListValue) {
        self.value = value
    }

    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.session.checkUsable(frame: encoder.frame, owner: encoder.owner)
        return try encoder.session.encodePlain(value, identity: self)
    }
}
