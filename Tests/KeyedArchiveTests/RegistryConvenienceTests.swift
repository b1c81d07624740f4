import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `register(Glider.self)` finding its registered superclass, and the refusals of a registry made
/// with `init(foundationClasses:)`, against archives of Foundation's NSKeyedArchiver on Linux.
@Suite struct RegistryConvenienceTests {
    /// `$classes` of every class dictionary in an archive, read by Foundation's plist reader.
    static func classChains(_ data: Data) throws -> Set<[String]> {
        let file = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        let objects = try #require(file["$objects"] as? [Any])
        return Set(objects.compactMap { ($0 as? [String: Any])?["$classes"] as? [String] })
    }

    @Test func subclassFindsItsRegisteredSuperclass() throws {
        var implicit = ArchiveRegistry()
        implicit.register(Airplane.self, className: "KeyedArchiveTests.FAirplane")
        implicit.register(PoweredAirplane.self, className: "KeyedArchiveTests.FPoweredAirplane")
        implicit.register(Glider.self, className: "KeyedArchiveTests.FGlider")
        implicit.register(Pilot.self, className: "KeyedArchiveTests.FPilot")
        let pilots = Fleet.makePilots()
        for pilot in pilots { for airplane in pilot.airplanes { airplane.owner = nil } }
        let ours = try KeyedArchiver.archivedData(pilots, registry: implicit)
        // The same archive as with superclass: spelled out.
        #expect(ours == (try KeyedArchiver.archivedData(pilots, registry: FoundationInteropTests.writingAsMirrors)))
        // And the class chains Foundation writes for the same hierarchy.
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: FPilot.makePilots(withOwners: false) as NSArray, requiringSecureCoding: true)
        let modelChains = { (chains: Set<[String]>) in chains.filter { $0.first?.hasPrefix("KeyedArchiveTests.") == true } }
        #expect(modelChains(try Self.classChains(ours)) == modelChains(try Self.classChains(theirs)))
        #expect(modelChains(try Self.classChains(ours)).contains(["KeyedArchiveTests.FGlider", "KeyedArchiveTests.FAirplane", "NSObject"]))
        // Asking for the superclass admits the subclass.
        var reading = ArchiveRegistry()
        reading.register(Airplane.self, aliases: ["KeyedArchiveTests.FAirplane"])
        reading.register(PoweredAirplane.self, aliases: ["KeyedArchiveTests.FPoweredAirplane"])
        reading.register(Glider.self, aliases: ["KeyedArchiveTests.FGlider"])
        reading.register(Pilot.self, aliases: ["KeyedArchiveTests.FPilot"])
        let decoded = try KeyedUnarchiver.unarchive([Pilot].self, from: theirs, registry: reading)
        #expect(decoded[0].airplanes.map { "\(type(of: $0))" } == ["PoweredAirplane", "Glider"])
        #expect(try KeyedUnarchiver.unarchive([Airplane].self, from: KeyedArchiver.archivedData(decoded[1].airplanes, registry: reading), registry: reading).first is Glider)
    }

    static func refusal(_ body: () throws(ArchiveError) -> Void) -> ArchiveError? {
        do { try body(); return nil } catch { return error }
    }

    /// A registry without a Foundation class says so and how to add it, not "accepted: " and addAlias.
    @Test func foundationClassesRefusalNamesTheMissingClass() throws {
        let strings = try NSKeyedArchiver.archivedData(withRootObject: ["a", "b"] as NSArray, requiringSecureCoding: true)
        let stringsOnly = ArchiveRegistry(foundationClasses: [.string])
        let refused = try #require(Self.refusal { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: strings, registry: stringsOnly) })
        #expect(refused.code == .classNotAllowed)
        #expect(refused.keyPath.description == "root")
        #expect(refused.message.contains("admits no NSArray") && refused.message.contains("without .array"), "\(refused.message)")
        #expect(!refused.message.contains("accepted: )"))
        #expect(refused.remedy?.hasPrefix("ArchiveRegistry(foundationClasses: […, .array])") == true, "\(refused.remedy ?? "no remedy")")
        #expect(refused.remedy?.contains("addAlias") == false)
        // Adding the class admits it.
        #expect(try KeyedUnarchiver.unarchive([String].self, from: strings, registry: ArchiveRegistry(foundationClasses: [.string, .array])) == ["a", "b"])

        // A class of another kind is not advised into this one.
        let dictionary = try NSKeyedArchiver.archivedData(withRootObject: ["a": "b"] as NSDictionary, requiringSecureCoding: true)
        let other = try #require(Self.refusal { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: dictionary, registry: ArchiveRegistry(foundationClasses: [.string, .array])) })
        #expect(other.code == .classNotAllowed)
        #expect(other.remedy?.hasPrefix("none: the object is an NSDictionary") == true, "\(other.remedy ?? "no remedy")")
        // A name that belongs to no Foundation class still gets addAlias, with the accepted names.
        let full = try #require(Self.refusal { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([String].self, from: Self.renamedArray(strings), registry: ArchiveRegistry()) })
        #expect(full.message.contains("accepted: NSArray, NSMutableArray"))
        #expect(full.remedy?.hasPrefix("registry.addAlias(\"MyArray\", for: .array)") == true)
    }

    /// Foundation's archive of an array with the class renamed (the same length, so offsets hold).
    static func renamedArray(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        let name = Array("NSArray".utf8)
        for start in 0...(bytes.count - name.count) where Array(bytes[start..<(start + name.count)]) == name {
            bytes.replaceSubrange(start..<(start + name.count), with: Array("MyArray".utf8))
        }
        return Data(bytes)
    }
}
