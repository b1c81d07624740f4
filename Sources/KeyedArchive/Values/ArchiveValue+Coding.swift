#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// ArchiveValue as an archived object. Decoding lets the archive decide the type, as
// `PropertyListValue` does, but over every Foundation value class the registry lists: leaves go
// to the typed mappings (`Date`, `URL`, `UUID`, `ArchiveSpecialValue`, `ArchiveIndexSet`,
// `IndexPath`, …), so that each class is read one way only; collections are walked with a stack
// of their own and go through the session's container bookkeeping (cycles, depth, thread stack,
// element budget, one decode per shared object).

extension ArchiveValue: ArchiveObjectCodable {
    /// Writes the classes the value was read from: plain strings, numbers and data, or the
    /// mutable object forms its flags name; `NSDate`, `NSURL`, `NSUUID`, `NSNull`, `NSValue`,
    /// index sets and paths as their typed mappings write them; collections with `NS.objects`
    /// (and `NS.keys`, all keys before the values, as Foundation writes them) in the value's order.
    /// - Throws: ``ArchiveError/Code/typeMismatch`` for an ``object(_:)``, which is a reference
    ///   into the archive it was read from, not a value.
    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try ArchiveValueEncoding.reference(for: self, in: encoder)
    }

    /// Any Foundation value class the registry admits, and plain values as its primitive policy
    /// admits them; an object of another class as ``object(_:)`` when the registry names that
    /// class (a registered model, or with ``ArchiveClassFallback/nearestRegisteredAncestor`` one
    /// in its `$classes`), refused with ``ArchiveError/Code/classNotAllowed`` otherwise.
    public static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> ArchiveValue {
        try ArchiveValueDecoding.decode(reference: reference, decoder: decoder)
    }
}

// MARK: Encoding

enum ArchiveValueEncoding {
    /// The reference of `value`'s object. `identity` is the ``ArchiveSharedObject`` the value is
    /// the value of: an object that may contain a reference back to it is registered under it
    /// before its contents are written; any other is registered once written.
    static func reference(for value: ArchiveValue, in encoder: KeyedArchiveEncoder, identity: ArchiveSharedObject? = nil) throws(ArchiveError) -> ArchiveReference {
        switch value {
        case .string(let string, true):
            return try encoder.encodeObject(classes: FoundationClass.string.archivedChain, identity: identity) { fields in
                try fields.encodeRaw(.string(string), forStoredKey: "NS.string")
            }
        case .data(let bytes, true):
            return try encoder.encodeObject(classes: FoundationClass.data.archivedChain, identity: identity) { fields in
                try fields.encodeBytes(bytes, forKey: "NS.data")
            }
        case .array(let elements, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveArray.mutableArrayClasses : FoundationClass.array.archivedChain, identity: identity) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        case .set(let elements, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveArray.mutableSetClasses : FoundationClass.set.archivedChain, identity: identity) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        case .orderedSet(let set):
            return try encoder.encodeObject(classes: set.archivesAsMutable ? ArchiveOrderedSet<ArchiveValue>.mutableOrderedSetClasses : ArchiveOrderedSet<ArchiveValue>.orderedSetClasses,
                                            identity: identity) { fields in
                for (position, element) in set.elements.enumerated() {
                    try fields.encode(element, forKey: "NS.object.\(position)")
                }
            }
        case .dictionary(let entries, let mutable):
            return try encoder.encodeObject(classes: mutable ? ArchiveDictionary.mutableDictionaryClasses : FoundationClass.dictionary.archivedChain, identity: identity) { fields in
                // Keys by index and values by their key on the key path, as decoding names them.
                try fields.encodeReferenceArray(entries.map(\.key), forKey: "NS.keys", keyOnPath: false)
                try fields.encodeReferenceArray(entries.lazy.map(\.value), forKey: "NS.objects", keyOnPath: false) { position in
                    entries[position].key.stringValue.map { .key($0) } ?? .index(position)
                }
            }
        case .instance(let instance):
            return try reference(for: instance, in: encoder, identity: identity)
        case .attributedString(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .decimalNumber(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .encodedValue(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .countedSet(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .timeZone(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .locale(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .measurement(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .unit(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .unitConverter(let value):
            return try reference(for: value.archivedInstance(), in: encoder, identity: identity)
        case .affineTransform(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .sortDescriptor(let value):
            return try reference(for: try value.archivedInstance(), in: encoder, identity: identity)
        case .shared(let object):
            if let known = encoder.session.knownReference(for: object) { return known }
            // A plain string, number or data that is one object: written once for this shared
            // object, and in Apple's sharing mode never merged with other equal values. (A date
            // is an NSDate object, not a plain value.)
            if case .date = object.value {} else if let plain = scalar(object.value) {
                return try encoder.session.encodePlain(plain, identity: object)
            }
            return try reference(for: object.value, in: encoder, identity: object)
        case .backReference(let back):
            guard let object = back.object else {
                throw ArchiveError(.valueNotFound, "a back-reference to a shared object that has been released (it closed a cycle through an object nothing holds any more)", keyPath: encoder.keyPath)
            }
            return try reference(for: .shared(object), in: encoder)
        case .object(let object):
            throw ArchiveError(.typeMismatch, "\(object) is a reference into the archive it was decoded from, not a value; encode the model it stands for instead (or, to decode models into an ArchiveValue as roundTrip does, set the registry's decodesModelsInArchiveValues)", keyPath: encoder.keyPath)
        case .model(let model):
            // Encoded as the model: one object encoded twice is stored once.
            return try encoder.reference(for: model.object)
        default:
            // Values that refer to no object of their own: registered once written.
            let reference = try leafReference(for: value, in: encoder)
            if let identity { encoder.session.remember(identity: identity, as: reference) }
            return reference
        }
    }

    /// Values that hold no references to other objects.
    private static func leafReference(for value: ArchiveValue, in encoder: KeyedArchiveEncoder) throws(ArchiveError) -> ArchiveReference {
        switch value {
        case .null:
            return try encoder.reference(for: ArchiveNull())
        case .string(let string, _):
            return encoder.session.encodeString(string)
        case .bool(let flag):
            return encoder.session.encodeNumber(.bool(flag))
        case .integer(let integer):
            return encoder.session.encodeNumber(.integer(integer))
        case .real(let real):
            return encoder.session.encodeNumber(.real(real))
        case .data(let bytes, _):
            return encoder.session.encodeData(bytes)
        case .date(let date):
            return try encoder.reference(for: date)
        case .uuid(let uuid):
            return try encoder.reference(for: uuid)
        case .url(let url):
            return try encoder.reference(for: url)
        case .special(let special):
            return try encoder.reference(for: special)
        case .indexSet(let set):
            return try encoder.reference(for: set)
        case .indexPath(let path):
            return try encoder.reference(for: path)
        case .array, .set, .orderedSet, .dictionary, .instance, .shared, .backReference, .object, .model, .attributedString, .decimalNumber, .encodedValue,
             .countedSet, .timeZone, .locale, .measurement, .unit, .unitConverter, .affineTransform, .sortDescriptor:
            return try reference(for: value, in: encoder)
        }
    }

    /// An object of any class, its fields written in order, each as it was stored.
    static func reference(for instance: ArchiveInstance, in encoder: KeyedArchiveEncoder, identity: AnyObject?) throws(ArchiveError) -> ArchiveReference {
        var classes = instance.classes
        if classes.first.map({ !$0.isExactlyEqual(to: instance.className) }) ?? true { classes.insert(instance.className, at: 0) }
        let body = { (fields: KeyedArchiveEncoder) throws in
            var written: Set<ExactString> = []
            for field in instance.fields {
                guard !field.key.isExactlyEqual(to: ArchiveKeys.classKey), written.insert(ExactString(field.key)).inserted else {
                    throw ArchiveError(.duplicateKey, "\(instance.className.excerptForMessage(128)) has the key \(field.key.excerptForMessage(128)) \(field.key == ArchiveKeys.classKey ? "reserved for its class" : "twice")", keyPath: encoder.keyPath)
                }
                let component = ArchiveKeyPath.Component.key(ArchiveKeys.unescape(field.key) ?? field.key)
                let stored: PropertyListValue
                switch field.value {
                case .null:
                    stored = .uid(PropertyListUID(0))
                case .object(let value):
                    let reference = try fields.session.withPath(component) { () throws(ArchiveError) in
                        try fields.reference(for: value)
                    }
                    stored = .uid(reference.uid)
                case .objects(let values):
                    stored = try fields.session.withPath(component) { () throws(ArchiveError) in
                        var references: [PropertyListValue] = []
                        references.reserveCapacity(values.count)
                        for (position, value) in values.enumerated() {
                            let reference = try fields.session.withPath(.index(position)) { () throws(ArchiveError) in try fields.reference(for: value) }
                            references.append(.uid(reference.uid))
                        }
                        return .array(references)
                    }
                case .inline(let value):
                    stored = try fields.session.withPath(component) { () throws(ArchiveError) in
                        try inline(value, in: fields)
                    }
                case .conditional(let value):
                    let target: AnyObject
                    switch value {
                    case .shared(let object): target = object
                    case .backReference(let back):
                        guard let object = back.object else {
                            throw ArchiveError(.valueNotFound, "a conditional reference to a shared object that has been released", keyPath: fields.keyPath.appending(component))
                        }
                        target = object
                    case .model(let model): target = model.object
                    default:
                        throw ArchiveError(.typeMismatch, "a conditional reference needs an object with an identity (shared, backReference or model), found \(value.kindName)", keyPath: fields.keyPath.appending(component))
                    }
                    try fields.session.checkUsable(frame: fields.frame, owner: fields.owner)
                    fields.session.setConditionalField(target, key: try fields.session.storedFieldKey(field.key), frame: fields.frame)
                    continue
                }
                try fields.encodeRaw(stored, forStoredKey: field.key)
            }
        }
        guard instance.storesClasses, instance.classHints == nil else {
            // A class dictionary of another shape (no `$classes`, or `$classhints`), as stored.
            let descriptor = instance.storesClasses
                ? ArchiveGraph.ClassDescriptor(name: instance.className, classes: classes, hints: instance.classHints)
                : ArchiveGraph.ClassDescriptor(nameOnly: instance.className, hints: instance.classHints)
            return try encoder.encodeObject(descriptor: descriptor, identity: identity, fields: body)
        }
        return try encoder.encodeObject(classes: classes, identity: identity, fields: body)
    }

    /// A value stored in an object itself: scalars as they are, an inline container's
    /// collections and objects as references.
    private static func inline(_ value: ArchiveValue, in encoder: KeyedArchiveEncoder) throws(ArchiveError) -> PropertyListValue {
        func element(_ value: ArchiveValue, at component: ArchiveKeyPath.Component) throws(ArchiveError) -> PropertyListValue {
            // A date here came from a reference to an NSDate: a keyed archiver stores an inline
            // container's elements as references, and a date only as an NSDate object.
            if case .date = value {} else if let scalar = scalar(value) { return scalar }
            let reference = try encoder.session.withPath(component) { () throws(ArchiveError) in try encoder.reference(for: value) }
            return .uid(reference.uid)
        }
        if let scalar = scalar(value) { return scalar }
        switch value {
        case .array(let elements, _):
            var stored: [PropertyListValue] = []
            for (position, value) in elements.enumerated() { stored.append(try element(value, at: .index(position))) }
            return .array(stored)
        case .set(let elements, _):
            var stored: [PropertyListValue] = []
            for (position, value) in elements.enumerated() { stored.append(try element(value, at: .index(position))) }
            return .set(stored)
        case .dictionary(let entries, _):
            var stored: [PropertyListDictionary.Entry] = []
            for entry in entries {
                guard case .string(let key, _) = entry.key else {
                    throw ArchiveError(.typeMismatch, "a dictionary stored inline needs string keys, found \(entry.key.kindName)", keyPath: encoder.keyPath)
                }
                stored.append(PropertyListDictionary.Entry(key: key, value: try element(entry.value, at: .key(key))))
            }
            return .dictionary(PropertyListDictionary(entries: stored))
        default:
            throw ArchiveError(.typeMismatch, "\(value.kindName) cannot be stored inline in an object; store it as .object", keyPath: encoder.keyPath)
        }
    }

    /// The inline form of a number, boolean, string, data or date.
    private static func scalar(_ value: ArchiveValue) -> PropertyListValue? {
        switch value {
        case .string(let string, false): return .string(string)
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes, false): return .data(bytes)
        case .date(let date): return .date(PropertyListDate(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate))
        default: return nil
        }
    }
}

// MARK: Fields and top-level keys

extension KeyedArchiveDecoder {
    /// The value under `key`, whatever is stored there: an object or plain value it refers to
    /// (as ``ArchiveValue/decode(archiveReference:from:)`` reads it), or a number, boolean or
    /// bytes stored inline in the object (as `encodeInt:`, `encodeBool:`, `encodeDouble:` and
    /// `encodeBytes:` store them). Nil when the key is absent or refers to `$null`.
    public func decodeIfPresent(_ type: ArchiveValue.Type, forKey key: String) throws(ArchiveError) -> ArchiveValue? {
        try archiveValue(storedKey: ArchiveKeys.escape(key), key: key)
    }

    /// The value stored without a key at position `index` (`$0`, `$1`, …), inline or referenced.
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when there is none or it is `$null`, and
    ///   whatever decoding the value throws.
    public func decodeUnkeyed(_ type: ArchiveValue.Type, at index: Int) throws(ArchiveError) -> ArchiveValue {
        let storedKey = "$\(index)"
        guard let value = try archiveValue(storedKey: storedKey, key: storedKey) else {
            throw error(.valueNotFound, fields[storedKey] == nil ? "no unkeyed value \(storedKey)" : "expected ArchiveValue, found $null", key: storedKey)
        }
        return value
    }

    /// The value under a stored key; `key` is how the key path names it.
    private func archiveValue(storedKey: String, key: String) throws(ArchiveError) -> ArchiveValue? {
        guard let stored = fields[storedKey] else { return nil }
        switch stored {
        case .uid(let uid):
            guard uid.value != 0 else { return nil }
            return try session.withPath(.key(key)) { () throws(ArchiveError) in
                try ArchiveValueDecoding.decode(reference: ArchiveReference(uid: uid), decoder: self)
            }
        case .integer(let integer): return .integer(integer)
        case .real(let real): return .real(real)
        case .bool(let flag): return .bool(flag)
        case .data(let bytes): return .data(bytes)
        case .string(let string): return .string(string)
        case .date(let date): return .date(Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate))
        case .array, .dictionary, .set:
            throw error(.typeMismatch, "expected a value or a reference to an object, found \(stored.kindNameWithArticle) stored inline (read it with rawValue(forStoredKey:))", key: key)
        }
    }

    /// The value under `key` (see ``decodeIfPresent(_:forKey:)-(ArchiveValue.Type,_)``).
    /// - Throws: ``ArchiveError/Code/valueNotFound`` when absent or `$null`,
    ///   ``ArchiveError/Code/classNotAllowed`` for a class the registry does not admit, and
    ///   whatever decoding the value throws.
    public func decode(_ type: ArchiveValue.Type, forKey key: String) throws(ArchiveError) -> ArchiveValue {
        guard let value = try decodeIfPresent(type, forKey: key) else { throw missingValue(type, key: key) }
        return value
    }
}

extension KeyedUnarchiver {
    /// The value under a top-level key, inline numbers included (Apple's archiver stores a
    /// top-level number inline); see ``KeyedArchiveDecoder/decode(_:forKey:)-(ArchiveValue.Type,_)``.
    public func decode(_ type: ArchiveValue.Type, forKey key: String = "root") throws(ArchiveError) -> ArchiveValue {
        try run { () throws(ArchiveError) in try topLevelDecoder.decode(type, forKey: key) }
    }

    /// Like ``decode(_:forKey:)-(ArchiveValue.Type,_)``, but nil when the key is absent or `$null`.
    public func decodeIfPresent(_ type: ArchiveValue.Type, forKey key: String = "root") throws(ArchiveError) -> ArchiveValue? {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeIfPresent(type, forKey: key) }
    }

    /// The top-level value stored without a key at position `index` (`$0`, `$1`, …), inline or
    /// referenced (see ``KeyedArchiveDecoder/decodeUnkeyed(_:at:)-(ArchiveValue.Type,_)``).
    public func decodeUnkeyed(_ type: ArchiveValue.Type, at index: Int) throws(ArchiveError) -> ArchiveValue {
        try run { () throws(ArchiveError) in try topLevelDecoder.decodeUnkeyed(type, at: index) }
    }

    /// Decodes whatever is under `root` as an ``ArchiveValue``.
    public static func unarchive(_ type: ArchiveValue.Type, from bytes: [UInt8], registry: ArchiveRegistry,
                                 options: ArchiveReadingOptions = .default) throws(ArchiveError) -> ArchiveValue {
        try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(type, forKey: ArchiveKeys.rootKey)
    }
}
