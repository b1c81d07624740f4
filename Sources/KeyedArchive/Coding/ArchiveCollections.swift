/// An ordered collection of values of any types, archived as `NSArray` (or, with other
/// `classes`, as `NSMutableArray`, `NSSet`, `NSMutableSet`, `NSOrderedSet`… — every one of them
/// stores `NS.objects`). Elements are written in the given order, which is how a set's stored
/// order can be chosen exactly.
public struct ArchiveArray: ArchiveObjectEncodable {
    public static let arrayClasses = ["NSArray", "NSObject"]
    public static let mutableArrayClasses = ["NSMutableArray", "NSArray", "NSObject"]
    public static let setClasses = ["NSSet", "NSObject"]
    public static let mutableSetClasses = ["NSMutableSet", "NSSet", "NSObject"]

    public var elements: [any ArchiveObjectEncodable]
    /// `$classes`, the class name first.
    public var classes: [String]

    public init(_ elements: [any ArchiveObjectEncodable], classes: [String] = ArchiveArray.arrayClasses) {
        self.elements = elements
        self.classes = classes
    }

    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: classes) { fields in
            try fields.encodeReferences(elements, forKey: "NS.objects", keyOnPath: false)
        }
    }
}

/// Key–value pairs of any types, in the given order, archived as `NSDictionary` (or
/// `NSMutableDictionary` with other `classes`): all keys are encoded, then all values, as
/// Foundation does.
public struct ArchiveDictionary: ArchiveObjectEncodable {
    public static let dictionaryClasses = ["NSDictionary", "NSObject"]
    public static let mutableDictionaryClasses = ["NSMutableDictionary", "NSDictionary", "NSObject"]

    public var entries: [(key: any ArchiveObjectEncodable, value: any ArchiveObjectEncodable)]
    public var classes: [String]

    public init(_ entries: [(key: any ArchiveObjectEncodable, value: any ArchiveObjectEncodable)], classes: [String] = ArchiveDictionary.dictionaryClasses) {
        self.entries = entries
        self.classes = classes
    }

    public func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        try encoder.encodeObject(classes: classes) { fields in
            try fields.encodeReferences(entries.map { $0.key }, forKey: "NS.keys", keyOnPath: false)
            try fields.encodeReferences(entries.map { $0.value }, forKey: "NS.objects", keyOnPath: false) { position in
                (entries[position].key as? String).map { .key($0) } ?? .index(position)
            }
        }
    }
}
