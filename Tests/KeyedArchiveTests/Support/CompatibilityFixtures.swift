import Foundation
import KeyedArchive
import PropertyList

/// The fixture pairs of `Fixtures/compat/rules/`: for each compatibility rule, the archives of an
/// old and a new version that differ by that change, made here with `ArchiveGenericObject` (our
/// own archiver; nothing is copied from elsewhere) and written once, then checked byte for byte
/// (`ArchiveCompatibilityTests.fixturesOnDiskAreWhatThisCodeMakes`). Each pair states the
/// changes `compat` must report old → new and, run the other way, new → old.
enum CompatibilityFixtures {
    typealias Object = ArchiveGenericObject

    /// One change as a test states it: rule, the directions broken, where, and whether a warning.
    struct Expected: Hashable, CustomStringConvertible {
        let rule: String
        let breaks: [String]
        let location: String
        var warning = false
        var description: String { "\(rule) \(breaks) \(location)\(warning ? " (warning)" : "")" }
    }

    struct Pair: Sendable, CustomStringConvertible {
        let name: String
        let old: [(file: String, bytes: [UInt8])]
        let new: [(file: String, bytes: [UInt8])]
        let forward: [Expected]
        let reverse: [Expected]
        var description: String { name }
    }

    static let root = ArchiveFixtures.projectFixtures.appendingPathComponent("compat/rules")

    // MARK: Building blocks

    static func object(_ classes: [String], _ fields: [(String, Object.Field)]) -> Object {
        Object(classes: classes + ["NSObject"], fields: fields.map { (key: $0.0, value: $0.1) })
    }

    static func pilot(_ name: String, _ fields: [(String, Object.Field)] = [], className: String = "Pilot") -> Object {
        object([className], [("name", .object(name))] + fields)
    }

    static func airplane(_ model: String, _ classes: [String] = ["Airplane"]) -> Object {
        object(classes, [("model", .object(model))])
    }

    static func collection(_ className: String, _ elements: [any ArchiveObjectEncodable]) -> Object {
        object([className], [("NS.objects", .objects(elements))])
    }

    static func hours(_ value: Int64) -> Object.Field { .inline(.integer(PropertyListInteger(value))) }

    static func archive(_ top: [(String, any ArchiveObjectEncodable)], format: ArchiveFormat = .binary) -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        do {
            for (key, value) in top { try archiver.encode(value, forKey: key) }
            return try archiver.finish(format: format)
        } catch {
            fatalError("fixture archive: \(error)")
        }
    }

    static func root(_ value: any ArchiveObjectEncodable, format: ArchiveFormat = .binary) -> [UInt8] {
        archive([("root", value)], format: format)
    }

    static func expect(_ rule: String, _ breaks: [String], _ location: String, warning: Bool = false) -> Expected {
        Expected(rule: rule, breaks: breaks, location: location, warning: warning)
    }

    static let both = ["backward", "forward"]

    // MARK: The pairs

    static let pairs: [Pair] = [
        Pair(name: "class-removed",
             old: [("hangar.plist", root(object(["Hangar"], [("planes", .object(collection("NSArray", [airplane("ASK 21", ["Glider", "Airplane"]), airplane("C172")])))])))],
             new: [("hangar.plist", root(object(["Hangar"], [("planes", .object(collection("NSArray", [airplane("C172"), airplane("PA-28")])))])))],
             forward: [expect("class-removed", ["backward"], "Glider")],
             reverse: [expect("class-added", ["forward"], "Glider")]),
        Pair(name: "class-renamed",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))], className: "Aviator")))],
             forward: [expect("class-renamed", both, "Pilot")],
             reverse: [expect("class-renamed", both, "Aviator")]),
        Pair(name: "class-module-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))], className: "MyApp.Pilot")))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))], className: "Core.Pilot")))],
             forward: [expect("class-module-changed", both, "MyApp.Pilot")],
             reverse: [expect("class-module-changed", both, "Core.Pilot")]),
        Pair(name: "class-chain-changed",
             old: [("glider.plist", root(airplane("ASK 21", ["Glider", "Airplane"])))],
             new: [("glider.plist", root(airplane("ASK 21", ["Glider", "Sailplane", "Airplane"])))],
             forward: [expect("class-chain-changed", [], "Glider")],
             reverse: [expect("class-chain-changed", [], "Glider")]),
        Pair(name: "class-added",
             old: [("amelia.plist", root(pilot("Amelia"))), ("bessie.plist", root(pilot("Bessie")))],
             new: [("amelia.plist", root(pilot("Amelia", [("license", .object(object(["License"], [("number", .object("A-1"))])))]))),
                   ("bessie.plist", root(pilot("Bessie")))],
             forward: [expect("class-added", [], "License"), expect("key-added", [], "Pilot.license")],
             reverse: [expect("class-removed", [], "License"), expect("key-removed", [], "Pilot.license")]),
        Pair(name: "key-added",
             old: [("amelia.xml", root(pilot("Amelia", [("hours", hours(120))]), format: .xml)),
                   ("bessie.xml", root(pilot("Bessie", [("hours", hours(80))]), format: .xml))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120)), ("rank", .object("captain"))]))),
                   ("bessie.plist", root(pilot("Bessie", [("hours", hours(80)), ("rank", .object("first officer"))])))],
             forward: [expect("key-added", ["backward"], "Pilot.rank")],
             reverse: [expect("key-removed", ["forward"], "Pilot.rank")]),
        // The trial's rename: one `encode(with:)` of the superclass writes `registration` for
        // every class of the family, and the next version writes the same values as `tailNumber`.
        Pair(name: "key-renamed",
             old: [("fleet.plist", root(collection("NSArray", fleetOfThree(registrationKey: "registration"))))],
             new: [("fleet.plist", root(collection("NSArray", fleetOfThree(registrationKey: "tailNumber"))))],
             forward: [expect("key-renamed", both, "Airplane.registration")],
             reverse: [expect("key-renamed", both, "Airplane.tailNumber")]),
        Pair(name: "key-became-optional",
             old: [("amelia.plist", root(pilot("Amelia", [("callsign", .object("AE"))]))), ("bessie.plist", root(pilot("Bessie", [("callsign", .object("BC"))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("callsign", .object("AE"))]))), ("bessie.plist", root(pilot("Bessie")))],
             forward: [expect("key-became-optional", ["forward"], "Pilot.callsign")],
             reverse: [expect("key-became-required", ["backward"], "Pilot.callsign")]),
        Pair(name: "null-added",
             old: [("amelia.plist", root(pilot("Amelia", [("nickname", .object("Ace"))]))), ("bessie.plist", root(pilot("Bessie", [("nickname", .object("Bee"))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("nickname", .object("Ace"))]))), ("bessie.plist", root(pilot("Bessie", [("nickname", .object(nil))])))],
             forward: [expect("null-added", ["forward"], "Pilot.nickname")],
             reverse: [expect("null-removed", ["backward"], "Pilot.nickname")]),
        Pair(name: "kind-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", .object("120"))])))],
             forward: [expect("kind-changed", both, "Pilot.hours")],
             reverse: [expect("kind-changed", both, "Pilot.hours")]),
        Pair(name: "kind-changed-integer-to-real",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", .inline(.double(120.5)))])))],
             forward: [expect("kind-changed", ["forward"], "Pilot.hours")],
             reverse: [expect("kind-changed", ["backward"], "Pilot.hours")]),
        Pair(name: "storage-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(120))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", .object(Int(120)))])))],
             forward: [expect("storage-changed", both, "Pilot.hours")],
             reverse: [expect("storage-changed", both, "Pilot.hours")]),
        Pair(name: "collection-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("airplanes", .object(collection("NSArray", [airplane("C172")])))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("airplanes", .object(collection("NSSet", [airplane("C172")])))])))],
             forward: [expect("collection-changed", both, "Pilot.airplanes")],
             reverse: [expect("collection-changed", both, "Pilot.airplanes")]),
        Pair(name: "class-changed",
             old: [("hangar.plist", root(object(["Hangar"], [("plane", .object(airplane("ASK 21", ["Glider", "Airplane"]))),
                                                              ("spare", .object(airplane("C172", ["PoweredAirplane", "Airplane"])))])))],
             new: [("hangar.plist", root(object(["Hangar"], [("plane", .object(airplane("C172", ["PoweredAirplane", "Airplane"]))),
                                                              ("spare", .object(airplane("ASK 21", ["Glider", "Airplane"])))])))],
             forward: [expect("class-changed", both, "Hangar.plane"), expect("class-changed", both, "Hangar.spare")],
             reverse: [expect("class-changed", both, "Hangar.plane"), expect("class-changed", both, "Hangar.spare")]),
        Pair(name: "class-changed-subclass",
             old: [("hangar.plist", root(object(["Hangar"], [("plane", .object(airplane("C172"))), ("spare", .object(airplane("ASK 21", ["Glider", "Airplane"])))])))],
             new: [("hangar.plist", root(object(["Hangar"], [("plane", .object(airplane("C172"))), ("spare", .object(airplane("ASK 21", ["Glider", "Airplane"])))]))),
                   ("hangar2.plist", root(object(["Hangar"], [("plane", .object(airplane("ASK 13", ["Glider", "Airplane"]))), ("spare", .object(airplane("ASK 21", ["Glider", "Airplane"])))])))],
             forward: [expect("class-changed", [], "Hangar.plane")],
             reverse: [expect("class-changed", [], "Hangar.plane")]),
        Pair(name: "integer-widened",
             old: [("amelia.plist", root(pilot("Amelia", [("hours", hours(300))]))), ("bessie.plist", root(pilot("Bessie", [("hours", hours(-20))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("hours", hours(300))]))), ("bessie.plist", root(pilot("Bessie", [("hours", hours(100_000))])))],
             forward: [expect("integer-widened", ["forward"], "Pilot.hours", warning: true)],
             reverse: []),
        Pair(name: "element-kind-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("tags", .object(collection("NSArray", ["ifr", "night"])))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("tags", .object(collection("NSArray", [1, 2])))])))],
             forward: [expect("element-kind-changed", both, "Pilot.tags")],
             reverse: [expect("element-kind-changed", both, "Pilot.tags")]),
        Pair(name: "element-class-changed",
             old: [("amelia.plist", root(pilot("Amelia", [("airplanes", .object(collection("NSArray", [airplane("C172")])))])))],
             new: [("amelia.plist", root(pilot("Amelia", [("airplanes", .object(collection("NSArray", [airplane("C172"),
                                                                                                         pilot("Bessie", [("airplanes", .object(collection("NSArray", [])))])])))])))],
             forward: [expect("element-class-changed", ["forward"], "Pilot.airplanes")],
             reverse: [expect("element-class-changed", ["backward"], "Pilot.airplanes")]),
        Pair(name: "top-key-added",
             old: [("amelia.plist", root(pilot("Amelia"))), ("bessie.plist", root(pilot("Bessie")))],
             new: [("amelia.plist", archive([("root", pilot("Amelia")), ("backup", pilot("Amelia"))])),
                   ("bessie.plist", archive([("root", pilot("Bessie")), ("backup", pilot("Bessie"))]))],
             forward: [expect("top-key-added", ["backward"], "$top.backup")],
             reverse: [expect("top-key-removed", ["forward"], "$top.backup")]),
        Pair(name: "top-key-changed",
             old: [("amelia.plist", root(pilot("Amelia")))],
             new: [("amelia.plist", root(collection("NSArray", [pilot("Amelia")])))],
             forward: [expect("top-key-changed", both, "$top.root")],
             reverse: [expect("top-key-changed", both, "$top.root")]),
    ]

    /// Where a pair's side lives on disk.
    /// Two airplanes of each class of the family, their registrations under `registrationKey`.
    static func fleetOfThree(registrationKey: String) -> [any ArchiveObjectEncodable] {
        let planes: [(classes: [String], model: String, registration: String)] = [
            (["Airplane"], "Cessna 152", "G-BOYL"), (["Airplane"], "Cessna 172", "N172SP"),
            (["Glider", "Airplane"], "ASK 21", "D-8721"), (["Glider", "Airplane"], "Discus", "D-2402"),
            (["PoweredAirplane", "Airplane"], "J-3 Cub", "N3918K"), (["PoweredAirplane", "Airplane"], "Beaver", "C-FODJ"),
        ]
        return planes.map { plane in object(plane.classes, [("model", .object(plane.model)), (registrationKey, .object(plane.registration))]) }
    }

    static func folder(_ pair: Pair, _ side: String) -> URL {
        root.appendingPathComponent(pair.name).appendingPathComponent(side)
    }
}
