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
