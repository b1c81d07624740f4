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
