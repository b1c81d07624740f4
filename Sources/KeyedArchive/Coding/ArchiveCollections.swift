/// (Not public: what `KeyedArchiveEncoder.encode(_:forKey:)` of `[any ArchiveObjectEncodable]`
/// writes, and the chains the package names; clients use ``ArchiveValue``'s collections.)
///
/// An ordered collection of values of any types, archived as `NSArray` (or, with other
/// `classes`, as `NSMutableArray`, `NSSet`, `NSMutableSet`, `NSOrderedSet`… — every one of them
/// stores `NS.objects`). Elements are written in the given order, which is how a set's stored
/// order can be chosen exactly.
package struct ArchiveArray: ArchiveObjectEncodable {
    /// The `$classes` of an `NSArray`, the default.
    package static let arrayClasses = ["NSArray", "NSObject"]
    /// The `$classes` of an `NSMutableArray`.
    package static let mutableArrayClasses = ["NSMutableArray", "NSArray", "NSObject"]
    /// The `$classes` of an `NSSet`: the elements are written in the order given.
    package static let setClasses = ["NSSet", "NSObject"]
    /// The `$classes` of an `NSMutableSet`.
    package static let mutableSetClasses = ["NSMutableSet", "NSSet", "NSObject"]

    /// The elements, encoded under `NS.objects` in this order.
    package var elements: [any ArchiveObjectEncodable]
    /// `$classes`, the class name first.
    package var classes: [String]

    /// An array of `elements`, archived with `classes` (``arrayClasses``, `NSArray`, by default).
    package init(_ elements: [any ArchiveObjectEncodable], classes: [String] = ArchiveArray.arrayClasses) {
        self.elements = elements
        self.classes = classes
    }

    package func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: classes) { fields in
            try fields.encodeReferences(elements, forKey: "NS.objects", keyOnPath: false)
        }
    }
}

/// Key–value pairs of any types, in the given order, archived as `NSDictionary` (or
/// `NSMutableDictionary` with other `classes`): all keys are encoded, then all values, as
/// Foundation does.
package struct ArchiveDictionary: ArchiveObjectEncodable {
    /// The `$classes` of an `NSDictionary`, the default.
    package static let dictionaryClasses = ["NSDictionary", "NSObject"]
    /// The `$classes` of an `NSMutableDictionary`.
    package static let mutableDictionaryClasses = ["NSMutableDictionary", "NSDictionary", "NSObject"]

    /// The key–value pairs, encoded in this order (keys under `NS.keys`, values under `NS.objects`).
    package var entries: [(key: any ArchiveObjectEncodable, value: any ArchiveObjectEncodable)]
    /// `$classes`, the class name first.
    package var classes: [String]

    /// A dictionary of `entries`, archived with `classes` (``dictionaryClasses``, `NSDictionary`, by default).
    package init(_ entries: [(key: any ArchiveObjectEncodable, value: any ArchiveObjectEncodable)], classes: [String] = ArchiveDictionary.dictionaryClasses) {
        self.entries = entries
        self.classes = classes
    }

    package func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: classes) { fields in
            try fields.encodeReferences(entries.map { $0.key }, forKey: "NS.keys", keyOnPath: false)
            try fields.encodeReferences(entries.map { $0.value }, forKey: "NS.objects", keyOnPath: false) { position in
                (entries[position].key as? String).map { .key($0) } ?? .index(position)
            }
        }
    }
}
