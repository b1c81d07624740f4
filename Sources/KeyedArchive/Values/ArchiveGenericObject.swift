import PropertyList

/// An object of any class, described by its class chain and its fields, each field as raw
/// storage: the package's own copy of an object as stored, which `KeyedArchiver.roundTrip` and
/// ``ArchiveIdentityTable`` write back without reading it as values (no registry is asked, and
/// Foundation's classes stay objects). A class instance, so it is shared by identity and can
/// take part in cycles (an array that contains itself).
///
/// Not public: the public dynamic model is ``ArchiveValue`` (`.instance`, `.shared`,
/// `ArchiveSharedObject(building:)`), which writes the same graphs (the byte-equality tests
/// rebuild Apple's archives through it).
///
/// Keys are stored exactly as given (no `$` escaping), in the order given.
package final class ArchiveGenericObject: ArchiveObjectEncodable {
    /// How one field of the object is stored.
    package enum Field {
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
    package let classes: [String]
    /// The fields, by stored key, written in this order.
    package var fields: [(key: String, value: Field)]
    /// The class dictionary as stored when it has another shape than `$classname` and
    /// `$classes` (no `$classes`, or `$classhints`): written back that way.
    package var storedDescriptor: ArchiveGraph.ClassDescriptor?

    /// An object archived with the `$classes` chain `classes` (class name first) and `fields`.
    package init(classes: [String], fields: [(key: String, value: Field)] = []) {
        self.classes = classes
        self.fields = fields
    }

    package func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        // A copy of an object an ArchiveValue decode also gave as a shared object or a model: that
        // one is written (once, and as it is now), not the copy (``ArchiveIdentityTable``).
        if let identities = encoder.session.identities, let uid = identities.sourceUID(of: self), let live = identities.liveObject(for: uid),
           let reference = try encoder.session.redirectingCopies(of: uid, { () throws(ArchiveError) in try encoder.reference(for: live) }) {
            return reference
        }
        let body = { (object: KeyedArchiveEncoder) throws in
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
        if let storedDescriptor { return try encoder.encodeObject(descriptor: storedDescriptor, identity: self, fields: body) }
        return try encoder.encodeObject(classes: classes, identity: self, fields: body)
    }
}

/// A plain string, number or data object that keeps its identity: every field that refers to
/// the same `ArchiveSharedValue` refers to one `$objects` entry. (A Swift `String` has no
/// identity, so encoding one twice may store it twice under ``ArchiveWritingOptions/Sharing/appleInstances``.)
package final class ArchiveSharedValue: ArchiveObjectEncodable {
    /// The value stored in the shared object.
    package let value: PropertyListValue

    /// - Parameter value: a string, integer, real, boolean or data value.
    package init(_ value: PropertyListValue) {
        self.value = value
    }

    package func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.session.checkUsable(frame: encoder.frame, owner: encoder.owner)
        return try encoder.session.encodePlain(value, identity: self)
    }
}

// MARK: Decoding

extension ArchiveGenericObject: ArchiveObjectDecodable {
    /// Reads the object at `reference` and everything it refers to as stored: each object with
    /// a class becomes an `ArchiveGenericObject` with its `$classes` and its fields (stored keys,
    /// `$class` left out, in stored order), each plain string, number, data or date an
    /// ``ArchiveSharedValue``, `$null` a nil ``Field/object(_:)``. Encoded again, it writes the
    /// same graph — how a tool copies a part of an archive it has no types for.
    ///
    /// One decode makes one `ArchiveGenericObject` per archived object, whichever reference
    /// reaches it, so a shared object stays one and an `NSMutableArray` that contains itself
    /// contains itself again — and, like any cycle of class instances, is never freed: clear a
    /// field of one of them to break it. The walk
    /// keeps a work list of its own (no recursion); objects nest at most
    /// ``ArchiveReadingOptions/maximumDepth`` deep along the walk, every reference counts against
    /// ``ArchiveReadingOptions/maximumVisitCount`` and every field against
    /// ``ArchiveReadingOptions/maximumTotalElementCount``. Nothing is instantiated but these holders,
    /// so the registry is not asked (as for ``ArchiveGraph``).
    /// - Throws: ``ArchiveError/Code/typeMismatch`` when `reference` is not an object with a
    ///   class, or a field refers to a class dictionary or to a bare property-list container, or
    ///   holds a reference nested deeper than an inline array of references;
    ///   ``ArchiveError/Code/depthLimitExceeded`` past the depth limit.
    package static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveGenericObject {
        try ArchiveGenericDecoding.decode(uid: try decoder.session.index(reference), session: decoder.session)
    }
}

enum ArchiveGenericDecoding {
    private static let memoType = ObjectIdentifier(ArchiveGenericObject.self)
    private static let plainType = ObjectIdentifier(ArchiveSharedValue.self)

    /// An object made and not yet filled: its stored fields, and how deep the walk found it.
    private typealias Pending = (object: ArchiveGenericObject, fields: PropertyListDictionary, uid: Int, depth: Int)

    static func decode(uid root: Int, session: ArchiveDecodingSession) throws(ArchiveError) -> ArchiveGenericObject {
        var pending: [Pending] = []
        guard case .instance(let object) = try holder(root, depth: 1, session: session, pending: &pending) else {
            throw session.error(.typeMismatch, "expected an object with a class, found \(session.describe(root))", uid: root)
        }
        // Objects are made (and remembered) before their fields are read: a field that refers
        // back to one finds it, so cycles close without recursion. Last made, first filled: the
        // walk goes depth first, as a decode that recursed would.
        while let (holder, fields, uid, depth) = pending.popLast() {
            try session.chargeElements(fields.count, uid: uid)
            var read: [(key: String, value: ArchiveGenericObject.Field)] = []
            read.reserveCapacity(fields.count)
            for entry in fields.entries where !entry.key.isExactlyEqual(to: ArchiveKeys.classKey) {
                read.append((entry.key, try field(entry.value, key: entry.key, uid: uid, depth: depth, session: session, pending: &pending)))
            }
            holder.fields = read
        }
        return object
    }

    private enum Holder {
        case instance(ArchiveGenericObject)
        case plain(ArchiveSharedValue)
        case null
    }

    /// What the entry at `uid` is read as: the holder made for it earlier in this decode, or a new one.
    private static func holder(_ uid: Int, depth: Int, session: ArchiveDecodingSession, pending: inout [Pending]) throws(ArchiveError) -> Holder {
        if case let known as ArchiveGenericObject = session.decodedContainer(uid: uid, type: memoType) { return .instance(known) }
        if case let known as ArchiveSharedValue = session.decodedContainer(uid: uid, type: plainType) { return .plain(known) }
        let plain: PropertyListValue
        switch session.object(uid) {
        case .null: return .null
        case .string(let string): plain = .string(string)
        case .integer(let integer): plain = .integer(integer)
        case .real(let real): plain = .real(real)
        case .bool(let flag): plain = .bool(flag)
        case .data(let bytes): plain = .data(bytes)
        case .date(let date): plain = .date(date)
        case .instance(let view):
            guard depth <= session.options.maximumDepth else {
                throw session.error(.depthLimitExceeded, "objects nest deeper than \(session.options.maximumDepth)", uid: uid)
            }
            let object = ArchiveGenericObject(classes: session.classChain(ofInstance: uid))
            if let descriptor = session.classDescriptor(ofInstance: uid), !descriptor.isPlain { object.storedDescriptor = descriptor }
            session.identities?.recordCopy(object, uid: uid)
            session.remember(object, uid: uid, type: memoType)
            pending.append((object, view.fields.dictionary, uid, depth))
            return .instance(object)
        case .classDescriptor, .other:
            throw session.error(.typeMismatch, "expected an object or a plain value, found \(session.describe(uid))", uid: uid)
        }
        let value = ArchiveSharedValue(plain)
        session.remember(value, uid: uid, type: plainType)
        return .plain(value)
    }

    private static func field(_ stored: PropertyListValue, key: String, uid: Int, depth: Int, session: ArchiveDecodingSession,
                              pending: inout [Pending]) throws(ArchiveError) -> ArchiveGenericObject.Field {
        func object(_ target: PropertyListUID) throws(ArchiveError) -> (any ArchiveObjectEncodable)? {
            switch try holder(try session.index(target), depth: depth + 1, session: session, pending: &pending) {
            case .instance(let object): return object
            case .plain(let value): return value
            case .null: return nil
            }
        }
        switch stored {
        case .uid(let target):
            return .object(try object(target))
        case .array(let elements) where !elements.isEmpty && elements.allSatisfy({ if case .uid = $0 { return true } else { return false } }):
            var objects: [any ArchiveObjectEncodable] = []
            objects.reserveCapacity(elements.count)
            for element in elements {
                guard case .uid(let target) = element, let value = try object(target) else {
                    throw session.error(.valueNotFound, "\(key.excerptForMessage(64)) holds a reference to $null in its array of references", uid: uid)
                }
                objects.append(value)
            }
            return .objects(objects)
        default:
            guard !containsReference(stored) else {
                throw session.error(.typeMismatch, "\(key.excerptForMessage(64)) holds a reference inside an inline \(stored.kindName), which a generic object does not keep", uid: uid)
            }
            return .inline(stored)
        }
    }

    private static func containsReference(_ value: PropertyListValue) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .uid: return true
            case .array(let elements), .set(let elements): pending.append(contentsOf: elements)
            case .dictionary(let dictionary): pending.append(contentsOf: dictionary.entries.lazy.map(\.value))
            default: break
            }
        }
        return false
    }
}
