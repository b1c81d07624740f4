import PropertyList

/// A reference to an object in an archive: its UID, an index into `$objects` (0 means nil).
public struct ArchiveReference: Hashable, Sendable, CustomStringConvertible {
    /// The referenced object's index in `$objects`.
    public let uid: PropertyListUID

    /// A reference to the object at `uid`.
    public init(uid: PropertyListUID) { self.uid = uid }

    /// The reference to `$null`.
    public static let null = ArchiveReference(uid: PropertyListUID(0))

    /// Whether this is the reference to `$null` (UID 0): a nil value.
    public var isNull: Bool { uid.value == 0 }

    public var description: String { "#\(uid.value)" }
}

/// A value that an archive stores as an object of its own (an `$objects` entry that fields
/// refer to by UID): strings, numbers in collections, data, dates, URLs, UUIDs, arrays,
/// dictionaries, sets and every ``KeyedArchivable`` model.
///
/// An enum with a raw value that conforms archives as that raw value by declaring the
/// conformance alone: `enum FlightRules: String, ArchiveObjectCodable { case vfr, ifr }`.
///
/// Conform your own *value* types by delegating to a value that already conforms, on both
/// sides, e.g. a `Temperature` that archives as its `Double`:
/// ```swift
/// func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
///     try encoder.reference(for: celsius)
/// }
/// static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Temperature {
///     Temperature(celsius: try decoder.decode(Double.self, reference: reference))
/// }
/// ```
///
/// Its metatype is `Sendable` (`SendableMetatype`), as every archivable type's is: generic code
/// can hand `T.self` to another thread or task — to decode on a thread with a bigger stack, say
/// (Docs/Security.md, "Decoding deeper data") — without an unchecked wrapper.
public protocol ArchiveObjectEncodable: SendableMetatype {
    /// Adds the value to the archive (or finds it there, for a shared class instance) and
    /// returns the reference that a field stores.
    func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference
}

/// A value that can be rebuilt from an object of an archive. See ``ArchiveObjectEncodable``;
/// its metatype is `Sendable` too.
public protocol ArchiveObjectDecodable: SendableMetatype {
    /// Rebuilds the value from the referenced object. `decoder` is the coder of the object that
    /// holds the reference; it gives access to the archive and keeps the key path.
    /// - Throws: ``ArchiveError`` (typically ``ArchiveError/Code/typeMismatch``,
    ///   ``ArchiveError/Code/classNotAllowed``, ``ArchiveError/Code/valueNotFound`` for `$null`).
    static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Self
}

/// A value that an archive stores as an object of its own and can rebuild from one.
public typealias ArchiveObjectCodable = ArchiveObjectEncodable & ArchiveObjectDecodable

/// A model type — a class or a struct — that archives itself as keyed fields under a class
/// name from an ``ArchiveRegistry``, the way an `NSSecureCoding` class does.
///
/// ```swift
/// final class Pilot: KeyedArchivable {
///     var name: String
///     var airplanes: [Airplane]
///     init(from decoder: KeyedArchiveDecoder) throws {
///         name = try decoder.decode(String.self, forKey: "name")
///         airplanes = try decoder.decode([Airplane].self, forKey: "airplanes")
///     }
///     func encode(to encoder: KeyedArchiveEncoder) throws {
///         try encoder.encode(name, forKey: "name")
///         try encoder.encode(airplanes, forKey: "airplanes")
///     }
/// }
/// ```
///
/// Class instances are shared by identity: one encoded twice is stored once and decodes to one
/// instance. Structs have no identity, so each encoding stores a new object. A subclass
/// overrides both requirements and calls `super`. The initializer runs only after the archived
/// class name was admitted by the registry for the requested type, and it never sees a
/// half-built object: references back to objects still being decoded are delivered through
/// ``KeyedArchiveDecoder/decode(_:forKey:whenResolved:)`` once decoding has finished.
public protocol KeyedArchivable: ArchiveObjectCodable, SendableMetatype {
    /// Writes the value's fields. Keys are free-form; a key beginning with `$` is escaped as
    /// Apple's archiver escapes it.
    func encode(to encoder: KeyedArchiveEncoder) throws
    /// Reads the value's fields.
    init(from decoder: KeyedArchiveDecoder) throws
}

extension KeyedArchivable {
    /// Encodes the model as an object of its registered class, its fields written by `encode(to:)`.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.session.encodeModel(self)
    }

    /// Inlinable so that each model's conformance gets its own specialized copy (see
    /// `ArchiveDecodingSession.decodeModel`).
    @inlinable
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Self {
        try decoder.session.decodeModel(Self.self, reference: reference)
    }
}

extension KeyedArchivable where Self: AnyObject {
    /// The same as for any model, without converting a generic value to `AnyObject`.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.session.encodeClassModel(self)
    }
}
