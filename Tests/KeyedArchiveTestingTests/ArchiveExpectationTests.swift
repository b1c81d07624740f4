import Foundation
import KeyedArchive
import KeyedArchiveTesting
import PropertyList
import Testing
import XCTest

// Models as a service would write them. `TypoAirplane` reads back a key it never writes: the
// classic NSCoding bug the round-trip expectation exists for.
struct Airplane: KeyedArchivable, Equatable {
    var model: String
    var registrationNumber: String
    var airframeHours: Int

    init(model: String, registrationNumber: String, airframeHours: Int) {
        self.model = model
        self.registrationNumber = registrationNumber
        self.airframeHours = airframeHours
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registrationNumber = try decoder.decode(String.self, forKey: "registrationNumber")
        airframeHours = try decoder.decode(Int.self, forKey: "airframeHours")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
        try encoder.encode(airframeHours, forKey: "airframeHours")
    }
}

struct TypoAirplane: KeyedArchivable {
    var registrationNumber: String

    init(registrationNumber: String) { self.registrationNumber = registrationNumber }

    init(from decoder: KeyedArchiveDecoder) throws {
        registrationNumber = try decoder.decodeIfPresent(String.self, forKey: "registraionNumber") ?? ""
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
    }
}

/// Version 2 of a model whose key `registration` became `tailNumber`: it reads the new key and
/// falls back to the old one, and writes both, the old for readers of version 1.
struct RenamedAirplane: KeyedArchivable {
    var tailNumber: String

    init(tailNumber: String) { self.tailNumber = tailNumber }

    init(from decoder: KeyedArchiveDecoder) throws {
        tailNumber = try decoder.decodeIfPresent(String.self, forKey: "tailNumber") ?? decoder.decode(String.self, forKey: "registration")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(tailNumber, forKey: "tailNumber")
        try encoder.encode(tailNumber, forKey: "registration")
    }
}

/// Reads only two of the fields bpylist2's `complex_archive.plist` (`crap.Foo`) holds.
struct PartialFoo: KeyedArchivable {
    var title: String
    var count: Int

    init(from decoder: KeyedArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        count = try decoder.decode(Int.self, forKey: "count")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(count, forKey: "count")
    }
}

enum Fixtures {
    static var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        registry.register(TypoAirplane.self)
        registry.register(PartialFoo.self, className: "crap.Foo")
        return registry
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-testing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The archive an "app" wrote, built by hand as a property list (not by our encoder):
    /// an Airplane with one field more than the model knows.
    static func appArchive(hours: Int = 40, wingspan: Bool = true) throws -> [UInt8] {
        func uid(_ n: UInt64) -> PropertyListValue { .uid(PropertyListUID(n)) }
        var fields: [PropertyListDictionary.Entry] = [
            .init(key: "model", value: uid(2)), .init(key: "registrationNumber", value: uid(3)),
            .init(key: "airframeHours", value: .int(hours)),
        ]
        if wingspan { fields.append(.init(key: "wingspan", value: .double(15.5))) }
        fields.append(.init(key: "$class", value: uid(4)))
        let plist: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$version", value: 100_000), .init(key: "$archiver", value: "NSKeyedArchiver"),
            .init(key: "$top", value: ["root": uid(1)]),
            .init(key: "$objects", value: ["$null", .dictionary(PropertyListDictionary(entries: fields)), "Cessna 172", "N12345",
                                           ["$classname": "Airplane", "$classes": ["Airplane", "NSObject"]]]),
        ]))
        return try PropertyListCodec.encode(plist, format: .binary)
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")
}

/// The expectations passing and failing (failures asserted with `withKnownIssue`, by their text).
@Suite(.archiveRecording(.missing)) struct ArchiveExpectationTests {
    let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)

    @Test func snapshotRecordsAMissingFixtureThenMatches() throws {
        let fixture = try Fixtures.directory().appendingPathComponent("sub/airplane.plist").path
        withKnownIssue {
            expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: fixture)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("recorded \(fixture) (") && $0.rawValue.contains("because there was no fixture") }
        }
        #expect(FileManager.default.fileExists(atPath: fixture))
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: fixture)
        // Recording asked for (record mode all): written again, one failure saying so.
        let message = ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: fixture, record: .all)
        #expect(message?.contains("because of the record mode all (set by the call)") == true)
    }

    @Test func snapshotFailsWithTheDiffLines() throws {
        let fixture = try Fixtures.directory().appendingPathComponent("airplane.plist")
        try Data(Fixtures.appArchive(wingspan: false)).write(to: fixture)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: fixture.path)
        var changed = cessna
        changed.airframeHours = 41
        withKnownIssue {
            expectArchiveSnapshot(of: changed, registry: Fixtures.registry, fixture: fixture.path)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasSuffix("(A: the fixture, B: encoded now):\n  root.airframeHours: value changed: integer 40 → integer 41") }
        }
        // The same graph as XML: equal as a graph, not as bytes, and the layout says why.
        let xml = try Fixtures.directory().appendingPathComponent("airplane.xml")
        try Data(PropertyListCodec.encode(PropertyListCodec.decode(Fixtures.appArchive(wingspan: false)), format: .xml)).write(to: xml)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: xml.path)
        withKnownIssue {
            expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: xml.path, comparison: .bytes)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("holds the graph of") && $0.rawValue.contains("  layout: format: A is xml, B is binary") }
        }
    }

    @Test func decodedFixtureComparedByKeyPath() throws {
        let fixture = try Fixtures.directory().appendingPathComponent("app.plist")
        try Data(Fixtures.appArchive()).write(to: fixture)
        expectDecodedFixture(Airplane.self, fixture: fixture.path, registry: Fixtures.registry, equals: cessna)
        withKnownIssue {
            expectDecodedFixture(Airplane.self, fixture: fixture.path, registry: Fixtures.registry,
                                 equals: Airplane(model: "Cessna 172", registrationNumber: "N54321", airframeHours: 40))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasSuffix(#"root.registrationNumber: value changed: "N54321" → "N12345""#) }
        }
    }

    @Test func roundTripNamesTheMistypedKey() {
        expectArchiveRoundTrip(cessna, registry: Fixtures.registry)
        withKnownIssue {
            expectArchiveRoundTrip(TypoAirplane(registrationNumber: "N1"), registry: Fixtures.registry)
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("TypoAirplane encodes fields its init(from:) never reads:\n  root.registrationNumber (TypoAirplane, object #1)")
                && text.contains(#"root.registrationNumber: value changed: "N1" → """#)
        }
    }

    /// Version 2 renamed `registration` to `tailNumber`: it reads the new key, falling back to
    /// the old, and keeps writing the old key with the real value while old readers remain.
    /// Its `init(from:)` never reads that old key in its own archives: the round trip names it
    /// and the `ignoring:` that accepts it; given that, it passes, and still fails on a real
    /// difference.
    @Test func roundTripIgnoresAnOldKeyKeptForOldReaders() throws {
        var registry = Fixtures.registry
        registry.register(RenamedAirplane.self)
        let plane = RenamedAirplane(tailNumber: "N12345")
        let expected = """
            RenamedAirplane encodes fields its init(from:) never reads:
              root.registration (RenamedAirplane, object #1)
            if it writes them on purpose for other readers only (an old key kept for old readers), pass (grouped by Class.key, with counts):
              ignoring: [
                "RenamedAirplane.registration",  // 1 field
              ]
            """
        #expect(ArchiveExpectations.checkArchiveRoundTrip(plane, registry: registry) == expected)
        // Docs/Testing.md quotes it as it is.
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/Testing.md")
        #expect(try String(contentsOf: guide, encoding: .utf8).contains("```\n" + expected + "\n```"))
        withKnownIssue {
            expectArchiveRoundTrip(plane, registry: registry)
        } matching: { issue in
            issue.comments.map(\.rawValue) == [expected]
        }
        for pattern in ["RenamedAirplane.registration", "registration", "root.registration"] {
            #expect(ArchiveExpectations.checkArchiveRoundTrip(plane, registry: registry, ignoring: [pattern]) == nil, "\(pattern)")
        }
        expectArchiveRoundTrip(plane, registry: registry, ignoring: ["RenamedAirplane.registration"])
        // Another class's key leaves it reported, the pattern given listed first.
        let other = try #require(ArchiveExpectations.checkArchiveRoundTrip(plane, registry: registry, ignoring: ["Airplane.registration"]))
        #expect(other.contains("root.registration (RenamedAirplane, object #1)"))
        #expect(other.contains("    \"Airplane.registration\",  // given already\n    \"RenamedAirplane.registration\",  // 1 field"))
        // A malformed pattern is a failure naming it.
        let malformed = try #require(ArchiveExpectations.checkArchiveRoundTrip(plane, registry: registry, ignoring: ["root.[x"]))
        #expect(malformed.contains("root.[x"))
        // Ignoring a field does not hide what the round trip changes: the typo's lost value stays.
        let typo = try #require(ArchiveExpectations.checkArchiveRoundTrip(TypoAirplane(registrationNumber: "N1"), registry: registry,
                                                                          ignoring: ["TypoAirplane.registrationNumber"]))
        #expect(!typo.contains("never reads"))
        #expect(typo.contains(#"root.registrationNumber: value changed: "N1" → """#))
    }

    @Test func unreadFieldsOfAnAppArchive() throws {
        let fixture = try Fixtures.directory().appendingPathComponent("app.plist")
        try Data(Fixtures.appArchive()).write(to: fixture)
        withKnownIssue {
            expectNoUnreadFields(decoding: Airplane.self, fixture: fixture.path, registry: Fixtures.registry)
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["\(fixture.path) holds 1 field no init(from:) read:\n  root.wingspan (Airplane, object #1)\n" +
                "to leave them unread on purpose, pass (grouped by Class.key, with counts):\n  ignoring: [\n    \"Airplane.wingspan\",  // 1 field\n  ]"]
        }
        expectNoUnreadFields(decoding: Airplane.self, fixture: fixture.path, registry: Fixtures.registry, ignoring: ["root.wingspan"])
    }

    /// An Apple fixture (bpylist2's, made on a Mac) decoded with a model that reads two of its
    /// five fields: the other three are named, with their class.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.corpus.appendingPathComponent("MANIFEST.tsv").path),
                   "Apple corpus not found at ../shared/fixtures/apple; skipping"))
    func unreadFieldsOfAnAppleFixture() throws {
        let bytes = [UInt8](try Data(contentsOf: Fixtures.corpus.appendingPathComponent("bpylist2/complex_archive.plist")))
        var options = ArchiveReadingOptions()
        options.reportsUnreadFields = true
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fixtures.registry, options: options)
        let foo = try unarchiver.decode(PartialFoo.self)
        #expect(foo.title == "yo" && foo.count == 42)
        #expect(unarchiver.unreadFields.map(\.description) == [
            "root.metadata (crap.Foo, object #1)", "root.active (crap.Foo, object #1)", "root.categories (crap.Foo, object #1)",
        ])
        #expect(unarchiver.unreadFields.first?.classChain == ["crap.Foo", "NSCoder", "NSObject"])
        // Off by default: nothing is recorded.
        let plain = try KeyedUnarchiver(bytes: bytes, registry: Fixtures.registry)
        _ = try plain.decode(PartialFoo.self)
        #expect(plain.unreadFields.isEmpty)
    }
}

/// The same expectations from XCTest: failures arrive through `XCTFail` with the caller's
/// file and line, captured here instead of failing the test.
final class ArchiveExpectationXCTests: XCTestCase {
    var recorded: [(description: String, line: Int)] = []

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        recorded.append((description, lineNumber))
    }

    func testFailuresReachXCTestWithTheCallersLine() throws {
        let fixture = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-xctest-\(UUID().uuidString).plist")
        try Data(Fixtures.appArchive(wingspan: false)).write(to: fixture)
        let changed = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 41)
        expectArchiveSnapshot(of: changed, registry: Fixtures.registry, fixture: fixture.path); let line = #line
        let captured = recorded
        recorded = []
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.description.contains("root.airframeHours: value changed: integer 40 → integer 41") == true)
    }
}
