import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

// The new-user trial's app, version 1: a family of airplanes whose superclass's `encode(to:)`
// writes `registration` for every class, owned by pilots.

class TrialAirplane: KeyedArchivable {
    let model: String
    let registration: String
    /// The key this version writes the registration under (version 2 renames it).
    class var registrationKey: String { "registration" }

    required init(model: String, registration: String) {
        self.model = model
        self.registration = registration
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        model = try decoder.decode(String.self, forKey: "model")
        registration = try decoder.decode(String.self, forKey: Self.registrationKey)
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(model, forKey: "model")
        try encoder.encode(registration, forKey: Self.registrationKey)
    }
}

class TrialGlider: TrialAirplane {}
class TrialPoweredAirplane: TrialAirplane {}

/// Version 2 of the same classes: `registration` renamed `tailNumber`, the same values.
class TrialAirplaneV2: TrialAirplane {
    override class var registrationKey: String { "tailNumber" }
}

class TrialGliderV2: TrialAirplaneV2 {}
class TrialPoweredAirplaneV2: TrialAirplaneV2 {}

struct TrialPilot: KeyedArchivable {
    var name: String
    var airplanes: [TrialAirplane]

    init(name: String, airplanes: [TrialAirplane]) {
        self.name = name
        self.airplanes = airplanes
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        airplanes = try decoder.decode([TrialAirplane].self, forKey: "airplanes")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(airplanes, forKey: "airplanes")
    }
}

/// What the compatibility tools say is true (issue 50), on the trial's shapes: a family's
/// renamed key is one change with the fix that keeps the value, `Class.key` means one thing
/// everywhere, and a verdict about what readers admit comes from the registry, not from which
/// subclasses one sample holds.
@Suite struct TruthfulCompatibilityTests {
    static func registry(version: Int) -> ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(TrialPilot.self, className: "Pilot")
        if version == 1 {
            registry.register(TrialAirplane.self, className: "Airplane")
            registry.register(TrialGlider.self, className: "Glider")
            registry.register(TrialPoweredAirplane.self, className: "PoweredAirplane")
        } else {
            registry.register(TrialAirplaneV2.self, className: "Airplane")
            registry.register(TrialGliderV2.self, className: "Glider")
            registry.register(TrialPoweredAirplaneV2.self, className: "PoweredAirplane")
        }
        return registry
    }

    /// Three pilots, every class of the family among their airplanes (Amelia has no plain
    /// `Airplane`: the one-sample trial).
    static func pilots(version: Int) -> [TrialPilot] {
        func plane(_ kind: Int, _ model: String, _ registration: String) -> TrialAirplane {
            switch (version, kind) {
            case (1, 0): return TrialAirplane(model: model, registration: registration)
            case (1, 1): return TrialGlider(model: model, registration: registration)
            case (1, _): return TrialPoweredAirplane(model: model, registration: registration)
            case (_, 0): return TrialAirplaneV2(model: model, registration: registration)
            case (_, 1): return TrialGliderV2(model: model, registration: registration)
            default: return TrialPoweredAirplaneV2(model: model, registration: registration)
            }
        }
        return [
            TrialPilot(name: "Amelia", airplanes: [plane(2, "J-3 Cub", "N3918K"), plane(1, "ASK 21", "D-8721")]),
            TrialPilot(name: "Bessie", airplanes: [plane(1, "Discus", "D-2402"), plane(0, "Cessna 152", "G-BOYL")]),
            TrialPilot(name: "Charles", airplanes: [plane(2, "Beaver", "C-FODJ"), plane(0, "Cessna 172", "N172SP")]),
        ]
    }

    /// A folder of the test's own with version 1's contract recorded in it.
    static func contract() throws -> (directory: URL, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-truthful-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("pilot.schema.json").path
        _ = try ArchiveExpectations.recordContract(of: pilots(version: 1), registry: registry(version: 1), at: ArchiveFixtureLocation(path))
        return (directory, path)
    }

    /// The trial's key rename fails `expectArchiveCompatible` on the real classes, as one change
    /// at the family naming both keys and the fallback fix, never a default.
    @Test func aFamilysRenamedKeyIsOneChangeWithTheFixThatKeepsTheValue() throws {
        let (directory, contract) = try Self.contract()
        defer { try? FileManager.default.removeItem(at: directory) }
        let message = try #require(ArchiveExpectations.checkArchiveCompatible(of: Self.pilots(version: 2), registry: Self.registry(version: 2),
                                                                               contract: ArchiveFixtureLocation(contract)))
        let changes = message.split(separator: "\n").filter { $0.contains("breaks") }
        #expect(changes.count == 1, "\(message)")
        #expect(changes.first?.contains("key-renamed  breaks backward+forward  Airplane.registration") == true, "\(message)")
        #expect(message.contains(#""registration": required (6 of 6) NSString → "tailNumber": required (6 of 6) NSString"#), "\(message)")
        #expect(message.contains(#"Read "tailNumber" falling back to "registration""#), "\(message)")
        #expect(message.contains(#"keep writing "registration" with the real value"#), "\(message)")
        #expect(!message.contains("a default value") && !message.contains("decodeIfPresent and a default"), "\(message)")
        #expect(!message.contains("Glider.registration") && !message.contains("PoweredAirplane.registration"), "\(message)")
        // One pattern accepts it, as in ignoring: elsewhere: the family's Class.key, or either key.
        for pattern in ["Airplane.registration", "Airplane.tailNumber", "key-renamed:Airplane.registration"] {
            #expect(ArchiveExpectations.checkArchiveCompatible(of: Self.pilots(version: 2), registry: Self.registry(version: 2),
                                                               contract: ArchiveFixtureLocation(contract), ignoring: [pattern]) == nil, "\(pattern)")
        }
    }

    /// From the archives alone (no contract file), the values decide: the same values under a
    /// new key are a rename; a new key with other values beside a removed one is not.
    @Test func valuesTellARenameFromARemovalAndAnAddition() throws {
        func source(_ version: Int, _ pilots: [TrialPilot]) throws -> ArchiveSchemaSource {
            try ArchiveSchemaSource(name: "v\(version)", files: pilots.enumerated().map { index, pilot in
                ("\(index).plist", try KeyedArchiver.archive(pilot, registry: Self.registry(version: version)))
            })
        }
        let renamed = ArchiveCompatibility(old: try source(1, Self.pilots(version: 1)), new: try source(2, Self.pilots(version: 2)))
        #expect(renamed.changes.map { "\($0.rule.rawValue) \($0.location) → \($0.renamedKey ?? "")" } == ["key-renamed Airplane.registration → tailNumber"])
        // Version 2 with every registration replaced: the old values are gone, not moved.
        let replaced = Self.pilots(version: 2).map { pilot in
            TrialPilot(name: pilot.name, airplanes: pilot.airplanes.map { plane in
                let kind = type(of: plane)
                return kind.init(model: plane.model, registration: "X-" + plane.registration)
            })
        }
        let other = ArchiveCompatibility(old: try source(1, Self.pilots(version: 1)), new: try source(2, replaced))
        #expect(Set(other.changes.map { "\($0.rule.rawValue) \($0.location)" }) == ["key-removed Airplane.registration", "key-added Airplane.tailNumber"],
                "\(other.changes.map(\.location))")
    }

    /// One sample with no plain `Airplane` is no evidence that new readers refuse one: the
    /// registry given says `Airplane` is registered in one family with the classes there.
    @Test func oneSampleIsNoVerdictAboutWhatReadersAdmit() throws {
        let (directory, contract) = try Self.contract()
        defer { try? FileManager.default.removeItem(at: directory) }
        let amelia = [Self.pilots(version: 1)[0]]
        #expect(ArchiveExpectations.checkArchiveCompatible(of: amelia, registry: Self.registry(version: 1), contract: ArchiveFixtureLocation(contract)) == nil)
        // A registry without `Airplane` (the glider and the powered airplane families of their
        // own) does refuse it: that verdict stays.
        var separate = ArchiveRegistry()
        separate.register(TrialPilot.self, className: "Pilot")
        separate.register(TrialGlider.self, className: "Glider")
        separate.register(TrialPoweredAirplane.self, className: "PoweredAirplane")
        let message = ArchiveExpectations.checkArchiveCompatible(of: amelia, registry: separate, contract: ArchiveFixtureLocation(contract))
        #expect(message?.contains("class-removed  breaks backward  Airplane") == true, "\(message ?? "passed")")
    }

    /// `Class.key` names a subclass's key in `ignoring:` of a compatibility check, as it does in
    /// the other expectations' `ignoring:` (a change only one class of the family shows stays
    /// that class's).
    @Test func aSuperclassKeyPatternNamesASubclassChange() throws {
        func archive(_ gliderFields: [(String, ArchiveGenericObject.Field)]) throws -> [UInt8] {
            let glider = ArchiveGenericObject(classes: ["Glider", "Airplane", "NSObject"], fields: [(key: "model", value: .object("ASK 21"))] + gliderFields.map { (key: $0.0, value: $0.1) })
            let cessna = ArchiveGenericObject(classes: ["Airplane", "NSObject"], fields: [(key: "model", value: .object("Cessna 152"))])
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(ArchiveGenericObject(classes: ["NSArray", "NSObject"], fields: [(key: "NS.objects", value: .objects([glider, cessna]))]), forKey: "root")
            return try archiver.finish(format: .binary)
        }
        let old = try ArchiveSchemaSource(name: "old", files: [("old.plist", try archive([]))])
        let new = try ArchiveSchemaSource(name: "new", files: [("new.plist", try archive([("wingspan", .object("17 m"))]))])
        let compatibility = ArchiveCompatibility(old: old, new: new)
        #expect(compatibility.changes.map(\.location) == ["Glider.wingspan"])
        #expect(compatibility.ignoring(["Airplane.wingspan"]).changes.isEmpty)
        #expect(compatibility.ignoring(["Glider.wingspan"]).changes.isEmpty)
        // A class alone still names only its own changes.
        #expect(compatibility.ignoring(["Airplane"]).changes.count == 1)
    }

    /// Testing.md says nothing the comparisons do not do: every test its table of differences
    /// names beside a claim exists.
    @Test func everyTestTheGuideNamesExists() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("Docs/Testing.md"), encoding: .utf8)
        var sources = ""
        for folder in ["Tests/KeyedArchiveTests", "Tests/KeyedArchiveTestingTests"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) where name.hasSuffix(".swift") {
                sources += try String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name), encoding: .utf8)
            }
        }
        var named = 0
        for line in guide.components(separatedBy: "\n") where line.hasPrefix("| `") {
            guard let column = line.split(separator: "|").last?.trimmingCharacters(in: .whitespaces), column.contains("Tests.") else { continue }
            // A "tested by" column: `Suite.test`, then `.test` for another test of the same suite.
            let items = column.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard items.allSatisfy({ $0.wholeMatch(of: /`([A-Z][A-Za-z]*Tests)?\.[a-z][A-Za-z]*`/) != nil }) else { continue }
            var suite = ""
            for item in items.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }) {
                let parts = item.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                if parts.count == 2, !parts[0].isEmpty { suite = parts[0] }
                guard let test = parts.last, !test.isEmpty else { continue }
                #expect(sources.contains("struct \(suite)"), "Docs/Testing.md names the suite \(suite), which does not exist")
                #expect(sources.contains("func \(test)("), "Docs/Testing.md names \(suite).\(test), which does not exist")
                named += 1
            }
        }
        #expect(named >= 9)
    }

    static let decisionsChildVariable = "KEYEDARCHIVE_TESTING_DECISIONS_CHILD_DIR"

    /// Run only as a child (below): a passing check beside a decisions file whose one decision
    /// names nothing this contract has (it is for another contract in the folder).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[decisionsChildVariable] != nil))
    func decisionsChild() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.decisionsChildVariable])
        let contract = directory + "/pilot.schema.json"
        expectArchiveCompatible(of: Self.pilots(version: 1), registry: Self.registry(version: 1), contract: contract)
    }

    /// A test that passes prints nothing of the decisions file beside its contract, though one
    /// of its decisions names nothing here (one file serves every contract in the folder); the
    /// note is in a failure's message.
    @Test(.enabled(if: RecordEnvironmentChild.canRunChild))
    func passingChecksPrintNoDecisionNotes() throws {
        let (directory, contract) = try Self.contract()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "key-removed:Schedule.day  the schedules' contract: days moved to flights\n".write(
            to: directory.appendingPathComponent("compat-decisions.txt"), atomically: true, encoding: .utf8)
        let output = try RecordEnvironmentChild.runChild(filter: "TruthfulCompatibilityTests.decisionsChild",
                                                         environment: [Self.decisionsChildVariable: directory.path])
        #expect(output.contains("decisionsChild()") && output.contains("passed"), "\(output)")
        #expect(!output.contains("names nothing"), "\(output)")
        // A failing check beside the same file has the note in its message.
        let failing = ArchiveExpectations.checkArchiveCompatible(of: Self.pilots(version: 2), registry: Self.registry(version: 2),
                                                                 contract: ArchiveFixtureLocation(contract))
        #expect(failing?.contains("note: decision \"key-removed:Schedule.day\" names nothing either side has") == true, "\(failing ?? "passed")")
    }
}
