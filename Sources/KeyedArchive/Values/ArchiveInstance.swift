import PropertyList

/// An object as the archive stores it: its class chain and its fields, each field's value an
/// ``ArchiveValue``. What ``ArchiveValue/instance(_:)`` holds for an object of a class that has
/// no mapping when ``ArchiveRegistry/inspectsUnknownClasses`` is on, so that an archive nobody
/// wrote models for can be read, changed and written back.
///
/// ```swift
/// if case .instance(let cell)? = window["NSContentView"]?.unshared, cell.className == "NSButtonCell" {
///     print(cell["NSContents"]?.value?.stringValue ?? "", cell.fields.map(\.key))
/// }
/// ```
///
/// Keys are the stored keys, exactly as the file spells them (an unkeyed value is `$0`, a user
/// key that begins with `$` is stored with one more `$`). Decoded fields come in the order the
/// archiver wrote them, as far as the file tells (a file stores keys in hash or sorted order):
/// those referring to objects by the number of the object they refer to — the order in which a
/// keyed archiver numbers new objects — then the inline ones, in file order. Encoding writes the
/// fields in order, so a decoded object's objects are numbered as in its file. A field's value says how it was stored: a reference to `$null`, a reference to an
/// object or a plain value of `$objects`, or a value stored in the object itself (what
/// `encodeInt:forKey:`, `encodeDouble:forKey:`, `encodeBool:forKey:` and
/// `encodeBytes:length:forKey:` write).
///
/// Built by hand, it writes an object of any class: each field says how it is stored (a
/// reference, an array of references, a value in the object, `$null`, or a conditional
/// reference), an object several fields refer to is an ``ArchiveSharedObject``, and one that
/// refers back to itself is made with ``ArchiveSharedObject/init(building:)``.
///
/// Equality compares the class dictionary (`$classname`, `$classes`, `$classhints`) and the
/// fields in order, each field by its kind of storage and its value.
public struct ArchiveInstance: Hashable, Sendable, CustomStringConvertible {
    /// The archived `$classname`.
    public var className: String
    /// The archived `$classes`, the class name first (empty when the archive has none).
    public var classes: [String]
    /// Whether the class dictionary stores `$classes` (true unless decoded from one that does
    /// not, as Xcode's SpriteKit scene editor writes for an app's own classes). When false, the
    /// object is written with a class dictionary of `$classname` alone and ``classes`` is not
    /// written.
    public var storesClasses: Bool = true
    /// The archived `$classhints` (the class names `classFallbacksForKeyedArchiver` gave the
    /// archiver), written back when present.
    public var classHints: [String]?
    /// The fields, in the order they are written (`$class` left out).
    public var fields: [Field]

    /// One stored field.
    public struct Field: Hashable, Sendable {
        /// The key as stored.
        public var key: String
        /// What is stored under it.
        public var value: FieldValue

        /// A field of `value` under the stored key `key`.
        public init(key: String, value: FieldValue) {
            self.key = key
            self.value = value
        }
    }

    /// How a field is stored: the ways a keyed archiver's coder stores a value under a key.
    public enum FieldValue: Hashable, Sendable {
        /// A reference to `$null`: nil.
        case null
        /// A reference to an object, or to a plain string, number or data of `$objects`.
        case object(ArchiveValue)
        /// An array of references stored in the object itself, as `NS.objects` is stored in the
        /// collections Foundation writes: each element a reference to an object or to a plain
        /// string, number or data of `$objects` (decoded from an inline array whose every
        /// element is a reference, none of them to `$null`).
        case objects([ArchiveValue])
        /// A value stored in the object itself: a number, boolean, string, data or date; or an
        /// array, set or dictionary (string keys) stored inline, whose references are decoded
        /// as the values they refer to (an element that is a collection, an object or a date is
        /// written back as a reference — a date as the `NSDate` object a keyed archiver stores —
        /// one that is a number, string or data inline).
        case inline(ArchiveValue)
        /// Apple's conditional reference (`encodeConditionalObject:forKey:`): written as a
        /// reference to the object when the archive holds it anyway, because something else
        /// encodes it, and as `$null` otherwise. The value is an object with an identity: a
        /// ``ArchiveValue/shared(_:)`` or ``ArchiveValue/backReference(_:)`` object, or a
        /// ``ArchiveValue/model(_:)``. Decoding never makes this (in the file it is a reference
        /// or `$null`); encoding any other value is an ``ArchiveError/Code/typeMismatch``.
        case conditional(ArchiveValue)

        /// The value, however it is stored; nil for `$null`. For ``objects(_:)``, the elements
        /// as an ``ArchiveValue/array(_:mutable:)``.
        public var value: ArchiveValue? {
            switch self {
            case .null: return nil
            case .object(let value), .inline(let value), .conditional(let value): return value
            case .objects(let values): return .array(values)
            }
        }
    }

    /// An object of the class `className` with the `$classes` chain `classes` (class name first)
    /// and `fields`.
    public init(className: String, classes: [String], fields: [Field] = []) {
        self.className = className
        self.classes = classes
        self.fields = fields
    }

    /// An object of the `$classes` chain `classes` (class name first) and `fields`.
    /// - Precondition: `classes` is not empty.
    public init(classes: [String], fields: [Field] = []) {
        precondition(!classes.isEmpty, "an object needs a class name")
        self.init(className: classes[0], classes: classes, fields: fields)
    }

    /// The last field stored under `storedKey` (keys as the file spells them); nil when absent.
    public subscript(storedKey storedKey: String) -> FieldValue? {
        for field in fields.reversed() where field.key.isExactlyEqual(to: storedKey) { return field.value }
        return nil
    }

    /// The field a model reads under `key` (escaped as `NSKeyedArchiver` escapes a key that
    /// begins with `$`); nil when absent.
    public subscript(key: String) -> FieldValue? {
        self[storedKey: ArchiveKeys.escape(key)]
    }

    /// Whether two `$classhints` are the same names (or both absent).
    static func sameHints(_ a: [String]?, _ b: [String]?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return a.isExactlyEqual(to: b)
        default: return false
        }
    }

    /// `<NSButtonCell: NSContents, NSCellFlags, …>`.
    public var description: String {
        "<\(className.excerptForMessage(128)): \(fields.map { $0.key.excerptForMessage(64) }.joined(separator: ", "))>"
    }
}

/// One object of an archive that several places refer to (or that refers to itself), decoded
/// once: every place that refers to it holds this same instance in ``ArchiveValue/shared(_:)``,
/// and encoding writes it once, so that sharing and cycles survive a round trip.
///
/// Decoding makes these only under ``ArchiveRegistry/inspectsUnknownClasses``; a caller may
/// make them to have one value stored once and referred to from several places. Two shared
/// objects are equal only when they are the same instance: comparing what they hold could
/// follow a cycle forever, and comparing two graphs is what ``ArchiveDiff`` is for.
///
/// A reference that closes one of the archive's cycles — to an object that contains the value
/// holding the reference — is an ``ArchiveValue/backReference(_:)`` instead, which holds the
/// object weakly, as Cocoa holds a view's superview: the objects of a decoded value never keep
/// each other alive, so releasing the value frees them all.
public final class ArchiveSharedObject: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Written only while the decode that made the object runs, before anything else can see
    // the object (it may refer to itself, so it exists before its value), and by `deinit`;
    // read-only in between.
    private var storage: ArchiveValue
    /// Whether the value has been filled in (false while the decoder is still reading it).
    private(set) var isComplete: Bool

    /// The value every reference to the object stands for (never itself a shared object).
    public var value: ArchiveValue { storage }

    /// An object standing for `value`, written once however often it is referred to.
    public init(_ value: ArchiveValue) {
        storage = value.unshared
        isComplete = true
    }

    /// An object whose value refers back to the object itself, directly or through the objects
    /// it holds: `build` is given a back-reference to the object and returns its value. How a
    /// graph with cycles is made (an array that contains itself, a view whose subviews name it
    /// as their superview):
    ///
    /// ```swift
    /// let view = ArchiveSharedObject { view in
    ///     let subview = ArchiveValue.instance(ArchiveInstance(classes: ["NSView", "NSResponder", "NSObject"],
    ///                                                         fields: [.init(key: "NSSuperview", value: .object(.backReference(view)))]))
    ///     return .instance(ArchiveInstance(classes: ["NSView", "NSResponder", "NSObject"],
    ///                                      fields: [.init(key: "NSSubviews", value: .object(.array([subview], mutable: true)))]))
    /// }
    /// ```
    ///
    /// The back-reference holds the object weakly, as decoding makes them, so the value never
    /// keeps itself alive. Until `build` returns, the object's ``value`` is ``ArchiveValue/null``:
    /// hand the back-reference to nothing that reads it before then, on this thread or another.
    public convenience init(building build: (ArchiveBackReference) throws -> ArchiveValue) rethrows {
        self.init()
        fill(try build(ArchiveBackReference(self)))
    }

    /// An object whose value is filled in by `fill(_:)` once it is decoded.
    init() {
        storage = .null
        isComplete = false
    }

    /// Sets the value of an object made by the decoder before its value was known.
    func fill(_ value: ArchiveValue) {
        storage = value.unshared
        isComplete = true
    }

    /// Releases what the object holds without recursion: the value is taken apart level by
    /// level, each level's children held while it goes, so that no release nests; and a shared
    /// object it held last is emptied the same way rather than released from inside this one
    /// (a chain of shared objects, each holding the next, can be as long as the archive has
    /// objects, and each of them as deep as decoding allows).
    deinit {
        var pending: [ArchiveValue] = []
        storage.appendChildren(to: &pending)
        storage = .null
        while var value = pending.popLast() {
            guard case .shared(var object) = value else {
                value.appendChildren(to: &pending)
                continue
            }
            // `object` the only reference here, so that uniqueness says whether this was the last.
            value = .null
            if isKnownUniquelyReferenced(&object) {
                object.storage.appendChildren(to: &pending)
                object.storage = .null
            }
        }
    }

    /// The same instance.
    public static func == (lhs: ArchiveSharedObject, rhs: ArchiveSharedObject) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// `shared(<kind>)`: what it holds, shallowly (its value may contain the object itself).
    public var description: String { "shared(\(storage.kindName))" }
}

/// A reference back to a shared object that contains the value holding the reference: where
/// one of the archive's cycles closes (an array that contains itself, a view's superview). It
/// holds the object weakly, so that a decoded value never keeps itself alive; the object is
/// there for as long as anything else holds it — the value it was decoded with, typically.
public final class ArchiveBackReference: @unchecked Sendable, Hashable, CustomStringConvertible {
    // Set once, in `init`; a weak reference is safe to read from any thread.
    private weak var target: ArchiveSharedObject?
    private let identity: ObjectIdentifier

    /// A weak reference to `object`.
    public init(_ object: ArchiveSharedObject) {
        target = object
        identity = ObjectIdentifier(object)
    }

    /// The object, or nil once nothing else holds it.
    public var object: ArchiveSharedObject? { target }

    /// References to the same object.
    public static func == (lhs: ArchiveBackReference, rhs: ArchiveBackReference) -> Bool { lhs.identity == rhs.identity }

    /// Hashes the identity of the object referred to.
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// `backReference(<kind>)`, or `backReference(released)`.
    public var description: String { "backReference(\(target?.value.kindName ?? "released"))" }
}

extension ArchiveValue {
    /// Appends the values this one holds directly (a collection's elements, an object's
    /// fields, what a Foundation value holds), without looking into shared objects.
    func appendChildren(to pending: inout [ArchiveValue]) {
        switch self {
        case .array(let elements, _), .set(let elements, _): pending.append(contentsOf: elements)
        case .orderedSet(let set): pending.append(contentsOf: set.elements)
        case .dictionary(let entries, _):
            for entry in entries {
                pending.append(entry.key)
                pending.append(entry.value)
            }
        case .instance(let instance):
            for field in instance.fields {
                switch field.value {
                case .null: break
                case .object(let value), .inline(let value), .conditional(let value): pending.append(value)
                case .objects(let values): pending.append(contentsOf: values)
                }
            }
        case .attributedString(let string):
            for run in string.runs { pending.append(contentsOf: run.attributes.values) }
            if let stored = string.stored { pending.append(.instance(stored)) }
        case .countedSet(let set):
            pending.append(contentsOf: set.entries.lazy.map(\.element))
            if let stored = set.stored { pending.append(.instance(stored)) }
        case .measurement(let measurement):
            pending.append(.unit(measurement.unit))
            if let stored = measurement.stored { pending.append(.instance(stored)) }
        case .unit(let unit):
            if let stored = unit.stored { pending.append(.instance(stored)) }
        case .decimalNumber(let number):
            if let stored = number.stored { pending.append(.instance(stored)) }
        case .encodedValue(let value):
            if let stored = value.stored { pending.append(.instance(stored)) }
        case .timeZone(let zone):
            if let stored = zone.stored { pending.append(.instance(stored)) }
        case .locale(let locale):
            if let stored = locale.stored { pending.append(.instance(stored)) }
        case .affineTransform(let transform):
            if let stored = transform.stored { pending.append(.instance(stored)) }
        case .sortDescriptor(let descriptor):
            if let stored = descriptor.stored { pending.append(.instance(stored)) }
        case .null, .string, .bool, .integer, .real, .data, .date, .uuid, .url, .special, .indexSet, .indexPath, .unitConverter, .object, .model, .shared, .backReference:
            break
        }
    }
}
