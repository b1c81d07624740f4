import PropertyList

// Swift collections archived as a Foundation class of the caller's choice: the mutable classes
// (`NSMutableArray`, …), or an array of models archived as an `NSSet` or `NSOrderedSet`-less
// `NS.objects` set. The generated models of `keyedarchive schema --swift` write their fields
// this way, with the chain the source archive had. With ``KeyedArchiver/identities``, a
// collection still as it was decoded is written once per archived object, like any value.

extension KeyedArchiveEncoder {
    /// Encodes `elements` as an object with the `$classes` chain `classes` (class name first)
    /// holding them in `NS.objects`, in order: an `NSArray`, `NSMutableArray`, `NSSet` or
    /// `NSMutableSet` shape.
    public func encode<Element: ArchiveObjectEncodable>(_ elements: [Element], forKey key: String, classes: [String]) throws(ArchiveError) {
        try storeCollection(elements, forKey: key) { () throws(ArchiveError) in
            try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        }
    }

    /// Encodes `set` as an object with the `$classes` chain `classes` (`NSSet`, `NSMutableSet`),
    /// its elements in ascending order, so that the bytes do not depend on Swift's hash seed.
    public func encode<Element: ArchiveObjectEncodable & Comparable>(_ set: Set<Element>, forKey key: String, classes: [String]) throws(ArchiveError) {
        try storeCollection(set, forKey: key) { () throws(ArchiveError) in
            let ordered = set.sorted()
            return try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(ordered, forKey: "NS.objects", keyOnPath: false)
            }
        }
    }

    /// Encodes `dictionary` as an object with the `$classes` chain `classes` (`NSDictionary`,
    /// `NSMutableDictionary`): `NS.keys` then `NS.objects`, in ascending key order.
    public func encode<Key: ArchiveObjectEncodable & Comparable, Value: ArchiveObjectEncodable>(_ dictionary: [Key: Value], forKey key: String, classes: [String]) throws(ArchiveError) {
        try storeCollection(dictionary, forKey: key) { () throws(ArchiveError) in
            let ordered = dictionary.sorted { $0.key < $1.key }
            return try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(ordered.lazy.map { $0.key }, forKey: "NS.keys", keyOnPath: false)
                try fields.encodeReferenceArray(ordered.lazy.map { $0.value }, forKey: "NS.objects", keyOnPath: false) { position in
                    (ordered[position].key as? String).map { .key($0) } ?? .index(position)
                }
            }
        }
    }

    /// Encodes `string` as an `NSMutableString` object (`NS.string`) when `mutable`, otherwise
    /// as a plain string, as ``encode(_:forKey:)-(String,_)`` does.
    public func encode(_ string: String, forKey key: String, mutable: Bool) throws(ArchiveError) {
        guard mutable else { return try encode(string, forKey: key) }
        try storeCollection(string, forKey: key) { () throws(ArchiveError) in
            try self.encodeObject(classes: FoundationClass.string.archivedChain) { fields in
                try fields.encodeRaw(.string(string), forStoredKey: "NS.string")
            }
        }
    }

    // MARK: References (a collection stored without a key: `$0`, `$1`, …)

    /// The reference of `elements` archived as ``encode(_:forKey:classes:)-([Element],_,_)``
    /// archives them, for storing where no key names it (an unkeyed field, with
    /// ``encodeRaw(_:forStoredKey:)``): generated models write a collection at `$0` this way, with
    /// the chain the source archive had.
    public func reference<Element: ArchiveObjectEncodable>(for elements: [Element], classes: [String]) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        return try sharedReference(for: elements) { () throws(ArchiveError) in
            try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(elements, forKey: "NS.objects", keyOnPath: false)
            }
        }
    }

    /// The reference of `set` archived with the chain `classes`, its elements in ascending order.
    public func reference<Element: ArchiveObjectEncodable & Comparable>(for set: Set<Element>, classes: [String]) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        return try sharedReference(for: set) { () throws(ArchiveError) in
            let ordered = set.sorted()
            return try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(ordered, forKey: "NS.objects", keyOnPath: false)
            }
        }
    }

    /// The reference of `dictionary` archived with the chain `classes`, in ascending key order.
    public func reference<Key: ArchiveObjectEncodable & Comparable, Value: ArchiveObjectEncodable>(for dictionary: [Key: Value], classes: [String]) throws(ArchiveError) -> ArchiveReference {
        try session.checkUsable(frame: frame, owner: owner)
        return try sharedReference(for: dictionary) { () throws(ArchiveError) in
            let ordered = dictionary.sorted { $0.key < $1.key }
            return try self.encodeObject(classes: classes) { fields in
                try fields.encodeReferenceArray(ordered.lazy.map { $0.key }, forKey: "NS.keys", keyOnPath: false)
                try fields.encodeReferenceArray(ordered.lazy.map { $0.value }, forKey: "NS.objects", keyOnPath: false) { position in
                    (ordered[position].key as? String).map { .key($0) } ?? .index(position)
                }
            }
        }
    }

    /// The reference of `string`: an `NSMutableString` object when `mutable`, else the plain string.
    public func reference(for string: String, mutable: Bool) throws(ArchiveError) -> ArchiveReference {
        guard mutable else { return try reference(for: string) }
        try session.checkUsable(frame: frame, owner: owner)
        return try sharedReference(for: string) { () throws(ArchiveError) in
            try self.encodeObject(classes: FoundationClass.string.archivedChain) { fields in
                try fields.encodeRaw(.string(string), forStoredKey: "NS.string")
            }
        }
    }

    /// Stores under `key` the reference `encode` makes for `collection`, or the one already
    /// made for the archived object it was decoded from.
    private func storeCollection<C>(_ collection: C, forKey key: String, encode: () throws(ArchiveError) -> ArchiveReference) throws(ArchiveError) {
        try session.checkUsable(frame: frame, owner: owner)
        let number = try session.fieldKey(key)
        let reference = try session.withPath(.key(key)) { () throws(ArchiveError) in
            try sharedReference(for: collection, encode: encode)
        }
        session.setField(.uid(reference.uid), key: number, frame: frame)
    }
}
