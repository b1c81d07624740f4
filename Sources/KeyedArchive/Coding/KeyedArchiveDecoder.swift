import PropertyList

/// Reads the fields of one object. A model receives one in ``KeyedArchivable/init(from:)``.
///
/// Keys are the model's own (unescaped) keys. Scalar accessors accept the value inline, as
/// `encodeInt:`/`encodeBool:`/`encodeDouble:` store it, or as a reference to a plain number
/// object, as Foundation's Swift overlay stores `UInt64` and other bridged numbers. Integers
/// must fit the requested type exactly; reals convert to the width asked for, rounded to
/// nearest as Apple's unarchiver does, and a double beyond `Float`'s range is refused rather
/// than made infinite (a deliberate difference from Foundation on Linux). Every fault is an
/// ``ArchiveError`` whose key path ends with the key.
public struct KeyedArchiveDecoder {
    @usableFromInline let session: ArchiveDecodingSession
    /// UID of the object (-1 for `$top`).
    @usableFromInline let objectUID: Int
    let fields: ArchiveFields
    /// The archived `$classes` of the object (empty for `$top`).
    public let classChain: [String]

    init(session: ArchiveDecodingSession, uid: Int, fields: ArchiveFields, classChain: [String]) {
        self.session = session
        self.objectUID = uid
        self.fields = fields
        self.classChain = classChain
    }

    /// The archived class name of the object being decoded.
    public var className: String { classChain.first ?? "" }

    /// The object's UID (its index in `$objects`); nil for the top level.
    public var uid: PropertyListUID? { objectUID >= 0 ? PropertyListUID(UInt64(objectUID)) : nil }

    /// The key path of the object being decoded, from the top of the archive.
    public var keyPath: ArchiveKeyPath { session.keyPath }

    /// Whether the object has a value for `key`.
    public func contains(_ key: String) -> Bool {
        fields[ArchiveKeys.escape(key)] != nil
    }

    /// The object's user keys in file order (reserved keys such as `$class` and `$0` excluded).
    public var allKeys: [String] {
        fields.storedKeys.compactMap { ArchiveKeys.unescape($0) }
    }

    /// The stored property-list value under a key exactly as the file spells it (`$class`,
    /// `$0`, escaped `$$name`): the generic view from inside a model.
    public func rawValue(forStoredKey storedKey: String) -> PropertyListValue? {
        noteRead(storedKey: storedKey)
        return fields[storedKey]
    }

    private func uidValue(_ uid: Int?) -> PropertyListUID? {
        uid.map { PropertyListUID(UInt64($0)) }
    }

    func error(_ code: ArchiveError.Code, _ message: String, key: String) -> ArchiveError {
        ArchiveError(code, message, keyPath: session.keyPath.appending(key: key), uid: uid)
    }

    /// What the field under `key` holds, read straight from a binary table's bytes; `.other`
    /// (take the general path) for a tree, or for an escaped key.
    @inline(__always)
    private func content(forKey key: String) -> BinaryArchiveTable.FieldContent {
        noteRead(key)
        guard let table = session.binaryTable, let dictionary = fields.binaryDictionary,
              !ArchiveKeys.needsEscape(key) else { return .other }
        return table.fieldContent(key, inDictionary: dictionary)
    }

    // MARK: Scalars

    /// The scalar under `key`, following a reference to a plain number object; nil when absent
    /// or `$null`.
    private func scalar(forKey key: String) throws(ArchiveError) -> PropertyListValue? {
        noteRead(key)
        guard let value = fields[ArchiveKeys.escape(key)] else { return nil }
        guard case .uid(let reference) = value else { return value }
        let target = try session.index(reference)
        switch session.object(target) {
        case .null: return nil
        case .integer, .real, .bool:
            return try session.withPath(.key(key)) { () throws(ArchiveError) in
                try ArchiveNumberDecoding.scalar(uid: target, session: session, requested: "a number")
            }
        default:
            throw error(.typeMismatch, "expected a number, found \(session.describe(target))", key: key)
        }
    }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, forKey key: String) throws(ArchiveError) -> I? {
        switch content(forKey: key) {
        case .integer(let value):
            if let exact = I(exactly: value) { return exact }
        case .reference(let uid):
            if let exact = session.plainInteger(at: uid, as: I.self) { return exact }
        case .absent:
            return nil
        case .other:
            break
        }
        guard let value = try scalar(forKey: key) else { return nil }
        guard case .integer(let integer) = value else {
            throw error(.typeMismatch, "expected an integer for \(I.self), found \(value.kindNameWithArticle)", key: key)
        }
        if let signed = integer.int64Value, let exact = I(exactly: signed) { return exact }
        if let unsigned = integer.uint64Value, let exact = I(exactly: unsigned) { return exact }
        throw error(.valueOutOfRange, "\(integer) does not fit \(I.self)", key: key)
    }

    private func required<T>(_ value: T?, _ type: T.Type, key: String) throws(ArchiveError) -> T {
        guard let value else { throw missingValue(T.self, key: key) }
        return value
    }

    /// Most of an object's keys a missing-key error lists before counting the rest.
    static let listedKeyLimit = 32

    /// The "expected …, found no value/$null" error for a required key.
    func missingValue(_ type: Any.Type, key: String) -> ArchiveError {
        guard fields[ArchiveKeys.escape(key)] == nil else {
            return error(.valueNotFound, "expected \(type), found $null", key: key)
        }
        // A misspelt or renamed key is the usual cause: say which keys the object has (up to a
        // bound, then how many more; each cut short, as the file spells them but escaped), and
        // the one nearest to the key asked for.
        let keys = allKeys
        let shown = keys.prefix(Self.listedKeyLimit).map { "\"\($0.excerptForMessage(40))\"" }.joined(separator: ", ")
        var present = keys.isEmpty ? "the object has no keys" : "the object's keys: \(shown)"
        if keys.count > Self.listedKeyLimit { present += " and \(keys.count - Self.listedKeyLimit) more" }
        if let nearest = NearestKey.nearest(to: key, in: keys) {
            present += "; did you mean \"\(nearest.excerptForMessage(40))\"?"
        }
        return error(.valueNotFound, "expected \(type), found no value (\(present))", key: key)
    }

    /// Decodes a boolean under `key`, inline or an `NSNumber` object (an integer 0 or 1 counts too); nil when absent or `$null`.
    public func decodeIfPresent(_ type: Bool.Type, forKey key: String) throws(ArchiveError) -> Bool? {
        guard let value = try scalar(forKey: key) else { return nil }
        switch value {
        case .bool(let flag): return flag
        // An NSNumber integer answers boolValue too; only the two values it can mean are taken.
        case .integer(let integer) where integer.int64Value == 0 || integer.int64Value == 1: return integer.int64Value == 1
        default: throw error(.typeMismatch, "expected a boolean, found \(value.kindNameWithArticle)", key: key)
        }
    }

    /// Decodes a `Double` under `key` from a real or an integer, inline or an `NSNumber` object; nil when absent or `$null`.
    public func decodeIfPresent(_ type: Double.Type, forKey key: String) throws(ArchiveError) -> Double? {
        guard let value = try scalar(forKey: key) else { return nil }
        switch value {
        case .real(let real): return real.doubleValue
        case .integer(let integer):
            if let signed = integer.int64Value { return Double(signed) }
            if let unsigned = integer.uint64Value { return Double(unsigned) }
            throw error(.valueOutOfRange, "\(integer) does not fit Double", key: key)
        default: throw error(.typeMismatch, "expected a real, found \(value.kindNameWithArticle)", key: key)
        }
    }

    /// Decodes a `Float` under `key` from a real or an integer within `Float`'s range; nil when absent or `$null`.
    public func decodeIfPresent(_ type: Float.Type, forKey key: String) throws(ArchiveError) -> Float? {
        guard let value = try scalar(forKey: key) else { return nil }
        if case .real(.float32(let float)) = value { return float }
        guard let double = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard let float = Float(fitting: double) else {
            throw error(.valueOutOfRange, "\(double) is too large to fit Float", key: key)
        }
        return float
    }

    /// Decodes an `Int` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: Int.Type, forKey key: String) throws(ArchiveError) -> Int? { try integer(type, forKey: key) }
    /// Decodes an `Int8` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: Int8.Type, forKey key: String) throws(ArchiveError) -> Int8? { try integer(type, forKey: key) }
    /// Decodes an `Int16` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: Int16.Type, forKey key: String) throws(ArchiveError) -> Int16? { try integer(type, forKey: key) }
    /// Decodes an `Int32` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: Int32.Type, forKey key: String) throws(ArchiveError) -> Int32? { try integer(type, forKey: key) }
    /// Decodes an `Int64` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: Int64.Type, forKey key: String) throws(ArchiveError) -> Int64? { try integer(type, forKey: key) }
    /// Decodes a `UInt` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: UInt.Type, forKey key: String) throws(ArchiveError) -> UInt? { try integer(type, forKey: key) }
    /// Decodes a `UInt8` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: UInt8.Type, forKey key: String) throws(ArchiveError) -> UInt8? { try integer(type, forKey: key) }
    /// Decodes a `UInt16` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: UInt16.Type, forKey key: String) throws(ArchiveError) -> UInt16? { try integer(type, forKey: key) }
    /// Decodes a `UInt32` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: UInt32.Type, forKey key: String) throws(ArchiveError) -> UInt32? { try integer(type, forKey: key) }
    /// Decodes a `UInt64` under `key`, inline or an `NSNumber` object; nil when absent or `$null`. Throws ``ArchiveError/Code/valueOutOfRange`` when the number does not fit.
    public func decodeIfPresent(_ type: UInt64.Type, forKey key: String) throws(ArchiveError) -> UInt64? { try integer(type, forKey: key) }

    /// Decodes a boolean under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Bool.Type, forKey key: String) throws(ArchiveError) -> Bool { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `Double` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Double.Type, forKey key: String) throws(ArchiveError) -> Double { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `Float` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Float.Type, forKey key: String) throws(ArchiveError) -> Float { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes an `Int` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Int.Type, forKey key: String) throws(ArchiveError) -> Int { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes an `Int8` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Int8.Type, forKey key: String) throws(ArchiveError) -> Int8 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes an `Int16` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Int16.Type, forKey key: String) throws(ArchiveError) -> Int16 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes an `Int32` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Int32.Type, forKey key: String) throws(ArchiveError) -> Int32 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes an `Int64` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: Int64.Type, forKey key: String) throws(ArchiveError) -> Int64 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `UInt` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: UInt.Type, forKey key: String) throws(ArchiveError) -> UInt { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `UInt8` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: UInt8.Type, forKey key: String) throws(ArchiveError) -> UInt8 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `UInt16` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: UInt16.Type, forKey key: String) throws(ArchiveError) -> UInt16 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `UInt32` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: UInt32.Type, forKey key: String) throws(ArchiveError) -> UInt32 { try required(decodeIfPresent(type, forKey: key), type, key: key) }
    /// Decodes a `UInt64` under `key`; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decode(_ type: UInt64.Type, forKey key: String) throws(ArchiveError) -> UInt64 { try required(decodeIfPresent(type, forKey: key), type, key: key) }

    /// Bytes stored inline (`encodeBytes:length:forKey:`), or a reference to a data object.
    public func decodeBytesIfPresent(forKey key: String) throws(ArchiveError) -> [UInt8]? {
        noteRead(key)
        guard let value = fields[ArchiveKeys.escape(key)] else { return nil }
        switch value {
        case .data(let bytes): return bytes
        case .uid(let reference):
            if reference.value == 0 { return nil }
            return try session.withPath(.key(key)) { () throws(ArchiveError) in
                try DataBytes.decode(uid: try session.index(reference), session: session)
            }
        default:
            throw error(.typeMismatch, "expected data, found \(value.kindNameWithArticle)", key: key)
        }
    }

    /// Decodes bytes under `key`, as ``decodeBytesIfPresent(forKey:)`` does; throws ``ArchiveError/Code/valueNotFound`` when absent or `$null`.
    public func decodeBytes(forKey key: String) throws(ArchiveError) -> [UInt8] {
        try required(decodeBytesIfPresent(forKey: key), [UInt8].self, key: key)
    }

    // MARK: Objects

    /// The reference stored under a key (nil when the key is absent).
    public func reference(forKey key: String) throws(ArchiveError) -> ArchiveReference? {
        switch content(forKey: key) {
        case .reference(let uid): return ArchiveReference(uid: PropertyListUID(UInt64(uid)))
        case .absent: return nil
        case .integer, .other: break
        }
        guard let value = fields[ArchiveKeys.escape(key)] else { return nil }
        guard case .uid(let uid) = value else {
            throw error(.typeMismatch, "expected a reference to an object, found \(value.kindNameWithArticle)", key: key)
        }
        return ArchiveReference(uid: uid)
    }

    /// Decodes the object a reference points to (for conformances that delegate).
    @inlinable
    public func decode<T: ArchiveObjectDecodable>(_ type: T.Type, reference: ArchiveReference) throws(ArchiveError) -> T {
        guard !reference.isNull else { throw nullReferenceError(T.self) }
        do {
            return try T.decode(archiveReference: reference, from: self)
        } catch let failure as ArchiveError {
            throw failure.located(keyPath: session.keyPath, uid: reference.uid)
        } catch {
            throw modelError(error, decoding: T.self, reference: reference)
        }
    }

    @usableFromInline
    func nullReferenceError(_ requested: Any.Type) -> ArchiveError {
        ArchiveError(.valueNotFound, "expected \(requested), found $null", keyPath: session.keyPath, uid: uid)
    }

    @usableFromInline
    func modelError(_ error: any Error, decoding requested: Any.Type, reference: ArchiveReference) -> ArchiveError {
        ArchiveError(.modelError, "decoding \(requested) threw: \(String(describing: error).escapedForMessage)", keyPath: session.keyPath,
                     uid: reference.uid, underlyingDescription: "\(error)", underlyingError: error)
    }

    /// Decodes the object under `key`; nil when the key is absent or refers to `$null`.
    /// A number stored inline is read where `T` is a number type, or a `RawRepresentable` type
    /// whose raw value is one (an enum written as `encode(fuel.rawValue, forKey:)`).
    @inlinable
    public func decodeIfPresent<T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String) throws(ArchiveError) -> T? {
        let stored: ArchiveReference?
        do {
            stored = try reference(forKey: key)
        } catch {
            // Not a reference: only an inline number read as `T` (or its raw value) is taken.
            if let value = try inlineValue(T.self, forKey: key) { return value }
            throw error
        }
        guard let reference = stored, !reference.isNull else { return nil }
        return try session.withPath(.key(key)) { () throws(ArchiveError) in try decode(type, reference: reference) }
    }

    /// Decodes the object under `key` (a string, data, date, URL, UUID, collection or model).
    /// A number stored inline (`encodeInteger:`, `encodeDouble:`, …) is read too where `T` is a
    /// number type, or a `RawRepresentable` type whose raw value is one: an enum an app stores
    /// as `coder.encode(fuel.rawValue, forKey: "fuel")` decodes as
    /// `decode(FuelType.self, forKey: "fuel")`, as one stored as an `NSNumber` object does.
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when absent or `$null`,
    ///   ``ArchiveError/Code/classNotAllowed`` when its class is not admitted for `T`,
    ///   ``ArchiveError/Code/valueOutOfRange`` for an inline raw value that is not one of `T`'s,
    ///   and whatever decoding the object itself throws.
    ///
    /// Inlinable, as are the collection conformances it reaches, so that a model's module gets
    /// copies specialized for its own field types: unspecialized, every element of a collection
    /// costs generic metadata lookups and witness calls.
    @inlinable
    public func decode<T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String) throws(ArchiveError) -> T {
        // Not written as `required(decodeIfPresent(…))`: where this runs unspecialized, going
        // through `T?` costs a runtime metadata lookup for `Optional<T>` on every field.
        let reference: ArchiveReference
        do {
            reference = try requiredReference(forKey: key, expecting: T.self)
        } catch {
            // Not a reference: only an inline number read as `T` (or its raw value) is taken.
            if let value = try inlineValue(T.self, forKey: key) { return value }
            throw error
        }
        return try session.withPath(.key(key)) { () throws(ArchiveError) in try decode(type, reference: reference) }
    }

    /// Decodes the string under `key`, as the generic `decode(_:forKey:)` does, without its
    /// unspecialized generic path (strings are most of a model's fields).
    public func decode(_ type: String.Type, forKey key: String) throws(ArchiveError) -> String {
        if case .reference(let uid) = content(forKey: key), let string = session.plainString(at: uid) { return string }
        let reference = try requiredReference(forKey: key, expecting: String.self)
        return try session.withPath(.key(key)) { () throws(ArchiveError) in
            try ArchiveStringDecoding.decode(uid: try session.index(reference), session: session)
        }
    }

    /// The non-null reference under `key`, or the "expected …, found no value/$null" error.
    @usableFromInline
    func requiredReference(forKey key: String, expecting type: Any.Type) throws(ArchiveError) -> ArchiveReference {
        guard let reference = try reference(forKey: key), !reference.isNull else { throw missingValue(type, key: key) }
        return reference
    }

    /// Decodes a back-reference once the whole graph is built: `assign` is called after the
    /// outermost decode finishes, with the object (or nil when absent or `$null`). This is how a
    /// child refers to a parent that is still being decoded — the parent is handed over only once
    /// it is complete:
    /// ```swift
    /// decoder.decode(Pilot.self, forKey: "owner") { [weak self] pilot in self?.owner = pilot }
    /// ```
    /// Class checks happen then too, before anything is created; a failure fails the whole decode.
    ///
    /// Inlinable, so that the model's module calls `assign` with its own `T?`: unspecialized,
    /// making that optional costs a metadata lookup per back-reference.
    @inlinable
    public func decode<T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String, whenResolved assign: @escaping (T?) -> Void) {
        // The `for:` form, with the session as the object: one mechanism for both.
        decode(type, forKey: key, for: session) { _, value in assign(value) }
    }

    /// Decodes a back-reference for `object` once the whole graph is built, and hands both to
    /// `assign` — the same as ``decode(_:forKey:whenResolved:)``, but `assign` receives the
    /// object instead of capturing it, so it captures nothing: no `[weak self]` box and no
    /// closure context per reference.
    /// ```swift
    /// decoder.decode(Pilot.self, forKey: "owner", for: self) { airplane, pilot in airplane.owner = pilot }
    /// ```
    /// The unarchiver holds `object` until the back-references are resolved or the decode
    /// fails, as it holds every model it decodes; the property itself may be `weak`. If the
    /// initializer that registered the reference throws (and a model catches the error), the
    /// reference is dropped: `assign` never receives an object that failed to decode.
    @inlinable
    public func decode<Root: AnyObject, T: ArchiveObjectDecodable>(_ type: T.Type, forKey key: String, for object: Root,
                                                                   assign: @escaping (Root, T?) -> Void) {
        // Read now, so that resolving costs no key lookup; a field the fast read cannot take
        // is read when the work runs, by the general path, which reports what is wrong.
        guard let stored = (try? reference(forKey: key)) ?? nil else {
            session.enqueue(holder: self, reference: nil) { (decoder, _) throws(ArchiveError) in
                assign(object, try decoder.decodeIfPresent(type, forKey: key))
            }
            return
        }
        session.enqueue(holder: self, reference: stored) { (decoder, stored) throws(ArchiveError) in
            guard let stored, !stored.isNull else { return assign(object, nil) }
            assign(object, try decoder.session.withPath(.key(key)) { () throws(ArchiveError) in
                try decoder.decode(type, reference: stored)
            })
        }
    }

    /// Decodes the object under `key` as a member of a registered family that is not itself a
    /// ``ArchiveObjectDecodable`` type — typically a protocol of struct models,
    /// `decodeObject(of: (any AirplaneRecord).self, forKey: "airplane")`.
    public func decodeObject<T>(of type: T.Type, forKey key: String) throws(ArchiveError) -> T {
        let reference = try requiredReference(forKey: key, expecting: T.self)
        return try session.withPath(.key(key)) { () throws(ArchiveError) in
            try session.decodeModel(type, reference: reference)
        }
    }

    /// Like ``decodeObject(of:forKey:)``, but nil when the key is absent or refers to `$null`.
    public func decodeObjectIfPresent<T>(of type: T.Type, forKey key: String) throws(ArchiveError) -> T? {
        guard let reference = try reference(forKey: key), !reference.isNull else { return nil }
        return try session.withPath(.key(key)) { () throws(ArchiveError) in
            try session.decodeModel(type, reference: reference)
        }
    }

    /// Decodes an `NSArray` under `key` whose elements are members of a registered family.
    public func decodeArray<T>(of type: T.Type, forKey key: String) throws(ArchiveError) -> [T] {
        guard let reference = try reference(forKey: key), !reference.isNull else {
            throw error(.valueNotFound, "expected an array of \(T.self), found \(fields[ArchiveKeys.escape(key)] == nil ? "no value" : "$null")", key: key)
        }
        return try session.withPath(.key(key)) { () throws(ArchiveError) in
            try ArchiveArrayDecoding.decodeElements(uid: try session.index(reference), requested: "[\(T.self)]", session: session) { (element: ArchiveReference) throws(ArchiveError) in
                try session.decodeModel(type, reference: element)
            }
        }
    }

    /// The value stored without a key at position `index` (`$0`, `$1`, …).
    public func decodeUnkeyed<T: ArchiveObjectDecodable>(_ type: T.Type, at index: Int) throws(ArchiveError) -> T {
        let storedKey = "$\(index)"
        noteRead(storedKey: storedKey)
        guard let value = fields[storedKey] else {
            throw error(.valueNotFound, "no unkeyed value \(storedKey)", key: storedKey)
        }
        guard case .uid(let reference) = value else {
            throw error(.typeMismatch, "expected a reference to an object, found \(value.kindNameWithArticle)", key: storedKey)
        }
        return try session.withPath(.key(storedKey)) { () throws(ArchiveError) in
            try decode(type, reference: ArchiveReference(uid: reference))
        }
    }
}
