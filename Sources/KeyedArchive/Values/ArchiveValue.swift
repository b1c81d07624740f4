#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

/// Any value of Foundation's archived value classes, decoded without a model: what an
/// `NSKeyedUnarchiver` hands out for `decodeObject(forKey:)` of a `userInfo`-style payload.
///
/// ```swift
/// let payload = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
/// if let name = payload["name"]?.stringValue, let tags = payload["tags"]?.arrayValue { … }
/// ```
///
/// Each case keeps what the archive distinguishes, so that encoding a decoded value writes the
/// same classes again: a number's kind (boolean, integer with its stored width, 32- or 64-bit
/// real), which strings, data and collections were their mutable classes (`NSMutableString`,
/// `NSMutableArray`, …), a dictionary's entries in archive order with keys of any kind, and a
/// URL's base. An object of a class that is not one of Foundation's is ``object(_:)``: decoding
/// admits it only when the registry names its class, and reads nothing of it — unless the
/// registry's ``ArchiveRegistry/decodesModelsInArchiveValues`` asks for the model itself, which is
/// then ``model(_:)`` (how the models `keyedarchive schema --swift` writes hold a field whose
/// objects are sometimes models and sometimes strings or collections). Under the opt-in
/// ``ArchiveRegistry/inspectsUnknownClasses``, an object of a class neither mapped nor registered
/// is ``instance(_:)`` with its class chain and fields, objects referred to from several places
/// (or from themselves) then being ``shared(_:)`` (and the reference that closes a cycle
/// ``backReference(_:)``).
///
/// Equality is what `isEqual:` compares for collections — sets and dictionaries by content
/// whatever their order, the mutable flags ignored (as for ``ArchiveIndexSet`` and
/// ``ArchiveOrderedSet``) — and exact for scalars: numbers by kind and value (reals by bit
/// pattern, as `PropertyListValue` compares them), strings by Unicode scalars.
/// A ``shared(_:)`` object equals only itself (see ``ArchiveSharedObject``).
/// Hashing keeps a stack of its own; comparing does too, but for sets and dictionaries, whose
/// elements are matched in any order by a call per level. Decoding bounds that nesting by
/// ``ArchiveReadingOptions/maximumDepth``, and to 64 levels in a dictionary's keys and an ordered
/// set's elements, which it compares as it reads them.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveValue: Sendable {
    /// `NSNull`.
    case null
    /// A plain string (`NSString`), or with `mutable`, an `NSMutableString` object.
    case string(String, mutable: Bool = false)
    /// A plain boolean (`NSNumber` of a `BOOL`).
    case bool(Bool)
    /// A plain integer (`NSNumber`), its stored width kept.
    case integer(PropertyListInteger)
    /// A plain real (`NSNumber` of a `float` or a `double`).
    case real(PropertyListReal)
    /// Plain data (`NSData`), or with `mutable`, an `NSMutableData` object.
    case data([UInt8], mutable: Bool = false)
    /// `NSDate`. Written as an `NSDate` object; a date an archive stores as a plain
    /// `$objects` entry or inside an inline array (no keyed archiver writes either) reads as
    /// this too, and is written back as an `NSDate` object.
    case date(Date)
    /// `NSUUID`.
    case uuid(UUID)
    /// `NSURL`, with its base (`URL.baseURL`) when it has one.
    case url(URL)
    /// `NSArray`, or with `mutable`, `NSMutableArray`.
    case array([ArchiveValue], mutable: Bool = false)
    /// `NSSet`, or with `mutable`, `NSMutableSet`; elements in archive order.
    case set([ArchiveValue], mutable: Bool = false)
    /// `NSOrderedSet` / `NSMutableOrderedSet` (``ArchiveOrderedSet/archivesAsMutable``).
    case orderedSet(ArchiveOrderedSet<ArchiveValue>)
    /// `NSDictionary`, or with `mutable`, `NSMutableDictionary`: entries in archive order, keys
    /// of any kind.
    case dictionary([Entry], mutable: Bool = false)
    /// `NSValue` holding a point, size, rect, range or edge insets.
    case special(ArchiveSpecialValue)
    /// `NSIndexSet` / `NSMutableIndexSet`.
    case indexSet(ArchiveIndexSet)
    /// `NSIndexPath`.
    case indexPath(IndexPath)
    // The cases below hold their payloads in a box of their own (`indirect`): inline, the
    // largest (a measurement, with its unit and stored fields) made every value 4 times as big,
    // and copying values during decoding took 1.8 times the instructions.

    /// `NSAttributedString` / `NSMutableAttributedString`.
    indirect case attributedString(ArchiveAttributedString)
    /// `NSDecimalNumber`, exactly.
    indirect case decimalNumber(ArchiveDecimalNumber)
    /// `NSValue` of an Objective-C type encoding (`[3i]`, `d`, …).
    indirect case encodedValue(ArchiveEncodedValue)
    /// `NSCountedSet`: elements with their counts.
    indirect case countedSet(ArchiveCountedSet)
    /// `NSTimeZone`.
    indirect case timeZone(ArchiveTimeZone)
    /// `NSLocale`.
    indirect case locale(ArchiveLocale)
    /// `NSMeasurement`.
    indirect case measurement(ArchiveMeasurement)
    /// `NSUnit` / `NSDimension` and its subclasses.
    indirect case unit(ArchiveUnit)
    /// `NSUnitConverterLinear` / `NSUnitConverterReciprocal`.
    indirect case unitConverter(ArchiveUnitConverter)
    /// `NSAffineTransform`.
    indirect case affineTransform(ArchiveAffineTransform)
    /// `NSSortDescriptor`.
    indirect case sortDescriptor(ArchiveSortDescriptor)
    /// An object of a class that is not one of Foundation's, admitted by the registry; decode it
    /// with ``KeyedArchiveDecoder/decode(_:reference:)`` while the decode is under way. It
    /// cannot be encoded (an ``ArchiveError/Code/typeMismatch``): encode the model instead.
    case object(ArchiveObjectReference)
    /// A model object of a registered class, decoded (see
    /// ``ArchiveRegistry/decodesModelsInArchiveValues``), or one you put here to encode: it is
    /// encoded as the model, and one object encoded twice is stored once.
    case model(ArchiveModelObject)
    /// An object of a class that has no mapping, as its class chain and fields: what decoding
    /// makes of any class that is neither Foundation's nor registered when
    /// ``ArchiveRegistry/inspectsUnknownClasses`` is on. It encodes back to the same class
    /// chain and fields.
    indirect case instance(ArchiveInstance)
    /// An object that several places of the archive refer to, or that refers to itself (under
    /// ``ArchiveRegistry/inspectsUnknownClasses``): every reference holds the same
    /// ``ArchiveSharedObject``, and encoding writes it once. The accessors (``stringValue``,
    /// ``arrayValue``, subscripts, …) look through it; ``unshared`` gives what it holds.
    case shared(ArchiveSharedObject)
    /// A reference back to a shared object that contains this value: where one of the archive's
    /// cycles closes (under ``ArchiveRegistry/inspectsUnknownClasses``). It holds the object
    /// weakly, so that a decoded value never keeps itself alive; the accessors look through it
    /// while the object exists.
    case backReference(ArchiveBackReference)

    /// One entry of a ``dictionary(_:mutable:)``.
    public struct Entry: Hashable, Sendable {
        /// The key, of any kind (strings in most archives, integers in some device payloads).
        public var key: ArchiveValue
        /// The value stored under the key.
        public var value: ArchiveValue

        /// An entry of `key` and `value`.
        public init(key: ArchiveValue, value: ArchiveValue) {
            self.key = key
            self.value = value
        }
    }
}

/// A model object (an instance of a ``KeyedArchivable`` class) held by an ``ArchiveValue``:
/// compared and hashed by identity, as `isEqual:` compares an `NSObject` that does not override it.
///
/// It is `Sendable` so that ``ArchiveValue`` stays `Sendable`, but it does not copy the model:
/// like any class reference, the object is shared. A model you mutate after decoding must be
/// mutated from one task at a time, as the same model held anywhere else would be.
public struct ArchiveModelObject: Hashable, @unchecked Sendable, CustomStringConvertible {
    /// The model.
    public let object: any KeyedArchivable & AnyObject

    /// Holds `object`.
    public init(_ object: any KeyedArchivable & AnyObject) {
        self.object = object
    }

    /// Whether both hold the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.object === rhs.object }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(object)) }

    /// `<Pilot>`: the model's Swift type.
    public var description: String { "<\(type(of: object))>" }
}

/// A reference to an object whose class is not one of Foundation's value classes, as an
/// ``ArchiveValue`` or ``ArchiveFieldContent`` holds it: where it is and what the archive says its
/// class is. Nothing of the object has been decoded.
public struct ArchiveObjectReference: Hashable, Sendable, CustomStringConvertible {
    /// The object's UID.
    public let reference: ArchiveReference
    /// The archived `$classname`.
    public let className: String
    /// The archived `$classes`, the class name first (empty when the archive has none).
    public let classes: [String]

    /// A reference to the object at `reference`, of the archived class `className` and `$classes`.
    public init(reference: ArchiveReference, className: String, classes: [String]) {
        self.reference = reference
        self.className = className
        self.classes = classes
    }

    /// `<Pilot #12>`.
    public var description: String { "<\(className) \(reference)>" }
}

// MARK: Equality and hashing

extension ArchiveValue: Hashable {
    /// Whether two values are equal as `isEqual:` compares Foundation's collections (see the type).
    public static func == (lhs: ArchiveValue, rhs: ArchiveValue) -> Bool {
        var pending: [(ArchiveValue, ArchiveValue)] = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case let (.array(a, _), .array(b, _)):
                guard a.count == b.count else { return false }
                for index in a.indices { pending.append((a[index], b[index])) }
            case let (.orderedSet(a), .orderedSet(b)):
                guard a.count == b.count else { return false }
                for index in a.indices { pending.append((a[index], b[index])) }
            case let (.set(a, _), .set(b, _)):
                guard sameElements(a, b) else { return false }
            case let (.dictionary(a, _), .dictionary(b, _)):
                guard sameElements(a, b) else { return false }
            case let (.instance(a), .instance(b)):
                guard a.className.isExactlyEqual(to: b.className), a.classes.isExactlyEqual(to: b.classes), a.fields.count == b.fields.count,
                      a.storesClasses == b.storesClasses, ArchiveInstance.sameHints(a.classHints, b.classHints) else { return false }
                for (x, y) in zip(a.fields, b.fields) {
                    guard x.key.isExactlyEqual(to: y.key) else { return false }
                    switch (x.value, y.value) {
                    case (.null, .null): break
                    case let (.object(v), .object(w)), let (.inline(v), .inline(w)), let (.conditional(v), .conditional(w)): pending.append((v, w))
                    case let (.objects(v), .objects(w)):
                        guard v.count == w.count else { return false }
                        for index in v.indices { pending.append((v[index], w[index])) }
                    default: return false
                    }
                }
            default:
                guard scalarsEqual(left, right) else { return false }
            }
        }
        return true
    }

    /// Whether `a` and `b` hold the same elements as many times each, in any order.
    private static func sameElements<T: Hashable>(_ a: [T], _ b: [T]) -> Bool {
        guard a.count == b.count else { return false }
        // The usual case, one set read twice, needs no table.
        if a == b { return true }
        var counts: [T: Int] = [:]
        for element in a { counts[element, default: 0] += 1 }
        for element in b {
            guard let count = counts[element], count > 0 else { return false }
            counts[element] = count - 1
        }
        return true
    }

    private static func scalarsEqual(_ lhs: ArchiveValue, _ rhs: ArchiveValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.string(a, _), .string(b, _)): return a.isExactlyEqual(to: b)
        case let (.bool(a), .bool(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.data(a, _), .data(b, _)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.uuid(a), .uuid(b)): return a == b
        case let (.url(a), .url(b)): return a == b
        case let (.special(a), .special(b)): return a == b
        case let (.indexSet(a), .indexSet(b)): return a == b
        case let (.indexPath(a), .indexPath(b)): return a == b
        case let (.attributedString(a), .attributedString(b)): return a == b
        case let (.decimalNumber(a), .decimalNumber(b)): return a == b
        case let (.encodedValue(a), .encodedValue(b)): return a == b
        case let (.countedSet(a), .countedSet(b)): return a == b
        case let (.timeZone(a), .timeZone(b)): return a == b
        case let (.locale(a), .locale(b)): return a == b
        case let (.measurement(a), .measurement(b)): return a == b
        case let (.unit(a), .unit(b)): return a == b
        case let (.unitConverter(a), .unitConverter(b)): return a == b
        case let (.affineTransform(a), .affineTransform(b)): return a == b
        case let (.sortDescriptor(a), .sortDescriptor(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.model(a), .model(b)): return a == b
        case let (.shared(a), .shared(b)): return a === b
        case let (.backReference(a), .backReference(b)): return a == b
        default: return false
        }
    }

    /// Hashes what equality compares, with a stack of its own.
    public func hash(into hasher: inout Hasher) {
        var pending: [ArchiveValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .null: hasher.combine(0 as UInt8)
            case .string(let string, _): hasher.combine(1 as UInt8); hasher.combine(string)
            case .bool(let flag): hasher.combine(2 as UInt8); hasher.combine(flag)
            case .integer(let integer): hasher.combine(3 as UInt8); hasher.combine(integer)
            case .real(let real): hasher.combine(4 as UInt8); hasher.combine(real)
            case .data(let bytes, _): hasher.combine(5 as UInt8); hasher.combine(bytes)
            case .date(let date): hasher.combine(6 as UInt8); hasher.combine(date)
            case .uuid(let uuid): hasher.combine(7 as UInt8); hasher.combine(uuid)
            case .url(let url): hasher.combine(8 as UInt8); hasher.combine(url)
            case .array(let elements, _):
                hasher.combine(9 as UInt8); hasher.combine(elements.count)
                pending.append(contentsOf: elements.reversed())
            case .orderedSet(let set):
                hasher.combine(10 as UInt8); hasher.combine(set.count)
                pending.append(contentsOf: set.elements.reversed())
            case .set(let elements, _):
                hasher.combine(11 as UInt8); hasher.combine(elements.count)
                hasher.combine(Self.unorderedHash(elements.lazy.map(\.shallowHash)))
            case .dictionary(let entries, _):
                hasher.combine(12 as UInt8); hasher.combine(entries.count)
                hasher.combine(Self.unorderedHash(entries.lazy.map { $0.key.shallowHash &* 31 &+ $0.value.shallowHash }))
            case .special(let special): hasher.combine(13 as UInt8); hasher.combine(special)
            case .indexSet(let set): hasher.combine(14 as UInt8); hasher.combine(set)
            case .indexPath(let path): hasher.combine(15 as UInt8); hasher.combine(path)
            case .object(let object): hasher.combine(16 as UInt8); hasher.combine(object)
            case .model(let model): hasher.combine(31 as UInt8); hasher.combine(model)
            case .instance(let instance):
                hasher.combine(17 as UInt8); hasher.combine(instance.className); hasher.combine(instance.fields.count)
                for field in instance.fields {
                    hasher.combine(field.key)
                    switch field.value {
                    case .null: hasher.combine(0 as UInt8)
                    case .object(let value): hasher.combine(1 as UInt8); pending.append(value)
                    case .inline(let value): hasher.combine(2 as UInt8); pending.append(value)
                    case .objects(let values): hasher.combine(3 as UInt8); hasher.combine(values.count); pending.append(contentsOf: values.reversed())
                    case .conditional(let value): hasher.combine(4 as UInt8); pending.append(value)
                    }
                }
            case .shared(let object): hasher.combine(18 as UInt8); hasher.combine(object)
            case .backReference(let reference): hasher.combine(19 as UInt8); hasher.combine(reference)
            case .attributedString(let value): hasher.combine(20 as UInt8); hasher.combine(value)
            case .decimalNumber(let value): hasher.combine(21 as UInt8); hasher.combine(value)
            case .encodedValue(let value): hasher.combine(22 as UInt8); hasher.combine(value)
            case .countedSet(let value): hasher.combine(23 as UInt8); hasher.combine(value)
            case .timeZone(let value): hasher.combine(24 as UInt8); hasher.combine(value)
            case .locale(let value): hasher.combine(25 as UInt8); hasher.combine(value)
            case .measurement(let value): hasher.combine(26 as UInt8); hasher.combine(value)
            case .unit(let value): hasher.combine(27 as UInt8); hasher.combine(value)
            case .unitConverter(let value): hasher.combine(28 as UInt8); hasher.combine(value)
            case .affineTransform(let value): hasher.combine(29 as UInt8); hasher.combine(value)
            case .sortDescriptor(let value): hasher.combine(30 as UInt8); hasher.combine(value)
            }
        }
    }

    /// A hash that does not depend on the elements' order: the wrapping sum of theirs (a sum
    /// rather than an exclusive or, which would cancel an element held twice).
    private static func unorderedHash(_ hashes: some Sequence<Int>) -> Int {
        var sum = 0
        for hash in hashes { sum = sum &+ hash }
        return sum
    }

    /// A hash of the value's kind and, for a scalar, its value; for a collection only its size.
    /// What a set or dictionary hashes its elements by: element hashes of their own would nest a
    /// hash per level of sets, where this one takes none.
    private var shallowHash: Int {
        var hasher = Hasher()
        switch self {
        case .array(let elements, _): hasher.combine(9 as UInt8); hasher.combine(elements.count)
        case .orderedSet(let set): hasher.combine(10 as UInt8); hasher.combine(set.count)
        case .set(let elements, _): hasher.combine(11 as UInt8); hasher.combine(elements.count)
        case .dictionary(let entries, _): hasher.combine(12 as UInt8); hasher.combine(entries.count)
        case .attributedString(let value): hasher.combine(20 as UInt8); hasher.combine(value.string)
        case .countedSet(let value): hasher.combine(23 as UInt8); hasher.combine(value.entries.count)
        case .instance(let instance): hasher.combine(17 as UInt8); hasher.combine(instance.className); hasher.combine(instance.fields.count)
        default: hash(into: &hasher)
        }
        return hasher.finalize()
    }
}

// MARK: Accessors

extension ArchiveValue {
    /// A short name of the case, for messages ("a string", "an NSURL" read as "url").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .string: return "string"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .real: return "real"
        case .data: return "data"
        case .date: return "date"
        case .uuid: return "UUID"
        case .url: return "URL"
        case .array: return "array"
        case .set: return "set"
        case .orderedSet: return "ordered set"
        case .dictionary: return "dictionary"
        case .special: return "NSValue"
        case .indexSet: return "index set"
        case .indexPath: return "index path"
        case .attributedString: return "attributed string"
        case .decimalNumber: return "decimal number"
        case .encodedValue: return "NSValue of an Objective-C type"
        case .countedSet: return "counted set"
        case .timeZone: return "time zone"
        case .locale: return "locale"
        case .measurement: return "measurement"
        case .unit: return "unit"
        case .unitConverter: return "unit converter"
        case .affineTransform: return "affine transform"
        case .sortDescriptor: return "sort descriptor"
        case .object(let object): return "object of class \(object.className.excerptForMessage(128))"
        case .model(let model): return "model \(type(of: model.object))"
        case .instance(let instance): return "object of class \(instance.className.excerptForMessage(128))"
        case .shared(let object): return object.value.kindName
        case .backReference(let reference): return reference.object?.value.kindName ?? "reference to a released object"
        }
    }

    /// What a ``shared(_:)`` object (or the object of a ``backReference(_:)``, while it exists)
    /// holds; any other value itself.
    public var unshared: ArchiveValue {
        switch self {
        case .shared(let object): return object.value
        case .backReference(let reference): return reference.object?.value ?? self
        default: return self
        }
    }

    /// Whether this is `NSNull`.
    public var isNull: Bool {
        if case .null = unshared { return true }
        return false
    }

    /// A string's text (plain or `NSMutableString`); nil for any other kind.
    public var stringValue: String? {
        if case .string(let value, _) = unshared { return value }
        return nil
    }

    /// A boolean's value; nil for any other kind (an integer 0 or 1 included).
    public var boolValue: Bool? {
        if case .bool(let value) = unshared { return value }
        return nil
    }

    /// An integer as stored, its width kept; nil for any other kind.
    public var integerValue: PropertyListInteger? {
        if case .integer(let value) = unshared { return value }
        return nil
    }

    /// An integer that fits `Int64`.
    public var int64Value: Int64? { integerValue?.int64Value }
    /// A non-negative integer that fits `UInt64`.
    public var uint64Value: UInt64? { integerValue?.uint64Value }
    /// An integer that fits `Int`.
    public var intValue: Int? { integerValue?.intValue }

    /// A real's value widened to `Double` (integers are not converted: ask for them explicitly,
    /// as with `PropertyListValue.doubleValue`).
    public var doubleValue: Double? {
        if case .real(let value) = unshared { return value.doubleValue }
        return nil
    }

    /// The bytes of data (plain or `NSMutableData`).
    public var dataValue: [UInt8]? {
        if case .data(let value, _) = unshared { return value }
        return nil
    }

    /// An `NSDate`'s date.
    public var dateValue: Date? {
        if case .date(let value) = unshared { return value }
        return nil
    }

    /// An `NSUUID`'s UUID.
    public var uuidValue: UUID? {
        if case .uuid(let value) = unshared { return value }
        return nil
    }

    /// An `NSURL`'s URL, with its base.
    public var urlValue: URL? {
        if case .url(let value) = unshared { return value }
        return nil
    }

    /// An array's elements (`NSArray` or `NSMutableArray`); nil for a set or an ordered set.
    public var arrayValue: [ArchiveValue]? {
        if case .array(let value, _) = unshared { return value }
        return nil
    }

    /// A set's elements, in archive order.
    public var setValue: [ArchiveValue]? {
        if case .set(let value, _) = unshared { return value }
        return nil
    }

    /// An ordered set.
    public var orderedSetValue: ArchiveOrderedSet<ArchiveValue>? {
        if case .orderedSet(let value) = unshared { return value }
        return nil
    }

    /// A dictionary's entries, in archive order.
    public var dictionaryValue: [Entry]? {
        if case .dictionary(let value, _) = unshared { return value }
        return nil
    }

    /// A dictionary whose keys are all strings, as a Swift dictionary (`[String: ArchiveValue]`);
    /// nil for anything else. A key stored twice keeps its last value, as `NSDictionary` does.
    public var stringKeyedValue: [String: ArchiveValue]? {
        guard case .dictionary(let entries, _) = unshared else { return nil }
        var result = [String: ArchiveValue](minimumCapacity: entries.count)
        for entry in entries {
            guard case .string(let key, _) = entry.key else { return nil }
            result[key] = entry.value
        }
        return result
    }

    /// An `NSValue`'s structure.
    public var specialValue: ArchiveSpecialValue? {
        if case .special(let value) = unshared { return value }
        return nil
    }

    /// An index set.
    public var indexSetValue: ArchiveIndexSet? {
        if case .indexSet(let value) = unshared { return value }
        return nil
    }

    /// An index path.
    public var indexPathValue: IndexPath? {
        if case .indexPath(let value) = unshared { return value }
        return nil
    }

    /// An `NSAttributedString`'s text and runs.
    public var attributedStringValue: ArchiveAttributedString? {
        if case .attributedString(let value) = unshared { return value }
        return nil
    }

    /// An `NSDecimalNumber`, exactly.
    public var decimalNumberValue: ArchiveDecimalNumber? {
        if case .decimalNumber(let value) = unshared { return value }
        return nil
    }

    /// An `NSValue` of an Objective-C type encoding.
    public var encodedValue: ArchiveEncodedValue? {
        if case .encodedValue(let value) = unshared { return value }
        return nil
    }

    /// An `NSCountedSet`'s elements and counts.
    public var countedSetValue: ArchiveCountedSet? {
        if case .countedSet(let value) = unshared { return value }
        return nil
    }

    /// An `NSTimeZone`.
    public var timeZoneValue: ArchiveTimeZone? {
        if case .timeZone(let value) = unshared { return value }
        return nil
    }

    /// An `NSLocale`.
    public var localeValue: ArchiveLocale? {
        if case .locale(let value) = unshared { return value }
        return nil
    }

    /// An `NSMeasurement`.
    public var measurementValue: ArchiveMeasurement? {
        if case .measurement(let value) = unshared { return value }
        return nil
    }

    /// An `NSUnit`.
    public var unitValue: ArchiveUnit? {
        if case .unit(let value) = unshared { return value }
        return nil
    }

    /// An `NSAffineTransform`.
    public var affineTransformValue: ArchiveAffineTransform? {
        if case .affineTransform(let value) = unshared { return value }
        return nil
    }

    /// An `NSSortDescriptor`.
    public var sortDescriptorValue: ArchiveSortDescriptor? {
        if case .sortDescriptor(let value) = unshared { return value }
        return nil
    }

    /// An object of a class with no mapping, as its class chain and fields.
    public var instanceValue: ArchiveInstance? {
        if case .instance(let value) = unshared { return value }
        return nil
    }

    /// The shared object, when this is one or a back-reference to one that still exists.
    public var sharedObject: ArchiveSharedObject? {
        switch self {
        case .shared(let object): return object
        case .backReference(let reference): return reference.object
        default: return nil
        }
    }

    /// The reference to an object of a class that is not Foundation's.
    public var objectReference: ArchiveObjectReference? {
        if case .object(let value) = unshared { return value }
        return nil
    }

    /// The model object of a decoded model (``model(_:)``).
    public var modelValue: (any KeyedArchivable & AnyObject)? {
        if case .model(let value) = self { return value.object }
        return nil
    }

    /// Whether a string, data or collection is archived as its mutable class.
    public var isMutable: Bool {
        switch unshared {
        case .string(_, let mutable), .data(_, let mutable), .array(_, let mutable), .set(_, let mutable), .dictionary(_, let mutable): return mutable
        case .orderedSet(let set): return set.archivesAsMutable
        case .indexSet(let set): return set.archivesAsMutable
        default: return false
        }
    }

    /// The value of the last entry whose key is the string `key`; nil for a missing key or a
    /// value that is not a dictionary.
    public subscript(key: String) -> ArchiveValue? {
        guard case .dictionary(let entries, _) = unshared else { return nil }
        for entry in entries.reversed() {
            if case .string(let candidate, _) = entry.key, candidate.isExactlyEqual(to: key) { return entry.value }
        }
        return nil
    }

    /// The element at `index` of an array or an ordered set; nil when out of range or neither.
    public subscript(index: Int) -> ArchiveValue? {
        switch unshared {
        case .array(let elements, _): return elements.indices.contains(index) ? elements[index] : nil
        case .orderedSet(let set): return set.indices.contains(index) ? set[index] : nil
        default: return nil
        }
    }

    /// An integer value.
    public static func int(_ value: Int) -> ArchiveValue { .integer(PropertyListInteger(Int64(value))) }
    /// A 64-bit real value.
    public static func double(_ value: Double) -> ArchiveValue { .real(.float64(value)) }
    /// A 32-bit real value.
    public static func float(_ value: Float) -> ArchiveValue { .real(.float32(value)) }
}

extension ArchiveValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    /// A plain string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A plain integer.
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
    /// A plain 64-bit real.
    public init(floatLiteral value: Double) { self = .real(.float64(value)) }
    /// A plain boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An `NSArray`.
    public init(arrayLiteral elements: ArchiveValue...) { self = .array(elements) }
    /// An `NSDictionary`, entries in the literal's order.
    public init(dictionaryLiteral elements: (ArchiveValue, ArchiveValue)...) {
        self = .dictionary(elements.map { Entry(key: $0.0, value: $0.1) })
    }
}

extension ArchiveValue: CustomStringConvertible {
    /// A one-line rendering for logs: `["a", 1, {"k": <Pilot #4>}]`. Nested as deep as the value;
    /// a shared object is written out where it is first met (`shared#1(…)`) and named
    /// (`shared#1`) wherever it is met again, itself included.
    public var description: String {
        var text = ""
        // A stack of pending pieces rather than recursion: a value can be as deep as decoding allows.
        enum Piece { case value(ArchiveValue), text(String) }
        var pending: [Piece] = [.value(self)]
        var sharedNumbers: [ObjectIdentifier: Int] = [:]
        func list(_ open: String, _ items: [[Piece]], _ close: String) -> [Piece] {
            var pieces: [Piece] = [.text(open)]
            for (position, item) in items.enumerated() {
                if position > 0 { pieces.append(.text(", ")) }
                pieces.append(contentsOf: item)
            }
            pieces.append(.text(close))
            return pieces
        }
        while let piece = pending.popLast() {
            switch piece {
            case .text(let string): text += string
            case .value(let value):
                let pieces: [Piece]
                switch value {
                case .null: pieces = [.text("null")]
                case .string(let string, _): pieces = [.text("\"\(string)\"")]
                case .bool(let flag): pieces = [.text("\(flag)")]
                case .integer(let integer): pieces = [.text("\(integer)")]
                case .real(let real): pieces = [.text("\(real)")]
                case .data(let bytes, _): pieces = [.text("<\(bytes.count) bytes>")]
                case .date(let date): pieces = [.text("date(\(date.timeIntervalSinceReferenceDate))")]
                case .uuid(let uuid): pieces = [.text(uuid.uuidString)]
                case .url(let url): pieces = [.text("url(\(url.absoluteString))")]
                case .array(let elements, _): pieces = list("[", elements.map { [.value($0)] }, "]")
                case .set(let elements, _): pieces = list("set[", elements.map { [.value($0)] }, "]")
                case .orderedSet(let set): pieces = list("ordered[", set.elements.map { [.value($0)] }, "]")
                case .dictionary(let entries, _): pieces = list("{", entries.map { [.value($0.key), .text(": "), .value($0.value)] }, "}")
                case .special(let special): pieces = [.text("\(special)")]
                case .indexSet(let set): pieces = [.text("indexes\(set)")]
                case .indexPath(let path): pieces = [.text("indexPath\(Array(path))")]
                case .attributedString(let value): pieces = [.text(value.description)]
                case .decimalNumber(let value): pieces = [.text("decimal(\(value))")]
                case .encodedValue(let value): pieces = [.text("nsvalue(\(value))")]
                case .countedSet(let value): pieces = [.text(value.description)]
                case .timeZone(let value): pieces = [.text(value.description)]
                case .locale(let value): pieces = [.text(value.description)]
                case .measurement(let value): pieces = [.text("measurement(\(value))")]
                case .unit(let value): pieces = [.text(value.description)]
                case .unitConverter(let value): pieces = [.text("\(value)")]
                case .affineTransform(let value): pieces = [.text(value.description)]
                case .sortDescriptor(let value): pieces = [.text(value.description)]
                case .object(let object): pieces = [.text(object.description)]
                case .model(let model): pieces = [.text(model.description)]
                case .instance(let instance):
                    pieces = list("<\(instance.className) {", instance.fields.map { field in
                        switch field.value {
                        case .null: return [.text(field.key + ": nil")]
                        case .object(let value), .inline(let value): return [.text(field.key + ": "), .value(value)]
                        case .objects(let values): return [.text(field.key + ": "), .value(.array(values))]
                        case .conditional(let value): return [.text(field.key + ": conditional "), .value(value)]
                        }
                    }, "}>")
                case .backReference(let reference):
                    if let object = reference.object, let number = sharedNumbers[ObjectIdentifier(object)] {
                        pieces = [.text("shared#\(number)")]
                    } else {
                        pieces = [.text(reference.description)]
                    }
                case .shared(let object):
                    if let number = sharedNumbers[ObjectIdentifier(object)] {
                        pieces = [.text("shared#\(number)")]
                    } else {
                        let number = sharedNumbers.count + 1
                        sharedNumbers[ObjectIdentifier(object)] = number
                        pieces = [.text("shared#\(number)("), .value(object.value), .text(")")]
                    }
                }
                pending.append(contentsOf: pieces.reversed())
            }
        }
        return text
    }
}
