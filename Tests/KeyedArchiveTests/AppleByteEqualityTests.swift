import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// How many Apple-made archives our encoder reproduces byte for byte (format-notes §3–§5).
@Suite struct AppleByteEqualityTests {
    static let macOSMadeGroups = ["go-ios/swift-generated/", "nskeyedunarchiver-rs/", "corelibs-foundation/"]

    /// Every binary fixture of the macOS-made groups, rebuilt as a graph through the public
    /// encoding API in Apple-faithful mode.
    @Test func rebuiltGraphsOfMacOSMadeFixtures() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var outcomes: [GraphRebuilder.Outcome: [String]] = [:]
        var total = 0
        for entry in ArchiveFixtures.entries where entry.format == "binary" && Self.macOSMadeGroups.contains(where: { entry.relativePath.hasPrefix($0) }) {
            let apple = try ArchiveFixtures.bytes(entry)
            let graph = try ArchiveGraph(bytes: apple)
            guard let ours = try GraphRebuilder.rebuild(graph) else {
                Issue.record("\(entry): could not be rebuilt")
                continue
            }
            total += 1
            if let directory = ProcessInfo.processInfo.environment["KA_REBUILD_DIR"] {
                try Data(ours).write(to: URL(fileURLWithPath: directory).appendingPathComponent(entry.relativePath.replacingOccurrences(of: "/", with: "_")))
            }
            let outcome = try GraphRebuilder.compare(ours, apple)
            outcomes[outcome, default: []].append(entry.relativePath)
        }
        let identical = outcomes[.identical, default: []].count
        print("Apple-faithful rebuild of macOS-made binary fixtures: \(identical)/\(total) byte-identical; sharing-only differences: \(outcomes[.sharingOnly, default: []].count); other value-equal: \(outcomes[.valuesEqualElsewhere, default: []].count); different: \(outcomes[.different, default: []].count)")
        for (outcome, paths) in outcomes where outcome != .identical {
            print("  \(outcome.rawValue): \(paths.joined(separator: ", "))")
        }
        #expect(outcomes[.different, default: []].isEmpty)
        #expect(outcomes[.valuesEqualElsewhere, default: []].isEmpty)
        #expect(identical >= 49)
    }

    /// The same graphs with the default sharing (equal values stored once): smaller files, the
    /// same values and key orders, and byte-identical wherever Apple happened to share the same.
    @Test func rebuiltGraphsWithValueSharing() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var identical = 0, total = 0, smaller = 0
        for entry in ArchiveFixtures.entries where entry.format == "binary" && Self.macOSMadeGroups.contains(where: { entry.relativePath.hasPrefix($0) }) {
            let apple = try ArchiveFixtures.bytes(entry)
            guard let ours = try GraphRebuilder.rebuild(try ArchiveGraph(bytes: apple), sharing: .byValue) else { continue }
            total += 1
            if ours == apple { identical += 1 }
            if ours.count < apple.count { smaller += 1 }
            #expect(ours.count <= apple.count, "\(entry)")
            // Values may differ only in UIDs where equal strings were merged; the class of every
            // object and the top-level keys stay the same.
            let ourGraph = try ArchiveGraph(bytes: ours)
            #expect(ourGraph.top.map(\.key) == (try ArchiveGraph(bytes: apple)).top.map(\.key), "\(entry)")
        }
        print("Value-sharing rebuild of macOS-made binary fixtures: \(identical)/\(total) byte-identical, \(smaller) smaller than Apple's")
    }

    /// XML twins: Core Foundation's XML has no sharing and sorted keys, so a rebuilt graph
    /// written as XML should equal Apple's XML file byte for byte.
    @Test func rebuiltGraphsAsXML() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var identical = 0, total = 0
        var mismatched: [String] = []
        for entry in ArchiveFixtures.entries where entry.format == "xml" && Self.macOSMadeGroups.contains(where: { entry.relativePath.hasPrefix($0) }) {
            let apple = try ArchiveFixtures.bytes(entry)
            guard let ours = try GraphRebuilder.rebuild(try ArchiveGraph(bytes: apple), sharing: .appleInstances, format: .xml) else {
                mismatched.append("\(entry) (not rebuilt)")
                continue
            }
            total += 1
            if ours == apple { identical += 1 } else { mismatched.append(entry.relativePath) }
            if let directory = ProcessInfo.processInfo.environment["KA_REBUILD_DIR"] {
                try Data(ours).write(to: URL(fileURLWithPath: directory).appendingPathComponent(entry.relativePath.replacingOccurrences(of: "/", with: "_")))
            }
        }
        print("XML rebuild of macOS-made XML fixtures: \(identical)/\(total) byte-identical; differing: \(mismatched.joined(separator: ", "))")
        #expect(total > 0)
        #expect(identical == total)
    }
}
