import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// v2 of the story's pilot (Docs/Compatibility.md, "A versioning story"): archived as
/// `FleetApp.Pilot` with a rank, read back with `decodeIfPresent` and a default.
struct StoryPilot: KeyedArchivable, Equatable {
    var name: String
    var hours: Int
    var rank: String

    init(name: String, hours: Int, rank: String) {
        self.name = name
        self.hours = hours
        self.rank = rank
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        hours = try decoder.decode(Int.self, forKey: "hours")
        rank = try decoder.decodeIfPresent(String.self, forKey: "rank") ?? "pilot"
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(hours, forKey: "hours")
        try encoder.encode(name, forKey: "name")
        try encoder.encode(rank, forKey: "rank")
    }
}

/// Docs/Compatibility.md, "A key renamed": the airplane after `registration` became
/// `tailNumber`, read from either key and written under both while old readers remain.
struct RenamedKeyAirplane: KeyedArchivable, Equatable {
    var registration: String

    init(registration: String) {
        self.registration = registration
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        registration = try decoder.decodeIfPresent(String.self, forKey: "tailNumber")
            ?? decoder.decode(String.self, forKey: "registration")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(registration, forKey: "tailNumber")
        try encoder.encode(registration, forKey: "registration")   // for readers of the old version
    }
}

/// The same airplane as the version before the rename wrote it.
struct RegistrationKeyAirplane: KeyedArchivable, Equatable {
    var registration: String

    init(registration: String) {
        self.registration = registration
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        registration = try decoder.decode(String.self, forKey: "registration")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(registration, forKey: "registration")
    }
}

/// Docs/Compatibility.md's "In tests": every line of code of its Swift snippets is in this file
/// and runs here, against the repository's own contracts and decisions (the working directory of
/// `swift test` is the package root, as the snippets' relative paths assume), and the failure
/// text the document shows is the one a test gets.
@Suite struct CompatibilityDocSnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let amelia = StoryPilot(name: "Amelia", hours: 1200, rank: "captain")
    let bessie = StoryPilot(name: "Bessie", hours: 800, rank: "first officer")
    var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(StoryPilot.self, className: "FleetApp.Pilot")
        return registry
    }

    /// The section's Swift and failure-text blocks, in order.
    static func blocks() throws -> (swift: [String], text: [String]) {
        let document = try String(contentsOf: packageRoot.appendingPathComponent("Docs/Compatibility.md"), encoding: .utf8)
        let section = try #require(document.components(separatedBy: "## In tests\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        var swift: [String] = [], text: [String] = []
        var current: String?
        var kind = ""
        for line in section.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                if let block = current {
                    if kind == "swift" { swift.append(block) } else if kind == "text" { text.append(block) }
                    current = nil
                } else {
                    kind = String(line.dropFirst(3))
                    current = ""
                }
                continue
            }
            if current != nil { current! += line + "\n" }
        }
        return (swift, text)
    }

    /// Every statement of the snippets (not the signature listing) is a line of this file.
    @Test func everySnippetLineIsRunHere() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let here = Set(source.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let snippets = try Self.blocks().swift.filter { !$0.hasPrefix("func ") }
        #expect(snippets.count == 3)
        for snippet in snippets {
            for line in snippet.components(separatedBy: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            where !line.isEmpty && !line.hasPrefix("//") && line != "}" && !line.hasPrefix("import ") && !line.hasPrefix("@Test func") {
                #expect(here.contains(line), "not run by this file: \(line)")
            }
        }
    }

    /// "A key renamed": the fix reads archives of both versions, and what it writes the old
    /// version reads, with the real value, and is compatible with the old contract.
    @Test func aRenamedKeysFixKeepsTheValueBothWays() throws {
        var old = ArchiveRegistry()
        old.register(RegistrationKeyAirplane.self, className: "Airplane")
        var new = ArchiveRegistry()
        new.register(RenamedKeyAirplane.self, className: "Airplane")
        let written = try KeyedArchiver.archive(RegistrationKeyAirplane(registration: "N3918K"), registry: old)
        #expect(try KeyedUnarchiver.unarchive(RenamedKeyAirplane.self, from: written, registry: new) == RenamedKeyAirplane(registration: "N3918K"))
        let rewritten = try KeyedArchiver.archive(RenamedKeyAirplane(registration: "D-8721"), registry: new)
        #expect(try KeyedUnarchiver.unarchive(RegistrationKeyAirplane.self, from: rewritten, registry: old) == RegistrationKeyAirplane(registration: "D-8721"))
        #expect(try KeyedUnarchiver.unarchive(RenamedKeyAirplane.self, from: rewritten, registry: new) == RenamedKeyAirplane(registration: "D-8721"))
        // Against the old version's archives, only the key added is reported (the fallback read
        // is what answers it): nothing was lost, so nothing is reported lost.
        let compatibility = ArchiveCompatibility(old: try ArchiveSchemaSource(name: "old", files: [("old.plist", written)]),
                                                 new: try ArchiveSchemaSource(name: "new", files: [("new.plist", rewritten)]))
        #expect(compatibility.changes.map { "\($0.rule.rawValue) \($0.location)" } == ["key-added Airplane.tailNumber"])
    }

    /// The first snippet, as written: v2 against v1's contract and the decision beside it.
    @Test func pilotsStayCompatible() {
        // What v2 archives, against v1's contract and the decisions beside it (compat-decisions.txt).
        expectArchiveCompatible(of: [amelia, bessie], registry: registry, contract: "Fixtures/compat/decisions/contracts/v1.schema.json")
        // Or the team's fixtures of v2:
        expectFixturesCompatible(folder: "Fixtures/compat/story/v2", contract: "Fixtures/compat/decisions/contracts/v1.schema.json")
    }

    /// The second: without a decision, the failure the document shows, word for word.
    @Test func withoutADecisionItFailsAsShown() throws {
        let expected = try #require(try Self.blocks().text.first)
        withKnownIssue {
            expectArchiveCompatible(of: [amelia, bessie], registry: registry, contract: "Fixtures/compat/story/v1.schema.json")
        } matching: { issue in
            issue.comments.map { $0.rawValue.replacingOccurrences(of: Self.packageRoot.path, with: "/…") } == [String(expected.dropLast())]
        }
    }

    /// The third: recording, once, and never again over the same file.
    @Test func recordingIsOnceAndNeverAReplacement() throws {
        let contracts = FileManager.default.temporaryDirectory.appendingPathComponent("contracts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: contracts) }
        // Once, when v2 ships; review the file and check it in.
        try ArchiveExpectations.recordContract(of: [amelia, bessie], registry: registry, at: ArchiveFixtureLocation("v2.schema.json", relativeTo: .folder(contracts)))
        // Or from a folder of fixtures (the same as `keyedarchive schema Fixtures/compat/story/v2 --json > …`):
        try ArchiveExpectations.recordContract(fixturesIn: "Fixtures/compat/story/v2", at: ArchiveFixtureLocation("v2-fixtures.schema.json", relativeTo: .folder(contracts)))
        // The two describe the same archives (the model writes what the fixtures hold).
        let fromValues = try ArchiveSchema(jsonFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: contracts + "/v2.schema.json"))))
        let fromFixtures = try ArchiveSchema(jsonFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: contracts + "/v2-fixtures.schema.json"))))
        #expect(fromValues.class(named: "FleetApp.Pilot")?.keys.map(\.storedKey).sorted() == fromFixtures.class(named: "FleetApp.Pilot")?.keys.map(\.storedKey).sorted())
        #expect(throws: ArchiveFixtureError.self) {
            try ArchiveExpectations.recordContract(of: [amelia, bessie], registry: registry, at: ArchiveFixtureLocation("v2.schema.json", relativeTo: .folder(contracts)))
        }
    }

    /// The decisions file the walk-through shows is the one in the repository, and the fix it
    /// shows is the line `StoryPilot` decodes with.
    @Test func theWalkThroughShowsTheRepositorysFiles() throws {
        let document = try String(contentsOf: Self.packageRoot.appendingPathComponent("Docs/Compatibility.md"), encoding: .utf8)
        let decisions = try String(contentsOf: Self.packageRoot.appendingPathComponent("Fixtures/compat/decisions/contracts/compat-decisions.txt"), encoding: .utf8)
        #expect(document.contains("```\n" + decisions + "```\n"))
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let fix = "rank = try decoder.decodeIfPresent(String.self, forKey: \"rank\") ?? \"pilot\""
        #expect(document.contains("```swift\n" + fix + "\n```"))
        #expect(source.contains("        " + fix + "\n"))
    }
}
