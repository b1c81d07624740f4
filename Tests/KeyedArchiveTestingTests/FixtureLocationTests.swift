import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// Where fixtures are: relative to the working directory (the default) or to the test file,
/// snapshots named after their test beside it, and one "fixture not found" text everywhere.
@Suite(.archiveRecording(.missing)) struct FixtureLocationTests {
    let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)

    @Test func relativePathsResolveAgainstTheWorkingDirectoryOrTheTestFile() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let plain = ArchiveFixtureLocation("Fixtures/../Fixtures/app.plist")
        #expect(plain.path == cwd + "/Fixtures/app.plist")
        #expect(plain.origin == "resolved from \"Fixtures/../Fixtures/app.plist\" against the working directory \(cwd)")
        let beside = ArchiveFixtureLocation("Fixtures/app.plist", relativeTo: .testFile, testFilePath: "/src/Tests/ServiceTests/AirplaneTests.swift")
        #expect(beside.path == "/src/Tests/ServiceTests/Fixtures/app.plist")
        #expect(beside.notFoundMessage == "fixture not found: /src/Tests/ServiceTests/Fixtures/app.plist (resolved from \"Fixtures/app.plist\" against the folder of the test file /src/Tests/ServiceTests)")
        // This file's own folder, by default #filePath.
        let here = ArchiveFixtureLocation("x.plist", relativeTo: .testFile)
        #expect(here.path == URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("x.plist").path)
        #expect(ArchiveFixtureLocation("/abs/app.plist", relativeTo: .testFile).origin == "given as an absolute path")
        #expect(ArchiveFixtureLocation("app.plist", relativeTo: .folder("/data/fixtures")).path == "/data/fixtures/app.plist")
        // A relative #filePath (some build systems give one) is taken from the working directory.
        #expect(ArchiveFixtureLocation("app.plist", relativeTo: .testFile, testFilePath: "Tests/ServiceTests/AirplaneTests.swift").path
            == cwd + "/Tests/ServiceTests/app.plist")
    }

    @Test func snapshotsBesideTheTestAreNamedAfterIt() throws {
        let folder = try Fixtures.directory()
        let testFile = folder.appendingPathComponent("AirplaneTests.swift").path
        let location = ArchiveFixtureLocation.besideTest(format: .binary, testFilePath: testFile, function: "writesWhatTheAppReads()")
        #expect(location.path == folder.path + "/__Snapshots__/AirplaneTests/writesWhatTheAppReads.plist")
        #expect(location.origin == "named after the test writesWhatTheAppReads() in AirplaneTests.swift: __Snapshots__/AirplaneTests/writesWhatTheAppReads.plist beside it")
        #expect(ArchiveFixtureLocation.besideTest(named: "v2 (xml)", format: .xml, testFilePath: testFile, function: "encodes(version:)").path
            == folder.path + "/__Snapshots__/AirplaneTests/encodes.v2__xml_.xml")
        #expect(ArchiveFixtureLocation.besideTest(named: "../../escape", format: .json, testFilePath: testFile, function: "t()").path
            == folder.path + "/__Snapshots__/AirplaneTests/t.______escape.json")
        // Recorded there on the first run, compared on the next.
        let first = ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, testFilePath: testFile, function: "writesWhatTheAppReads()")
        #expect(first?.hasPrefix("recorded \(location.path) (") == true)
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, testFilePath: testFile, function: "writesWhatTheAppReads()") == nil)
        let json = ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, format: .json, testFilePath: testFile, function: "writesWhatTheAppReads()")
        #expect(json?.hasPrefix("recorded \(folder.path)/__Snapshots__/AirplaneTests/writesWhatTheAppReads.json (") == true)
    }

    /// This test's own snapshots, checked in beside this file
    /// (`__Snapshots__/FixtureLocationTests/`, excluded from the target in Package.swift).
    @Test func checkedInSnapshotsBesideThisFile() throws {
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry)
        // One file per test and format: no name needed.
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, format: .xml, comparison: .bytes)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, format: .json, comparison: .bytes)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__/FixtureLocationTests")
        // The files are what the app's archiver would read: the binary one decodes, the JSON one
        // is the canonical JSON of the binary archive.
        let binary = [UInt8](try Data(contentsOf: folder.appendingPathComponent("checkedInSnapshotsBesideThisFile.plist")))
        #expect(try KeyedUnarchiver.unarchive(Airplane.self, from: binary, registry: Fixtures.registry) == cessna)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: binary), try ArchiveGraph(bytes: Fixtures.appArchive(wingspan: false))).isEqual)
        let json = try Data(contentsOf: folder.appendingPathComponent("checkedInSnapshotsBesideThisFile.json"))
        #expect(String(decoding: json, as: UTF8.self).contains("\"$archiver\": \"NSKeyedArchiver\""))
    }

    /// Two unnamed snapshots in one test would share a file: the second is refused.
    @Test func twoUnnamedSnapshotsInOneTestAreRefused() throws {
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry); let first = #line
        withKnownIssue {
            expectArchiveSnapshot(of: cessna, registry: Fixtures.registry); let second = #line
            _ = second
        } matching: { issue in
            issue.comments.first?.rawValue.hasSuffix("is named after this test by two calls (KeyedArchiveTestingTests/FixtureLocationTests.swift:\(first) "
                + "and KeyedArchiveTestingTests/FixtureLocationTests.swift:\(first + 2)): give each its own name with named:") == true
        }
    }

    /// `fixture not found: PATH (resolved from …)` from every expectation that reads a fixture.
    @Test func oneNotFoundMessageEverywhere() throws {
        let testFile = try Fixtures.directory().appendingPathComponent("AirplaneTests.swift").path
        let location = ArchiveFixtureLocation("Fixtures/absent.plist", relativeTo: .testFile, testFilePath: testFile)
        let expected = location.notFoundMessage
        #expect(expected.hasPrefix("fixture not found: \(location.path) (resolved from \"Fixtures/absent.plist\" against the folder of the test file "))
        let registry = Fixtures.registry
        let messages = [
            ArchiveExpectations.checkDecodedFixture(Airplane.self, fixture: "Fixtures/absent.plist", relativeTo: .testFile, registry: registry, equals: cessna, testFilePath: testFile),
            ArchiveExpectations.checkNoUnreadFields(Airplane.self, fixture: "Fixtures/absent.plist", relativeTo: .testFile, registry: registry, testFilePath: testFile),
            ArchiveExpectations.checkLosslessDecoding(Airplane.self, fixture: "Fixtures/absent.plist", relativeTo: .testFile, registry: registry, testFilePath: testFile),
            ArchiveExpectations.checkArchiveReference(of: cessna, registry: registry, reference: "Fixtures/absent.plist", relativeTo: .testFile, testFilePath: testFile),
            ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: registry, fixture: "Fixtures/absent.plist", relativeTo: .testFile, record: .never, testFilePath: testFile),
        ]
        for message in messages {
            #expect(message?.hasPrefix(expected) == true, "\(message ?? "nil")")
        }
        #expect(!FileManager.default.fileExists(atPath: location.path))
    }
}
