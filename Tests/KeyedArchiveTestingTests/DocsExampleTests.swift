import Foundation
import KeyedArchive
@testable import KeyedArchiveTesting
import Testing

/// The models of the worked example in Docs/Testing.md and the KeyedArchiveTesting catalog's
/// "Fixture tests" article, each named `Airplane` as there: the first with a key typo in
/// `init(from:)`, the second reading that key leniently. (The fixed model is the module's
/// `Airplane`.)
enum WorkedExample {
    enum Typo {
        struct Airplane: KeyedArchivable {
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
                registrationNumber = try decoder.decode(String.self, forKey: "registraionNumber")
                airframeHours = try decoder.decode(Int.self, forKey: "airframeHours")
            }

            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode(model, forKey: "model")
                try encoder.encode(registrationNumber, forKey: "registrationNumber")
                try encoder.encode(airframeHours, forKey: "airframeHours")
            }
        }
    }

    enum Lenient {
        struct Airplane: KeyedArchivable {
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
                registrationNumber = try decoder.decodeIfPresent(String.self, forKey: "registraionNumber") ?? ""
                airframeHours = try decoder.decode(Int.self, forKey: "airframeHours")
            }

            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode(model, forKey: "model")
                try encoder.encode(registrationNumber, forKey: "registrationNumber")
                try encoder.encode(airframeHours, forKey: "airframeHours")
            }
        }
    }

    /// The folder the documents show for the service's test target.
    static let shownFolder = "/src/Service/Tests/ServiceTests"

    /// A test target's folder as the example has it: `AirplaneTests.swift` (not written; its
    /// path is what `#filePath` would be) beside `Fixtures/airplane-app.plist`, the app's archive.
    static func serviceFolder() throws -> (folder: String, testFile: String) {
        let folder = try Fixtures.directory()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Fixtures"), withIntermediateDirectories: true)
        try Data(Fixtures.appArchive()).write(to: folder.appendingPathComponent("Fixtures/airplane-app.plist"))
        return (folder.path, folder.appendingPathComponent("AirplaneTests.swift").path)
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let documents = ["Docs/Testing.md", "Sources/KeyedArchiveTesting/KeyedArchiveTesting.docc/FixtureTests.md"]

    static func document(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The example's test file as the documents list it.
    static func listing(in text: String) throws -> [String] {
        let start = try #require(text.range(of: "```swift\nimport KeyedArchive\nimport KeyedArchiveTesting\nimport Testing\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return text[text.index(start.lowerBound, offsetBy: 9)..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Swift Testing's two lines for an issue an expectation records: the test, the file, the
    /// line and the column of the call's `(` in the listing; then the text on a `↳` line, each
    /// further line indented by two spaces.
    static func issue(test: String, call: String, occurrence: Int = 1, listing: [String], message: String) throws -> String {
        let lines = listing.indices.filter { listing[$0].contains(call + "(") }
        let line = try #require(lines.dropFirst(occurrence - 1).first)
        let column = try #require(listing[line].range(of: call + "(")).upperBound.utf16Offset(in: listing[line])
        let text = message.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
        return "✘ Test \(test) recorded an issue at AirplaneTests.swift:\(line + 1):\(column): Issue recorded\n↳ \(text)"
    }
}

/// The worked example run: each text the documents quote is made here, and must be in both.
@Suite(.archiveRecording(.missing)) struct DocsExampleTests {
    func expectInDocuments(_ block: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for path in WorkedExample.documents {
            let text = try WorkedExample.document(path)
            #expect(text.contains(block), "\(path) lacks:\n\(block)", sourceLocation: sourceLocation)
        }
    }

    @Test func theWorkedExampleOutputs() throws {
        let (folder, testFile) = try WorkedExample.serviceFolder()
        func shown(_ text: String?) -> String { (text ?? "nil").replacingOccurrences(of: folder, with: WorkedExample.shownFolder) }
        let listing = try WorkedExample.listing(in: WorkedExample.document(WorkedExample.documents[0]))
        #expect(try WorkedExample.listing(in: WorkedExample.document(WorkedExample.documents[1])) == listing)
        let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)
        let app = "Fixtures/airplane-app.plist"

        // The first run: the typo, a reference the model does not match yet, a new snapshot.
        var typo = ArchiveRegistry()
        typo.register(WorkedExample.Typo.Airplane.self, className: "Airplane")
        let typoCessna = WorkedExample.Typo.Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)
        let snapshot = ArchiveFixtureLocation.besideTest(format: .json, testFilePath: testFile, function: "writesWhatTheServiceWrote()")
        let firstRun = [
            try WorkedExample.issue(test: "readsWhatTheAppWrote()", call: "expectDecodedFixture", listing: listing, message: shown(
                ArchiveExpectations.checkDecodedFixture(WorkedExample.Typo.Airplane.self, fixture: app, relativeTo: .testFile, registry: typo,
                                                  equals: typoCessna, testFilePath: testFile))),
            try WorkedExample.issue(test: "readsWhatTheAppWrote()", call: "expectLosslessDecoding", listing: listing, message: shown(
                ArchiveExpectations.checkLosslessDecoding(WorkedExample.Typo.Airplane.self, fixture: app, relativeTo: .testFile, registry: typo,
                                                          testFilePath: testFile))),
            try WorkedExample.issue(test: "writesWhatTheAppWrote()", call: "expectArchiveReference", listing: listing, message: shown(
                ArchiveExpectations.checkArchiveReference(of: typoCessna, registry: typo, reference: app, relativeTo: .testFile, comparison: .values,
                                                   testFilePath: testFile))),
            try WorkedExample.issue(test: "writesWhatTheServiceWrote()", call: "expectArchiveSnapshot", listing: listing, message: shown(
                ArchiveExpectations.checkArchiveSnapshot(of: typoCessna, registry: typo, format: .json, testFilePath: testFile,
                                                  function: "writesWhatTheServiceWrote()"))),
            try WorkedExample.issue(test: "encodeAndDecodeAgree()", call: "expectArchiveRoundTrip", listing: listing, message: shown(
                ArchiveExpectations.checkArchiveRoundTrip(typoCessna, registry: typo))),
        ].joined(separator: "\n")
        try expectInDocuments("```\n" + firstRun + "\n```")
        #expect(FileManager.default.fileExists(atPath: snapshot.path))

        // The typo fixed: what the app writes and the model drops is named, twice.
        let lossless = ArchiveExpectations.checkLosslessDecoding(Airplane.self, fixture: app, relativeTo: .testFile, registry: Fixtures.registry,
                                                                 testFilePath: testFile)
        try expectInDocuments("```\n" + shown(lossless) + "\n```")
        let reference = ArchiveExpectations.checkArchiveReference(of: cessna, registry: Fixtures.registry, reference: app, relativeTo: .testFile,
                                                           comparison: .values, testFilePath: testFile)
        try expectInDocuments("```\n" + shown(reference) + "\n```")
        // Left out on purpose, as the lists say: green.
        #expect(ArchiveExpectations.checkLosslessDecoding(Airplane.self, fixture: app, relativeTo: .testFile, registry: Fixtures.registry,
                                                          ignoring: ["Airplane.wingspan"], testFilePath: testFile) == nil)
        #expect(ArchiveExpectations.checkArchiveReference(of: cessna, registry: Fixtures.registry, reference: app, relativeTo: .testFile,
                                                   comparison: .values, ignoring: ["Airplane.wingspan"], testFilePath: testFile) == nil)
        #expect(ArchiveExpectations.checkDecodedFixture(Airplane.self, fixture: app, relativeTo: .testFile, registry: Fixtures.registry,
                                                  equals: cessna, testFilePath: testFile) == nil)
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, format: .json, testFilePath: testFile,
                                                  function: "writesWhatTheServiceWrote()") == nil)

        // Read leniently instead, the key typo shows in the round trip both ways.
        var lenient = ArchiveRegistry()
        lenient.register(WorkedExample.Lenient.Airplane.self, className: "Airplane")
        let roundTrip = ArchiveExpectations.checkArchiveRoundTrip(WorkedExample.Lenient.Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40),
                                                           registry: lenient)
        try expectInDocuments("```\n" + shown(roundTrip) + "\n```")

        // What the service writes changes: the snapshot's diff, then the same run with
        // KEYEDARCHIVE_RECORD=failed, which accepts the change.
        var changed = cessna
        changed.airframeHours = 41
        let diff = ArchiveExpectations.checkArchiveSnapshot(of: changed, registry: Fixtures.registry, format: .json, testFilePath: testFile,
                                                     function: "writesWhatTheServiceWrote()")
        try expectInDocuments("```\n" + shown(diff) + "\n```")
        let accepted = ArchiveExpectations.checkArchiveSnapshot(of: changed, registry: Fixtures.registry, at: snapshot, format: .json, comparison: .graph,
                                                         writingOptions: .default, recording: ArchiveRecording(mode: .failed, origin: .environment("failed")))
        try expectInDocuments("```\n" + shown(accepted) + "\n```")
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: changed, registry: Fixtures.registry, format: .json, testFilePath: testFile,
                                                  function: "writesWhatTheServiceWrote()") == nil)
    }

    /// What Swift Testing prints for an expectation's issue, from a real run of a failing test
    /// in a child process: the shape the documents show.
    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func swiftTestingPrintsTheShapeTheDocumentsShow() throws {
        let output = try RecordEnvironmentChild.run(directory: try Fixtures.directory().path, record: "never", filter: "DocsOutputChild")
        // Colours, when the child thinks it writes to a terminal, are not part of the text.
        let plain = output.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        let lines = plain.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("✘ Test failsAsTheExampleShows() recorded an issue at DocsExampleTests.swift:") })
        #expect(lines[header].range(of: #"^✘ Test failsAsTheExampleShows\(\) recorded an issue at DocsExampleTests\.swift:\d+:\d+: Issue recorded$"#,
                                    options: .regularExpression) != nil, "\(lines[header])")
        #expect(Array(lines[(header + 1)...].prefix(4)) == [
            "↳ TypoAirplane encodes fields its init(from:) never reads:",
            "    root.registrationNumber (TypoAirplane, object #1)",
            "  TypoAirplane archived, decoded and archived again differs (A: first archive, B: second):",
            "    root.registrationNumber: value changed: \"N1\" → \"\"",
        ], "\(plain)")
    }
}

/// Run only as the child of `swiftTestingPrintsTheShapeTheDocumentsShow`.
@Suite struct DocsOutputChild {
    @Test(.enabled(if: ProcessInfo.processInfo.environment[RecordEnvironmentChild.directoryVariable] != nil))
    func failsAsTheExampleShows() {
        expectArchiveRoundTrip(TypoAirplane(registrationNumber: "N1"), registry: Fixtures.registry)
    }
}
