import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Regression tests for the findings of the keyed-archive fuzz targets `archive` and `typed`
/// (FuzzTesting/, Docs/Development/Fuzzing.md "Findings"). Each input is kept in Fixtures/fuzz-findings/.
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

    struct DuplicateKeyCase: Sendable, CustomStringConvertible {
        let file: String
        let code: ArchiveError.Code
        let uid: UInt64?
        var description: String { file }
    }

    static let duplicateKeyCases: [DuplicateKeyCase] = [
        DuplicateKeyCase(file: "duplicate-class-key.bplist", code: .invalidClassReference, uid: 1),
        DuplicateKeyCase(file: "duplicate-classname.bplist", code: .invalidClassDescriptor, uid: 2),
        DuplicateKeyCase(file: "duplicate-objects.bplist", code: .invalidArchiveHeader, uid: nil),
    ]

    /// F5 (`archive` target): a reserved key stored twice in one dictionary — `$class` in an
    /// instance, `$classname`/`$classes`/`$classhints` in a class dictionary, `$archiver`,
    /// `$version`, `$objects` or `$top` in the root. Binary plists can hold duplicate keys; we
    /// took the last, Core Foundation's binary reader (what NSKeyedUnarchiver reads with) keeps
    /// the first, so `keyedarchive validate` could admit an object as `Pilot` that Apple decodes
    /// as `Glider`, or check a different `$objects` altogether. Fixed: refused, located.
    @Test(arguments: duplicateKeyCases)
    func reservedKeysStoredTwiceAreRefused(_ testCase: DuplicateKeyCase) throws {
        let bytes = try Self.finding(testCase.file)
        // The property list itself is fine: only the archive is ambiguous.
        _ = try PropertyListCodec.decode(bytes)
        let error = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(error?.code == testCase.code)
        #expect(error?.uid?.value == testCase.uid)
        #expect(error?.message.contains("appears 2 times") == true)
        let typed = #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry) }
        #expect(typed?.code == testCase.code)
    }

    struct DuplicateUserKeyCase: Sendable, CustomStringConvertible {
        let file: String
        let keyPath: String
        let uid: UInt64?
        /// What Core Foundation's binary reader makes of the doubled key: the first value.
        let foundationReads: (object: Int, key: String, value: String)?
        var description: String { file }
    }

    static let duplicateUserKeyCases: [DuplicateUserKeyCase] = [
        DuplicateUserKeyCase(file: "duplicate-user-key.bplist", keyPath: "root.name", uid: 1, foundationReads: (1, "name", "A")),
        DuplicateUserKeyCase(file: "duplicate-string-payload.bplist", keyPath: "root.name.NS.string", uid: 3, foundationReads: (3, "NS.string", "A")),
        DuplicateUserKeyCase(file: "duplicate-top-key.bplist", keyPath: "root", uid: nil, foundationReads: nil),
    ]

    /// Left open by F5, closed here: a *user* key stored twice (a model's field, an NSString's
    /// `NS.string`, a `$top` key). Core Foundation's binary reader keeps the first value, its
    /// XML reader and Python's plistlib the last, so the archive means different things to
    /// different readers; typed decoding refuses it (`duplicateKey`, located) instead of picking
    /// one. The generic view keeps both entries: nothing is lost for inspection.
    @Test(arguments: duplicateUserKeyCases)
    func userKeysStoredTwiceAreRefusedByTypedDecoding(_ testCase: DuplicateUserKeyCase) throws {
        let bytes = try Self.finding(testCase.file)
        let graph = try ArchiveGraph(bytes: bytes)
        if let (object, key, value) = testCase.foundationReads {
            guard case .instance(let instance) = graph.objects[object] else {
                Issue.record("object #\(object) is not an instance")
                return
            }
            #expect(instance.storage.entries.filter { $0.key == key }.count == 2)
            let read = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any]
            let objects = read?["$objects"] as? [Any]
            #expect((objects?[object] as? [String: Any])?[key] as? String == value, "Core Foundation's binary reader keeps the first")
        }
        let error = #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry) }
        #expect(error?.code == .duplicateKey)
        #expect(error?.keyPath.description == testCase.keyPath)
        #expect(error?.uid?.value == testCase.uid)
        #expect(error?.message.contains("appears 2 times") == true)
    }

    /// `keyedarchive validate` refuses the same archives, at the same key path and UID, even
    /// with every class allowed: no allowlist can vouch for an archive that means two things.
    @Test(arguments: duplicateUserKeyCases)
    func allowlistRefusesUserKeysStoredTwice(_ testCase: DuplicateUserKeyCase) throws {
        let graph = try ArchiveGraph(bytes: try Self.finding(testCase.file))
        let report = ArchiveClassAllowlist(classNames: ["Pilot", "NSString"]).check(graph)
        #expect(report.refusalCount == 1)
        let refusal = try #require(report.refusals.first)
        #expect(refusal.code == .duplicateKey)
        #expect(refusal.keyPath.description == testCase.keyPath)
        #expect(refusal.uid?.value == testCase.uid)
    }

    /// The same archive without the doubled key decodes: the refusal is about the key alone.
    @Test func anArchiveWithDistinctKeysStillDecodes() throws {
        let pilot = Pilot(name: "Amelia", airplanes: [], licenseDate: nil, notes: ["a": "b"])
        let bytes = try KeyedArchiver.archive(pilot, registry: Fleet.registry)
        #expect(try KeyedUnarchiver.unarchive(Pilot.self, from: bytes, registry: Fleet.registry).name == "Amelia")
    }

    /// The reason for F5, pinned: Foundation's binary reader keeps the first of two equal keys
    /// (`{a: 1, a: 2}` reads as `{a: 1}`), its XML reader the last.
    @Test func foundationKeepsTheFirstDuplicateKeyOfABinaryPlist() throws {
        let binary = try Self.finding("duplicate-key-plain.bplist")
        let read = try PropertyListSerialization.propertyList(from: Data(binary), format: nil) as? [String: Int]
        #expect(read == ["a": 1])
        let xml = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer></dict></plist>"#
        let readXML = try PropertyListSerialization.propertyList(from: Data(xml.utf8), format: nil) as? [String: Int]
        #expect(readXML == ["a": 2])
    }

    /// The fuzzer's own input for F5 (a real-world-sized archive whose object #53 stores `$class` twice).
    @Test func fuzzedArchiveWithTwoClassKeysIsRefused() throws {
        let bytes = try Self.finding("duplicate-class-key.fuzz.bplist")
        let error = #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(error?.code == .invalidClassReference)
        #expect(error?.message.contains("$class appears") == true)
    }

    /// F6 (`archive` target, not a bug): `$objects[128]` is a bare UID to #137, the only path
    /// to that instance. The renderers print a bare UID entry as `{"$id": 128, "$uid": 137}`
    /// without following it, as Docs/KeyedArchiveFormat.md specifies; the harness had assumed
    /// they follow it. Pinned here; the harness's reachability model was corrected.
    @Test func bareUIDEntryRendersAsAMarkerAndIsNotFollowed() throws {
        let graph = try ArchiveGraph(bytes: Self.finding("bare-uid-entry.fuzz.bplist"))
        #expect(graph.objects[128] == .other(.uid(PropertyListUID(137))))
        #expect(graph.references(of: PropertyListUID(128)) == [PropertyListUID(137)])
        let json = ArchiveJSONRenderer.render(graph)
        #expect(json.contains(#"{"$id": 128, "$uid": 137}"#))
        #expect(!json.contains(#"{"$id": 137,"#))
    }

    /// F9: a tree holding an NSDate whose `NS.time` is a NaN with a payload (a real device's
    /// archive, mutated). Binary keeps the real's bits; XML writes every NaN as `nan`, as Core
    /// Foundation does (XMLDifferentialTests), so the archiver refuses it, and when told to write
    /// as Core Foundation does, the tree reads back with the canonical NaN.
    @Test func nanPayloadsSurviveBinaryAndBecomeCanonicalInXML() throws {
        let payload = Double(bitPattern: 0xFFF3_FFFF_DE43_90A0)
        #expect(payload.isNaN && payload.bitPattern != Double.nan.bitPattern)
        let tree = PropertyListValue.array([.dictionary(PropertyListDictionary(entries: [
            .init(key: "startDate", value: .date(PropertyListDate(secondsSinceReferenceDate: payload))),
            .init(key: "ratio", value: .real(.float64(payload))),
        ]))])
        func roundTrip(_ format: ArchiveFormat) throws -> [PropertyListValue] {
            var options = ArchiveWritingOptions()
            options.xmlValueLoss = .acceptAsCoreFoundation
            let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
            try archiver.encode(tree)
            let again = try KeyedUnarchiver(bytes: try archiver.finish(format: format), registry: ArchiveRegistry()).decode(PropertyListValue.self)
            guard case .array(let elements) = again, case .dictionary(let dictionary)? = elements.first else { return [] }
            return dictionary.entries.map(\.value)
        }
        let binary = try roundTrip(.binary)
        #expect(binary == [.date(PropertyListDate(secondsSinceReferenceDate: payload)), .real(.float64(payload))])
        let strict = KeyedArchiver(registry: ArchiveRegistry())
        try strict.encode(tree)
        let refusal = #expect(throws: ArchiveError.self) { try strict.finish(format: .xml) }
        #expect(refusal?.code == .unrepresentableValue)
        let xml = try roundTrip(.xml)
        guard case .date(let date)? = xml.first, case .real(let real)? = xml.last else {
            Issue.record("XML round trip lost the values: \(xml)")
            return
        }
        #expect(date.secondsSinceReferenceDate.bitPattern == Double.nan.bitPattern)
        #expect(real.doubleValue.bitPattern == Double.nan.bitPattern)
    }
}
