import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

enum FlightRules: String, ArchiveObjectCodable {
    case vfr, ifr
}

enum WakeCategory: Int, ArchiveObjectCodable, Comparable {
    case light = 1, medium, heavy
    static func < (lhs: WakeCategory, rhs: WakeCategory) -> Bool { lhs.rawValue < rhs.rawValue }
}

enum Gradient: Double, ArchiveObjectCodable {
    case flat = 0, steep = 12.5
}

/// A custom value type that archives as a `Double` and refuses what it cannot be: the
/// pattern of Docs/Tutorial.md for a value that is not `RawRepresentable`.
struct Temperature: ArchiveObjectCodable, Equatable {
    var celsius: Double

    func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
        guard celsius >= -273.15 else {
            throw ArchiveError(.valueOutOfRange, "\(celsius) °C is below absolute zero")
        }
        return try encoder.reference(for: celsius)
    }

    static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Temperature {
        let celsius = try decoder.decode(Double.self, reference: reference)
        guard celsius >= -273.15 else {
            throw ArchiveError(.valueOutOfRange, "\(celsius) °C is below absolute zero")
        }
        return Temperature(celsius: celsius)
    }
}

struct FlightPlan: KeyedArchivable, Equatable {
    var rules: FlightRules
    var alternate: FlightRules?
    var legs: [FlightRules]
    var wake: WakeCategory
    var categories: Set<WakeCategory>
    var byLeg: [String: FlightRules]
    var gradient: Gradient
    var outsideAir: Temperature

    init(rules: FlightRules, alternate: FlightRules?, legs: [FlightRules], wake: WakeCategory, categories: Set<WakeCategory>,
         byLeg: [String: FlightRules], gradient: Gradient, outsideAir: Temperature) {
        self.rules = rules
        self.alternate = alternate
        self.legs = legs
        self.wake = wake
        self.categories = categories
        self.byLeg = byLeg
        self.gradient = gradient
        self.outsideAir = outsideAir
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        rules = try decoder.decode(FlightRules.self, forKey: "rules")
        alternate = try decoder.decodeIfPresent(FlightRules.self, forKey: "alternate")
        legs = try decoder.decode([FlightRules].self, forKey: "legs")
        wake = try decoder.decode(WakeCategory.self, forKey: "wake")
        categories = try decoder.decode(Set<WakeCategory>.self, forKey: "categories")
        byLeg = try decoder.decode([String: FlightRules].self, forKey: "byLeg")
        gradient = try decoder.decode(Gradient.self, forKey: "gradient")
        outsideAir = try decoder.decode(Temperature.self, forKey: "outsideAir")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(rules, forKey: "rules")
        try encoder.encode(alternate, forKey: "alternate")
        try encoder.encode(legs, forKey: "legs")
        try encoder.encode(wake, forKey: "wake")
        try encoder.encode(categories, forKey: "categories")
        try encoder.encode(byLeg, forKey: "byLeg")
        try encoder.encode(gradient, forKey: "gradient")
        try encoder.encode(outsideAir, forKey: "outsideAir")
    }
}

/// What Foundation's NSKeyedArchiver writes for such a model: raw values as NSString and NSNumber objects.
final class FFlightPlan: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let rules: String
    let alternate: String?
    let legs: [String]
    let wake: Int
    let categories: Set<Int>
    let byLeg: [String: String]
    let gradient: Double
    let outsideAir: Double

    init(rules: String, alternate: String?, legs: [String], wake: Int, categories: Set<Int>, byLeg: [String: String], gradient: Double, outsideAir: Double) {
        self.rules = rules
        self.alternate = alternate
        self.legs = legs
        self.wake = wake
        self.categories = categories
        self.byLeg = byLeg
        self.gradient = gradient
        self.outsideAir = outsideAir
    }

    func encode(with coder: NSCoder) {
        coder.encode(rules as NSString, forKey: "rules")
        coder.encode(alternate.map { $0 as NSString }, forKey: "alternate")
        coder.encode(legs as NSArray, forKey: "legs")
        coder.encode(NSNumber(value: wake), forKey: "wake")
        coder.encode(NSSet(array: categories.map { NSNumber(value: $0) }), forKey: "categories")
        coder.encode(byLeg as NSDictionary, forKey: "byLeg")
        coder.encode(NSNumber(value: gradient), forKey: "gradient")
        coder.encode(NSNumber(value: outsideAir), forKey: "outsideAir")
    }

    init?(coder: NSCoder) {
        let strings: [AnyClass] = [NSArray.self, NSDictionary.self, NSString.self]
        guard let rules = coder.decodeObject(of: NSString.self, forKey: "rules") as String?,
              let legs = coder.decodeObject(of: strings, forKey: "legs") as? [String],
              let wake = coder.decodeObject(of: NSNumber.self, forKey: "wake"),
              let categories = coder.decodeObject(of: [NSSet.self, NSNumber.self], forKey: "categories") as? NSSet,
              let byLeg = coder.decodeObject(of: strings, forKey: "byLeg") as? [String: String],
              let gradient = coder.decodeObject(of: NSNumber.self, forKey: "gradient"),
              let outsideAir = coder.decodeObject(of: NSNumber.self, forKey: "outsideAir") else { return nil }
        self.rules = rules
        alternate = coder.decodeObject(of: NSString.self, forKey: "alternate") as String?
        self.legs = legs
        self.wake = wake.intValue
        self.categories = Set(categories.compactMap { ($0 as? NSNumber)?.intValue })
        self.byLeg = byLeg
        self.gradient = gradient.doubleValue
        self.outsideAir = outsideAir.doubleValue
    }
}

enum FuelType: Int, ArchiveObjectCodable {
    case avgas = 0, jetA, mogas
}

/// A model of an app's class that stores its enums as apps do: the raw value itself,
/// `coder.encode(fuel.rawValue, forKey: "fuel")` — an integer or real inline (Foundation's
/// `encodeInteger:`/`encodeDouble:`), a string object. It reads the enum types, and writes the
/// raw values as the app does.
struct FuelRecord: KeyedArchivable, Equatable {
    var fuel: FuelType
    var reserve: FuelType?
    var rules: FlightRules
    var gradient: Gradient

    init(fuel: FuelType, reserve: FuelType?, rules: FlightRules, gradient: Gradient) {
        self.fuel = fuel
        self.reserve = reserve
        self.rules = rules
        self.gradient = gradient
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        fuel = try decoder.decode(FuelType.self, forKey: "fuel")
        reserve = try decoder.decodeIfPresent(FuelType.self, forKey: "reserve")
        rules = try decoder.decode(FlightRules.self, forKey: "rules")
        gradient = try decoder.decode(Gradient.self, forKey: "gradient")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(fuel.rawValue, forKey: "fuel")
        if let reserve { try encoder.encode(reserve.rawValue, forKey: "reserve") }
        try encoder.encode(rules.rawValue, forKey: "rules")
        try encoder.encode(gradient.rawValue, forKey: "gradient")
    }
}

/// The app's class: Foundation's NSKeyedArchiver writes `fuel`, `reserve` and `gradient` inline.
final class FFuelRecord: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let fuel: Int
    let reserve: Int?
    let rules: String
    let gradient: Double

    init(fuel: Int, reserve: Int?, rules: String, gradient: Double) {
        self.fuel = fuel
        self.reserve = reserve
        self.rules = rules
        self.gradient = gradient
    }

    func encode(with coder: NSCoder) {
        coder.encode(fuel, forKey: "fuel")
        if let reserve { coder.encode(reserve, forKey: "reserve") }
        coder.encode(rules as NSString, forKey: "rules")
        coder.encode(gradient, forKey: "gradient")
    }

    init?(coder: NSCoder) {
        guard let rules = coder.decodeObject(of: NSString.self, forKey: "rules") as String? else { return nil }
        fuel = coder.decodeInteger(forKey: "fuel")
        reserve = coder.containsValue(forKey: "reserve") ? coder.decodeInteger(forKey: "reserve") : nil
        self.rules = rules
        gradient = coder.decodeDouble(forKey: "gradient")
    }
}

/// Enums and custom value types as fields and in collections, stored as their raw values, against
/// Foundation's NSKeyedArchiver/NSKeyedUnarchiver on Linux; unknown raw values and a caller's own
/// `ArchiveError`s located at their key paths.
@Suite struct RawRepresentableTests {
    static let plan = FlightPlan(rules: .ifr, alternate: nil, legs: [.vfr, .ifr, .vfr], wake: .medium, categories: [.light, .heavy],
                                 byLeg: ["EDDF-EDDM": .ifr, "EDDM-LOWI": .vfr], gradient: .steep, outsideAir: Temperature(celsius: -56.5))

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(FlightPlan.self, aliases: ["KeyedArchiveTests.FFlightPlan"])
        return registry
    }()

    static func foundationArchive(_ plan: FFlightPlan, format: PropertyListSerialization.PropertyListFormat = .binary) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(plan, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationWrittenRawValuesDecode(format: PropertyListSerialization.PropertyListFormat) throws {
        let theirs = FFlightPlan(rules: "ifr", alternate: nil, legs: ["vfr", "ifr", "vfr"], wake: 2, categories: [1, 3],
                                 byLeg: ["EDDF-EDDM": "ifr", "EDDM-LOWI": "vfr"], gradient: 12.5, outsideAir: -56.5)
        let plan = try KeyedUnarchiver.unarchive(FlightPlan.self, from: Self.foundationArchive(theirs, format: format), registry: Self.registry)
        #expect(plan == Self.plan)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func ourRawValuesDecodeWithFoundation(format: ArchiveFormat) throws {
        var registry = ArchiveRegistry()
        registry.register(FlightPlan.self, className: "KeyedArchiveTests.FFlightPlan")
        var plan = Self.plan
        plan.alternate = .vfr
        let data = try KeyedArchiver.archivedData(plan, registry: registry, format: format)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FFlightPlan.self, from: data))
        #expect(theirs.rules == "ifr" && theirs.alternate == "vfr" && theirs.legs == ["vfr", "ifr", "vfr"])
        #expect(theirs.wake == 2 && theirs.categories == [1, 3] && theirs.byLeg == ["EDDF-EDDM": "ifr", "EDDM-LOWI": "vfr"])
        #expect(theirs.gradient == 12.5 && theirs.outsideAir == -56.5)
        #expect(try KeyedUnarchiver.unarchive(FlightPlan.self, from: data, registry: registry) == plan)
    }

    static func foundationArchive(_ record: FFuelRecord, format: PropertyListSerialization.PropertyListFormat = .binary) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(record, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static let fuelRegistry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(FuelRecord.self, aliases: ["KeyedArchiveTests.FFuelRecord"])
        return registry
    }()

    /// An enum Foundation's archiver stored as its raw value inline (`encode(_: Int, forKey:)`,
    /// `encode(_: Double, forKey:)`) decodes as the enum type, as one stored as an `NSNumber`
    /// object does; a `String` raw value is an object either way.
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationInlineRawValuesDecode(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = Self.foundationArchive(FFuelRecord(fuel: 1, reserve: 2, rules: "ifr", gradient: 12.5), format: format)
        // Foundation wrote them inline: the premise of the test.
        let graph = try ArchiveGraph(data: data)
        guard let root = graph.topUID(forKey: "root"), case .instance(let instance)? = graph.object(root) else {
            Issue.record("the root is not an object")
            return
        }
        #expect(instance.value(forKey: "fuel") == .integer(1))
        #expect(instance.value(forKey: "reserve") == .integer(2))
        #expect(instance.value(forKey: "gradient") == .real(.float64(12.5)))
        let record = try KeyedUnarchiver.unarchive(FuelRecord.self, from: data, registry: Self.fuelRegistry)
        #expect(record == FuelRecord(fuel: .jetA, reserve: .mogas, rules: .ifr, gradient: .steep))
        let without = try KeyedUnarchiver.unarchive(FuelRecord.self, from: Self.foundationArchive(FFuelRecord(fuel: 0, reserve: nil, rules: "vfr", gradient: 0)),
                                                    registry: Self.fuelRegistry)
        #expect(without == FuelRecord(fuel: .avgas, reserve: nil, rules: .vfr, gradient: .flat))
    }

    /// A model that writes the raw value, as the app does, writes it inline, as Foundation's
    /// archiver does: Foundation's `decodeInteger(forKey:)` reads it, and so do we.
    @Test(arguments: [ArchiveFormat.binary, .xml])
    func inlineRawValuesAreWrittenAsFoundationWritesThem(format: ArchiveFormat) throws {
        var registry = ArchiveRegistry()
        registry.register(FuelRecord.self, className: "KeyedArchiveTests.FFuelRecord")
        let record = FuelRecord(fuel: .mogas, reserve: .jetA, rules: .ifr, gradient: .steep)
        let data = try KeyedArchiver.archivedData(record, registry: registry, format: format)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FFuelRecord.self, from: data))
        #expect(theirs.fuel == 2 && theirs.reserve == 1 && theirs.rules == "ifr" && theirs.gradient == 12.5)
        #expect(try KeyedUnarchiver.unarchive(FuelRecord.self, from: data, registry: registry) == record)
        // Field for field the form Foundation's archiver wrote for the same values.
        let ours = try ArchiveGraph(data: data)
        let foundation = try ArchiveGraph(data: Self.foundationArchive(FFuelRecord(fuel: 2, reserve: 1, rules: "ifr", gradient: 12.5)))
        for graph in [ours, foundation] {
            let uid = try #require(graph.topUID(forKey: "root"))
            guard case .instance(let instance)? = graph.object(uid) else {
                Issue.record("the root is not an object")
                continue
            }
            #expect(instance.value(forKey: "fuel") == .integer(2))
            #expect(instance.value(forKey: "reserve") == .integer(1))
            #expect(instance.value(forKey: "gradient") == .real(.float64(12.5)))
            guard case .uid(let rules)? = instance.value(forKey: "rules") else {
                Issue.record("rules is not a reference")
                continue
            }
            #expect(graph.object(rules) == .string("ifr"))
        }
    }

    /// Why the form matters (Docs/Tutorial.md): the same enum written as an `NSNumber` object
    /// (`encode(fuel, forKey:)`) is read by the app's `decodeInteger(forKey:)` as 0 — `jetA`
    /// becomes `avgas` — while our decoder reads it as the enum either way.
    @Test func foundationReadsAnObjectWhereItExpectsAnInlineIntegerAsZero() throws {
        var registry = ArchiveRegistry()
        registry.register(ObjectFormFuelRecord.self, className: "KeyedArchiveTests.FFuelRecord")
        let data = try KeyedArchiver.archivedData(ObjectFormFuelRecord(fuel: .jetA), registry: registry)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FFuelRecord.self, from: data))
        #expect(theirs.fuel == 0)
        #expect(try KeyedUnarchiver.unarchive(FuelRecord.self, from: data, registry: Self.fuelRegistry).fuel == .jetA)
    }

    /// Writes the enum itself: an `NSNumber` object.
    struct ObjectFormFuelRecord: KeyedArchivable {
        var fuel: FuelType
        init(fuel: FuelType) { self.fuel = fuel }
        init(from decoder: KeyedArchiveDecoder) throws { fuel = try decoder.decode(FuelType.self, forKey: "fuel") }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(fuel, forKey: "fuel")
            try encoder.encode("vfr", forKey: "rules")
            try encoder.encode(0.0, forKey: "gradient")
        }
    }

    /// An inline raw value that is not one of the enum's, or of the wrong kind, is a typed error
    /// at the key; a `String` enum is not read from an inline number.
    @Test func inlineRawValueFaultsAreTypedErrorsWithTheKeyPath() throws {
        let unknown = Self.foundationArchive(FFuelRecord(fuel: 7, reserve: nil, rules: "vfr", gradient: 0))
        let outOfRange = try #require(Self.failure { _ = try KeyedUnarchiver.unarchive(FuelRecord.self, from: unknown, registry: Self.fuelRegistry) })
        #expect(outOfRange.code == .valueOutOfRange)
        #expect(outOfRange.keyPath.description == "root.fuel")
        #expect(outOfRange.message.contains("7 is not a raw value of FuelType"))
        #expect(outOfRange.uid != nil)
        let reserve = Self.foundationArchive(FFuelRecord(fuel: 0, reserve: -1, rules: "vfr", gradient: 0))
        #expect(Self.failure { _ = try KeyedUnarchiver.unarchive(FuelRecord.self, from: reserve, registry: Self.fuelRegistry) }?.keyPath.description == "root.reserve")
        let steep = Self.foundationArchive(FFuelRecord(fuel: 0, reserve: nil, rules: "vfr", gradient: 3))
        let gradient = try #require(Self.failure { _ = try KeyedUnarchiver.unarchive(FuelRecord.self, from: steep, registry: Self.fuelRegistry) })
        #expect(gradient.code == .valueOutOfRange && gradient.keyPath.description == "root.gradient")

        var registry = ArchiveRegistry()
        registry.register(InlineMisread.self, className: "KeyedArchiveTests.FFuelRecord")
        let data = Self.foundationArchive(FFuelRecord(fuel: 1, reserve: nil, rules: "vfr", gradient: 12.5))
        let misread = try #require(Self.failure { _ = try KeyedUnarchiver(data: data, registry: registry).decode(InlineMisread.self) })
        #expect(misread.code == .typeMismatch)
        #expect(misread.keyPath.description == "root.fuel")
        #expect(misread.message.contains("expected a reference to an object, found an integer"))
        var realRegistry = ArchiveRegistry()
        realRegistry.register(RealAsInteger.self, className: "KeyedArchiveTests.FFuelRecord")
        let real = try #require(Self.failure { _ = try KeyedUnarchiver(data: data, registry: realRegistry).decode(RealAsInteger.self) })
        #expect(real.code == .typeMismatch)
        #expect(real.keyPath.description == "root.gradient")
    }

    /// A number type asked for through the generic `decode` (generic code that does not pick the
    /// number overloads) reads an inline number too.
    @Test func genericDecodeReadsAnInlineNumber() throws {
        var registry = ArchiveRegistry()
        registry.register(GenericFields.self, className: "KeyedArchiveTests.FFuelRecord")
        let data = Self.foundationArchive(FFuelRecord(fuel: 2, reserve: nil, rules: "vfr", gradient: 12.5))
        let fields = try KeyedUnarchiver(data: data, registry: registry).decode(GenericFields.self)
        #expect(fields.fuel == 2 && fields.reserve == nil && fields.gradient == 12.5)
    }

    struct GenericFields: KeyedArchivable {
        var fuel: Int, reserve: Int8?, gradient: Double
        static func read<T: ArchiveObjectDecodable>(_ type: T.Type, _ decoder: KeyedArchiveDecoder, _ key: String) throws -> T {
            try decoder.decode(type, forKey: key)
        }
        static func readIfPresent<T: ArchiveObjectDecodable>(_ type: T.Type, _ decoder: KeyedArchiveDecoder, _ key: String) throws -> T? {
            try decoder.decodeIfPresent(type, forKey: key)
        }
        init(from decoder: KeyedArchiveDecoder) throws {
            fuel = try Self.read(Int.self, decoder, "fuel")
            reserve = try Self.readIfPresent(Int8.self, decoder, "reserve")
            gradient = try Self.read(Double.self, decoder, "gradient")
        }
        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    /// Reads the inline integer `fuel` as a `String` enum: still a type mismatch.
    struct InlineMisread: KeyedArchivable {
        init(from decoder: KeyedArchiveDecoder) throws { _ = try decoder.decode(FlightRules.self, forKey: "fuel") }
        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    /// Reads the inline real `gradient` as an integer enum.
    struct RealAsInteger: KeyedArchivable {
        init(from decoder: KeyedArchiveDecoder) throws { _ = try decoder.decode(FuelType.self, forKey: "gradient") }
        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    static func failure(_ body: () throws -> Void) -> ArchiveError? {
        do {
            try body()
            return nil
        } catch let error as ArchiveError {
            return error
        } catch {
            return nil
        }
    }

    @Test func unknownRawValuesAreTypedErrorsWithTheKeyPath() throws {
        let cases: [(FFlightPlan, String)] = [
            (FFlightPlan(rules: "svfr", alternate: nil, legs: [], wake: 1, categories: [], byLeg: [:], gradient: 0, outsideAir: 0), "root.rules"),
            (FFlightPlan(rules: "vfr", alternate: "ifrx", legs: [], wake: 1, categories: [], byLeg: [:], gradient: 0, outsideAir: 0), "root.alternate"),
            (FFlightPlan(rules: "vfr", alternate: nil, legs: ["vfr", "yfr"], wake: 1, categories: [], byLeg: [:], gradient: 0, outsideAir: 0), "root.legs[1]"),
            (FFlightPlan(rules: "vfr", alternate: nil, legs: [], wake: 4, categories: [], byLeg: [:], gradient: 0, outsideAir: 0), "root.wake"),
            (FFlightPlan(rules: "vfr", alternate: nil, legs: [], wake: 1, categories: [], byLeg: ["A-B": "zfr"], gradient: 0, outsideAir: 0), "root.byLeg.A-B"),
            (FFlightPlan(rules: "vfr", alternate: nil, legs: [], wake: 1, categories: [], byLeg: [:], gradient: 3, outsideAir: 0), "root.gradient"),
        ]
        for (plan, path) in cases {
            let data = Self.foundationArchive(plan)
            let error = try #require(Self.failure { _ = try KeyedUnarchiver.unarchive(FlightPlan.self, from: data, registry: Self.registry) })
            #expect(error.code == .valueOutOfRange, "\(path)")
            #expect(error.keyPath.description == path)
            #expect(error.uid != nil)
        }
        // A raw value of the wrong kind is the raw type's own fault.
        let mismatch = FFlightPlan(rules: "vfr", alternate: nil, legs: [], wake: 1, categories: [], byLeg: [:], gradient: 0, outsideAir: 0)
        var registry = ArchiveRegistry()
        registry.register(WrongKind.self, className: "KeyedArchiveTests.FFlightPlan")
        let error = try #require(Self.failure { _ = try KeyedUnarchiver.unarchive(WrongKind.self, from: Self.foundationArchive(mismatch), registry: registry) })
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath.description == "root.rules")
    }

    struct WrongKind: KeyedArchivable {
        init(from decoder: KeyedArchiveDecoder) throws { _ = try decoder.decode(WakeCategory.self, forKey: "rules") }
        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    /// An `ArchiveError` a caller's conformance makes without a place is given the key path (and
    /// object) where it was thrown, as a foreign error is.
    @Test func callersArchiveErrorsKeepTheKeyPath() throws {
        let cold = FFlightPlan(rules: "vfr", alternate: nil, legs: [], wake: 1, categories: [], byLeg: [:], gradient: 0, outsideAir: -300)
        let error = try #require(Self.failure { _ = try KeyedUnarchiver.unarchive(FlightPlan.self, from: Self.foundationArchive(cold), registry: Self.registry) })
        #expect(error.code == .valueOutOfRange)
        #expect(error.keyPath.description == "root.outsideAir")
        #expect(error.message.contains("below absolute zero"))

        var plan = Self.plan
        plan.outsideAir = Temperature(celsius: -300)
        let encoding = try #require(Self.failure { _ = try KeyedArchiver.archive([plan], registry: Self.registry) })
        #expect(encoding.code == .valueOutOfRange)
        #expect(encoding.keyPath.description == "root[0].outsideAir")

        // From a model's own init(from:) and encode(to:): the object's place.
        var registry = ArchiveRegistry()
        registry.register(Refusing.self)
        let refusal = try #require(Self.failure { _ = try KeyedArchiver.archive(["a": Refusing()], registry: registry) })
        #expect(refusal.keyPath.description == "root.a")
        #expect(refusal.code == .invalidState)
        let archiver = KeyedArchiver(registry: registry)
        try archiver.encodeObjectOfClass()
        let decoding = try #require(Self.failure { _ = try KeyedUnarchiver(bytes: try archiver.finish(), registry: registry).decode([Refusing].self) })
        #expect(decoding.keyPath.description == "root[0]")
        #expect(decoding.uid != nil)
    }

    struct Refusing: KeyedArchivable {
        init() {}
        init(from decoder: KeyedArchiveDecoder) throws { throw ArchiveError(.invalidState, "refused") }
        func encode(to encoder: KeyedArchiveEncoder) throws { throw ArchiveError(.invalidState, "refused") }
    }
}

private extension KeyedArchiver {
    /// `[Refusing]` as an archive, written without calling its `encode(to:)`.
    func encodeObjectOfClass() throws {
        try encode(ArchiveArray([RawObject()]), forKey: "root")
    }

    struct RawObject: ArchiveObjectEncodable {
        func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference {
            try encoder.encodeObject(classes: ["Refusing", "NSObject"]) { _ in }
        }
    }
}
