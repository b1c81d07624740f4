import PropertyList

/// A model just made by a registered type. A class instance is kept as `AnyObject`, so that
/// casting it to the type asked for is a class check; in an `Any` it would take the runtime's
/// general cast (some 330 instructions) each time the model is handed out. A struct model is
/// boxed, so that both cases are one reference: copying the enum is then a retain, where an
/// `Any` case made every copy and destruction a call through its type's value witnesses (about
/// 90 instructions each, and a model is copied twice per reference to it).
@usableFromInline
enum ArchiveMadeModel {
    case object(AnyObject)
    case value(ArchiveModelBox)
}

/// A struct model's value, in ``ArchiveMadeModel``.
@usableFromInline
final class ArchiveModelBox {
    @usableFromInline let value: Any

    init(_ value: Any) { self.value = value }
}

/// The class allowlist: which Swift types may be created from an archive, under which archived
/// class names, and which types count as kinds of which (a family).
///
/// Build it once, then share it: it is an immutable `Sendable` value once built.
/// ```swift
/// var registry = ArchiveRegistry()
/// registry.register(Airplane.self)
/// registry.register(PoweredAirplane.self, superclass: Airplane.self)
/// registry.register(Glider.self, superclass: Airplane.self)
/// registry.register(Pilot.self)
/// ```
///
/// Decoding asks for a type: `decode(Airplane.self, …)` admits exactly the archived class names
/// registered for `Airplane` and for the types registered as its descendants (`PoweredAirplane`,
/// `Glider`). The name is checked before any initializer runs; anything else is refused with
/// ``ArchiveError/Code/classNotAllowed``. What an archive's `$classes` chain claims about
/// ancestry is never used to admit a class. No type is ever looked up from an archive's string
/// other than through this table.
///
/// Encoding looks a value's dynamic Swift type up here (never a name): the primary class name
/// is written as `$classname` and the chain of registered superclasses, ending in `NSObject`,
/// as `$classes`.
///
/// Foundation's value classes are built in (``FoundationClass``): a Swift `[T]` is archived as
/// `NSArray` and decoded from `NSArray` or `NSMutableArray`, and so on; their accepted names can
/// be extended with ``addAlias(_:for:)``.
public struct ArchiveRegistry: Sendable {
    struct Entry: Sendable {
        let type: Any.Type
        let typeID: ObjectIdentifier
        let typeName: String
        let className: String
        let aliases: [String]
        /// Index of the registered superclass (or abstract family) entry.
        let superclass: Int?
        /// Names written after the registered chain in `$classes` (for root entries: `NSObject`).
        let extraSuperclassNames: [String]
        let make: @Sendable (KeyedArchiveDecoder) throws -> ArchiveMadeModel
        /// Every entry this one is a kind of, itself included.
        let ancestors: Set<Int>
        let isClass: Bool
    }

    /// Which plain property-list values (`$objects` entries that are a bare string, number,
    /// boolean, data or date rather than an object with a class) are admitted. A plain value is
    /// only ever admitted where the requested Swift type maps to it (a plain string for `String`,
    /// a number for an integer or `Double`, …), never where a model or a collection was asked
    /// for; this set can narrow that further. Default: ``ArchivePrimitivePolicy/all``.
    public var primitives: ArchivePrimitivePolicy = .all

    /// What to do with an archived class name that is not registered at all. Default:
    /// ``ArchiveClassFallback/refuse``.
    public var classFallback: ArchiveClassFallback = .refuse

    /// What an ``ArchiveValue`` holds for an object of a registered model class: with false (the
    /// default), a reference to it (``ArchiveValue/object(_:)``) and nothing of it is read; with
    /// true, a class model is decoded through its registered type and held as
    /// ``ArchiveValue/model(_:)`` (one object for every reference to it), so that the value can
    /// be encoded again. Struct models stay references. The models `keyedarchive schema --swift`
    /// writes set it, for fields whose objects are models in some places and values in others.
    public var decodesModelsInArchiveValues = false


    /// Whether ``ArchiveValue`` decodes an object of a class that is neither one of
    /// Foundation's mapped classes nor registered as ``ArchiveValue/instance(_:)`` — its class
    /// chain and its fields, each an ``ArchiveValue`` — instead of refusing it. Nothing is
    /// instantiated either way; objects referred to from several places, or from themselves,
    /// become ``ArchiveValue/shared(_:)``, so that sharing and cycles survive and the value
    /// encodes back to the same graph. Every budget of ``ArchiveReadingOptions`` still holds.
    ///
    /// Default false: the registry stays an allowlist, and a class nobody registered is
    /// refused where it sits. Turn it on to look at (or rewrite) an archive you have no models
    /// for; typed decoding (`decode(Pilot.self, …)`) is not affected.
    public var inspectsUnknownClasses = false

    private(set) var entries: [Entry] = []
    private var entryByType: [ObjectIdentifier: Int] = [:]
    private var familyAliases: [ObjectIdentifier: Int] = [:]
    private var entryByName: [ArchiveExactKey: Int] = [:]
    private var foundationByName: [ArchiveExactKey: FoundationClass] = [:]
    private(set) var foundationNames: [FoundationClass: [String]] = [:]

    /// A registry with the Foundation classes of ``FoundationClassSet/release0_9`` and no model
    /// types: the same as `ArchiveRegistry(foundation: .release0_9)`, now and in every later
    /// release. A Foundation mapping added later joins a newer named set, which a program admits
    /// only by naming it; it never widens what this registry admits.
    public init() {
        // A copy of one made once: its tables are shared until changed, and making them takes
        // some 60 names (every NSUnit subclass among them) hashed and compared — noticeable for
        // the many callers that write `registry: ArchiveRegistry()` at each decode.
        self = Self.release0_9
    }

    private static let release0_9 = ArchiveRegistry(foundation: .release0_9)

    /// A registry that admits the Foundation classes of a named set (under their default names),
    /// and no model types.
    public init(foundation set: FoundationClassSet) {
        self.init(foundationClasses: set.classes)
    }

    /// A registry that admits only the given Foundation classes (under their default names).
    /// Plain strings, numbers and data in `$objects` are admitted wherever the requested Swift
    /// type is `String`, a number or `Data`; the classes listed here are the object forms.
    public init(foundationClasses: Set<FoundationClass>) {
        for kind in FoundationClass.allCases where foundationClasses.contains(kind) {
            for name in kind.defaultNames { addAlias(name, for: kind) }
        }
    }

    /// Checks an archive's class names against this registry without decoding anything: every
    /// object reachable from `$top` must have a `$classname` this registry knows — a registered
    /// class's name or alias, or a name of one of its Foundation classes — and every plain value
    /// must be admitted by ``primitives``. It answers "would this registry admit every object of
    /// this archive?" before a decode, for logging, quarantine or a gateway; the typed decode
    /// still checks each object against the type asked for. Names only: ``classFallback`` is not
    /// applied, and a name is admitted wherever it sits. Linear in the archive's size.
    /// - Parameters:
    ///   - graph: the validated archive.
    ///   - maximumReported: most refusals kept in the report (all are counted).
    public func checkClassNames(of graph: ArchiveGraph, maximumReported: Int = 1000) -> ArchiveClassNameReport {
        ArchiveClassAllowlist(exactNames: Set(entryByName.keys).union(foundationByName.keys), primitives: primitives)
            .check(graph, maximumReported: maximumReported)
    }

    /// Registers a model type under an archived class name (default: the type's own name,
    /// unqualified, as Objective-C classes are archived) and optional extra names accepted when
    /// decoding (renames, module-qualified names such as `MyApp.Airplane`). A type registered as
    /// `NSObject` itself (the root the models `keyedarchive schema --swift` writes descend from)
    /// is archived with the chain `NSObject` alone, and its subclasses end their chains there.
    ///
    /// - Parameters:
    ///   - type: the model type.
    ///   - className: the archived class name written and accepted (default: the type's name).
    ///   - aliases: other archived class names accepted when decoding.
    ///   - superclass: a previously registered type this one is a kind of. For a class,
    ///     its Swift superclass — found by itself when left out: `register(Glider.self)` after
    ///     `register(Airplane.self)` puts `Glider` under `Airplane`; for a struct, the struct it
    ///     stands beside in a family (the family is then decoded through a protocol, see
    ///     ``registerFamily(_:root:)``). Decoding the superclass (or the family) then admits
    ///     this type too, and `$classes` lists the superclass's name after this type's.
    /// - Precondition: the names are not already taken, the superclass is registered, a class
    ///   registered under a class really is its subclass, a class given `superclass:` names its
    ///   nearest registered Swift superclass (not one further up, past a registered class in
    ///   between), and no registered class is a subclass of this one (superclasses first). These
    ///   are programming errors in building the registry, not properties of any input.
    public mutating func register<T: KeyedArchivable>(
        _ type: T.Type,
        className: String? = nil,
        aliases: [String] = [],
        superclass: Any.Type? = nil
    ) {
        let make: @Sendable (KeyedArchiveDecoder) throws -> ArchiveMadeModel
        if T.self is AnyClass {
            // A class instance is one reference: bit for bit the same as `AnyObject`.
            make = { decoder in .object(unsafeBitCast(try T(from: decoder), to: AnyObject.self)) }
        } else {
            make = { decoder in .value(ArchiveModelBox(try T(from: decoder))) }
        }
        register(T.self, make: make, className: className, aliases: aliases, superclass: superclass)
    }

    /// The registration of every kind of model, given how to make one.
    mutating func register<T>(_ type: T.Type, make: @escaping @Sendable (KeyedArchiveDecoder) throws -> ArchiveMadeModel,
                              className: String?, aliases: [String], superclass: Any.Type?) {
        if let superclass, superclass is AnyClass || T.self is AnyClass {
            precondition(isSubclass(T.self, of: superclass), "\(T.self) is registered under \(superclass), but is not a subclass of it")
        }
        let typeID = ObjectIdentifier(T.self)
        let typeName = String(describing: T.self)
        precondition(entryByType[typeID] == nil && familyAliases[typeID] == nil, "\(typeName) is registered twice")
        var parent: Int?
        if let superclass {
            guard let found = entryByType[ObjectIdentifier(superclass)] else {
                preconditionFailure("superclass \(superclass) of \(typeName) must be registered first")
            }
            parent = found
        }
        if let subclass = T.self as? AnyClass {
            // `$classes` is the registered chain: a class belongs under its nearest registered
            // Swift superclass, as Apple's archiver writes the real hierarchy (`B < NSObject` for
            // a `B: A` would keep `[A]` from admitting it). Left out, it is found here; named, it
            // must be that one.
            if let nearest = nearestRegisteredSuperclass(of: subclass) {
                if superclass == nil { parent = nearest }
                precondition(parent == nearest,
                             "\(typeName) is a subclass of the registered \(entries[nearest].typeName): register it with superclass: \(entries[nearest].typeName).self, or leave superclass: out")
            }
            for entry in entries where entry.isClass {
                precondition(!isSubclass(entry.type, of: subclass),
                             "\(entry.typeName) is a subclass of \(typeName) and was registered first: register \(typeName) before it, then \(entry.typeName) with superclass:")
            }
        }
        let index = entries.count
        var ancestors: Set<Int> = [index]
        if let parent { ancestors.formUnion(entries[parent].ancestors) }
        let names = [className ?? Self.defaultName(T.self)] + aliases
        for name in names {
            let key = ArchiveExactKey(name)
            precondition(entryByName[key] == nil && foundationByName[key] == nil, "class name \(name) is registered twice")
        }
        entries.append(Entry(type: T.self, typeID: typeID, typeName: typeName, className: names[0], aliases: aliases, superclass: parent,
                             // A root ends its chain in NSObject, unless it stands for NSObject itself.
                             extraSuperclassNames: parent == nil && names[0] != "NSObject" ? ["NSObject"] : [], make: make, ancestors: ancestors,
                             isClass: T.self is AnyClass))
        entryByType[typeID] = index
        for name in names { entryByName[ArchiveExactKey(name)] = index }
    }

    /// Lets a protocol (or any other type) stand for a registered type and all its registered
    /// descendants when decoding: after `registerFamily((any AirplaneRecord).self, root: AirplaneValue.self)`,
    /// `decodeObject(of: (any AirplaneRecord).self, …)` admits `AirplaneValue` and every struct
    /// registered under it. This is how struct models form polymorphic families.
    public mutating func registerFamily<T>(_ type: T.Type, root: Any.Type) {
        let typeID = ObjectIdentifier(T.self)
        precondition(entryByType[typeID] == nil && familyAliases[typeID] == nil, "\(T.self) is registered twice")
        guard let index = entryByType[ObjectIdentifier(root)] else {
            preconditionFailure("the root \(root) of the family \(T.self) must be registered first")
        }
        familyAliases[typeID] = index
    }

    /// Accepts another archived class name for a Foundation class when decoding (for example a
    /// private subclass name another archiver wrote).
    public mutating func addAlias(_ name: String, for kind: FoundationClass) {
        let key = ArchiveExactKey(name)
        precondition(entryByName[key] == nil, "class name \(name) is already registered for a model type")
        foundationByName[key] = kind
        if !(foundationNames[kind]?.contains(where: { $0.isExactlyEqual(to: name) }) ?? false) {
            foundationNames[kind, default: []].append(name)
        }
    }

    private static func defaultName<T>(_ type: T.Type) -> String {
        // `String(reflecting:)` is module-qualified; the unqualified name matches how
        // Objective-C classes (and @objc(Name) Swift classes) appear in Apple's archives.
        String(describing: type)
    }

    /// The entry of the nearest Swift superclass of `subclass` that is registered.
    private func nearestRegisteredSuperclass(of subclass: AnyClass) -> Int? {
        var ancestor: AnyClass? = _getSuperclass(subclass)
        while let current = ancestor {
            if let index = entryByType[ObjectIdentifier(current)] { return index }
            ancestor = _getSuperclass(current)
        }
        return nil
    }

    private func isSubclass(_ type: Any.Type, of superclass: Any.Type) -> Bool {
        guard let subclass = type as? AnyClass, let base = superclass as? AnyClass else { return false }
        var current: AnyClass? = subclass
        while let candidate = current {
            if candidate == base { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }

    // MARK: Lookups used by the coders

    func entry(forType type: Any.Type) -> Int? { entryByType[ObjectIdentifier(type)] }

    /// What decoding a requested type admits: the entry it names and whether its registered
    /// descendants count too. A struct type admits only itself (a struct value cannot be
    /// another struct); a class admits its registered subclasses; a family alias admits the
    /// whole family.
    func family(forRequested type: Any.Type) -> (entry: Int, includesDescendants: Bool)? {
        let typeID = ObjectIdentifier(type)
        if let alias = familyAliases[typeID] { return (alias, true) }
        guard let index = entryByType[typeID] else { return nil }
        return (index, entries[index].isClass)
    }
    func entry(named name: String) -> Int? { entryByName[ArchiveExactKey(name)] }

    /// Whether two archived class names are registered in one family: both registered (by name
    /// or alias) under the same root. Readers that decode the family's root there admit both.
    func registersInOneFamily(_ a: String, _ b: String) -> Bool {
        guard let first = entry(named: a), let second = entry(named: b) else { return false }
        return familyRoot(of: first) == familyRoot(of: second)
    }

    /// The registered root above an entry (superclass links are to earlier entries, so the
    /// walk ends).
    private func familyRoot(of index: Int) -> Int {
        var current = index
        while let parent = entries[current].superclass, parent < current { current = parent }
        return current
    }
    func foundationClass(named name: String) -> FoundationClass? { foundationByName[ArchiveExactKey(name)] }

    /// `$classes` for an entry: its name, its registered superclasses' names, then `NSObject`.
    func classChain(of index: Int) -> [String] {
        var chain: [String] = []
        var current: Int? = index
        var last = index
        while let position = current {
            chain.append(entries[position].className)
            last = position
            current = entries[position].superclass
        }
        chain.append(contentsOf: entries[last].extraSuperclassNames)
        return chain
    }

    func admits(_ index: Int, family: (entry: Int, includesDescendants: Bool)) -> Bool {
        family.includesDescendants ? entries[index].ancestors.contains(family.entry) : index == family.entry
    }

    /// The nearest name after the first in `chain` that is registered and admitted for
    /// `family`, when the fallback policy allows it.
    func fallbackEntry(chain: [String], family: (entry: Int, includesDescendants: Bool)) -> (entry: Int, name: String)? {
        guard classFallback == .nearestRegisteredAncestor else { return nil }
        for name in chain.dropFirst() {
            if let entry = entry(named: name), admits(entry, family: family) { return (entry, name) }
        }
        return nil
    }

    /// The nearest name after the first in `chain` that maps to the Foundation class `kind`,
    /// when the fallback policy allows it.
    func fallbackFoundationClass(chain: [String], kind: FoundationClass) -> String? {
        guard classFallback == .nearestRegisteredAncestor else { return nil }
        return chain.dropFirst().first { foundationClass(named: $0) == kind }
    }

    /// How to admit an unregistered class name for a requested family, for refusals. `chain` is
    /// the object's archived `$classes`, the name first.
    func remedy(admitting name: String, chain: [String], family: (entry: Int, includesDescendants: Bool), requested: String) -> String {
        let root = entries[family.entry]
        let literal = Self.swiftLiteral(name)
        if let kind = foundationClass(named: name) {
            // Registering a model under a Foundation name would be wrong advice: the object is
            // a collection or value, and the type asked for was.
            let swiftType: String
            switch kind {
            case .array: swiftType = "[\(requested)]"
            case .set: swiftType = "Set<\(requested)>"
            case .dictionary: swiftType = "[String: \(requested)]"
            case .string: swiftType = "String"
            case .data: swiftType = "Data"
            case .date: swiftType = "Date"
            case .url: swiftType = "URL"
            case .uuid: swiftType = "UUID"
            case .null: swiftType = "an optional"
            case .indexPath: swiftType = "IndexPath"
            case .indexSet: swiftType = "ArchiveIndexSet"
            case .orderedSet: swiftType = "ArchiveOrderedSet<\(requested)>"
            case .value: swiftType = "ArchiveSpecialValue"
            case .attributedString: swiftType = "ArchiveAttributedString"
            case .decimalNumber: swiftType = "Decimal"
            case .countedSet: swiftType = "ArchiveCountedSet"
            case .timeZone: swiftType = "TimeZone"
            case .locale: swiftType = "Locale"
            case .measurement: swiftType = "ArchiveMeasurement"
            case .unit: swiftType = "ArchiveUnit"
            case .unitConverter: swiftType = "ArchiveUnitConverter"
            case .affineTransform: swiftType = "ArchiveAffineTransform"
            case .sortDescriptor: swiftType = "ArchiveSortDescriptor"
            }
            return "none: the object is an \(kind.defaultNames.first ?? kind.rawValue), not a \(requested); decode it as \(swiftType)"
        }
        if let alias = aliasRemedy(admitting: name, chain: chain, family: family) { return alias }
        if family.includesDescendants {
            return "registry.register(YourType.self, className: \(literal), superclass: \(root.typeName).self) — only if that class really is a kind of \(requested)"
        }
        return "registry.register(\(root.typeName).self, aliases: [\(literal)]) — only if that class really is a \(root.typeName)"
    }

    /// How to register a type the encoder met unregistered: under its nearest registered
    /// superclass if it has one.
    func registrationAdvice(for type: Any.Type) -> String {
        var call = "registry.register(\(type).self)"
        if let subclass = type as? AnyClass, let nearest = nearestRegisteredSuperclass(of: subclass) {
            call = "registry.register(\(type).self, superclass: \(entries[nearest].typeName).self)"
        }
        // Superclasses come first: a registered subclass of the type has to be registered again after it.
        let subclasses = entries.filter { $0.isClass && isSubclass($0.type, of: type) }.map(\.typeName)
        if let first = subclasses.first {
            return "\(call), before \(subclasses.joined(separator: ", ")) (registered already: register \(first) after it, with superclass: \(type).self)"
        }
        return call
    }

    /// How to admit a Foundation class name, for refusals.
    static func remedy(admitting name: String, kind: FoundationClass) -> String {
        "registry.addAlias(\(swiftLiteral(name)), for: .\(kind.rawValue)) — only if that class really is a \(kind.defaultNames.first ?? "")"
    }

    /// A class name as a Swift string literal (escaped, and cut short when hostile-long).
    static func swiftLiteral(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars.prefix(128) {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case _ where MessageText.needsEscape(scalar):
                text += "\\u{\(String(scalar.value, radix: 16))}"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + (name.unicodeScalars.count > 128 ? "…\"" : "\"")
    }

    /// Archived names admitted for a requested type, for error messages.
    func admittedNames(family: (entry: Int, includesDescendants: Bool)) -> [String] {
        entries.indices.filter { admits($0, family: family) }.flatMap { [entries[$0].className] + entries[$0].aliases }
    }
}

/// Which kinds of plain property-list values an ``ArchiveRegistry`` admits (see
/// ``ArchiveRegistry/primitives``).
///
/// NSKeyedArchiver stores `NSString`, `NSNumber` and `NSData` values as bare property-list
/// values with no class, so a secure unarchiver cannot check a class name for them; what it can
/// check is that the Swift type asked for is one these values map to, and that the kind is one
/// the application accepts. That is the whole policy: there is no "any object" entry, and a
/// plain value never stands in for a model, a collection, a date object or a URL.
public struct ArchivePrimitivePolicy: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Plain strings, for `String` (NSString).
    public static let strings = ArchivePrimitivePolicy(rawValue: 1 << 0)
    /// Plain integers, for the integer types and `Double`/`Float` (NSNumber).
    public static let integers = ArchivePrimitivePolicy(rawValue: 1 << 1)
    /// Plain reals, for `Double`/`Float` (NSNumber).
    public static let reals = ArchivePrimitivePolicy(rawValue: 1 << 2)
    /// Plain booleans, for `Bool` (NSNumber).
    public static let booleans = ArchivePrimitivePolicy(rawValue: 1 << 3)
    /// Plain data, for `Data`/`[UInt8]` (NSData).
    public static let data = ArchivePrimitivePolicy(rawValue: 1 << 4)
    /// Plain property-list dates, for `Date` (NSKeyedArchiver writes NSDate as an object with
    /// `NS.time`; a bare date is legal but unusual).
    public static let dates = ArchivePrimitivePolicy(rawValue: 1 << 5)

    /// Every kind: the default, and what NSKeyedUnarchiver does.
    public static let all: ArchivePrimitivePolicy = [.strings, .integers, .reals, .booleans, .data, .dates]

    /// The kind's name as the command line spells it (`--primitives strings,integers`).
    public static let names: [(name: String, kind: ArchivePrimitivePolicy)] = [
        ("strings", .strings), ("integers", .integers), ("reals", .reals),
        ("booleans", .booleans), ("data", .data), ("dates", .dates),
    ]
}

/// What decoding does with an archived class name that no registration names.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveClassFallback: Hashable, Sendable {
    /// Refuse the object (``ArchiveError/Code/classNotAllowed``). The default.
    case refuse
    /// Decode the object as the nearest class in its archived `$classes` chain that is
    /// registered *and* admitted for the requested type — for archives written by a newer or
    /// renamed version of a class (`MyAppV2.Glider` whose chain continues `Glider`, `Airplane`).
    /// Opt-in, because it takes the archive's word for the ancestry: the object is still only
    /// ever created as a registered, admitted type, but fields its real class added are
    /// ignored. A class name that *is* registered is never re-interpreted through its chain.
    case nearestRegisteredAncestor
}

/// A named set of Foundation classes for a registry to admit, fixed once released: a release
/// that maps another Foundation class adds it to a new named set, never to one a program already
/// names, so that updating the package never widens an existing program's allowlist.
///
/// ```swift
/// let registry = ArchiveRegistry(foundation: .propertyListClasses)  // collections, strings, data, dates
/// ```
public struct FoundationClassSet: Hashable, Sendable {
    /// The classes admitted.
    public let classes: Set<FoundationClass>

    /// A set of one's own choosing (``ArchiveRegistry/init(foundationClasses:)`` takes one too).
    public init(_ classes: Set<FoundationClass>) {
        self.classes = classes
    }

    /// The classes of property lists, and the objects `Codable` values are archived as:
    /// `NSString`, `NSArray`, `NSDictionary`, `NSData` and `NSDate` (numbers are plain values,
    /// admitted by ``ArchiveRegistry/primitives``). Fixed.
    public static let propertyListClasses = FoundationClassSet([.string, .array, .dictionary, .data, .date])

    /// Every Foundation class release 0.9.0 maps (all 23 ``FoundationClass`` cases it has): what
    /// ``ArchiveRegistry/init()`` admits. Fixed: classes mapped in later releases are not in it.
    public static let release0_9 = FoundationClassSet([
        .string, .array, .dictionary, .set, .data, .date, .url, .uuid, .null, .indexPath, .indexSet, .orderedSet,
        .value, .attributedString, .decimalNumber, .countedSet, .timeZone, .locale, .measurement, .unit,
        .unitConverter, .affineTransform, .sortDescriptor,
    ])
}

/// Foundation classes with a built-in Swift mapping. A registry admits the ones of the
/// ``FoundationClassSet`` it was made with; a case added in a later release joins only a newer
/// set.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum FoundationClass: String, Hashable, Sendable, CaseIterable {
    /// `String` ↔ a plain string (NSString), or `NSMutableString` with `NS.string`.
    case string
    /// `[T]` ↔ `NSArray`/`NSMutableArray` with `NS.objects`.
    case array
    /// `[K: V]` ↔ `NSDictionary`/`NSMutableDictionary` with `NS.keys` and `NS.objects`.
    case dictionary
    /// `Set<T>` ↔ `NSSet`/`NSMutableSet` with `NS.objects`.
    case set
    /// `Data`/`[UInt8]` ↔ plain data (NSData), or `NSMutableData` with `NS.data`.
    case data
    /// `Date` ↔ `NSDate` with `NS.time` (seconds since 2001-01-01).
    case date
    /// `URL` ↔ `NSURL` with `NS.base` and `NS.relative`.
    case url
    /// `UUID` ↔ `NSUUID` with `NS.uuidbytes`.
    case uuid
    /// ``ArchiveNull`` ↔ `NSNull`.
    case null
    /// `IndexPath` ↔ `NSIndexPath` with `NSIndexPathLength` and `NSIndexPathValue` or `NSIndexPathData`.
    case indexPath
    /// ``ArchiveIndexSet`` ↔ `NSIndexSet`/`NSMutableIndexSet` with `NSRangeCount` and
    /// `NSLocation` + `NSLength` or `NSRangeData`.
    case indexSet
    /// ``ArchiveOrderedSet`` ↔ `NSOrderedSet`/`NSMutableOrderedSet` with `NS.object.0`, `NS.object.1`, ….
    case orderedSet
    /// ``ArchiveSpecialValue`` (and ``ArchivePoint``, ``ArchiveSize``, ``ArchiveRect``,
    /// ``ArchiveRange``, ``ArchiveEdgeInsets``) ↔ `NSValue` with `NS.special`; and
    /// ``ArchiveEncodedValue`` ↔ `NSValue` of an Objective-C type encoding (`$0` the type, `$1` …
    /// the value, an array as a `_NSKeyedCoderOldStyleArray`).
    case value
    /// ``ArchiveAttributedString`` ↔ `NSAttributedString`/`NSMutableAttributedString` with
    /// `NSString`, `NSAttributes` and `NSAttributeInfo`.
    case attributedString
    /// ``ArchiveDecimalNumber`` (and `Decimal`) ↔ `NSDecimalNumber` (Interface Builder writes
    /// `NSDecimalNumberPlaceholder`) with `NS.mantissa`, `NS.exponent`, `NS.length`,
    /// `NS.negative`, `NS.compact` and `NS.mantissa.bo`.
    case decimalNumber
    /// ``ArchiveCountedSet`` ↔ `NSCountedSet` with `NS.count`, `NS.object0`, `NS.count0`, ….
    case countedSet
    /// ``ArchiveTimeZone`` (and `TimeZone`) ↔ `NSTimeZone` with `NS.name` and `NS.data`.
    case timeZone
    /// ``ArchiveLocale`` (and `Locale`) ↔ `NSLocale` with `NS.identifier`.
    case locale
    /// ``ArchiveMeasurement`` ↔ `NSMeasurement` with `NS.value` and `NS.unit`.
    case measurement
    /// ``ArchiveUnit`` ↔ `NSUnit`, `NSDimension` and its subclasses (`NSUnitLength`, …) with
    /// `NS.symbol`, and for a dimension `NS.converter` and `NS.specifier`.
    case unit
    /// ``ArchiveUnitConverter`` ↔ `NSUnitConverterLinear` (`NS.coefficient`, `NS.constant`) or
    /// `NSUnitConverterReciprocal` (`NS.reciprocalValue`; Foundation on Linux's `NS.reciprocal` is read too).
    case unitConverter
    /// ``ArchiveAffineTransform`` ↔ `NSAffineTransform` with `NSTransformStruct`.
    case affineTransform
    /// ``ArchiveSortDescriptor`` ↔ `NSSortDescriptor` with `NSKey`, `NSAscending` and `NSSelector`.
    case sortDescriptor

    /// The names accepted by default when decoding.
    public var defaultNames: [String] {
        switch self {
        case .string: return ["NSString", "NSMutableString"]
        case .array: return ["NSArray", "NSMutableArray"]
        case .dictionary: return ["NSDictionary", "NSMutableDictionary"]
        case .set: return ["NSSet", "NSMutableSet"]
        case .data: return ["NSData", "NSMutableData"]
        case .date: return ["NSDate"]
        case .url: return ["NSURL"]
        case .uuid: return ["NSUUID"]
        case .null: return ["NSNull"]
        case .indexPath: return ["NSIndexPath"]
        case .indexSet: return ["NSIndexSet", "NSMutableIndexSet"]
        case .orderedSet: return ["NSOrderedSet", "NSMutableOrderedSet"]
        case .value: return ["NSValue"]
        case .attributedString: return ["NSAttributedString", "NSMutableAttributedString"]
        case .decimalNumber: return ["NSDecimalNumber", "NSDecimalNumberPlaceholder"]
        case .countedSet: return ["NSCountedSet"]
        case .timeZone: return ["NSTimeZone"]
        case .locale: return ["NSLocale"]
        case .measurement: return ["NSMeasurement"]
        case .unit: return ["NSUnit", "NSDimension"] + ArchiveUnit.dimensionClassNames
        case .unitConverter: return ["NSUnitConverterLinear", "NSUnitConverterReciprocal"]
        case .affineTransform: return ["NSAffineTransform"]
        case .sortDescriptor: return ["NSSortDescriptor"]
        }
    }

    /// `$classes` written when encoding. Stored, so that every object of a class is handed
    /// the same array: the encoder finds its class by the array's storage before comparing names.
    var archivedChain: [String] {
        switch self {
        case .string: return Self.stringChain
        case .array: return Self.arrayChain
        case .dictionary: return Self.dictionaryChain
        case .set: return Self.setChain
        case .data: return Self.dataChain
        case .date: return Self.dateChain
        case .url: return Self.urlChain
        case .uuid: return Self.uuidChain
        case .null: return Self.nullChain
        case .indexPath: return Self.indexPathChain
        case .indexSet: return Self.indexSetChain
        case .orderedSet: return Self.orderedSetChain
        case .value: return Self.valueChain
        case .attributedString: return Self.attributedStringChain
        case .decimalNumber: return Self.decimalNumberChain
        case .countedSet: return Self.countedSetChain
        case .timeZone: return Self.timeZoneChain
        case .locale: return Self.localeChain
        case .measurement: return Self.measurementChain
        case .unit: return Self.unitChain
        case .unitConverter: return Self.unitConverterChain
        case .affineTransform: return Self.affineTransformChain
        case .sortDescriptor: return Self.sortDescriptorChain
        }
    }

    private static let stringChain = ["NSMutableString", "NSString", "NSObject"]
    private static let arrayChain = ["NSArray", "NSObject"]
    private static let dictionaryChain = ["NSDictionary", "NSObject"]
    private static let setChain = ["NSSet", "NSObject"]
    private static let dataChain = ["NSMutableData", "NSData", "NSObject"]
    private static let dateChain = ["NSDate", "NSObject"]
    private static let urlChain = ["NSURL", "NSObject"]
    private static let uuidChain = ["NSUUID", "NSObject"]
    private static let nullChain = ["NSNull", "NSObject"]
    private static let indexPathChain = ["NSIndexPath", "NSObject"]
    private static let indexSetChain = ["NSIndexSet", "NSObject"]
    private static let orderedSetChain = ["NSOrderedSet", "NSObject"]
    private static let valueChain = ["NSValue", "NSObject"]
    private static let attributedStringChain = ["NSAttributedString", "NSObject"]
    private static let decimalNumberChain = ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]
    private static let countedSetChain = ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]
    private static let timeZoneChain = ["NSTimeZone", "NSObject"]
    private static let localeChain = ["NSLocale", "NSObject"]
    private static let measurementChain = ["NSMeasurement", "NSObject"]
    private static let unitChain = ["NSUnit", "NSObject"]
    private static let unitConverterChain = ["NSUnitConverterLinear", "NSUnitConverter", "NSObject"]
    private static let affineTransformChain = ["NSAffineTransform", "NSObject"]
    private static let sortDescriptorChain = ["NSSortDescriptor", "NSObject"]
}

/// A string key compared by exact Unicode scalars (as Core Foundation compares keys), never by
/// Swift's canonical equivalence, so that two keys a file keeps apart are never merged.
struct ArchiveExactKey: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: ArchiveExactKey, rhs: ArchiveExactKey) -> Bool {
        lhs.string.isExactlyEqual(to: rhs.string)
    }

    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
