import Foundation
import PropertyList
import KeyedArchiveTesting
import Testing
@testable import KeyedArchive

/// `Fixtures/fleet.plist` and `Fixtures/fleet.xml`, the archives the README's first command
/// dumps, are produced by our own code from the fleet below. Regenerate them with
/// `KEYEDARCHIVE_RECORD=1 swift test --filter FleetFixtureTests` (the KeyedArchiveTesting
/// library's record mode, which these tests use as any service's fixture tests would).
@Suite struct FleetFixtureTests {
    static func makeFleet() -> [Pilot] {
        let cub = PoweredAirplane(model: "Piper J-3 Cub", registrationNumber: "N3918K", airframeHours: 12_400, engineHorsepower: 65, engineHours: 1_250)
        let ask = Glider(model: "Schleicher ASK 21", registrationNumber: "D-8721", airframeHours: 6_100, aerotowLaunchCount: 4_210, winchLaunchCount: 11_873)
        let trainer = Airplane(model: "Cessna 152", registrationNumber: "G-BOYL", airframeHours: 18_030)
        let discus = Glider(model: "Schempp-Hirth Discus", registrationNumber: "D-2402", airframeHours: 3_377, aerotowLaunchCount: 1_920, winchLaunchCount: 0)
        let beaver = PoweredAirplane(model: "DHC-2 Beaver", registrationNumber: "C-FODJ", airframeHours: 31_204, engineHorsepower: 450, engineHours: 2_018)
        let amelia = Pilot(name: "Amelia", airplanes: [cub, ask], licenseDate: Date(timeIntervalSinceReferenceDate: 600_000_000),
                           notes: ["medical": "class 2", "ratings": "SEP, TMG"])
        let bessie = Pilot(name: "Bessie", airplanes: [ask, trainer], licenseDate: nil, notes: [:])
        let charles = Pilot(name: "Charles", airplanes: [discus, beaver, cub], licenseDate: Date(timeIntervalSinceReferenceDate: 700_000_000),
                            notes: ["seaplane": "yes"])
        cub.owner = amelia
        ask.owner = amelia
        trainer.owner = bessie
        discus.owner = charles
        beaver.owner = charles
        return [amelia, bessie, charles]
    }

    static let files: [(name: String, format: ArchiveFormat)] = [("fleet.plist", .binary), ("fleet.xml", .xml)]

    @Test(arguments: files.map(\.name))
    func bundledFleetIsOurOutput(name: String) throws {
        let format = Self.files.first { $0.name == name }?.format ?? .binary
        let bytes = try KeyedArchiver.archive(Self.makeFleet(), registry: Fleet.registry, format: format)
        let url = ArchiveFixtures.projectFixtures.appendingPathComponent(name)
        // Byte for byte: these fixtures are our own output, so any drift is a change to explain.
        expectArchiveSnapshot(of: Self.makeFleet(), registry: Fleet.registry, fixture: url.path, format: ArchiveFixtureFormat(format), comparison: .bytes)
        let bundled = [UInt8](try Data(contentsOf: url))

        let pilots = try KeyedUnarchiver.unarchive([Pilot].self, from: bundled, registry: Fleet.registry)
        #expect(pilots.map(\.name) == ["Amelia", "Bessie", "Charles"])
        #expect(pilots[0].airplanes[1] === pilots[1].airplanes[0])
        #expect(pilots[0].airplanes[0] === pilots[2].airplanes[2])
        #expect(pilots[2].airplanes[2].owner === pilots[0])
        #expect(pilots[1].airplanes[1].owner === pilots[1])
        #expect((pilots[2].airplanes[0] as? Glider)?.winchLaunchCount == 0)
        let dump = ArchiveDumper.dump(bundled.isEmpty ? try ArchiveGraph(bytes: bytes) : try ArchiveGraph(bytes: bundled))
        #expect(dump.contains("Glider < Airplane < NSObject"))
        // Every field the fixture holds is read by the models, and they archive what they read.
        expectNoUnreadFields(decoding: [Pilot].self, fixture: url.path, registry: Fleet.registry)
        expectArchiveRoundTrip(pilots, registry: Fleet.registry)
    }
}
