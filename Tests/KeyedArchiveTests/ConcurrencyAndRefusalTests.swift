import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

@Suite struct ConcurrencyAndRefusalTests {
    /// The registry and the graph are Sendable values; unarchivers are per task.
    @Test func eightTasksDecodeOneArchive() async throws {
        let bytes = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry)
        let graph = try ArchiveGraph(bytes: bytes)
        let registry = Fleet.registry
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let pilots = try KeyedUnarchiver(graph: graph, registry: registry).decode([Pilot].self)
                    FleetRoundTripTests.checkFleet(pilots)
                    return pilots.map(\.name)
                }
            }
            var all: [[String]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(names.count == 8)
        #expect(names.allSatisfy { $0 == ["Amelia", "Bessie"] })
    }

    /// Every class in the fleet archive, left out of the registry in turn, is refused — with its
    /// own name, its UID and the key path where it was met.
    @Test func everyUnregisteredClassIsRefused() throws {
        let bytes = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry)
        let graph = try ArchiveGraph(bytes: bytes)
        func registry(without left: String) -> ArchiveRegistry {
            var registry = ArchiveRegistry(foundationClasses: Set(FoundationClass.allCases).subtracting(left == "NSArray" ? [.array] : left == "NSDate" ? [.date] : left == "NSDictionary" ? [.dictionary] : []))
            if left != "Airplane" {
                registry.register(Airplane.self)
                if left != "PoweredAirplane" { registry.register(PoweredAirplane.self, superclass: Airplane.self) }
                if left != "Glider" { registry.register(Glider.self, superclass: Airplane.self) }
            }
            if left != "Pilot" { registry.register(Pilot.self) }
            return registry
        }
        let expectations: [(left: String, refused: String, path: String)] = [
            ("NSArray", "NSArray", "root"),
            ("Pilot", "Pilot", "root[0]"),
            ("NSDate", "NSDate", "root[0].licenseDate"),
            ("Airplane", "PoweredAirplane", "root[0].airplanes[0]"),
            ("PoweredAirplane", "PoweredAirplane", "root[0].airplanes[0]"),
            ("Glider", "Glider", "root[0].airplanes[1]"),
            ("NSDictionary", "NSDictionary", "root[0].notes"),
        ]
        for (left, refused, path) in expectations {
            do {
                _ = try KeyedUnarchiver(graph: graph, registry: registry(without: left)).decode([Pilot].self)
                Issue.record("decoded without \(left)")
            } catch {
                // Asking for a type that is itself unregistered is refused as such.
                let expected: ArchiveError.Code = (left == "Pilot" || left == "Airplane") ? .typeNotRegistered : .classNotAllowed
                #expect(error.code == expected, "without \(left): \(error)")
                #expect(error.classChain.first == refused, "without \(left): \(error)")
                #expect(error.keyPath.description == path, "without \(left): \(error)")
                if let uid = error.uid {
                    #expect(graph.className(of: uid) == refused)
                } else {
                    Issue.record("without \(left): no UID in \(error)")
                }
            }
        }
    }

    /// A reference built by hand is checked, never trusted.
    @Test func handMadeReferencesAreChecked() throws {
        let bytes = try KeyedArchiver.archive("text", registry: ArchiveRegistry())
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        let decoder = unarchiver.topLevelDecoder
        for uid in [UInt64(2), 1 << 40, UInt64.max] {
            #expect(throws: ArchiveError.self) { _ = try decoder.decode(String.self, reference: ArchiveReference(uid: PropertyListUID(uid))) }
            #expect(throws: ArchiveError.self) { _ = try String.decode(archiveReference: ArchiveReference(uid: PropertyListUID(uid)), from: decoder) }
            #expect(throws: ArchiveError.self) { _ = try [Int].decode(archiveReference: ArchiveReference(uid: PropertyListUID(uid)), from: decoder) }
        }
        #expect(try decoder.decode(String.self, reference: ArchiveReference(uid: PropertyListUID(1))) == "text")
    }

    /// A conformance that returns a reference to nothing cannot make a dangling UID.
    struct Liar: ArchiveObjectEncodable {
        func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { ArchiveReference(uid: PropertyListUID(99)) }
    }

    @Test func danglingReferencesAreRefusedWhenEncoding() {
        #expect(throws: ArchiveError.self) { _ = try KeyedArchiver.archive(Liar(), registry: ArchiveRegistry()) }
    }

    /// A model that decodes from the unarchiver decoding it (found through a task-local box),
    /// instead of from the decoder it was given.
    final class Reentrant: KeyedArchivable {
        final class Box: @unchecked Sendable {
            var unarchiver: KeyedUnarchiver?
            var nestedErrors: [ArchiveError] = []
        }
        @TaskLocal static var box: Box?
        let name: String
        weak var owner: Reentrant?
        var child: Reentrant?

        init(name: String) { self.name = name }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            child = try decoder.decodeIfPresent(Reentrant.self, forKey: "child")
            decoder.decode(Reentrant.self, forKey: "owner", for: self) { object, owner in object.owner = owner }
            if let box = Self.box, let unarchiver = box.unarchiver {
                do { _ = try unarchiver.decode(Reentrant.self) } catch { box.nestedErrors.append(error) }
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(child, forKey: "child")
            try encoder.encodeConditional(owner, forKey: "owner")
        }
    }

    /// A decode started from inside another one on the same unarchiver is refused: run, it would
    /// resolve the back-references of objects still being built and clear the outer key path.
    @Test func aDecodeStartedFromAModelIsRefused() throws {
        var registry = ArchiveRegistry()
        registry.register(Reentrant.self)
        let root = Reentrant(name: "root")
        root.child = Reentrant(name: "child")
        root.child?.owner = root
        let bytes = try KeyedArchiver.archive(root, registry: registry)
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
        let box = Reentrant.Box()
        box.unarchiver = unarchiver
        let decoded = try Reentrant.$box.withValue(box) { try unarchiver.decode(Reentrant.self) }
        // Both models tried, and each was refused as a nested decode (not, say, as a cycle).
        #expect(box.nestedErrors.count == 2)
        #expect(box.nestedErrors.allSatisfy { $0.code == .invalidState && $0.message.contains("while another is under way") }, "\(box.nestedErrors)")
        #expect(decoded.name == "root" && decoded.child?.name == "child" && decoded.child?.owner === decoded)
        // The refusal leaves the unarchiver usable.
        #expect(try unarchiver.decode(Reentrant.self) === decoded)
    }
}
