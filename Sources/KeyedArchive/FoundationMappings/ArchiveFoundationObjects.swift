#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import PropertyList

// Foundation's smaller value classes, each a Swift value that keeps what the archive says. Like
// the other mappings, a decoded value keeps the object as stored (`stored`), so that encoding it
// writes the same fields again; a value made or changed in Swift is written as a Mac writes the
// class (the keys and layout of the Apple-made archives in the corpus, cited per type).

/// An `NSCountedSet`: its distinct elements, each with how many times it was added, in archive
/// order.
///
/// Stored as `NS.count` (how many distinct elements) and, for each, `NS.object`*i* and
/// `NS.count`*i* — as macOS writes it (`corelibs-foundation/macos-10.14/NSCountedSet-*.archive`).
/// Equality compares the elements with their counts in any order.
public struct ArchiveCountedSet: Sendable, CustomStringConvertible {
    /// One distinct element and its count.
    public struct Entry: Hashable, Sendable {
        /// The element.
        public var element: ArchiveValue
        /// How many times it is in the set (at least 1).
        public var count: Int

        /// `element`, `count` times.
        public init(element: ArchiveValue, count: Int) {
            self.element = element
            self.count = count
        }
    }

    /// The distinct elements with their counts, in archive order.
    public var entries: [Entry] { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// A counted set of `entries`.
    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// `counted{3×2, 1×5}`.
    public var description: String { "counted{" + entries.map { "\($0.element)×\($0.count)" }.joined(separator: ", ") + "}" }
}

extension ArchiveCountedSet: Hashable {
    /// The same elements with the same counts, in any order.
    public static func == (lhs: ArchiveCountedSet, rhs: ArchiveCountedSet) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        var counts: [ArchiveValue: Int] = [:]
        for entry in lhs.entries { counts[entry.element, default: 0] &+= entry.count }
        for entry in rhs.entries { counts[entry.element, default: 0] &-= entry.count }
        return counts.values.allSatisfy { $0 == 0 }
    }

    /// Hashes the entries whatever their order.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for entry in entries {
            var inner = Hasher()
            inner.combine(entry)
            sum = sum &+ inner.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(sum)
    }
}

/// An `NSTimeZone`: its name and the TZif data it was archived with (`NS.name`, `NS.data`; a
/// Mac stores the data as an `NSMutableData` object, and `$null` for a fixed offset,
/// `DateIntervalFormatter-*.archive`). `timeZone` makes a Swift `TimeZone` of the name where
/// this platform knows it.
public struct ArchiveTimeZone: Hashable, Sendable, CustomStringConvertible {
    /// The identifier (`Europe/Paris`, `GMT`, `GMT+0100`).
    public var name: String { didSet { stored = nil } }
    /// The time zone's TZif rules as archived (empty for a fixed offset).
    public var data: [UInt8] { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// A time zone named `name` with the TZif `data`.
    public init(name: String, data: [UInt8] = []) {
        self.name = name
        self.data = data
    }

    /// The Swift time zone of that name; nil where this platform's Foundation does not know it.
    public var timeZone: TimeZone? { TimeZone(identifier: name) }

    /// The same name and data.
    public static func == (lhs: ArchiveTimeZone, rhs: ArchiveTimeZone) -> Bool {
        lhs.name.isExactlyEqual(to: rhs.name) && lhs.data == rhs.data
    }

    /// Hashes the name and data.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(data)
    }

    /// `timeZone(Europe/Paris)`.
    public var description: String { "timeZone(\(name))" }
}

/// An `NSLocale`: its identifier (`NS.identifier`; `""` is the root locale a Mac archives for a
/// formatter's default, `DateIntervalFormatter-Default.archive`).
public struct ArchiveLocale: Hashable, Sendable, CustomStringConvertible {
    /// The identifier (`fr_CA`, `ja_JP`, or `""`).
    public var identifier: String { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// The locale `identifier`.
    public init(identifier: String) {
        self.identifier = identifier
    }

    /// The Swift locale of the identifier.
    public var locale: Locale { Locale(identifier: identifier) }

    /// The same identifier.
    public static func == (lhs: ArchiveLocale, rhs: ArchiveLocale) -> Bool { lhs.identifier.isExactlyEqual(to: rhs.identifier) }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// `locale(fr_CA)`.
    public var description: String { "locale(\(identifier))" }
}

/// How an `NSDimension` converts to its base unit.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveUnitConverter: Hashable, Sendable {
    /// `NSUnitConverterLinear`: value × `coefficient` + `constant` (`NS.coefficient`, `NS.constant`).
    case linear(coefficient: Double, constant: Double)
    /// `NSUnitConverterReciprocal`: `reciprocal` / value (`NS.reciprocalValue`, as Apple's Foundation
    /// stores it; Foundation on Linux's `NS.reciprocal` is read too), as fuel efficiency converts.
    case reciprocal(Double)

    /// The archived class name.
    public var className: String {
        switch self {
        case .linear: return "NSUnitConverterLinear"
        case .reciprocal: return "NSUnitConverterReciprocal"
        }
    }
}

/// An `NSUnit` — or an `NSDimension` such as `NSUnitLength`, with how it converts to its
/// dimension's base unit — as `NSMeasurement` archives it: `NS.symbol`, and for a dimension
/// `NS.converter` and `NS.specifier`, a number macOS writes for its predefined units
/// (`NSMeasurement-*.archive`; Foundation on Linux leaves it out).
///
/// Swift's `Unit` and `Measurement` are Foundation types that `FoundationEssentials` does not
/// have, so this is what an archived unit decodes to on every platform; `Unit(symbol:)` and
/// `UnitLength(symbol:converter:)` make one from it where Foundation is at hand.
public struct ArchiveUnit: Hashable, Sendable, CustomStringConvertible {
    /// The archived class: `NSUnit`, `NSDimension` or one of its subclasses (`NSUnitLength`, …).
    public var className: String { didSet { stored = nil } }
    /// The symbol (`km`, `°C`).
    public var symbol: String { didSet { stored = nil } }
    /// How a dimension converts to its base unit; nil for a plain `NSUnit`.
    public var converter: ArchiveUnitConverter? { didSet { stored = nil } }
    /// macOS's number for a predefined unit (`NS.specifier`), when archived.
    public var specifier: Int? { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// The `NSDimension` subclasses Foundation archives.
    public static let dimensionClassNames = [
        "NSUnitAcceleration", "NSUnitAngle", "NSUnitArea", "NSUnitConcentrationMass", "NSUnitDispersion", "NSUnitDuration",
        "NSUnitElectricCharge", "NSUnitElectricCurrent", "NSUnitElectricPotentialDifference", "NSUnitElectricResistance",
        "NSUnitEnergy", "NSUnitFrequency", "NSUnitFuelEfficiency", "NSUnitIlluminance", "NSUnitInformationStorage",
        "NSUnitLength", "NSUnitMass", "NSUnitPower", "NSUnitPressure", "NSUnitSpeed", "NSUnitTemperature", "NSUnitVolume",
    ]

    /// A unit of the class `className` (`NSUnit`, `NSDimension` or one of ``dimensionClassNames``).
    public init(className: String = "NSUnit", symbol: String, converter: ArchiveUnitConverter? = nil, specifier: Int? = nil) {
        self.className = className
        self.symbol = symbol
        self.converter = converter
        self.specifier = specifier
    }

    /// `$classes` as Foundation writes them.
    var classes: [String] {
        if className == "NSUnit" { return ["NSUnit", "NSObject"] }
        if className == "NSDimension" { return ["NSDimension", "NSUnit", "NSObject"] }
        return [className, "NSDimension", "NSUnit", "NSObject"]
    }

    /// The same class, symbol, converter and specifier.
    public static func == (lhs: ArchiveUnit, rhs: ArchiveUnit) -> Bool {
        lhs.className.isExactlyEqual(to: rhs.className) && lhs.symbol.isExactlyEqual(to: rhs.symbol) && lhs.converter == rhs.converter && lhs.specifier == rhs.specifier
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(className)
        hasher.combine(symbol)
        hasher.combine(converter)
        hasher.combine(specifier)
    }

    /// `NSUnitLength(mi)`.
    public var description: String { "\(className)(\(symbol))" }
}

/// An `NSMeasurement`: a value in a unit (`NS.value`, a double stored inline, and `NS.unit`).
public struct ArchiveMeasurement: Hashable, Sendable, CustomStringConvertible {
    /// The amount.
    public var value: Double { didSet { stored = nil } }
    /// The unit.
    public var unit: ArchiveUnit { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// `value` in `unit`.
    public init(value: Double, unit: ArchiveUnit) {
        self.value = value
        self.unit = unit
    }

    /// The same value (by bit pattern, as reals compare in ``ArchiveValue``) and unit.
    public static func == (lhs: ArchiveMeasurement, rhs: ArchiveMeasurement) -> Bool {
        lhs.value.bitPattern == rhs.value.bitPattern && lhs.unit == rhs.unit
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value.bitPattern)
        hasher.combine(unit)
    }

    /// `45.0 mi`.
    public var description: String { "\(value) \(unit.symbol)" }
}

/// An `NSAffineTransform`: the matrix [m11 m12; m21 m22] and the translation (tX, tY), as the
/// 32-bit floats macOS archives (`NSTransformStruct`, big-endian bytes: all six for a matrix
/// with rotation or shear, `nskeyedunarchiver-rs/NSAffineTransform.plist`; four, two or none
/// for one that only scales, translates or neither, as Foundation writes it). Foundation on
/// Linux writes the six floats as an old-style array under `$0` instead; every form is read, and
/// a transform read is written back in the form it was stored in.
public struct ArchiveAffineTransform: Hashable, Sendable, CustomStringConvertible {
    /// Row 1, column 1.
    public var m11: Float { didSet { stored = nil } }
    /// Row 1, column 2.
    public var m12: Float { didSet { stored = nil } }
    /// Row 2, column 1.
    public var m21: Float { didSet { stored = nil } }
    /// Row 2, column 2.
    public var m22: Float { didSet { stored = nil } }
    /// The horizontal translation.
    public var tX: Float { didSet { stored = nil } }
    /// The vertical translation.
    public var tY: Float { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// The transform of the matrix [m11 m12; m21 m22] and the translation (tX, tY).
    public init(m11: Float = 1, m12: Float = 0, m21: Float = 0, m22: Float = 1, tX: Float = 0, tY: Float = 0) {
        self.m11 = m11
        self.m12 = m12
        self.m21 = m21
        self.m22 = m22
        self.tX = tX
        self.tY = tY
    }

    /// The six numbers in archive order.
    var components: [Float] { [m11, m12, m21, m22, tX, tY] }

    /// The same six numbers, by bit pattern.
    public static func == (lhs: ArchiveAffineTransform, rhs: ArchiveAffineTransform) -> Bool {
        lhs.components.map(\.bitPattern) == rhs.components.map(\.bitPattern)
    }

    /// Hashes the six numbers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(components.map(\.bitPattern))
    }

    /// `[m11 m12 m21 m22 tX tY]`.
    public var description: String { "affine[" + components.map { "\($0)" }.joined(separator: " ") + "]" }
}

/// An `NSSortDescriptor`: the key (path) it sorts by, the direction and the comparison selector
/// (`NSKey`, `NSAscending` inline, `NSSelector`; as Interface Builder archives one,
/// `apple-sample-code/AbstractTree_MainMenu_built-app.nib`).
///
/// Swift's `SortDescriptor` sorts by a key path of a compiled type, which an archive cannot
/// name, so this is what an archived sort descriptor decodes to.
public struct ArchiveSortDescriptor: Hashable, Sendable, CustomStringConvertible {
    /// The key path sorted by (nil: the objects themselves).
    public var key: String? { didSet { stored = nil } }
    /// Whether the order is ascending.
    public var ascending: Bool { didSet { stored = nil } }
    /// The comparison selector (`compare:`, `localizedCaseInsensitiveCompare:`); nil when not archived.
    public var selector: String? { didSet { stored = nil } }
    var stored: ArchiveInstance?

    /// A descriptor sorting by `key`, `ascending` or not, with `selector`.
    public init(key: String?, ascending: Bool = true, selector: String? = "compare:") {
        self.key = key
        self.ascending = ascending
        self.selector = selector
    }

    /// The same key, direction and selector.
    public static func == (lhs: ArchiveSortDescriptor, rhs: ArchiveSortDescriptor) -> Bool {
        lhs.ascending == rhs.ascending && lhs.key.map(ExactString.init) == rhs.key.map(ExactString.init) && lhs.selector.map(ExactString.init) == rhs.selector.map(ExactString.init)
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(ascending)
        hasher.combine(selector)
    }

    /// `sort(name ascending compare:)`.
    public var description: String { "sort(\(key ?? "self") \(ascending ? "ascending" : "descending") \(selector ?? ""))" }
}
