import Foundation

// NSSecureCoding mirrors of the fleet for Foundation's NSKeyedArchiver/NSKeyedUnarchiver.
//
// Foundation on Linux keys its object→UID map by `AnyHashable` of the object, that is by
// `hash`/`isEqual:`. NSArray and NSDictionary hash to their count and compare by contents, so
// every pilot's airplane list lands in a few buckets (quadratic encoding), and equal lists are
// even merged into one object. The identity variant encodes the same containers through
// subclasses whose `hash`/`isEqual:` are those of NSObject (identity) and whose `classForCoder`
// is NSArray/NSDictionary, so the archive holds the same class names and the same keys.

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
        // Foundation on Linux recurses into a reference to an object still being decoded and
        // overflows the stack on the owner cycle, so the mirrors do not decode the owner.
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

/// An NSArray with identity hashing, archived as NSArray.
final class IdentityArray: NSArray {
    private let storage: [AnyObject]

    init(storage: [AnyObject]) {
        self.storage = storage
        super.init(objects: nil, count: 0)
    }

    required init(objects: UnsafePointer<AnyObject>?, count: Int) {
        storage = Array(UnsafeBufferPointer(start: objects, count: count))
        super.init(objects: nil, count: 0)
    }

    required convenience init(arrayLiteral elements: Any...) { self.init(storage: elements.map { $0 as AnyObject }) }
    required init?(coder: NSCoder) { return nil }

    override var count: Int { storage.count }
    override func object(at index: Int) -> Any { storage[index] }
    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    override var classForCoder: AnyClass { NSArray.self }
}

/// An NSDictionary with identity hashing, archived as NSDictionary.
final class IdentityDictionary: NSDictionary {
    private let keys: [NSString]
    private let values: [AnyObject]

    init(_ dictionary: [String: String]) {
        keys = dictionary.keys.map { $0 as NSString }
        values = dictionary.keys.map { (dictionary[$0] ?? "") as NSString }
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required init(objects: UnsafePointer<AnyObject>!, forKeys keys: UnsafePointer<NSObject>!, count: Int) {
        self.keys = []
        values = []
        super.init(objects: nil, forKeys: nil, count: 0)
    }

    required convenience init(dictionaryLiteral elements: (Any, Any)...) { self.init([:]) }
    required init?(coder: NSCoder) { return nil }

    override var count: Int { keys.count }
    override var allKeys: [Any] { keys }
    override var allValues: [Any] { values }
    override func object(forKey aKey: Any) -> Any? {
        guard let key = aKey as? NSString, let index = keys.firstIndex(of: key) else { return nil }
        return values[index]
    }
    override func keyEnumerator() -> NSEnumerator { NSArray(array: keys).objectEnumerator() }
    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    override var classForCoder: AnyClass { NSDictionary.self }
}

final class FPilot: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    /// Encode the containers with identity hashing (same bytes, no collisions in Foundation's UID map).
    nonisolated(unsafe) static var identityContainers = false
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
        if FPilot.identityContainers {
            coder.encode(IdentityArray(storage: airplanes), forKey: "airplanes")
        } else {
            coder.encode(airplanes as NSArray, forKey: "airplanes")
        }
        coder.encode(licenseDate.map { $0 as NSDate }, forKey: "licenseDate")
        if FPilot.identityContainers {
            coder.encode(IdentityDictionary(notes), forKey: "notes")
        } else {
            coder.encode(notes as NSDictionary, forKey: "notes")
        }
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

    /// The benchmark fleet (see `FleetShape`), with owner back-references.
    static func make(pilots count: Int) -> [FPilot] {
        var owned: [[FAirplane]] = []
        owned.reserveCapacity(count)
        var pilots: [FPilot] = []
        pilots.reserveCapacity(count)
        for index in 0..<count {
            let pilot = FPilot(name: FleetShape.name(index), airplanes: [], licenseDate: FleetShape.licenseDate(index), notes: FleetShape.notes(index))
            var airplanes: [FAirplane] = []
            for slot in 0..<FleetShape.ownedPerPilot {
                let spec = FleetShape.airplane(index * FleetShape.ownedPerPilot + slot)
                let airplane: FAirplane
                switch spec.kind {
                case 0: airplane = FAirplane(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours)
                case 1: airplane = FPoweredAirplane(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours, engineHorsepower: 65 + Int32(slot), engineHours: spec.hours / 2)
                default: airplane = FGlider(model: spec.model, registrationNumber: spec.registration, airframeHours: spec.hours, aerotowLaunchCount: spec.hours / 3, winchLaunchCount: spec.hours / 5)
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
