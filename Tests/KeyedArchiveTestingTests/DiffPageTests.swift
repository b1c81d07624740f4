import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

/// KEYEDARCHIVE_DIFF_PAGE=1: a failed snapshot or reference expectation writes
/// `keyedarchive diff --html`'s page beside its fixture (`FIXTURE.diff.html`), naming it in the
/// failure; never over a file that is not such a page; nothing without the variable. Run in a
/// child process of the test binary, so the variable touches no other test.
@Suite struct DiffPageTests {
    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func failedExpectationsWriteThePageWhenAsked() throws {
        let directory = try Fixtures.directory()
        let snapshot = directory.appendingPathComponent("snapshot.plist")
        let reference = directory.appendingPathComponent("app.plist")
        // The app's archive with other hours: both expectations fail at root.airframeHours.
        try Data(Fixtures.appArchive(hours: 41)).write(to: snapshot)
        try Data(Fixtures.appArchive(hours: 41)).write(to: reference)
        let foreign = directory.appendingPathComponent("app.plist.diff.html")
        try Data("precious".utf8).write(to: foreign)

        let output = try RecordEnvironmentChild.runChild(filter: "DiffPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "1", ArchiveRecordMode.environmentVariable: "never", RecordEnvironmentChild.directoryVariable: directory.path,
        ])
        let page = directory.appendingPathComponent("snapshot.plist.diff.html")
        #expect(output.contains("diff page (KEYEDARCHIVE_DIFF_PAGE): \(page.path)"), "\(output)")
        let text = try String(contentsOf: page, encoding: .utf8)
        #expect(text.prefix(1024).contains("<meta name=\"generator\" content=\"keyedarchive graph page\">"))
        #expect(text.contains("\"mode\":\"diff\""))
        #expect(text.contains("\"valueChanged\",\"root.airframeHours\""), "\(text.suffix(400))")
        // Not over a file it did not make.
        #expect(try Data(contentsOf: foreign) == Data("precious".utf8))
        #expect(output.contains("diff page not written: \(foreign.path) exists and is not a page keyedarchive made"), "\(output)")
        // Its own page is replaced on the next failure.
        try Data("<!DOCTYPE html>\n<meta name=\"generator\" content=\"keyedarchive graph page\">old".utf8).write(to: page)
        _ = try RecordEnvironmentChild.runChild(filter: "DiffPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "1", ArchiveRecordMode.environmentVariable: "never", RecordEnvironmentChild.directoryVariable: directory.path,
        ])
        #expect(try String(contentsOf: page, encoding: .utf8) == text)

        // Without the variable: no page.
        try FileManager.default.removeItem(at: page)
        let quiet = try RecordEnvironmentChild.runChild(filter: "DiffPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "0", ArchiveRecordMode.environmentVariable: "never", RecordEnvironmentChild.directoryVariable: directory.path,
        ])
        #expect(!FileManager.default.fileExists(atPath: page.path))
        #expect(!quiet.contains("diff page"), "\(quiet)")
        #expect(quiet.contains("root.airframeHours: value changed"), "\(quiet)")
    }
}

/// Run only as the child of `failedExpectationsWriteThePageWhenAsked`.
@Suite struct DiffPageChild {
    @Test(.enabled(if: ProcessInfo.processInfo.environment[RecordEnvironmentChild.directoryVariable] != nil
                   && ProcessInfo.processInfo.environment["KEYEDARCHIVE_DIFF_PAGE"] != nil))
    func failingExpectations() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[RecordEnvironmentChild.directoryVariable])
        let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: directory + "/snapshot.plist")
        expectArchiveReference(of: cessna, registry: Fixtures.registry, reference: directory + "/app.plist", ignoring: ["Airplane.wingspan"])
    }
}

/// A failed compatibility expectation's page: the new archive where the change shows, opened at
/// its key path, beside the contract; only when asked, and never over a file it did not make.
@Suite struct CompatibilityPageTests {
    static let directoryVariable = "KEYEDARCHIVE_TESTING_COMPAT_PAGE_DIR"

    @Test(.enabled(if: RecordEnvironmentChild.canRunChild, "needs the test binary as an executable (Linux swift test)"))
    func failedCompatibilityWritesThePageWhenAsked() throws {
        let (directory, contract) = try TruthfulCompatibilityTests.contract()
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = contract + ".diff.html"
        let output = try RecordEnvironmentChild.runChild(filter: "CompatibilityPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "1", Self.directoryVariable: directory.path,
        ])
        #expect(output.contains("diff page (KEYEDARCHIVE_DIFF_PAGE): \(page)"), "\(output)")
        let text = try String(contentsOf: URL(fileURLWithPath: page), encoding: .utf8)
        #expect(text.prefix(1024).contains("<meta name=\"generator\" content=\"keyedarchive graph page\">"))
        #expect(text.contains("\"mode\":\"graph\""))
        #expect(text.contains("key-renamed Airplane.registration at root.airplanes[0].tailNumber"), "\(text.suffix(600))")
        // Not over a file it did not make; nothing without the variable.
        try Data("precious".utf8).write(to: URL(fileURLWithPath: page))
        let refused = try RecordEnvironmentChild.runChild(filter: "CompatibilityPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "1", Self.directoryVariable: directory.path,
        ])
        #expect(refused.contains("diff page not written: \(page) exists and is not a page keyedarchive made"), "\(refused)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: page)) == Data("precious".utf8))
        try FileManager.default.removeItem(atPath: page)
        let quiet = try RecordEnvironmentChild.runChild(filter: "CompatibilityPageChild", environment: [
            "KEYEDARCHIVE_DIFF_PAGE": "0", Self.directoryVariable: directory.path,
        ])
        #expect(!FileManager.default.fileExists(atPath: page))
        #expect(!quiet.contains("diff page") && quiet.contains("key-renamed"), "\(quiet)")
    }
}

/// Run only as the child of `failedCompatibilityWritesThePageWhenAsked`.
@Suite struct CompatibilityPageChild {
    @Test(.enabled(if: ProcessInfo.processInfo.environment[CompatibilityPageTests.directoryVariable] != nil))
    func failingCompatibility() throws {
        let directory = try #require(ProcessInfo.processInfo.environment[CompatibilityPageTests.directoryVariable])
        expectArchiveCompatible(of: TruthfulCompatibilityTests.pilots(version: 2), registry: TruthfulCompatibilityTests.registry(version: 2),
                                contract: directory + "/pilot.schema.json")
    }
}
