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
