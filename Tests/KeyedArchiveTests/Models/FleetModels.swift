import Foundation
import KeyedArchive

// The example family of the docs, as classes: Airplane with two subclasses, and Pilot, whose
// airplanes point back at their owner. The back-reference is weak (the pilot owns its
// airplanes, not the other way round), archived conditionally and decoded once complete.

class Airplane: KeyedArchivable {
    let model: String
    let registrationNumber: String
    var airframeHours: UInt64
    weak var owner: Pilot?

    init(model: String, registrationNumber: String, airframeHours: UInt64) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registrationNumber = try decoder.decode(String.self, forKey: "registrationNumber")
        airframeHours = try decoder.decode(UInt64.self, forKey: "airframeHours")
        decoder.decode(Pilot.self, forKey: "owner", for: self) { airplane, pilot in airplane.owner = pilot }
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
        try encoder.encode(airframeHours, forKey: "airframeHours")
        try encoder.encodeConditional(owner, forKey: "owner")
    }
}

final class PoweredAirplane: Airplane {
    var engineHorsepower: Int32
    var engineHours: UInt64

    init(model: String, registrationNumber: String, airframeHours: UInt64, engineHorsepower: Int32, engineHours: UInt64) {
        self.engineHorsepower = engineHorsepower
        self.engineHours = engineHours
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        engineHorsepower = try decoder.decode(Int32.self, forKey: "engineHorsepower")
        engineHours = try decoder.decode(UInt64.self, forKey: "engineHours")
        try super.init(from: decoder)
    }

    override func encode(to encoder: KeyedArchiveEncoder) throws {
        try super.encode(to: encoder)
        try encoder.encode(engineHorsepower, forKey: "engineHorsepower")
        try encoder.encode(engineHours, forKey: "engineHours")
    }
}

final class Glider: Airplane {
    var aerotowLaunchCount: UInt64
    var winchLaunchCount: UInt64

    init(model: String, registrationNumber: String, airframeHours: UInt64, aerotowLaunchCount: UInt64, winchLaunchCount: UInt64) {
        self.aerotowLaunchCount = aerotowLaunchCount
        self.winchLaunchCount = winchLaunchCount
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        aerotowLaunchCount = try decoder.decode(UInt64.self, forKey: "aerotowLaunchCount")
        winchLaunchCount = try decoder.decode(UInt64.self, forKey: "winchLaunchCount")
        try super.init(from: decoder)
    }

    override func encode(to encoder: KeyedArchiveEncoder) throws {
        try super.encode(to: encoder)
        try encoder.encode(aerotowLaunchCount, forKey: "aerotowLaunchCount")
        try encoder.encode(winchLaunchCount, forKey: "winchLaunchCount")
    }
}

final class Pilot: KeyedArchivable {
    var name: String
    var airplanes: [Airplane]
    var licenseDate: Date?
    var notes: [String: String]

    init(name: String, airplanes: [Airplane] = [], licenseDate: Date? = nil, notes: [String: String] = [:]) {
        self.name = name
        self.airplanes = airplanes
        self.licenseDate = licenseDate
        self.notes = notes
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        airplanes = try decoder.decode([Airplane].self, forKey: "airplanes")
        licenseDate = try decoder.decodeIfPresent(Date.self, forKey: "licenseDate")
        notes = try decoder.decode([String: String].self, forKey: "notes")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(airplanes, forKey: "airplanes")
        try encoder.encode(licenseDate, forKey: "licenseDate")
        try encoder.encode(notes, forKey: "notes")
    }
}

// The same models as structs. Structs have no identity, so nothing is shared and nothing points
// back; the family is decoded through a protocol.

protocol AirplaneRecord: KeyedArchivable {
    var model: String { get }
    var registrationNumber: String { get }
    var airframeHours: UInt64 { get }
}

struct AirplaneValue: AirplaneRecord, Equatable {
    var model: String
    var registrationNumber: String
    var airframeHours: UInt64

    init(model: String, registrationNumber: String, airframeHours: UInt64) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registrationNumber = try decoder.decode(String.self, forKey: "registrationNumber")
        airframeHours = try decoder.decode(UInt64.self, forKey: "airframeHours")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
        try encoder.encode(airframeHours, forKey: "airframeHours")
    }
}

struct PoweredAirplaneValue: AirplaneRecord, Equatable {
    var base: AirplaneValue
    var engineHorsepower: Int32
    var engineHours: UInt64

    var model: String { base.model }
    var registrationNumber: String { base.registrationNumber }
    var airframeHours: UInt64 { base.airframeHours }

    init(base: AirplaneValue, engineHorsepower: Int32, engineHours: UInt64) {
        self.base = base
        self.engineHorsepower = engineHorsepower
        self.engineHours = engineHours
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        base = try AirplaneValue(from: decoder)
        engineHorsepower = try decoder.decode(Int32.self, forKey: "engineHorsepower")
        engineHours = try decoder.decode(UInt64.self, forKey: "engineHours")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try base.encode(to: encoder)
        try encoder.encode(engineHorsepower, forKey: "engineHorsepower")
        try encoder.encode(engineHours, forKey: "engineHours")
    }
}

struct GliderValue: AirplaneRecord, Equatable {
    var base: AirplaneValue
    var aerotowLaunchCount: UInt64
    var winchLaunchCount: UInt64

    var model: String { base.model }
    var registrationNumber: String { base.registrationNumber }
    var airframeHours: UInt64 { base.airframeHours }

    init(base: AirplaneValue, aerotowLaunchCount: UInt64, winchLaunchCount: UInt64) {
        self.base = base
        self.aerotowLaunchCount = aerotowLaunchCount
        self.winchLaunchCount = winchLaunchCount
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        base = try AirplaneValue(from: decoder)
        aerotowLaunchCount = try decoder.decode(UInt64.self, forKey: "aerotowLaunchCount")
        winchLaunchCount = try decoder.decode(UInt64.self, forKey: "winchLaunchCount")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try base.encode(to: encoder)
        try encoder.encode(aerotowLaunchCount, forKey: "aerotowLaunchCount")
        try encoder.encode(winchLaunchCount, forKey: "winchLaunchCount")
    }
}

struct PilotValue: KeyedArchivable {
    var name: String
    var airplanes: [any AirplaneRecord]
    var licenseDate: Date?
    var notes: [String: String]

    init(name: String, airplanes: [any AirplaneRecord], licenseDate: Date?, notes: [String: String]) {
        self.name = name
        self.airplanes = airplanes
        self.licenseDate = licenseDate
        self.notes = notes
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        airplanes = try decoder.decodeArray(of: (any AirplaneRecord).self, forKey: "airplanes")
        licenseDate = try decoder.decodeIfPresent(Date.self, forKey: "licenseDate")
        notes = try decoder.decode([String: String].self, forKey: "notes")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(airplanes, forKey: "airplanes")
        try encoder.encode(licenseDate, forKey: "licenseDate")
        try encoder.encode(notes, forKey: "notes")
    }
}

enum Fleet {
    /// The class family under Objective-C-style names.
    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        registry.register(PoweredAirplane.self, superclass: Airplane.self)
        registry.register(Glider.self, superclass: Airplane.self)
        registry.register(Pilot.self)
        return registry
    }()

    /// The struct family under the same archived names.
    static let valueRegistry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(AirplaneValue.self, className: "Airplane")
        registry.register(PoweredAirplaneValue.self, className: "PoweredAirplane", superclass: AirplaneValue.self)
        registry.register(GliderValue.self, className: "Glider", superclass: AirplaneValue.self)
        registry.registerFamily((any AirplaneRecord).self, root: AirplaneValue.self)
        registry.register(PilotValue.self, className: "Pilot")
        return registry
    }()

    static let referenceDate = Date(timeIntervalSinceReferenceDate: 600_000_000)

    /// Two pilots sharing a glider, every airplane owned by one of them.
    static func makePilots() -> [Pilot] {
        let cub = PoweredAirplane(model: "Piper J-3 Cub", registrationNumber: "N3918K", airframeHours: 12_400, engineHorsepower: 65, engineHours: 1_250)
        let ask = Glider(model: "ASK 21", registrationNumber: "D-8721", airframeHours: 6_100, aerotowLaunchCount: 4_210, winchLaunchCount: UInt64.max)
        let trainer = Airplane(model: "Cessna 152", registrationNumber: "G-BOYL", airframeHours: UInt64(Int64.max) + 7)
        let amelia = Pilot(name: "Amelia", airplanes: [cub, ask], licenseDate: referenceDate, notes: ["medical": "class 2", "rating": "SEP"])
        let bessie = Pilot(name: "Bessie", airplanes: [ask, trainer], licenseDate: nil, notes: [:])
        cub.owner = amelia
        ask.owner = amelia
        trainer.owner = bessie
        return [amelia, bessie]
    }
}
