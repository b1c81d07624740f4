import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Our generic view against Python's plistlib, on every Apple fixture and on our own archives.
@Suite struct ArchivePlistlibReferenceTests {
    @Test func genericViewAgreesWithPlistlibOnTheCorpus() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        let paths = ArchiveFixtures.entries.map(\.url.path)
        guard let theirs = try PlistlibArchiveReference.read(paths) else {
            print("python3 not found; skipping the plistlib comparison")
            return
        }
        var agreed = 0, plistlibFailed: [String] = []
        for entry in ArchiveFixtures.entries {
            guard let reference = theirs[entry.url.path] else {
                Issue.record("\(entry): no plistlib output")
                continue
            }
            if reference.hasPrefix("ERROR") {
                plistlibFailed.append(entry.relativePath)
                continue
            }
            let ours = PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: try ArchiveFixtures.bytes(entry)))
            if ours == reference { agreed += 1 } else { Issue.record("\(entry): our graph differs from plistlib's reading") }
        }
        print("Generic view vs plistlib: \(agreed) agree; plistlib cannot read \(plistlibFailed.count): \(plistlibFailed)")
        // The three xcuserstate files with raw U+0001 in <string> (README of the corpus).
        #expect(plistlibFailed.count == 3)
        #expect(agreed == ArchiveFixtures.entries.count - 3)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func ourFleetReadsTheSameInPlistlib(format: ArchiveFormat) throws {
        let bytes = try KeyedArchiver.archive(Fleet.makePilots(), registry: Fleet.registry, format: format)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-fleet-\(UUID().uuidString).plist")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let theirs = try PlistlibArchiveReference.read([url.path]) else {
            print("python3 not found; skipping the plistlib comparison")
            return
        }
        #expect(theirs[url.path] == PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: bytes)))
    }
}
