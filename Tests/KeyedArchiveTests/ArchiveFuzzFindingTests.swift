import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Regression tests for the findings of the keyed-archive fuzz targets `archive` and `typed`
/// (FuzzTesting/, Docs/Fuzzing.md "Findings"). Each input is kept in Fixtures/fuzz-findings/.
@Suite struct ArchiveFuzzFindingTests {
    static func finding(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fuzz-findings/\(name)")))
    }

    /// Archived as a `Pilot` with one airplane and an integer for `notes`, so that decoding it
    /// as `Pilot` fails after the airplane registered its (deferred, weak) owner back-reference.
    final class PilotWithBadNotes: KeyedArchivable {
        init() {}
        init(from decoder: KeyedArchiveDecoder) throws {
            throw ArchiveError(.invalidState, "only archived by these tests")
        }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode("Amelia", forKey: "name")
            try encoder.encode([Airplane(model: "ASK 21", registrationNumber: "D-8721", airframeHours: 1)], forKey: "airplanes")
            try encoder.encode(7, forKey: "notes")
        }
    }

    static func pilotWithBadNotes() throws -> [UInt8] {
        var registry = ArchiveRegistry()
        registry.register(PilotWithBadNotes.self, className: "Pilot")
        registry.register(Airplane.self)
        return try KeyedArchiver.archive(PilotWithBadNotes(), registry: registry)
    }

    /// Whether the decoding session of a failed decode is freed once the unarchiver is.
    static func sessionIsFreedAfterFailure<T: ArchiveObjectDecodable>(_ type: T.Type, bytes: [UInt8], registry: ArchiveRegistry) throws -> Bool {
        weak var session: ArchiveDecodingSession?
        try {
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
            session = unarchiver.session
            #expect(throws: ArchiveError.self) { _ = try unarchiver.decode(type) }
        }()
        return session == nil
    }

    /// F4 (`typed` target): a decode that failed after an object had registered a deferred
    /// back-reference (an airplane's weak `owner`) kept that closure, which holds a decoder,
    /// which holds the session: a reference cycle that leaked the session, the graph and every
    /// object decoded so far on each failed decode. Fixed: a failed decode drops its deferred work.
    @Test func failedDecodeWithPendingBackReferenceLeaksNothing() throws {
        let handMade = try Self.pilotWithBadNotes()
        #expect(try Self.sessionIsFreedAfterFailure(Pilot.self, bytes: handMade, registry: Fleet.registry))
        let fuzzed = try Self.finding("typed-failed-decode-leak.fuzz.xml")
        #expect(try Self.sessionIsFreedAfterFailure([Pilot].self, bytes: fuzzed, registry: Fleet.registry))
    }
}
