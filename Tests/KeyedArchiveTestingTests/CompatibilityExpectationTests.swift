import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// Version 1 of a model, as the app in users' hands archives it.
struct ContractPilotV1: KeyedArchivable {
    var name: String
    var hours: Int

    init(name: String, hours: Int) {
        self.name = name
        self.hours = hours
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        hours = try decoder.decode(Int.self, forKey: "hours")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(hours, forKey: "hours")
    }
}

/// Version 2: a rank every pilot now has.
struct ContractPilotV2: KeyedArchivable {
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
        rank = try decoder.decode(String.self, forKey: "rank")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(hours, forKey: "hours")
        try encoder.encode(rank, forKey: "rank")
    }
}

/// The compatibility expectation: a contract written when missing, the same lines `compat`
/// prints on a breaking change, modes and ignores, each record mode's writing, a folder of
/// fixtures, and a contract that does not read (never rewritten).
@Suite struct CompatibilityExpectationTests {
    static var v1Registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(ContractPilotV1.self, className: "Pilot")
        return registry
    }

    static var v2Registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(ContractPilotV2.self, className: "Pilot")
        return registry
    }

    let v1 = [ContractPilotV1(name: "Amelia", hours: 120), ContractPilotV1(name: "Bessie", hours: 80)]
    let v2 = [ContractPilotV2(name: "Amelia", hours: 120, rank: "captain"), ContractPilotV2(name: "Bessie", hours: 80, rank: "first officer")]

    /// The contract as v1 records it: the schema file of its archives.
    func recordV1(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("pilot.schema.json").path
        let recorded = ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(path))
        #expect(recorded?.hasPrefix("recorded \(path) (") == true, "\(recorded ?? "")")
        #expect(recorded?.hasSuffix(" bytes) because there was no fixture; check it in and run the test again") == true)
        return path
    }

    @Test func missingContractIsRecordedThenHolds() throws {
        let directory = try Fixtures.directory()
        let path = try recordV1(in: directory)
        let contract = try ArchiveSchema(jsonFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(contract.archiveCount == 2)
        #expect(contract.class(named: "Pilot")?.keys.map(\.storedKey).sorted() == ["hours", "name"])
        #expect(ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(path)) == nil)
        // The same, reported to Swift Testing: no issue once recorded.
        expectArchiveCompatible(of: v1, registry: Self.v1Registry, contract: path)
    }

    /// v2's required key breaks old archives for new readers: the failure is the line `compat`
    /// prints, word for word, indented after a line naming the contract.
    @Test func breakingChangeFailsWithCompatsLines() throws {
        let directory = try Fixtures.directory()
        let path = try recordV1(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let message = try #require(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path)))
        #expect(message == """
            the archives of ContractPilotV2 are not compatible with the contract \(path) under full (old: the contract, new: the archives of ContractPilotV2):
              key-added  breaks backward  Pilot.rank  absent → required NSString  at ContractPilotV2 #1: root.rank  — new readers that decode "rank" with decode(_:forKey:) fail on old archives, which lack it: decode it with decodeIfPresent and a default
              incompatible under full: 1 change, 1 breaking
            """)
        // The same line the command-line report renders for this comparison.
        let report = ArchiveCompatibilityReport([ArchiveCompatibility(
            old: ArchiveSchemaSource(name: path, schema: try ArchiveSchema(jsonFile: [UInt8](before))),
            new: try ArchiveSchemaSource(name: "v2", files: v2.enumerated().map { ("ContractPilotV2 #\($0.offset + 1)", try KeyedArchiver.archive($0.element, registry: Self.v2Registry)) }))])
        #expect(message.contains("\n  " + report.textDescription.split(separator: "\n")[0] + "\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "missing mode never rewrites an existing contract")
        // Forward only: old readers ignore the new key, so it passes; ignoring it passes too.
        #expect(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path), mode: .forward) == nil)
        #expect(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path), ignoring: ["Pilot.rank"]) == nil)
        // Reported to Swift Testing as one issue with that text.
        withKnownIssue {
            expectArchiveCompatible(of: v2, registry: Self.v2Registry, contract: path)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("key-added  breaks backward  Pilot.rank") }
        }
    }

    /// `failed` extends the contract with the new archives (counts added up) and fails once;
    /// `all` extends it on every run; `never` writes nothing, even when the contract is missing.
    @Test func recordModesWriteOrExtendTheContract() throws {
        let directory = try Fixtures.directory()
        let path = try recordV1(in: directory)
        let failed = try #require(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path), record: .failed))
        #expect(failed.contains("  key-added  breaks backward  Pilot.rank"))
        #expect(failed.contains("\nrecorded \(path) ("))
        let extended = try ArchiveSchema(jsonFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(extended.archiveCount == 4)
        #expect(extended.class(named: "Pilot")?.keys.first { $0.storedKey == "rank" }?.presentCount == 2)
        // Against the grown contract, rank is optional in users' hands: v2 still demands it of
        // v1's archives (backward), but forward is fine.
        let again = try #require(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path)))
        #expect(again.contains("  key-became-required  breaks backward  Pilot.rank  optional (2 of 4) → required"))
        #expect(ArchiveExpectations.checkCompatibility(of: v2, registry: Self.v2Registry, contract: ArchiveFixtureLocation(path), mode: .forward) == nil)
        // all: written whether compatible or not.
        let all = try #require(ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(path), record: .all))
        #expect(all.hasPrefix("recorded \(path) (") && all.contains("because of the record mode all (set by the call)"))
        #expect(try ArchiveSchema(jsonFile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).archiveCount == 6)
        // never: a missing contract is a failure, and nothing is written.
        let absent = directory.appendingPathComponent("absent.schema.json").path
        let never = ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(absent), record: .never)
        #expect(never == "fixture not found: \(absent) (given as an absolute path); record mode never (set by the call) does not write it")
        #expect(!FileManager.default.fileExists(atPath: absent))
        // The scope sets the mode too.
        withArchiveRecording(.never) {
            #expect(ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(absent))?.hasPrefix("fixture not found") == true)
        }
    }

    /// A contract that is not a schema file is named, and never rewritten, whatever the mode.
    @Test func unreadableContractIsNeverRewritten() throws {
        let directory = try Fixtures.directory()
        let path = directory.appendingPathComponent("broken.schema.json").path
        let broken = Data(#"{"format": "keyedarchive-schema", "version": 9}"#.utf8)
        try broken.write(to: URL(fileURLWithPath: path))
        for mode in ArchiveRecordMode.allCases {
            let message = ArchiveExpectations.checkCompatibility(of: v1, registry: Self.v1Registry, contract: ArchiveFixtureLocation(path), record: mode)
            #expect(message?.hasPrefix("the contract \(path) is not a readable schema file: unsupportedVersion") == true, "\(mode): \(message ?? "")")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == broken)
        }
    }

    /// A folder of fixtures against a contract: the rule fixtures of `key-added`, whose new
    /// version breaks the old one's contract backward.
    @Test func folderOfFixtures() throws {
        let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/compat/rules/key-added")
        let directory = try Fixtures.directory()
        let path = directory.appendingPathComponent("v1.schema.json").path
        let oldFolder = rules.appendingPathComponent("old").path
        let recorded = ArchiveExpectations.checkFixturesCompatibility(folder: oldFolder, contract: ArchiveFixtureLocation(path))
        #expect(recorded?.hasPrefix("recorded \(path)") == true)
        #expect(ArchiveExpectations.checkFixturesCompatibility(folder: oldFolder, contract: ArchiveFixtureLocation(path)) == nil)
        let newFolder = rules.appendingPathComponent("new").path
        let message = try #require(ArchiveExpectations.checkFixturesCompatibility(folder: newFolder, contract: ArchiveFixtureLocation(path)))
        #expect(message.hasPrefix("the fixtures in \(newFolder) are not compatible with the contract \(path) under full"))
        #expect(message.contains("\n  key-added  breaks backward  Pilot.rank  absent → required NSString  at \(newFolder)/amelia.plist: root.rank  — "))
        expectFixturesCompatible(folder: newFolder, contract: path, mode: .forward)
        let missing = ArchiveExpectations.checkFixturesCompatibility(folder: "/no/such/fixtures", contract: ArchiveFixtureLocation(path))
        #expect(missing == "could not read the fixtures: /no/such/fixtures: no such file or folder")
    }
}
