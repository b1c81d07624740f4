import Foundation
import KeyedArchive
import KeyedArchiveTesting
import PropertyList
import Testing

/// Reads `airframeHours` under a misspelt key, leniently: the value is lost, not refused.
struct LenientAirplane: KeyedArchivable {
    var model: String
    var registrationNumber: String
    var airframeHours: Int

    init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registrationNumber = try decoder.decode(String.self, forKey: "registrationNumber")
        airframeHours = try decoder.decodeIfPresent(Int.self, forKey: "airframeHour") ?? 0
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registrationNumber, forKey: "registrationNumber")
        try encoder.encode(airframeHours, forKey: "airframeHours")
    }
}

/// Every field of bpylist2's `crap.Foo`.
struct FullFoo: KeyedArchivable {
    var metadata: [String: String]
    var title: String
    var count: Int
    var active: Bool
    var categories: [String]

    init(from decoder: KeyedArchiveDecoder) throws {
        metadata = try decoder.decode([String: String].self, forKey: "metadata")
        title = try decoder.decode(String.self, forKey: "title")
        count = try decoder.decode(Int.self, forKey: "count")
        active = try decoder.decode(Bool.self, forKey: "active")
        categories = try decoder.decode([String].self, forKey: "categories")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(metadata, forKey: "metadata")
        try encoder.encode(title, forKey: "title")
        try encoder.encode(count, forKey: "count")
        try encoder.encode(active, forKey: "active")
        try encoder.encode(categories, forKey: "categories")
    }
}

@Suite struct LosslessDecodingTests {
    let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)

    /// The model drops `wingspan`: the decode expectation cannot see it (both sides are archived
    /// through the model), the lossless one names it.
    @Test func droppedFieldIsNamed() throws {
        let fixture = try Fixtures.directory().appendingPathComponent("app.plist").path
        try Data(Fixtures.appArchive()).write(to: URL(fileURLWithPath: fixture))
        expectDecodedFixture(Airplane.self, fixture: fixture, registry: Fixtures.registry, equals: cessna)
        withKnownIssue {
            expectLosslessDecoding(Airplane.self, fixture: fixture, registry: Fixtures.registry)
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "\(fixture) decoded as Airplane and encoded again loses or changes data (A: the fixture, B: Airplane encoded again):\n" +
                "  root.wingspan: only in A: real 15.5\n" +
                "if the model drops them on purpose, pass (grouped by Class.key, with counts):\n  ignoring: [\n    \"Airplane.wingspan\",  // 1 field\n  ]",
            ]
        }
        expectLosslessDecoding(Airplane.self, fixture: fixture, registry: Fixtures.registry, ignoring: ["Airplane.wingspan"])
        expectLosslessDecoding(Airplane.self, fixture: fixture, registry: Fixtures.registry, ignoring: ["root.wingspan"])
    }

    /// A field read under a misspelt key with a default: its value changes, and is named.
    @Test func changedFieldIsNamed() throws {
        var registry = ArchiveRegistry()
        registry.register(LenientAirplane.self, className: "Airplane")
        let fixture = try Fixtures.directory().appendingPathComponent("app.plist").path
        try Data(Fixtures.appArchive(wingspan: false)).write(to: URL(fileURLWithPath: fixture))
        let message = ArchiveExpectations.checkLosslessDecoding(LenientAirplane.self, fixture: fixture, registry: registry)
        #expect(message == "\(fixture) decoded as LenientAirplane and encoded again loses or changes data (A: the fixture, B: LenientAirplane encoded again):\n" +
                "  root.airframeHours: value changed: integer 40 → integer 0")
    }

    /// An Apple fixture (bpylist2's, made on a Mac): the full model keeps everything, the
    /// subset model drops three fields, which its pasted list then ignores.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.corpus.appendingPathComponent("MANIFEST.tsv").path),
                   "Apple corpus not found at ../shared/fixtures/apple; skipping"))
    func appleFixtureWithFullAndSubsetModels() throws {
        let fixture = Fixtures.corpus.appendingPathComponent("bpylist2/complex_archive.plist").path
        var full = ArchiveRegistry()
        full.register(FullFoo.self, className: "crap.Foo")
        expectLosslessDecoding(FullFoo.self, fixture: fixture, registry: full)
        let message = try #require(ArchiveExpectations.checkLosslessDecoding(PartialFoo.self, fixture: fixture, registry: Fixtures.registry))
        #expect(message.hasSuffix("""
              root.metadata: only in A: NSDictionary object
              root.active: only in A: true
              root.categories: only in A: NSArray object
            if the model drops them on purpose, pass (grouped by Class.key, with counts):
              ignoring: [
                "crap.Foo.metadata",  // 1 field
                "crap.Foo.active",  // 1 field
                "crap.Foo.categories",  // 1 field
              ]
            """))
        expectLosslessDecoding(PartialFoo.self, fixture: fixture, registry: Fixtures.registry,
                               ignoring: ["crap.Foo.metadata", "crap.Foo.active", "crap.Foo.categories"])
        // The same archive as an app with mutable collections writes it, kept as JSON: the
        // mutable classes are not data the model loses.
        let text = try String(decoding: PropertyListJSONRenderer.render(PropertyListCodec.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: fixture))))),
                              as: UTF8.self)
        let mutable = text.replacingOccurrences(of: "\"NSArray\"", with: "\"NSMutableArray\"")
            .replacingOccurrences(of: "\"NSDictionary\"", with: "\"NSMutableDictionary\"")
        #expect(mutable.contains("NSMutableArray") && mutable.contains("NSMutableDictionary"))
        let json = try Fixtures.directory().appendingPathComponent("mutable.json")
        try Data(mutable.utf8).write(to: json)
        expectLosslessDecoding(FullFoo.self, fixture: json.path, registry: full)
    }

    /// A subset model of a large archive: the dropped fields are listed up to the bound and
    /// counted past it; the pasted patterns silence the check.
    @Test func subsetModelWithPatterns() throws {
        let fixture = try PackageProject.fixture()
        let message = try #require(ArchiveExpectations.checkLosslessDecoding(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry))
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines[1] == "  root.model: only in A: \"m\"")
        #expect(lines.contains("  … and 33 more"))
        #expect(lines.suffix(4) == ["  ignoring: [", "    \"DChoice.model\",  // 21 fields", "    \"PackageReference.URL\",  // 112 fields", "  ]"])
        expectLosslessDecoding(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry, ignoring: ["DChoice.model", "PackageReference.URL"])
        expectLosslessDecoding(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry, ignoring: ["model", "URL"])
    }
}
