import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// The pilot of a team's app, version 1 to 3: it always writes its licenses.
struct LicensedPilot: KeyedArchivable {
    var name: String
    var licenses: [String]

    init(name: String, licenses: [String]) {
        self.name = name
        self.licenses = licenses
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        licenses = try decoder.decode([String].self, forKey: "licenses")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(licenses, forKey: "licenses")
    }
}

/// Version 4 stops writing `licenses`, which the readers of versions 1 to 3 require: a real
/// forward break.
struct UnlicensedPilot: KeyedArchivable {
    var name: String

    init(name: String) { self.name = name }

    init(from decoder: KeyedArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
    }
}

/// Issue 43's three silent failures, reproduced as the team met them — a test run of the
/// current version against the released contracts, in a child process with the environment a
/// team sets — and shown to fail loudly, with every contract byte-identical (sha256 before and
/// after, not the library's word):
/// 1. `KEYEDARCHIVE_RECORD=all` rewrote every released contract;
/// 2. `KEYEDARCHIVE_RECORD=failed` accepted a real forward break by extending the contracts;
/// 3. a typo in a contract's path recorded a new contract, and from then on checked nothing.
@Suite struct SilentFailureReproductionTests {
    static func registry<T: KeyedArchivable>(_ type: T.Type) -> ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(type, className: "Pilot")
        return registry
    }

    static let released = [LicensedPilot(name: "Amelia", licenses: ["PPL", "CPL"]), LicensedPilot(name: "Bessie", licenses: ["PPL"]),
                           LicensedPilot(name: "Jacqueline", licenses: [])]

    /// v1, v2 and v3's contracts, recorded on purpose as each shipped; their sha256s.
    static func releasedContracts(in directory: URL) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for version in ["v1", "v2", "v3"] {
            let path = directory.appendingPathComponent("\(version).schema.json").path
            try ArchiveExpectations.recordContract(of: released, registry: registry(LicensedPilot.self), at: ArchiveFixtureLocation(path))
            hashes[path] = try CompatibilityExpectationTests.sha256(path)
        }
        return hashes
    }

    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func recordAllLeavesEveryContractAsItWas() throws {
        let directory = try Fixtures.directory()
        let contracts = try Self.releasedContracts(in: directory)
        let output = try SilentFailureChild.run(directory: directory.path, contracts: ["v1.schema.json", "v2.schema.json", "v3.schema.json"], record: "all")
        for (path, hash) in contracts {
            #expect(try CompatibilityExpectationTests.sha256(path) == hash, "KEYEDARCHIVE_RECORD=all changed \(path)")
            #expect(output.contains("left the contract \(path) as it was"), "\(output)")
        }
        #expect(output.contains("key-removed  breaks forward  Pilot.licenses"), "\(output)")
    }

    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func recordFailedDoesNotAcceptAForwardBreak() throws {
        let directory = try Fixtures.directory()
        let contracts = try Self.releasedContracts(in: directory)
        let failed = try SilentFailureChild.run(directory: directory.path, contracts: ["v1.schema.json", "v2.schema.json", "v3.schema.json"], record: "failed")
        #expect(failed.components(separatedBy: "key-removed  breaks forward  Pilot.licenses").count - 1 >= 3, "\(failed)")
        for (path, hash) in contracts { #expect(try CompatibilityExpectationTests.sha256(path) == hash, "KEYEDARCHIVE_RECORD=failed changed \(path)") }
        // The next plain run still fails: nothing was accepted.
        let plain = try SilentFailureChild.run(directory: directory.path, contracts: ["v1.schema.json"], record: "")
        #expect(plain.contains("key-removed  breaks forward  Pilot.licenses"), "\(plain)")
        #expect(plain.contains("failed after"), "\(plain)")
    }

    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func aTypoInAContractPathFailsAndCreatesNothing() throws {
        let directory = try Fixtures.directory()
        _ = try Self.releasedContracts(in: directory)
        let typo = directory.appendingPathComponent("v1.shema.json").path
        for record in ["", "missing", "all"] {
            let output = try SilentFailureChild.run(directory: directory.path, contracts: ["v1.shema.json"], record: record)
            #expect(output.contains("the contract \(typo) does not exist"), "\(record): \(output)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(record) created \(typo)")
        }
    }
}

/// Run only as the child of `SilentFailureReproductionTests`: version 4's values against the
/// contracts the parent names, under the KEYEDARCHIVE_RECORD it gives.
@Suite struct SilentFailureChild {
    static let directoryVariable = "KEYEDARCHIVE_TESTING_SILENT_DIR"
    static let contractsVariable = "KEYEDARCHIVE_TESTING_SILENT_CONTRACTS"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[directoryVariable] != nil))
    func currentVersionAgainstReleasedContracts() throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = try #require(environment[Self.directoryVariable])
        let current = [UnlicensedPilot(name: "Amelia"), UnlicensedPilot(name: "Bessie"), UnlicensedPilot(name: "Jacqueline")]
        for file in (environment[Self.contractsVariable] ?? "").split(separator: ",") {
            expectArchiveCompatible(of: current, registry: SilentFailureReproductionTests.registry(UnlicensedPilot.self),
                                    contract: "\(directory)/\(file)", mode: .full)
        }
    }

    static func run(directory: String, contracts: [String], record: String) throws -> String {
        try RecordEnvironmentChild.runChild(filter: "SilentFailureChild", environment: [
            ArchiveRecordMode.environmentVariable: record, directoryVariable: directory, contractsVariable: contracts.joined(separator: ","),
        ])
    }
}
