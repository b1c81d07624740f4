import KeyedArchive
import KeyedArchiveTesting

// What a client of KeyedArchive writes when it switches over the package's enums.
//
// An enum whose cases the archive format fixes is exhaustive: a switch lists every case and
// needs no default, and a new release cannot add one (`PropertyListValue`, `PropertyListReal`,
// `ArchiveGraph.Object`, `ArchiveKeyPath.Component`, the field-storage enums). Every other
// public enum may gain cases in a minor release, so a switch over it ends with
// `@unknown default`: the compiler still warns about a case the client has not handled yet,
// but the client keeps compiling when a release adds one.

/// A value's kind, in the client's own words.
public func describe(_ value: ArchiveValue) -> String {
    switch value {
    case .null: "nothing"
    case .string(let string, _): "text \(string)"
    case .integer, .real, .bool: "a number"
    case .array(let elements, _): "\(elements.count) elements"
    case .dictionary(let entries, _): "\(entries.count) entries"
    case .object, .model, .instance, .shared, .backReference: "an object"
    case .data, .date, .uuid, .url, .set, .orderedSet, .special, .indexSet, .indexPath,
         .attributedString, .decimalNumber, .encodedValue, .countedSet, .timeZone, .locale,
         .measurement, .unit, .unitConverter, .affineTransform, .sortDescriptor:
        "a Foundation value"
    @unknown default: "a kind this client does not know yet"
    }
}

/// A property-list value: the format fixes the set, so no default is needed or allowed to matter.
public func describe(_ value: PropertyListValue) -> String {
    switch value {
    case .string: "string"
    case .integer: "integer"
    case .real: "real"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .uid: "uid"
    case .array: "array"
    case .dictionary: "dictionary"
    case .set: "set"
    }
}

/// How an object's field is stored: the ways a keyed archiver's coder stores a value under a
/// key, fixed by the format, so no default.
public func storage(_ field: ArchiveInstance.FieldValue) -> String {
    switch field {
    case .null: "$null"
    case .object: "a reference"
    case .objects(let elements): "\(elements.count) references"
    case .inline: "in the object"
    case .conditional: "a conditional reference"
    }
}

/// Whether a compatibility rule is one the client's release process blocks on.
public func blocksRelease(_ rule: ArchiveCompatibilityRule) -> Bool {
    switch rule {
    case .classRemoved, .keyRemoved, .keyRenamed, .keyBecameRequired, .kindChanged: true
    case .classRenamed, .classModuleChanged, .classChainChanged, .classAdded, .keyAdded,
         .keyBecameOptional, .nullAdded, .nullRemoved, .storageChanged, .collectionChanged,
         .classChanged, .integerWidened, .elementKindChanged, .elementClassChanged, .topKeyAdded,
         .topKeyRemoved, .topKeyChanged:
        false
    @unknown default: true
    }
}

/// A difference's kind, as the client's report prints it.
public func label(_ kind: ArchiveDiff.Difference.Kind) -> String {
    switch kind {
    case .valueChanged, .typeChanged: "changed"
    case .onlyInA: "removed"
    case .onlyInB: "added"
    case .classChanged, .classChainChanged: "class"
    case .countChanged: "count"
    case .sharingChanged: "sharing"
    @unknown default: "other"
    }
}

/// The Foundation classes a client's registry admits by name.
public func admits(_ foundationClass: FoundationClass) -> Bool {
    switch foundationClass {
    case .string, .array, .dictionary, .data, .date: true
    case .set, .url, .uuid, .null, .indexPath, .indexSet, .orderedSet, .value, .attributedString,
         .decimalNumber, .countedSet, .timeZone, .locale, .measurement, .unit, .unitConverter,
         .affineTransform, .sortDescriptor:
        false
    @unknown default: false
    }
}

/// Whether a record mode writes snapshots.
public func writes(_ mode: ArchiveRecordMode) -> Bool {
    switch mode {
    case .never: false
    case .missing, .failed, .all: true
    @unknown default: false
    }
}

/// The file extension a client uses for a property-list format.
public func fileExtension(_ format: PropertyListFormat) -> String {
    switch format {
    case .binary: "bplist"
    case .xml: "plist"
    @unknown default: "plist"
    }
}
