import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// Record modes: what each does to a fixture that is absent, equal or different; how the call,
/// the scope and KEYEDARCHIVE_RECORD choose one; and references, which nothing ever writes.
@Suite struct RecordModeTests {
    let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)

    enum FixtureState: CaseIterable { case absent, equal, different }

    /// The snapshot's file before a check: none, the app's archive of the same airplane (equal as
    /// a graph, other bytes), or one with other hours.
    func prepare(_ state: FixtureState, in directory: URL) throws -> (path: String, before: [UInt8]?) {
        let url = directory.appendingPathComponent("snapshot.plist")
        switch state {
        case .absent: return (url.path, nil)
        case .equal: try Data(Fixtures.appArchive(wingspan: false)).write(to: url)
        case .different: try Data(Fixtures.appArchive(hours: 41, wingspan: false)).write(to: url)
        }
        return (url.path, [UInt8](try Data(contentsOf: url)))
    }

    enum Origin: CaseIterable { case call, scope }

    /// Every mode × fixture state, the mode set by the call or by the scope around it: what is
    /// written and what is said.
    @Test(arguments: ArchiveRecordMode.allCases, FixtureState.allCases)
    func modeAgainstFixture(mode: ArchiveRecordMode, state: FixtureState) throws {
        for origin in Origin.allCases {
            try modeAgainstFixture(mode: mode, state: state, origin: origin)
        }
    }

    func modeAgainstFixture(mode: ArchiveRecordMode, state: FixtureState, origin: Origin) throws {
        let directory = try Fixtures.directory()
        let (path, before) = try prepare(state, in: directory)
        let ours = try KeyedArchiver.archive(cessna, registry: Fixtures.registry)
        let message = switch origin {
        case .call: ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path, record: mode)
        case .scope: withArchiveRecording(mode) { ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path) }
        }
        let setBy = origin == .call ? "set by the call" : "set by an .archiveRecording trait or withArchiveRecording"
        let after = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let diffLine = "  root.airframeHours: value changed: integer 41 → integer 40"
        switch (mode, state) {
        case (.never, .absent):
            #expect(message == "fixture not found: \(path) (given as an absolute path); record mode never (\(setBy)) does not write it")
            #expect(after == nil)
        case (_, .absent):
            #expect(message == "recorded \(path) (\(ours.count) bytes) because there was no fixture; check it in and run the test again")
            #expect(after == ours)
        case (.all, _):
            #expect(message == "recorded \(path) (\(ours.count) bytes) because of the record mode all (\(setBy)); check it in, and run the test again in another mode")
            #expect(after == ours)
        case (_, .equal):
            #expect(message == nil)
            #expect(after == before)
        case (.failed, .different):
            #expect(message?.contains(diffLine + "\nrecorded \(path) (\(ours.count) bytes) because of the record mode failed (\(setBy)); review the change, check it in and run the test again") == true,
                    "\(message ?? "")")
            #expect(after == ours)
        case (_, .different):
            #expect(message == "the archive of Airplane differs from \(path) (A: the fixture, B: encoded now):\n" + diffLine)
            #expect(after == before)
        }
    }

    /// Call, then scope, then KEYEDARCHIVE_RECORD, then `missing`: every combination, with the
    /// variable's spellings (`1` is all; empty, `0`, `false` are the default) and a typo.
    @Test func callThenScopeThenVariable() throws {
        let values: [String?] = [nil, "1", "true", "all", "FAILED", "missing", "never", "0", "", "false", "fialed"]
        for call in [nil] + ArchiveRecordMode.allCases {
            for scope in [nil] + ArchiveRecordMode.allCases {
                for value in values {
                    let environment = value.map { [ArchiveRecordMode.environmentVariable: $0] } ?? [:]
                    let resolve = { () throws -> ArchiveRecording in
                        if let scope {
                            return try withArchiveRecording(scope) { try ArchiveRecording.current(call: call, environment: environment) }
                        }
                        return try ArchiveRecording.current(call: call, environment: environment)
                    }
                    if let call {
                        #expect(try resolve() == ArchiveRecording(mode: call, origin: .call))
                    } else if let scope {
                        #expect(try resolve() == ArchiveRecording(mode: scope, origin: .scope))
                    } else if let value {
                        let expected: ArchiveRecordMode? = switch value {
                        case "1", "true", "all": .all
                        case "FAILED": .failed
                        case "missing", "0", "", "false": .missing
                        case "never": .never
                        default: nil
                        }
                        if let expected {
                            #expect(try resolve() == ArchiveRecording(mode: expected, origin: .environment(value)))
                        } else {
                            #expect(throws: ArchiveFixtureError("KEYEDARCHIVE_RECORD=fialed names no record mode: use all, failed, missing or never (1 means all)")) {
                                try resolve()
                            }
                        }
                    } else {
                        #expect(try resolve() == ArchiveRecording(mode: .missing, origin: .defaultMode))
                    }
                }
            }
        }
    }

    /// The scope reaches the expectation (and tasks it starts); a call's own mode beats it.
    @Test func scopeSetsTheModeOfEveryExpectationInIt() async throws {
        let directory = try Fixtures.directory()
        let missing = directory.appendingPathComponent("missing.plist").path
        withArchiveRecording(.never) {
            withKnownIssue {
                expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: missing)
            } matching: { issue in
                issue.comments.map(\.rawValue) == ["fixture not found: \(missing) (given as an absolute path); record mode never (set by an .archiveRecording trait or withArchiveRecording) does not write it"]
            }
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let (path, before) = try prepare(.different, in: directory)
        let message = await withArchiveRecording(.failed) {
            await Task { ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path) }.value
        }
        #expect(message?.hasSuffix("because of the record mode failed (set by an .archiveRecording trait or withArchiveRecording); review the change, check it in and run the test again") == true)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == KeyedArchiver.archive(cessna, registry: Fixtures.registry))
        // The call's mode wins over the scope's.
        try Data(before ?? []).write(to: URL(fileURLWithPath: path))
        withArchiveRecording(.all) {
            #expect(ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path, record: .never)?.hasPrefix("the archive of Airplane differs") == true)
        }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == before)
    }

    /// `@Test(.archiveRecording(.never))`: the trait is the scope.
    @Test(.archiveRecording(.never)) func traitSetsTheScope() throws {
        let missing = try Fixtures.directory().appendingPathComponent("missing.plist").path
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: missing)?
            .hasSuffix("record mode never (set by an .archiveRecording trait or withArchiveRecording) does not write it") == true)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// A reference is another program's file: under every mode and scope it is compared, never
    /// written — not when it differs, not when it is missing.
    @Test(arguments: ArchiveRecordMode.allCases)
    func referenceIsNeverWritten(mode: ArchiveRecordMode) throws {
        let directory = try Fixtures.directory()
        let reference = directory.appendingPathComponent("app.plist")
        let app = try Fixtures.appArchive(hours: 41)
        try Data(app).write(to: reference)
        let modified = try FileManager.default.attributesOfItem(atPath: reference.path)[.modificationDate] as? Date
        let missing = directory.appendingPathComponent("absent.plist").path
        withArchiveRecording(mode) {
            withKnownIssue {
                expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: reference.path, comparison: .values)
            } matching: { issue in
                issue.comments.map(\.rawValue) == ["the archive of Airplane differs from \(reference.path) (A: the reference, B: encoded now):\n" +
                    "  root.wingspan: only in A: real 15.5\n  root.airframeHours: value changed: integer 41 → integer 40\n" +
                    "if the model leaves them out on purpose, pass (grouped by Class.key, with counts):\n  ignoring: [\n    \"Airplane.wingspan\",  // 1 field\n  ]"]
            }
            withKnownIssue {
                expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: missing)
            } matching: { issue in
                issue.comments.map(\.rawValue) == ["fixture not found: \(missing) (given as an absolute path); a reference is never recorded: put the file the other program made there"]
            }
        }
        #expect(try [UInt8](Data(contentsOf: reference)) == app)
        #expect(try FileManager.default.attributesOfItem(atPath: reference.path)[.modificationDate] as? Date == modified)
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// A reference in the app's own format: an XML reference is compared with our XML, byte
    /// for byte when asked, and a graph-equal one passes by graph.
    @Test func referenceComparedInItsOwnFormat() throws {
        let directory = try Fixtures.directory()
        let xml = directory.appendingPathComponent("app.xml")
        try Data(KeyedArchiver.archive(cessna, registry: Fixtures.registry, format: .xml)).write(to: xml)
        expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: xml.path, comparison: .bytes)
        let app = directory.appendingPathComponent("app.plist")
        try Data(Fixtures.appArchive(wingspan: false)).write(to: app)
        expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: app.path)
        #expect(ArchiveExpectations.checkArchiveReference(of: cessna, registry: Fixtures.registry, reference: app.path, comparison: .bytes)?
            .contains("holds the graph of \(app.path) but not its bytes (A: the reference, B: encoded now):") == true)
    }

    /// The whole run under `KEYEDARCHIVE_RECORD=all`, as a team runs it to refresh its snapshots:
    /// this test binary runs `RecordEnvironmentChild` in a child process with the variable set.
    /// The snapshot is rewritten (the variable did reach it); the reference is byte-identical.
    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func referenceSurvivesARunWithRecordAll() throws {
        let directory = try Fixtures.directory()
        let reference = directory.appendingPathComponent("app.plist")
        let snapshot = directory.appendingPathComponent("snapshot.plist")
        let app = try Fixtures.appArchive(hours: 41)
        try Data(app).write(to: reference)
        try Data(app).write(to: snapshot)
        let output = try RecordEnvironmentChild.run(directory: directory.path, record: "all")
        #expect(try [UInt8](Data(contentsOf: reference)) == app, "\(output)")
        #expect(try [UInt8](Data(contentsOf: snapshot)) == KeyedArchiver.archive(cessna, registry: Fixtures.registry), "\(output)")
        #expect(output.contains("recorded \(snapshot.path) ("))
        #expect(output.contains("because of the record mode all (from KEYEDARCHIVE_RECORD=all)"))
        #expect(output.contains("differs from \(reference.path) (A: the reference, B: encoded now)"))
        // A value that names no mode fails every snapshot expectation and writes nothing.
        try Data(app).write(to: snapshot)
        let typo = try RecordEnvironmentChild.run(directory: directory.path, record: "al")
        #expect(typo.contains("KEYEDARCHIVE_RECORD=al names no record mode"))
        #expect(try [UInt8](Data(contentsOf: snapshot)) == app)
        #expect(try [UInt8](Data(contentsOf: reference)) == app)
    }
}

/// Run only as the child of `referenceSurvivesARunWithRecordAll`, which sets
/// `KEYEDARCHIVE_TESTING_CHILD_DIR`: a snapshot and a reference expectation, with whatever
/// KEYEDARCHIVE_RECORD the parent gave.
@Suite struct RecordEnvironmentChild {
    static let directoryVariable = "KEYEDARCHIVE_TESTING_CHILD_DIR"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[directoryVariable] != nil))
    func childRunUnderTheVariable() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[Self.directoryVariable])
        let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: directory + "/snapshot.plist")
        expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: directory + "/app.plist")
    }

    /// The test binary, when it is an executable this process can run again (on Linux,
    /// `swift test` runs the `.xctest` executable itself).
    static var executable: String? {
        guard let path = CommandLine.arguments.first, path.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: path) else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return path
    }

    static var canRunChild: Bool { executable != nil }

    /// Runs the child tests `filter` names with `KEYEDARCHIVE_RECORD=record`; their output
    /// (their failures are expected).
    static func run(directory: String, record: String, filter: String = "RecordEnvironmentChild") throws -> String {
        try runChild(filter: filter, environment: [ArchiveRecordMode.environmentVariable: record, directoryVariable: directory])
    }

    /// Runs the tests `filter` names in a child process of this test binary, with `environment`
    /// added to this process's; their output, standard error included.
    static func runChild(filter: String, environment extra: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(executable))
        process.arguments = ["--testing-library", "swift-testing", "--filter", filter]
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }
}
