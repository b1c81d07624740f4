import Foundation
import KeyedArchive

// The fleet family of the tutorial, defined here for the benchmark (the test models are not
// importable from an executable): Airplane with two subclasses, and Pilot, whose airplanes point
// back at their owner through a weak reference archived conditionally.

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

/// The shape of the benchmark fleet, shared by our models and Foundation's mirrors so that
/// both sides archive the same graph.
enum FleetShape {
    /// Airplanes each pilot owns; every pilot also flies one airplane of the next pilot, so one
    /// airplane reference in five (20%) is to a shared airplane.
    static let ownedPerPilot = 4
    static let models = ["Piper J-3 Cub", "ASK 21", "Cessna 152", "Cessna 172", "Discus 2", "DR400", "Robin 2160", "Duo Discus"]
    static let medical = ["class 1", "class 2", "LAPL"]
    static let ratings = ["SEP", "SEP, TMG", "SPL", "SEP, night"]
    static let referenceDate = Date(timeIntervalSinceReferenceDate: 600_000_000)

    struct AirplaneSpec {
        var kind: Int
        var model: String
        var registration: String
        var hours: UInt64
    }

    static func airplane(_ index: Int) -> AirplaneSpec {
        let hours = fullRangeCounters ? UInt64(index) &* 0x9E37_79B9_7F4A_7C15 : UInt64(index) &* 7 &+ 100
        return AirplaneSpec(kind: index % 3, model: models[index % models.count], registration: "N\(index)", hours: hours)
    }

    /// `KEYEDARCHIVE_FLEET_COUNTERS=full-range` spreads the airplanes' `UInt64` counters over the
    /// whole range: about half the airframe hours are then 2^63 or more, which a binary archive
    /// stores as 16-byte integers, as Core Foundation does (issue 31: such archives once left
    /// the in-place reader for the slow path).
    static let fullRangeCounters = ProcessInfo.processInfo.environment["KEYEDARCHIVE_FLEET_COUNTERS"] == "full-range"

    static func name(_ pilot: Int) -> String { "Pilot \(pilot)" }
    static func notes(_ pilot: Int) -> [String: String] { ["medical": medical[pilot % medical.count], "rating": ratings[pilot % ratings.count]] }
    static func licenseDate(_ pilot: Int) -> Date? { pilot % 2 == 0 ? referenceDate.addingTimeInterval(Double(pilot)) : nil }
    /// Indices (into the pilot's own list, then the next pilot's) of the airplanes a pilot flies.
    static func flown(_ pilot: Int, pilots: Int) -> [(owner: Int, slot: Int)] {
        (0..<ownedPerPilot).map { (pilot, $0) } + [((pilot + 1) % pilots, 0)]
    }
}

enum Fleet {
    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        registry.register(PoweredAirplane.self, superclass: Airplane.self)
        registry.register(Glider.self, superclass: Airplane.self)
        registry.register(Pilot.self)
        return registry
    }()

    /// Builds the fleet directly in memory: what a decode has to produce.
    static func make(pilots count: Int) -> [Pilot] {
        var owned: [[Airplane]] = []
        owned.reserveCapacity(count)
        var pilots: [Pilot] = []
        pilots.reserveCapacity(count)
        for index in 0..<count {
            let pilot = Pilot(name: FleetShape.name(index), licenseDate: FleetShape.licenseDate(index), notes: FleetShape.notes(index))
            var airplanes: [Airplane] = []
            airplanes.reserveCapacity(FleetShape.ownedPerPilot)
            for slot in 0..<FleetShape.ownedPerPilot {
                let spec = FleetShape.airplane(index * FleetShape.ownedPerPilot + slot)
                let airplane: Airplane
                switch spec.kind {
                case 0: airplane = Airplane(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours)
                case 1: airplane = PoweredAirplane(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours, engineHorsepower: 65 + Int32(slot), engineHours: spec.hours / 2)
                default: airplane = Glider(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours, aerotowLaunchCount: spec.hours / 3, winchLaunchCount: spec.hours / 5)
                }
                airplane.owner = pilot
                airplanes.append(airplane)
            }
            owned.append(airplanes)
            pilots.append(pilot)
        }
        for index in 0..<count {
            pilots[index].airplanes = FleetShape.flown(index, pilots: count).map { owned[$0.owner][$0.slot] }
        }
        return pilots
    }
}
