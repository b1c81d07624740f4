import PropertyList

/// Encodes object graphs into an `NSKeyedArchiver` archive.
///
/// ```swift
/// let bytes = try KeyedArchiver.archive(pilot, registry: registry)            // root key "root"
///
/// let archiver = KeyedArchiver(registry: registry)
/// try archiver.encode(pilots, forKey: "pilots")
/// try archiver.encode(hangar, forKey: "hangar")
/// let xml = try archiver.finish(format: .xml)
/// ```
///
/// Output is deterministic: the same graph gives the same bytes on every run and every
/// platform (dictionary keys in Core Foundation's hash-table order, computed here; Swift
/// dictionaries and sets are sorted by key first). One archiver encodes one archive; it is not
/// meant to be shared between tasks.
public final class KeyedArchiver {
    let session: ArchiveEncodingSession

    /// The values an unarchiver noted while decoding (``KeyedUnarchiver/identities``): each one
    /// still as it was decoded is stored once per archived object it came from, so sharing the
    /// source archive had is kept. Nil (the default): every value is an object of its own.
    public var identities: ArchiveIdentityTable? {
        get { session.identities }
        set { session.identities = newValue }
    }

    /// An archiver that encodes the types `registry` knows, laid out as `options` say.
    public init(registry: ArchiveRegistry, options: ArchiveWritingOptions = .default) {
        session = ArchiveEncodingSession(registry: registry, options: options)
    }

    /// `$archiver` as written: `NSKeyedArchiver` unless a rewrite keeps another archiver's name.
    var archiverName: String {
        get { session.table.archiverName }
        set { session.table.archiverName = newValue }
    }

    private var top: KeyedArchiveEncoder { KeyedArchiveEncoder(session: session, frame: 0, owner: -1) }

    /// Encodes a top-level object under `key` (`root` is what Apple's convenience methods use).
    public func encode<T: ArchiveObjectEncodable>(_ value: T, forKey key: String = "root") throws(ArchiveError) {
        try top.encode(value, forKey: key)
    }

    /// Encodes an optional top-level object; nil is stored as `$null`.
    public func encode<T: ArchiveObjectEncodable>(_ value: T?, forKey key: String = "root") throws(ArchiveError) {
        try top.encode(value, forKey: key)
    }

    // Numbers and booleans at the top level are stored inline in `$top`, as Apple's
    // `encode(_:forKey:)` overloads for them do (not as NSNumber objects): Foundation's
    // `decodeInteger(forKey:)` reads only an inline value.
    /// Encodes a boolean inline in `$top` under `key`.
    public func encode(_ value: Bool, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes an `Int` inline in `$top` under `key`.
    public func encode(_ value: Int, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes an `Int8` inline in `$top` under `key`.
    public func encode(_ value: Int8, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes an `Int16` inline in `$top` under `key`.
    public func encode(_ value: Int16, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes an `Int32` inline in `$top` under `key`.
    public func encode(_ value: Int32, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes an `Int64` inline in `$top` under `key`.
    public func encode(_ value: Int64, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `UInt` inline in `$top` under `key`.
    public func encode(_ value: UInt, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `UInt8` inline in `$top` under `key`.
    public func encode(_ value: UInt8, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `UInt16` inline in `$top` under `key`.
    public func encode(_ value: UInt16, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `UInt32` inline in `$top` under `key`.
    public func encode(_ value: UInt32, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `UInt64` under `key` in `$top` as an `NSNumber` object, as a field stores one (inline, a value above `Int64.max` would read back negative).
    public func encode(_ value: UInt64, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `Float` inline in `$top` under `key`.
    public func encode(_ value: Float, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }
    /// Encodes a `Double` inline in `$top` under `key`.
    public func encode(_ value: Double, forKey key: String = "root") throws(ArchiveError) { try top.encode(value, forKey: key) }

    /// A top-level array of values of different types (the members of a family held as
    /// `[any AirplaneRecord]`), as an `NSArray`.
    public func encode(_ values: [any ArchiveObjectEncodable], forKey key: String = "root") throws(ArchiveError) {
        try top.encode(values, forKey: key)
    }

    /// A conditional top-level reference (see ``KeyedArchiveEncoder/encodeConditional(_:forKey:)``).
    public func encodeConditional<T: AnyObject & ArchiveObjectEncodable>(_ object: T?, forKey key: String) throws(ArchiveError) {
        try top.encodeConditional(object, forKey: key)
    }

    /// A top-level object without a key, stored as `$0`, `$1`, … (`encodeObject:` on an archiver).
    public func encodeUnkeyed<T: ArchiveObjectEncodable>(_ value: T) throws(ArchiveError) {
        try top.encodeUnkeyed(value)
    }

    /// The encoder for `$top` itself, for inline top-level values (compiled nibs store numbers there).
    public var topLevelEncoder: KeyedArchiveEncoder { top }

    /// Ends encoding and returns the archive as a property-list value (sharing by value; for
    /// ``ArchiveWritingOptions/Sharing/appleInstances`` use ``finish(format:)``).
    public func finishPropertyList() throws(ArchiveError) -> PropertyListValue {
        let table = try session.finish()
        return table.propertyList(era: session.options.era)
    }

    /// Ends encoding and returns the archive's bytes.
    /// - Throws: ``ArchiveError/Code/invalidState`` if an earlier encode failed or the
    ///   archive was already finished; ``ArchiveError/Code/invalidPropertyList`` if the property
    ///   list cannot be written (nesting beyond the writer's limit);
    ///   ``ArchiveError/Code/unrepresentableValue`` for XML, when a value would read back as
    ///   another (``ArchiveWritingOptions/xmlValueLoss``; Docs/KeyedArchiveFormat.md).
    public func finish(format: ArchiveFormat = .binary) throws(ArchiveError) -> [UInt8] {
        let table = try session.finish()
        let era = session.options.era
        if format == .xml, session.options.xmlValueLoss == .refuse { try table.checkXMLFidelity() }
        do {
            switch (format, session.options.sharing) {
            case (.binary, .appleInstances):
                return try BinaryPropertyListWriter().write(try table.appleDocument(era: era))
            case (.binary, .byValue):
                return try table.binaryPropertyList(era: era)
            case (.xml, _):
                return try table.xmlPropertyList(era: era)
            }
        } catch {
            throw ArchiveError(error)
        }
    }

    /// Archives one root object under the key `root`.
    public static func archive<T: ArchiveObjectEncodable>(
        _ root: T,
        registry: ArchiveRegistry,
        format: ArchiveFormat = .binary,
        options: ArchiveWritingOptions = .default
    ) throws(ArchiveError) -> [UInt8] {
        let archiver = KeyedArchiver(registry: registry, options: options)
        try archiver.encode(root, forKey: ArchiveKeys.rootKey)
        return try archiver.finish(format: format)
    }
}
