import PropertyList

/// Writes the fields of one object. A model receives one in ``KeyedArchivable/encode(to:)``;
/// it is valid only during that call.
///
/// Scalars are stored inline in the object, as `NSCoder`'s `encodeInt:`/`encodeDouble:`/
/// `encodeBool:` store them. Everything else is stored as an object of its own and the field
/// holds its UID: strings, data, dates, arrays, dictionaries, sets, models — and `UInt64`/`UInt`,
/// which Foundation's Swift overlay archives as an `NSNumber` object (values above
/// `Int64.max` in the 16-byte integer form).
public struct KeyedArchiveEncoder {
    let session: ArchiveEncodingSession
    let frame: Int
    /// The UID of the object this encoder writes (-1 for `$top`).
    let owner: Int

    init(session: ArchiveEncodingSession, frame: Int, owner: Int) {
        self.session = session
        self.frame = frame
        self.owner = owner
    }

    /// The key path of the object being encoded, from the top of the archive.
    public var keyPath: ArchiveKeyPath { session.keyPath }

    private func set(_ value: PropertyListValue, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        session.setField(propertyList: value, key: try session.fieldKey(key), frame: frame)
    }

    private func set(field value: ArchiveObjectTable.FieldValue, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        session.setField(value, key: try session.fieldKey(key), frame: frame)
    }

    private func set(_ value: Int64, forKey key: String) throws(ArchiveError) { try set(field: .integer(value), forKey: key) }

    // MARK: Inline scalars

    /// Encodes a boolean inline under `key`, as Foundation's `encodeBool:forKey:` does.
    public func encode(_ value: Bool, forKey key: String) throws(ArchiveError) { try set(.bool(value), forKey: key) }
    /// Encodes an `Int` inline under `key`, as Foundation's `encodeInteger:forKey:` does.
    public func encode(_ value: Int, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes an `Int8` inline under `key`, as an integer in the object's fields (what Foundation's integer encoders store).
    public func encode(_ value: Int8, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes an `Int16` inline under `key`, as an integer in the object's fields (what Foundation's integer encoders store).
    public func encode(_ value: Int16, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes an `Int32` inline under `key`, as Foundation's `encodeInt32:forKey:` does.
    public func encode(_ value: Int32, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes an `Int64` inline under `key`, as Foundation's `encodeInt64:forKey:` does.
    public func encode(_ value: Int64, forKey key: String) throws(ArchiveError) { try set(value, forKey: key) }
    /// Encodes a `UInt8` inline under `key`, as an integer in the object's fields (what Foundation's integer encoders store).
    public func encode(_ value: UInt8, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes a `UInt16` inline under `key`, as an integer in the object's fields (what Foundation's integer encoders store).
    public func encode(_ value: UInt16, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes a `UInt32` inline under `key`, as an integer in the object's fields (what Foundation's integer encoders store).
    public func encode(_ value: UInt32, forKey key: String) throws(ArchiveError) { try set(Int64(value), forKey: key) }
    /// Encodes a `Float` inline under `key`, as Foundation's `encodeFloat:forKey:` does.
    public func encode(_ value: Float, forKey key: String) throws(ArchiveError) { try set(.real(.float32(value)), forKey: key) }
    /// Encodes a `Double` inline under `key`, as Foundation's `encodeDouble:forKey:` does.
    public func encode(_ value: Double, forKey key: String) throws(ArchiveError) { try set(.real(.float64(value)), forKey: key) }

    /// A `UInt64`, as Foundation archives it: an `NSNumber` object referenced from the field
    /// (not an inline `encodeInt64:`, which would turn values above `Int64.max` negative).
    public func encode(_ value: UInt64, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let reference = session.encodeNumber(.integer(PropertyListInteger(value)))
        session.setField(.uid(reference.uid), key: try session.fieldKey(key), frame: frame)
    }

    /// A `UInt`, archived like ``encode(_:forKey:)-(UInt64,_)``.
    public func encode(_ value: UInt, forKey key: String) throws(ArchiveError) {
        try encode(UInt64(value), forKey: key)
    }

    /// Bytes stored inline in the object, as `encodeBytes:length:forKey:` stores them.
    /// (Encoding a `Data` with ``encode(_:forKey:)-(T,_)`` stores an `NSData` object instead.)
    public func encodeBytes(_ bytes: [UInt8], forKey key: String) throws(ArchiveError) {
        try set(.data(bytes), forKey: key)
    }

    // MARK: Objects

    /// Encodes an object (a string, data, date, URL, UUID, collection or model) and stores its
    /// UID under `key`. A class instance already in the archive is stored once and referenced.
    public func encode<T: ArchiveObjectEncodable>(_ value: T, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let number = try session.fieldKey(key)
        let reference = try session.withPath(.key(key)) { () throws(ArchiveError) in try self.reference(for: value) }
        session.setField(.uid(reference.uid), key: number, frame: frame)
    }

    /// Encodes a string (the same bytes as the generic `encode(_:forKey:)`). Strings are most
    /// of a model's fields, and a model in another module calls the generic function
    /// unspecialized; this overload is chosen instead and goes straight to the string table.
    public func encode(_ value: String, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let reference = session.encodeString(value)
        session.setField(.uid(reference.uid), key: try session.fieldKey(key), frame: frame)
    }

    /// Encodes an optional object; nil is stored as a reference to `$null`, as Apple does.
    public func encode<T: ArchiveObjectEncodable>(_ value: T?, forKey key: String) throws(ArchiveError) {
        guard let value else {
            try set(field: .uid(PropertyListUID(0)), forKey: key)
            return
        }
        try encode(value, forKey: key)
    }

    /// Encodes an array of values of different types (for example the members of a model family
    /// held as `[any AirplaneRecord]`) as an `NSArray`.
    public func encode(_ values: [any ArchiveObjectEncodable], forKey key: String) throws(ArchiveError) {
        try encode(ArchiveArray(values), forKey: key)
    }

    /// Apple's conditional object: the field refers to `object` only if `object` is encoded
    /// unconditionally somewhere in the archive — before or after this call. Otherwise the field
    /// refers to `$null`. Use it for back-references (an airplane's owner) so that archiving a
    /// part of a graph does not drag the rest in.
    public func encodeConditional<T: AnyObject & ArchiveObjectEncodable>(_ object: T?, forKey key: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let number = try session.fieldKey(key)
        guard let object else {
            session.setField(.uid(PropertyListUID(0)), key: number, frame: frame)
            return
        }
        session.setConditionalField(object, key: number, frame: frame)
    }

    /// Encodes a value without a key: it is stored under `$0`, `$1`, … in call order, as
    /// `encodeObject:` on a keyed archiver does.
    public func encodeUnkeyed<T: ArchiveObjectEncodable>(_ value: T) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let storedKey = session.nextUnkeyedKey(frame: frame)
        let number = try session.storedFieldKey(storedKey)
        let reference = try session.withPath(.key(storedKey)) { () throws(ArchiveError) in try self.reference(for: value) }
        session.setField(.uid(reference.uid), key: number, frame: frame)
    }

    /// Adds a value to the archive and returns its reference without storing it under a key:
    /// for conformances that archive as another value, and for building collections.
    public func reference<T: ArchiveObjectEncodable>(for value: T) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        if session.identities != nil {
            return try sharedReference(for: value) { () throws(ArchiveError) in try referenceNotShared(for: value) }
        }
        return try referenceNotShared(for: value)
    }

    @inline(__always)
    private func referenceNotShared<T: ArchiveObjectEncodable>(for value: T) throws(ArchiveError) -> ArchiveReference {
        do {
            let reference = try value.archiveReference(in: self)
            // A conformance may build its own reference; one that names no object would make a
            // dangling UID in the file.
            guard reference.uid.value < UInt64(session.table.entries.count) else {
                session.failed = true
                throw ArchiveError(.invalidReference, "\(T.self).archiveReference(in:) returned \(reference), which is not an object of this archive", keyPath: session.keyPath)
            }
            return reference
        } catch let failure as ArchiveError {
            session.failed = true
            throw failure.located(keyPath: session.keyPath, uid: nil)
        } catch {
            session.failed = true
            throw ArchiveError(.modelError, "encoding \(T.self) threw: \(String(describing: error).escapedForMessage)", keyPath: session.keyPath, underlyingDescription: "\(error)", underlyingError: error)
        }
    }

    /// Encodes an object with an explicit class chain and fields written by `body`: how the
    /// Foundation classes are archived, and a way to produce any class an archive may need.
    /// - Parameters:
    ///   - classes: `$classes`, the class name first (e.g. `["NSMutableArray", "NSArray", "NSObject"]`).
    ///   - identity: a class instance the object stands for; encoding the same instance again
    ///     refers to this object instead of writing a new one.
    ///   - body: writes the object's fields through the encoder it is given.
    public func encodeObject(classes: [String], identity: AnyObject? = nil, fields body: (KeyedArchiveEncoder) throws -> Void) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        guard !classes.isEmpty else {
            throw session.error(.invalidState, "an object needs at least one class name")
        }
        return try session.encodeInstance(chain: classes, identity: identity, body: body)
    }

    /// ``encodeObject(classes:identity:fields:)`` for a class dictionary of any shape: without
    /// `$classes`, or with `$classhints`, written as `descriptor` describes it.
    func encodeObject(descriptor: ArchiveGraph.ClassDescriptor, identity: AnyObject? = nil, fields body: (KeyedArchiveEncoder) throws -> Void) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        let chain = descriptor.classes.first.map { $0.isExactlyEqual(to: descriptor.name) } == true ? descriptor.classes : [descriptor.name] + descriptor.classes
        return try session.encodeInstance(chain: chain, descriptor: descriptor, identity: identity, body: body)
    }

    /// Encodes a sequence of objects and stores their references as an inline array under `key`
    /// (the shape of `NS.objects`).
    public func encodeReferences<S: Sequence>(_ values: S, forKey key: String) throws(ArchiveError) where S.Element == any ArchiveObjectEncodable {
        try encodeReferences(values, forKey: key, keyOnPath: true)
    }

    func encodeReferences<S: Sequence>(_ values: S, forKey key: String, keyOnPath: Bool,
                                       elementPath: ((Int) -> ArchiveKeyPath.Component)? = nil) throws(ArchiveError) where S.Element == any ArchiveObjectEncodable {
        try encodeReferenceList(values, forKey: key, keyOnPath: keyOnPath, elementPath: elementPath) { (value: any ArchiveObjectEncodable) throws(ArchiveError) -> ArchiveReference in
            try self.reference(for: value)
        }
    }

    /// Encodes values of one type and stores their references as an inline array under `key`.
    /// `keyOnPath: false` leaves the key off the key path, so that an array's or a set's elements
    /// are `root.airplanes[3]` when encoding, as when decoding.
    /// `elementPath` names an element on the key path in place of its index (a dictionary's
    /// values by their keys, as decoding names them).
    func encodeReferenceArray<S: Sequence>(_ values: S, forKey key: String, keyOnPath: Bool = true,
                                           elementPath: ((Int) -> ArchiveKeyPath.Component)? = nil) throws(ArchiveError) where S.Element: ArchiveObjectEncodable {
        try encodeReferenceList(values, forKey: key, keyOnPath: keyOnPath, elementPath: elementPath) { (value) throws(ArchiveError) in try self.reference(for: value) }
    }

    /// The same for an array. Its conformance runs unspecialized for a model in another module,
    /// and there a loop over a generic `Sequence` fetches every element through protocol
    /// witnesses (about 400 instructions each, a twentieth of a fleet encode); over an `Array`
    /// of a generic element the iterator is inlined and an element is one copy.
    func encodeReferenceArray<Element: ArchiveObjectEncodable>(_ values: [Element], forKey key: String, keyOnPath: Bool = true) throws(ArchiveError) {
        try encodeReferenceList(values, forKey: key, keyOnPath: keyOnPath) { (value) throws(ArchiveError) in try self.reference(for: value) }
    }

    /// The one body of all: each element's reference under `key` and its index on the key path.
    @inline(__always)
    private func encodeReferenceList<S: Sequence>(_ values: S, forKey key: String, keyOnPath: Bool = true,
                                                  elementPath: ((Int) -> ArchiveKeyPath.Component)? = nil,
                                                  reference: (S.Element) throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let number = try session.fieldKey(key)
        // The key on the path once for the whole list, each element's index under it.
        let list = keyOnPath
            ? try session.withPath(.key(key)) { () throws(ArchiveError) in try encodeElements(values, elementPath: elementPath, reference: reference) }
            : try encodeElements(values, elementPath: elementPath, reference: reference)
        session.setField(list, key: number, frame: frame)
    }

    @inline(__always)
    private func encodeElements<S: Sequence>(_ values: S, elementPath: ((Int) -> ArchiveKeyPath.Component)?,
                                             reference: (S.Element) throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) -> ArchiveObjectTable.FieldValue {
        let start = session.beginUIDList()
        var position = 0
        for value in values {
            let element = try session.withPath(elementPath?(position) ?? .index(position)) { () throws(ArchiveError) in try reference(value) }
            session.appendToUIDList(element.uid)
            position += 1
        }
        return session.endUIDList(from: start)
    }

    /// Stores a property-list value under a key exactly as given (UIDs included, unchecked):
    /// for reproducing unusual archives.
    public func encodeRaw(_ value: PropertyListValue, forStoredKey storedKey: String) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        session.setField(propertyList: value, key: try session.storedFieldKey(storedKey), frame: frame)
    }
}

