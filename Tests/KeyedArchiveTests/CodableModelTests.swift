import Foundation
import Testing
@testable import KeyedArchive

// Codable models archived as objects, with no archiving code: a class family, a struct model
// inside, shared instances, optionals, dates, an enum.

class CodableAirplane: Codable, ArchiveCodableModel {
    var model: String
    var airframeHours: Int
    var inspected: Date
    var rules: CodableRules?

    init(model: String, airframeHours: Int, inspected: Date, rules: CodableRules?) {
        self.model = model
        self.airframeHours = airframeHours
        self.inspected = inspected
        self.rules = rules
    }
}

enum CodableRules: String, Codable {
    case vfr, ifr
}

final class CodableGlider: CodableAirplane {
    var winchLaunches: Int64

    init(model: String, airframeHours: Int, inspected: Date, winchLaunches: Int64) {
        self.winchLaunches = winchLaunches
        super.init(model: model, airframeHours: airframeHours, inspected: inspected, rules: .vfr)
    }

    private enum CodingKeys: String, CodingKey { case winchLaunches }

    required init(from decoder: any Decoder) throws {
        winchLaunches = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .winchLaunches)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(winchLaunches, forKey: .winchLaunches)
    }
}

struct CodableLicense: Codable, ArchiveCodableModel, Equatable {
    var number: String
    var ratings: [String]
}

final class CodablePilot: Codable, ArchiveCodableModel {
    var name: String
    var license: CodableLicense
    var airplanes: [CodableAirplane]
    var favourite: CodableAirplane?
    var medicalExpiry: Date?

    init(name: String, license: CodableLicense, airplanes: [CodableAirplane], favourite: CodableAirplane?, medicalExpiry: Date?) {
        self.name = name
        self.license = license
        self.airplanes = airplanes
        self.favourite = favourite
        self.medicalExpiry = medicalExpiry
    }
}

// Foundation's NSObject classes reading and writing the same keys.

class FCodableAirplane: NSObject, NSSecureCoding {
    class var supportsSecureCoding: Bool { true }
    let model: String
    let airframeHours: Int
    let inspected: Date
    let rules: String?

    init(model: String, airframeHours: Int, inspected: Date, rules: String?) {
        self.model = model
        self.airframeHours = airframeHours
        self.inspected = inspected
        self.rules = rules
    }

    func encode(with coder: NSCoder) {
        coder.encode(model as NSString, forKey: "model")
        coder.encode(airframeHours, forKey: "airframeHours")
        coder.encode(inspected as NSDate, forKey: "inspected")
        if let rules { coder.encode(rules as NSString, forKey: "rules") }
    }

    required init?(coder: NSCoder) {
        guard let model = coder.decodeObject(of: NSString.self, forKey: "model") as String?,
              let inspected = coder.decodeObject(of: NSDate.self, forKey: "inspected") as Date? else { return nil }
        self.model = model
        airframeHours = coder.decodeInteger(forKey: "airframeHours")
        self.inspected = inspected
        rules = coder.decodeObject(of: NSString.self, forKey: "rules") as String?
    }
}

final class FCodableGlider: FCodableAirplane {
    override class var supportsSecureCoding: Bool { true }
    let winchLaunches: Int64

    init(model: String, airframeHours: Int, inspected: Date, winchLaunches: Int64) {
        self.winchLaunches = winchLaunches
        super.init(model: model, airframeHours: airframeHours, inspected: inspected, rules: "vfr")
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(winchLaunches, forKey: "winchLaunches")
    }

    required init?(coder: NSCoder) {
        winchLaunches = coder.decodeInt64(forKey: "winchLaunches")
        super.init(coder: coder)
    }
}

final class FCodableLicense: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let number: String
    let ratings: [String]

    init(number: String, ratings: [String]) {
        self.number = number
        self.ratings = ratings
    }

    func encode(with coder: NSCoder) {
        coder.encode(number as NSString, forKey: "number")
        coder.encode(ratings as NSArray, forKey: "ratings")
    }

    init?(coder: NSCoder) {
        guard let number = coder.decodeObject(of: NSString.self, forKey: "number") as String?,
              let ratings = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "ratings") as? [String] else { return nil }
        self.number = number
        self.ratings = ratings
    }
}

final class FCodablePilot: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    static let classes: [AnyClass] = [FCodablePilot.self, FCodableLicense.self, FCodableAirplane.self, FCodableGlider.self,
                                      NSArray.self, NSString.self, NSDate.self, NSNumber.self]
    let name: String
    let license: FCodableLicense
    let airplanes: [FCodableAirplane]
    let favourite: FCodableAirplane?
    let medicalExpiry: Date?

    init(name: String, license: FCodableLicense, airplanes: [FCodableAirplane], favourite: FCodableAirplane?, medicalExpiry: Date?) {
        self.name = name
        self.license = license
        self.airplanes = airplanes
        self.favourite = favourite
        self.medicalExpiry = medicalExpiry
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(license, forKey: "license")
        coder.encode(airplanes as NSArray, forKey: "airplanes")
        if let favourite { coder.encode(favourite, forKey: "favourite") }
        if let medicalExpiry { coder.encode(medicalExpiry as NSDate, forKey: "medicalExpiry") }
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String?,
              let license = coder.decodeObject(of: FCodableLicense.self, forKey: "license"),
              let airplanes = coder.decodeObject(of: Self.classes, forKey: "airplanes") as? [FCodableAirplane] else { return nil }
        self.name = name
        self.license = license
        self.airplanes = airplanes
        favourite = coder.decodeObject(of: Self.classes, forKey: "favourite") as? FCodableAirplane
        medicalExpiry = coder.decodeObject(of: NSDate.self, forKey: "medicalExpiry") as Date?
    }
}

/// Codable models as archived objects, both ways with Foundation's NSKeyedArchiver and
/// NSKeyedUnarchiver on Linux (acyclic graphs: Foundation on Linux cannot decode cycles).
@Suite struct CodableModelTests {
    static let inspected = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Our Codable models under the names Foundation on Linux gives the NSObject classes.
    static func registry(writingAsFoundation: Bool) -> ArchiveRegistry {
        var registry = ArchiveRegistry()
        func names(_ type: String) -> (className: String?, aliases: [String]) {
            writingAsFoundation ? ("KeyedArchiveTests.F\(type)", []) : (nil, ["KeyedArchiveTests.F\(type)"])
        }
        registry.register(CodableAirplane.self, className: names("CodableAirplane").className, aliases: names("CodableAirplane").aliases)
        registry.register(CodableGlider.self, className: names("CodableGlider").className, aliases: names("CodableGlider").aliases)
        registry.register(CodableLicense.self, className: names("CodableLicense").className, aliases: names("CodableLicense").aliases)
        registry.register(CodablePilot.self, className: names("CodablePilot").className, aliases: names("CodablePilot").aliases)
        return registry
    }

    static func makePilots() -> [CodablePilot] {
        let cub = CodableAirplane(model: "Piper J-3 Cub", airframeHours: 12_400, inspected: inspected, rules: nil)
        let ask = CodableGlider(model: "ASK 21", airframeHours: 6_100, inspected: inspected, winchLaunches: .max)
        return [CodablePilot(name: "Amelia", license: CodableLicense(number: "D-123", ratings: ["SEP", "TMG"]), airplanes: [cub, ask],
                             favourite: ask, medicalExpiry: inspected.addingTimeInterval(86_400)),
                CodablePilot(name: "Bessie", license: CodableLicense(number: "G-9", ratings: []), airplanes: [ask], favourite: nil, medicalExpiry: nil)]
    }

    static func makeFoundationPilots() -> [FCodablePilot] {
        let cub = FCodableAirplane(model: "Piper J-3 Cub", airframeHours: 12_400, inspected: inspected, rules: nil)
        let ask = FCodableGlider(model: "ASK 21", airframeHours: 6_100, inspected: inspected, winchLaunches: .max)
        return [FCodablePilot(name: "Amelia", license: FCodableLicense(number: "D-123", ratings: ["SEP", "TMG"]), airplanes: [cub, ask],
                              favourite: ask, medicalExpiry: inspected.addingTimeInterval(86_400)),
                FCodablePilot(name: "Bessie", license: FCodableLicense(number: "G-9", ratings: []), airplanes: [ask], favourite: nil, medicalExpiry: nil)]
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func foundationDecodesOurCodableModels(format: ArchiveFormat) throws {
        let data = try KeyedArchiver.archivedData(Self.makePilots(), registry: Self.registry(writingAsFoundation: true), format: format)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: FCodablePilot.classes, from: data) as? [FCodablePilot])
        #expect(theirs.map(\.name) == ["Amelia", "Bessie"])
        #expect(theirs[0].license.number == "D-123" && theirs[0].license.ratings == ["SEP", "TMG"])
        #expect(theirs[0].medicalExpiry == Self.inspected.addingTimeInterval(86_400) && theirs[1].medicalExpiry == nil)
        let cub = try #require(theirs[0].airplanes.first)
        #expect(type(of: cub) == FCodableAirplane.self && cub.model == "Piper J-3 Cub" && cub.airframeHours == 12_400 && cub.rules == nil)
        let glider = try #require(theirs[0].airplanes.last as? FCodableGlider)
        #expect(glider.winchLaunches == .max && glider.rules == "vfr" && glider.inspected == Self.inspected)
        // One shared instance, stored once.
        #expect(theirs[0].favourite === glider && theirs[1].airplanes.first === glider)
        #expect(theirs[1].favourite == nil)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func weDecodeFoundationsObjectsAsCodableModels(format: PropertyListSerialization.PropertyListFormat) throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(Self.makeFoundationPilots() as NSArray, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let pilots = try KeyedUnarchiver.unarchive([CodablePilot].self, from: archiver.encodedData, registry: Self.registry(writingAsFoundation: false))
        #expect(pilots.map(\.name) == ["Amelia", "Bessie"])
        #expect(pilots[0].license == CodableLicense(number: "D-123", ratings: ["SEP", "TMG"]))
        #expect(pilots[0].medicalExpiry == Self.inspected.addingTimeInterval(86_400) && pilots[1].medicalExpiry == nil)
        let glider = try #require(pilots[0].airplanes.last as? CodableGlider)
        #expect(glider.winchLaunches == .max && glider.rules == .vfr && glider.model == "ASK 21")
        #expect(pilots[0].favourite === glider && pilots[1].airplanes.first === glider)
        #expect(type(of: pilots[0].airplanes[0]) == CodableAirplane.self && pilots[0].airplanes[0].rules == nil)
    }

    @Test func roundTripAndTheSameBytesAsHandWritten() throws {
        let registry = Self.registry(writingAsFoundation: false)
        let bytes = try KeyedArchiver.archive(Self.makePilots(), registry: registry)
        let pilots = try KeyedUnarchiver.unarchive([CodablePilot].self, from: bytes, registry: registry)
        #expect(try KeyedArchiver.archive(pilots, registry: registry) == bytes)
        // The class chains are the registered ones, as for hand-written models.
        let graph = try ArchiveGraph(bytes: bytes)
        let chains = Set(graph.objects.compactMap { if case .classDescriptor(let d) = $0 { return d.classes } else { return nil } })
        #expect(chains.contains(["CodableGlider", "CodableAirplane", "NSObject"]))
        #expect(chains.contains(["CodableLicense", "NSObject"]))
    }

    /// The registry checks each object's class before its initializer runs: a class it does not
    /// admit is refused at its key path, as for hand-written models.
    @Test func unregisteredClassesAreRefusedBeforeDecoding() throws {
        var partial = ArchiveRegistry()
        partial.register(CodableAirplane.self)
        partial.register(CodableLicense.self)
        partial.register(CodablePilot.self)
        var writing = partial
        writing.register(CodableGlider.self)
        let bytes = try KeyedArchiver.archive(Self.makePilots(), registry: writing)
        do {
            _ = try KeyedUnarchiver.unarchive([CodablePilot].self, from: bytes, registry: partial)
            Issue.record("an unregistered subclass was decoded")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.keyPath.description == "root[0].airplanes[1]")
            #expect(error.classChain.first == "CodableGlider")
        }
        // A wrong field type is the decoder's typed error at its key path.
        let license = try KeyedArchiver.archive(WrongLicense(number: 7, ratings: []), registry: { var r = ArchiveRegistry(); r.register(WrongLicense.self, className: "CodableLicense"); return r }())
        do {
            _ = try KeyedUnarchiver.unarchive(CodableLicense.self, from: license, registry: partial)
            Issue.record("an integer was decoded as a string")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.keyPath.description == "root.number")
        }
    }

    struct WrongLicense: Codable, ArchiveCodableModel {
        var number: Int
        var ratings: [String]
    }
}
