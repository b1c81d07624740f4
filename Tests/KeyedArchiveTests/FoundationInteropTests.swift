import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Our archives against Foundation's NSKeyedArchiver/NSKeyedUnarchiver on Linux, compared by
/// decoded values (Foundation's key order changes with each process's hash seed, so its bytes
/// cannot be compared).
@Suite struct FoundationInteropTests {
    /// Our class models under the names Foundation on Linux writes for the mirrors.
    static let mirrorRegistry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self, aliases: ["KeyedArchiveTests.FAirplane"])
        registry.register(PoweredAirplane.self, aliases: ["KeyedArchiveTests.FPoweredAirplane"], superclass: Airplane.self)
        registry.register(Glider.self, aliases: ["KeyedArchiveTests.FGlider"], superclass: Airplane.self)
        registry.register(Pilot.self, aliases: ["KeyedArchiveTests.FPilot"])
        return registry
    }()

    /// Our models written under the mirrors' names, so that Foundation finds its classes.
    static let writingAsMirrors: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self, className: "KeyedArchiveTests.FAirplane")
        registry.register(PoweredAirplane.self, className: "KeyedArchiveTests.FPoweredAirplane", superclass: Airplane.self)
        registry.register(Glider.self, className: "KeyedArchiveTests.FGlider", superclass: Airplane.self)
        registry.register(Pilot.self, className: "KeyedArchiveTests.FPilot")
        return registry
    }()

    /// Foundation writes the fleet *with* the owner back-references (a cyclic graph: Foundation
    /// can write it, but its own unarchiver on Linux overflows the stack reading it back). We
    /// decode it, cycles included.
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationWrittenFleetDecodesWithOurRegistry(format: PropertyListSerialization.PropertyListFormat) throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(FPilot.makePilots(withOwners: true) as NSArray, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let bytes = [UInt8](archiver.encodedData)
        let pilots = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: Self.mirrorRegistry)
        FleetRoundTripTests.checkFleet(pilots)
        // The generic view needs no registration at all.
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.objects.contains { if case .classDescriptor(let d) = $0 { return d.classes == ["KeyedArchiveTests.FGlider", "KeyedArchiveTests.FAirplane", "NSObject"] } else { return false } })
        #expect(!ArchiveDumper.dump(graph).isEmpty)
    }

    /// Without the aliases, Foundation's module-qualified names are refused.
    @Test func moduleQualifiedNamesNeedAnAlias() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: FPilot.makePilots(withOwners: false) as NSArray, requiringSecureCoding: true)
        do {
            _ = try KeyedUnarchiver.unarchive([Pilot].self, from: [UInt8](data), registry: Fleet.registry)
            Issue.record("module-qualified classes were admitted without aliases")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.classChain.first == "KeyedArchiveTests.FPilot")
            #expect(error.keyPath.description == "root[0]")
        }
    }

    /// Foundation's NSKeyedUnarchiver reads our archives (acyclic: Foundation on Linux cannot
    /// follow cycles when decoding).
    @Test(arguments: [ArchiveFormat.binary, .xml])
    func ourFleetDecodesWithFoundation(format: ArchiveFormat) throws {
        let pilots = Fleet.makePilots()
        for pilot in pilots { for airplane in pilot.airplanes { airplane.owner = nil } }
        let bytes = try KeyedArchiver.archive(pilots, registry: Self.writingAsMirrors, format: format)
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: FPilot.allowedClasses, from: Data(bytes)) as? [FPilot]
        let fleet = try #require(decoded)
        #expect(fleet.map(\.name) == ["Amelia", "Bessie"])
        #expect(fleet[0].licenseDate == Fleet.referenceDate)
        #expect(fleet[1].licenseDate == nil)
        #expect(fleet[0].notes == ["medical": "class 2", "rating": "SEP"])
        let cub = try #require(fleet[0].airplanes.first as? FPoweredAirplane)
        #expect(cub.engineHorsepower == 65 && cub.engineHours == 1_250 && cub.airframeHours == 12_400)
        let glider = try #require(fleet[0].airplanes.last as? FGlider)
        #expect(glider.winchLaunchCount == UInt64.max && glider.aerotowLaunchCount == 4_210)
        // Foundation also sees one shared glider.
        #expect(fleet[1].airplanes.first === glider)
        let trainer = try #require(fleet[1].airplanes.last)
        #expect(type(of: trainer) == FAirplane.self)
        #expect(trainer.airframeHours == UInt64(Int64.max) + 7)
        #expect(trainer.registrationNumber == "G-BOYL")
    }

    /// Foundation's own archive of the acyclic fleet, read back by Foundation, equals ours read
    /// by us: the two implementations agree on every value.
    @Test func bothImplementationsAgreeOnFoundationBytes() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: FPilot.makePilots(withOwners: false) as NSArray, requiringSecureCoding: true)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: FPilot.allowedClasses, from: data) as? [FPilot])
        let ours = try KeyedUnarchiver.unarchive([Pilot].self, from: [UInt8](data), registry: Self.mirrorRegistry)
        #expect(theirs.count == ours.count)
        for (their, our) in zip(theirs, ours) {
            #expect(their.name == our.name)
            #expect(their.licenseDate == our.licenseDate)
            #expect(their.notes == our.notes)
            #expect(their.airplanes.map(\.registrationNumber) == our.airplanes.map(\.registrationNumber))
            #expect(their.airplanes.map(\.airframeHours) == our.airplanes.map(\.airframeHours))
            #expect(their.airplanes.map { String(describing: type(of: $0)).dropFirst() } == our.airplanes.map { String(describing: type(of: $0))[...] })
        }
    }

    /// A conditional reference to an object encoded unconditionally later: Foundation on Darwin
    /// keeps it (the later object's UID, as we do); Foundation on Linux drops it when writing.
    @Test func forwardConditionalsAsEachPlatformsFoundationWritesThem() throws {
        let pilots = FPilot.makePilots(withOwners: true)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(pilots[0].airplanes[0], forKey: "plane")
        archiver.encode(pilots[0], forKey: "pilot")
        archiver.finishEncoding()
        let graph = try ArchiveGraph(bytes: [UInt8](archiver.encodedData))
        let plane = try #require(graph.topUID(forKey: "plane").flatMap(graph.object))
        guard case .instance(let instance) = plane else {
            Issue.record("plane is not an instance")
            return
        }
#if canImport(Darwin)
        // Foundation on Darwin (Apple's documentation of encodeConditionalObject: the object is
        // encoded if any other part of the graph encodes it unconditionally) writes the pilot's UID.
        let pilot = try #require(graph.topUID(forKey: "pilot"))
        #expect(instance.value(forKey: "owner") == .uid(pilot))
#else
        // Foundation on Linux wrote no owner at all; Apple (and we) write the pilot's UID.
        #expect(instance.value(forKey: "owner") == nil)
#endif
    }
}
