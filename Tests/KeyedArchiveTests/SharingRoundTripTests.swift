import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Sharing kept by the two ways the docs give for it: one ``ArchiveIdentityTable`` handed to the
/// unarchiver and the archiver, and ``KeyedArchiver/roundTrip(_:registry:options:)``. Every
/// archive of the Apple corpus, read under inspection, comes back strictly equal (ArchiveDiff,
/// sharing compared), and Python's `plistlib` finds the same objects shared at the same places.
@Suite struct SharingRoundTripTests {
    static var inspecting: ArchiveRegistry { ArchiveValueInspectionTests.inspecting }

    static func throughTable(_ bytes: [UInt8]) throws -> [UInt8] {
        try ArchiveValueInspectionTests.rewrite(bytes, identities: ArchiveIdentityTable())
    }

    static func throughRoundTrip(_ bytes: [UInt8]) throws -> [UInt8] {
        try KeyedArchiver.roundTrip(bytes, registry: inspecting)
    }

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyCorpusArchiveKeepsItsSharingThroughTheTableAndRoundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-sharing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var equal = ["table": 0, "roundTrip": 0]
        var files: [(original: String, rewrites: [String])] = []
        for (number, entry) in ArchiveFixtures.entries.enumerated() {
            let bytes = try ArchiveFixtures.bytes(entry)
            let original = directory.appendingPathComponent("\(number).original").path
            try Data(bytes).write(to: URL(fileURLWithPath: original))
            var rewrites: [String] = []
            for (mode, rewrite) in [("table", Self.throughTable), ("roundTrip", Self.throughRoundTrip)] {
                // Nibs nest deep: on a stack of the test's choosing (512 KiB on Darwin otherwise).
                let result = onThread(stackSize: 8 << 20) { Result { try rewrite(bytes) } }
                guard case .success(let ours) = result else {
                    Issue.record("\(mode) \(entry.relativePath): \(result)")
                    continue
                }
                let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: ours))
                #expect(diff.isEqual, "\(mode) \(entry.relativePath): \(diff.differences.prefix(3).map(\.description))")
                if diff.isEqual { equal[mode, default: 0] += 1 }
                let path = directory.appendingPathComponent("\(number).\(mode)").path
                try Data(ours).write(to: URL(fileURLWithPath: path))
                rewrites.append(path)
            }
            files.append((original, rewrites))
        }
        print("Sharing over the corpus: \(equal["table"] ?? 0) of \(ArchiveFixtures.entries.count) strictly equal through an identity table, \(equal["roundTrip"] ?? 0) through roundTrip")
        #expect(equal["table"] == ArchiveFixtures.entries.count && equal["roundTrip"] == ArchiveFixtures.entries.count)

        // The independent account: plistlib's, of the original and of each rewrite.
        let accounts = try #require(try PlistlibSharingReference.accounts(files.flatMap { [$0.original] + $0.rewrites }), "python3 is needed")
        var sharedReferences = 0, archivesSharing = 0, agreeing = 0
        for (original, rewrites) in files {
            let expected = try #require(accounts[original])
            #expect(!expected.hasPrefix("ERROR"), "\(original): \(expected)")
            if let count = Int(expected.prefix { $0 != " " }), count > 0 {
                sharedReferences += count
                archivesSharing += 1
            }
            for rewrite in rewrites {
                #expect(accounts[rewrite] == expected, "\(rewrite) against \(original)")
                if accounts[rewrite] == expected { agreeing += 1 }
            }
        }
        print("plistlib: \(archivesSharing) archives refer to shared objects \(sharedReferences) times; \(agreeing) of \(files.count * 2) rewrites share as their original")
        #expect(archivesSharing > 100)
    }

    /// The smallest case: `root.NS.calendar.NS.timezone` is the same object as `root.NS.timeZone`.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func aDateIntervalFormattersSharedTimeZoneStaysOneObject() throws {
        let entry = try #require(ArchiveFixtures.entries.first { $0.relativePath.hasSuffix("DateIntervalFormatter-Default.archive") })
        let bytes = try ArchiveFixtures.bytes(entry)
        for ours in [try Self.throughTable(bytes), try Self.throughRoundTrip(bytes)] {
            let graph = try ArchiveGraph(bytes: ours)
            let root = try #require(graph.topUID(forKey: "root"))
            guard case .instance(let formatter)? = graph.object(root), case .uid(let zone)? = formatter.value(forKey: "NS.timeZone"),
                  case .uid(let calendarUID)? = formatter.value(forKey: "NS.calendar"),
                  case .instance(let calendar)? = graph.object(calendarUID), case .uid(let calendarZone)? = calendar.value(forKey: "NS.timezone") else {
                Issue.record("the formatter's fields are not where the original has them")
                continue
            }
            #expect(zone == calendarZone)
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), graph).isEqual)
        }
    }

    /// An `NSMutableString` that is both an `NSURL` dictionary key's `NS.relative` and a field:
    /// one object in A, two in B. The key is compared as an object, so the difference is seen.
    @Test func diffSeesSharingThroughADictionaryKey() throws {
        func archive(sharing: Bool) throws -> [UInt8] {
            let mutable = ["NSMutableString", "NSString", "NSObject"]
            let text = ArchiveGenericObject(classes: mutable, fields: [("NS.string", .inline(.string("file:///a.swift")))])
            let other = sharing ? text : ArchiveGenericObject(classes: mutable, fields: [("NS.string", .inline(.string("file:///a.swift")))])
            let url = ArchiveGenericObject(classes: ["NSURL", "NSObject"], fields: [("NS.base", .object(nil)), ("NS.relative", .object(text))])
            let states = ArchiveGenericObject(classes: ["NSMutableDictionary", "NSDictionary", "NSObject"],
                                              fields: [("NS.keys", .objects([url])), ("NS.objects", .objects(["open"]))])
            let root = ArchiveGenericObject(classes: ["Workspace", "NSObject"], fields: [("states", .object(states)), ("documentURL", .object(other))])
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(root)
            return try archiver.finish()
        }
        let shared = try ArchiveGraph(bytes: archive(sharing: true))
        let apart = try ArchiveGraph(bytes: archive(sharing: false))
        #expect(ArchiveDiff(shared, shared).isEqual)
        let diff = ArchiveDiff(shared, apart)
        #expect(!diff.isEqual)
        let sharing = diff.differences.filter { $0.kind == .sharingChanged }
        #expect(sharing.count == 1, "\(diff.differences.map(\.description))")
        #expect(sharing.first?.description.contains("key <NSURL") == true, "\(sharing.map(\.description))")
        // Values only: the same.
        var options = ArchiveDiff.Options()
        options.valuesOnly = true
        #expect(ArchiveDiff(shared, apart, options: options).isEqual)
    }
}
