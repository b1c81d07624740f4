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
}
