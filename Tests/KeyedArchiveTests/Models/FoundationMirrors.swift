import Foundation

// NSSecureCoding mirrors of the fleet classes, for interoperability tests against Foundation's
// own NSKeyedArchiver/NSKeyedUnarchiver on Linux. Foundation on Linux archives them under
// module-qualified names ("KeyedArchiveTests.FAirplane"), which our registry matches with aliases.

class FAirplane: NSObject, NSSecureCoding {
    class var supportsSecureCoding: Bool { true }
    let model: String
    let registrationNumber: String
    let airframeHours: UInt64
    weak var owner: FPilot?

    init(model: String, registrationNumber: String, airframeHours: UInt64) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    func encode(with coder: NSCoder) {
        coder.encode(model, forKey: "model")
        coder.encode(registrationNumber, forKey: "registrationNumber")
        // What Foundation's Swift overlay does with a UInt64: an NSNumber object.
        coder.encode(NSNumber(value: airframeHours), forKey: "airframeHours")
        coder.encodeConditionalObject(owner, forKey: "owner")
    }

    required init?(coder: NSCoder) {
        guard let model = coder.decodeObject(of: NSString.self, forKey: "model") as String?,
              let registration = coder.decodeObject(of: NSString.self, forKey: "registrationNumber") as String?,
              let hours = coder.decodeObject(of: NSNumber.self, forKey: "airframeHours") else { return nil }
        self.model = model
        registrationNumber = registration
        airframeHours = hours.uint64Value
        // Foundation on Linux recurses into a back-reference and overflows the stack on a
        // cycle, so mirrors are only decoded from acyclic archives and skip the owner.
    }
}

final class FPoweredAirplane: FAirplane {
    override class var supportsSecureCoding: Bool { true }
    let engineHorsepower: Int32
    let engineHours: UInt64

    init(model: String, registrationNumber: String, airframeHours: UInt64, engineHorsepower: Int32, engineHours: UInt64) {
        self.engineHorsepower = engineHorsepower
        self.engineHours = engineHours
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(engineHorsepower, forKey: "engineHorsepower")
        coder.encode(NSNumber(value: engineHours), forKey: "engineHours")
    }

    required init?(coder: NSCoder) {
        engineHorsepower = coder.decodeInt32(forKey: "engineHorsepower")
        guard let hours = coder.decodeObject(of: NSNumber.self, forKey: "engineHours") else { return nil }
        engineHours = hours.uint64Value
        super.init(coder: coder)
    }
}

final class FGlider: FAirplane {
    override class var supportsSecureCoding: Bool { true }
    let aerotowLaunchCount: UInt64
    let winchLaunchCount: UInt64

    init(model: String, registrationNumber: String, airframeHours: UInt64, aerotowLaunchCount: UInt64, winchLaunchCount: UInt64) {
        self.aerotowLaunchCount = aerotowLaunchCount
        self.winchLaunchCount = winchLaunchCount
        super.init(model: model, registrationNumber: registrationNumber, airframeHours: airframeHours)
    }

    override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(NSNumber(value: aerotowLaunchCount), forKey: "aerotowLaunchCount")
        coder.encode(NSNumber(value: winchLaunchCount), forKey: "winchLaunchCount")
    }

    required init?(coder: NSCoder) {
        guard let aerotow = coder.decodeObject(of: NSNumber.self, forKey: "aerotowLaunchCount"),
              let winch = coder.decodeObject(of: NSNumber.self, forKey: "winchLaunchCount") else { return nil }
        aerotowLaunchCount = aerotow.uint64Value
        winchLaunchCount = winch.uint64Value
        super.init(coder: coder)
    }
}

final class FPilot: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    var airplanes: [FAirplane]
    let licenseDate: Date?
    let notes: [String: String]

    init(name: String, airplanes: [FAirplane], licenseDate: Date?, notes: [String: String]) {
        self.name = name
        self.airplanes = airplanes
        self.licenseDate = licenseDate
        self.notes = notes
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(airplanes as NSArray, forKey: "airplanes")
        coder.encode(licenseDate.map { $0 as NSDate }, forKey: "licenseDate")
        coder.encode(notes as NSDictionary, forKey: "notes")
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") as String?,
              let airplanes = coder.decodeObject(of: [NSArray.self, FAirplane.self, FGlider.self, FPoweredAirplane.self], forKey: "airplanes") as? [FAirplane],
              let notes = coder.decodeObject(of: [NSDictionary.self, NSString.self], forKey: "notes") as? [String: String] else { return nil }
        self.name = name
        self.airplanes = airplanes
        licenseDate = coder.decodeObject(of: NSDate.self, forKey: "licenseDate") as Date?
        self.notes = notes
    }

    static let allowedClasses: [AnyClass] = [NSArray.self, NSDictionary.self, NSString.self, NSNumber.self, NSDate.self,
                                             FPilot.self, FAirplane.self, FGlider.self, FPoweredAirplane.self]

    /// The same fleet as `Fleet.makePilots()`, optionally with the owner back-references.
    static func makePilots(withOwners: Bool) -> [FPilot] {
        let cub = FPoweredAirplane(model: "Piper J-3 Cub", registrationNumber: "N3918K", airframeHours: 12_400, engineHorsepower: 65, engineHours: 1_250)
        let ask = FGlider(model: "ASK 21", registrationNumber: "D-8721", airframeHours: 6_100, aerotowLaunchCount: 4_210, winchLaunchCount: UInt64.max)
        let trainer = FAirplane(model: "Cessna 152", registrationNumber: "G-BOYL", airframeHours: UInt64(Int64.max) + 7)
        let amelia = FPilot(name: "Amelia", airplanes: [cub, ask], licenseDate: Fleet.referenceDate, notes: ["medical": "class 2", "rating": "SEP"])
        let bessie = FPilot(name: "Bessie", airplanes: [ask, trainer], licenseDate: nil, notes: [:])
        if withOwners {
            cub.owner = amelia
            ask.owner = amelia
            trainer.owner = bessie
        }
        return [amelia, bessie]
    }
}
