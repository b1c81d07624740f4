import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The example family through our archiver and back: values, sharing, back-references.
@Suite struct FleetRoundTripTests {
    static func checkFleet(_ pilots: [Pilot]) {
        #expect(pilots.count == 2)
        guard pilots.count == 2 else { return }
        let (amelia, bessie) = (pilots[0], pilots[1])
        #expect(amelia.name == "Amelia")
        #expect(amelia.licenseDate == Fleet.referenceDate)
        #expect(amelia.notes == ["medical": "class 2", "rating": "SEP"])
        #expect(bessie.licenseDate == nil)
        #expect(bessie.notes.isEmpty)
        guard amelia.airplanes.count == 2, bessie.airplanes.count == 2 else {
            Issue.record("airplane counts \(amelia.airplanes.count), \(bessie.airplanes.count)")
            return
        }
        let cub = amelia.airplanes[0] as? PoweredAirplane
        let ask = amelia.airplanes[1] as? Glider
        #expect(cub?.engineHorsepower == 65)
        #expect(cub?.engineHours == 1_250)
        #expect(cub?.airframeHours == 12_400)
        #expect(ask?.winchLaunchCount == UInt64.max)
        #expect(ask?.aerotowLaunchCount == 4_210)
        #expect(ask?.registrationNumber == "D-8721")
        // The glider is one instance shared by both pilots.
        #expect(amelia.airplanes[1] === bessie.airplanes[0])
        let trainer = bessie.airplanes[1]
        #expect(type(of: trainer) == Airplane.self)
        #expect(trainer.airframeHours == UInt64(Int64.max) + 7)
        // Back-references point at the very pilot instances.
        #expect(cub?.owner === amelia)
        #expect(ask?.owner === amelia)
        #expect(trainer.owner === bessie)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func classFamilyRoundTrip(format: ArchiveFormat) throws {
        let pilots = Fleet.makePilots()
        let bytes = try KeyedArchiver.archive(pilots, registry: Fleet.registry, format: format)
        let decoded = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: Fleet.registry)
        Self.checkFleet(decoded)
    }

    @Test func sharedInstanceIsStoredOnce() throws {
        let pilots = Fleet.makePilots()
        let bytes = try KeyedArchiver.archive(pilots, registry: Fleet.registry)
        let graph = try ArchiveGraph(bytes: bytes)
        let gliders = graph.objects.indices.filter { graph.className(of: PropertyListUID(UInt64($0))) == "Glider" }
        #expect(gliders.count == 1)
        let pilotObjects = graph.objects.indices.filter { graph.className(of: PropertyListUID(UInt64($0))) == "Pilot" }
        #expect(pilotObjects.count == 2)
        // One class dictionary per class, with Apple's chain.
        let descriptors = graph.objects.compactMap { object -> ArchiveGraph.ClassDescriptor? in
            if case .classDescriptor(let descriptor) = object { return descriptor }
            return nil
        }
        let glider = descriptors.first { $0.name == "Glider" }
        #expect(glider?.classes == ["Glider", "Airplane", "NSObject"])
        #expect(Set(descriptors.map(\.name)).count == descriptors.count)
    }

    @Test func ourBytesAreTheSameOnEveryRun() throws {
        let first = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry)
        for _ in 0..<3 {
            #expect(try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry) == first)
        }
        let xml = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry, format: .xml)
        #expect(try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry, format: .xml) == xml)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func structFamilyRoundTrip(format: ArchiveFormat) throws {
        let base = AirplaneValue(model: "ASK 21", registrationNumber: "D-8721", airframeHours: 6_100)
        let pilot = PilotValue(
            name: "Amelia",
            airplanes: [
                GliderValue(base: base, aerotowLaunchCount: 4_210, winchLaunchCount: 17),
                PoweredAirplaneValue(base: AirplaneValue(model: "Piper J-3 Cub", registrationNumber: "N3918K", airframeHours: UInt64.max), engineHorsepower: -1, engineHours: 9),
                AirplaneValue(model: "Cessna 152", registrationNumber: "G-BOYL", airframeHours: 0),
            ],
            licenseDate: Fleet.referenceDate,
            notes: ["a": "b"])
        let bytes = try KeyedArchiver.archive(pilot, registry: Fleet.valueRegistry, format: format)
        let decoded = try KeyedUnarchiver.unarchive(PilotValue.self, from: bytes, registry: Fleet.valueRegistry)
        #expect(decoded.name == "Amelia")
        #expect(decoded.licenseDate == Fleet.referenceDate)
        #expect(decoded.notes == ["a": "b"])
        #expect(decoded.airplanes.count == 3)
        #expect(decoded.airplanes.first as? GliderValue == pilot.airplanes[0] as? GliderValue)
        #expect(decoded.airplanes.dropFirst().first as? PoweredAirplaneValue == pilot.airplanes[1] as? PoweredAirplaneValue)
        #expect(decoded.airplanes.last as? AirplaneValue == pilot.airplanes[2] as? AirplaneValue)
        // Class and struct families archive under the same names: the struct archive decodes
        // with the class registry.
        let asClasses = try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry)
        #expect(asClasses.airplanes.map(\.registrationNumber) == ["D-8721", "N3918K", "G-BOYL"])
        #expect(asClasses.airplanes[0] is Glider)
    }
}
