#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import PropertyList

/// How a snapshot expectation compares what was encoded with its fixture.
public enum ArchiveSnapshotComparison: Hashable, Sendable {
    /// The object graphs, as ``ArchiveDiff`` compares them (the default): a fixture Apple's
    /// archiver wrote and ours are equal when they hold the same graph, whatever the bytes.
    case graph
    /// Values only: ``ArchiveDiff/Options/valuesOnly`` (sharing and class chains ignored).
    case values
    /// Exact bytes; on a difference the message gives the graph diff and, when the graphs are
    /// equal, ``ArchiveLayoutExplanation``'s reasons.
    case bytes
}

/// The checks behind the expectations, returning the failure text instead of reporting it —
/// for a test framework other than Swift Testing and XCTest, or to assert on the text.
/// Each returns nil when the expectation holds.
public enum ArchiveExpectations {
    /// The environment variable that makes snapshot expectations write their fixtures.
    public static let recordVariable = "KEYEDARCHIVE_RECORD"

    /// Whether ``recordVariable`` asks for recording (`1`, `true` or `yes`).
    public static var isRecording: Bool {
        guard let value = ProcessInfo.processInfo.environment[recordVariable]?.lowercased() else { return false }
        return value == "1" || value == "true" || value == "yes"
    }

    /// Encodes `value` with `registry` and compares it with the archive at `fixturePath`. A
    /// missing fixture, or recording asked for, writes the fixture and fails once saying so.
    public static func checkSnapshot<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, fixture fixturePath: String, format: ArchiveFormat = .binary,
        comparison: ArchiveSnapshotComparison = .graph, writingOptions: ArchiveWritingOptions = .default,
        record: Bool = ArchiveExpectations.isRecording
    ) -> String? {
        let encoded: [UInt8]
        do {
            encoded = try KeyedArchiver.archive(value, registry: registry, format: format, options: writingOptions)
        } catch {
            return "could not archive \(T.self): \(error)"
        }
        let exists = FileManager.default.fileExists(atPath: fixturePath)
        if record || !exists {
            do {
                let url = URL(fileURLWithPath: fixturePath)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(encoded).write(to: url)
            } catch {
                return "could not write the fixture \(fixturePath): \(error)"
            }
            let why = exists ? "\(recordVariable) is set" : "there was no fixture"
            return "recorded \(fixturePath) (\(encoded.count) bytes) because \(why); check it in and run the test again"
        }
        let fixture: [UInt8]
        do {
            fixture = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath)))
        } catch {
            return "could not read the fixture \(fixturePath): \(error)"
        }
        if comparison == .bytes && fixture == encoded { return nil }
        let diff: ArchiveDiff
        do {
            var options = ArchiveDiff.Options()
            options.valuesOnly = comparison == .values
            diff = ArchiveDiff(try ArchiveGraph(bytes: fixture), try ArchiveGraph(bytes: encoded), options: options)
        } catch {
            return "the fixture \(fixturePath) is not a keyed archive: \(error)"
        }
        if comparison != .bytes && diff.isEqual { return nil }
        var lines = ["the archive of \(T.self) differs from \(fixturePath) (A: the fixture, B: encoded now):"]
        lines += diff.description.split(separator: "\n").map { "  " + $0 }
        if comparison == .bytes && diff.isEqual {
            lines[0] = "the archive of \(T.self) holds the graph of \(fixturePath) but not its bytes (A: the fixture, B: encoded now):"
            let reasons = (try? ArchiveLayoutExplanation.explain(fixture, encoded)) ?? []
            lines += reasons.map { "  layout: " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// Decodes the archive at `fixturePath` as `T` and compares it with `expected`: both are
    /// archived with `registry` and their graphs diffed, so what differs is named by the key
    /// paths `encode(to:)` writes. (`T`'s own `==`, when it has one, is not consulted: two
    /// values that archive alike are alike to every reader of the archive.)
    public static func checkDecoding<T: ArchiveObjectCodable>(
        _ type: T.Type, fixture fixturePath: String, registry: ArchiveRegistry, equals expected: T,
        readingOptions: ArchiveReadingOptions = .default
    ) -> String? {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath)))
        } catch {
            return "could not read the fixture \(fixturePath): \(error)"
        }
        let decoded: T
        do {
            decoded = try KeyedUnarchiver.unarchive(T.self, from: bytes, registry: registry, options: readingOptions)
        } catch {
            return "could not decode \(fixturePath) as \(T.self): \(error)"
        }
        return compareArchived(expected, decoded, registry: registry, header: "\(fixturePath) decoded as \(T.self) differs from the expected value (A: expected, B: decoded):")
    }

    /// Archives `value`, decodes it, archives the result again and diffs the two archives; also
    /// decodes with ``ArchiveReadingOptions/reportsUnreadFields`` so that a field `encode(to:)`
    /// writes and `init(from:)` never reads — a key typo, a field forgotten on one side — fails
    /// with the key named.
    public static func checkRoundTrip<T: ArchiveObjectCodable>(_ value: T, registry: ArchiveRegistry) -> String? {
        let first: [UInt8]
        do {
            first = try KeyedArchiver.archive(value, registry: registry)
        } catch {
            return "could not archive \(T.self): \(error)"
        }
        var options = ArchiveReadingOptions()
        options.reportsUnreadFields = true
        let unarchiver: KeyedUnarchiver
        let decoded: T
        do {
            unarchiver = try KeyedUnarchiver(bytes: first, registry: registry, options: options)
            decoded = try unarchiver.decode(T.self)
        } catch {
            return "\(T.self) does not decode what it encodes: \(error)"
        }
        var lines: [String] = []
        let unread = unarchiver.unreadFields
        if !unread.isEmpty {
            lines.append("\(T.self) encodes fields its init(from:) never reads:")
            lines += unread.prefix(100).map { "  " + $0.description }
        }
        if let difference = compareArchived(value, decoded, registry: registry, header: "\(T.self) archived, decoded and archived again differs (A: first archive, B: second):") {
            lines.append(difference)
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Decodes the archive at `fixturePath` as `T` and lists the fields no `init(from:)` read,
    /// less those whose key path is in `ignoring`.
    public static func checkUnreadFields<T: ArchiveObjectDecodable>(_ type: T.Type, fixture fixturePath: String, registry: ArchiveRegistry,
                                                                  ignoring: Set<String> = []) -> String? {
        var options = ArchiveReadingOptions()
        options.reportsUnreadFields = true
        let unread: [ArchiveUnreadField]
        do {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixturePath)))
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry, options: options)
            _ = try unarchiver.decode(T.self)
            unread = unarchiver.unreadFields.filter { !ignoring.contains($0.keyPath.description) }
        } catch {
            return "could not decode \(fixturePath) as \(T.self): \(error)"
        }
        guard !unread.isEmpty else { return nil }
        return (["\(fixturePath) holds \(unread.count) fields no init(from:) read:"] + unread.prefix(100).map { "  " + $0.description }).joined(separator: "\n")
    }

    static func compareArchived<T: ArchiveObjectEncodable>(_ a: T, _ b: T, registry: ArchiveRegistry, header: String) -> String? {
        do {
            let graphA = try ArchiveGraph(bytes: KeyedArchiver.archive(a, registry: registry))
            let graphB = try ArchiveGraph(bytes: KeyedArchiver.archive(b, registry: registry))
            let diff = ArchiveDiff(graphA, graphB)
            if diff.isEqual { return nil }
            return ([header] + diff.description.split(separator: "\n").map { "  " + $0 }).joined(separator: "\n")
        } catch {
            return "could not archive \(T.self) to compare: \(error)"
        }
    }
}
