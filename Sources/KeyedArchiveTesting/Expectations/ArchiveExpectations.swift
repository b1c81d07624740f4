#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import PropertyList

/// How a snapshot or reference expectation compares what was encoded with its file.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveSnapshotComparison: Hashable, Sendable {
    /// The object graphs, as `ArchiveDiff` compares them (the default): a fixture Apple's
    /// archiver wrote and ours are equal when they hold the same graph, whatever the bytes.
    case graph
    /// Values only: `ArchiveDiff/Options/valuesOnly` (sharing and class chains ignored).
    case values
    /// Exact bytes (for a JSON file, its exact text); on a difference the message gives the
    /// graph diff and, when the graphs are equal, `ArchiveLayoutExplanation`'s reasons.
    case bytes
}

/// The checks behind the expectations, returning the failure text instead of reporting it —
/// for a test framework other than Swift Testing and XCTest, or to assert on the text.
/// Each returns nil when the expectation holds.
///
/// A fixture path is resolved against the working directory, or against the calling test
/// file's folder with `relativeTo: .testFile` (``ArchiveFixtureLocation``). A fixture may be a
/// binary or XML archive or its canonical JSON (``ArchiveFixtureFormat``).
public enum ArchiveExpectations {
    /// The environment variable that sets the record mode of snapshot expectations
    /// (``ArchiveRecordMode/environmentVariable``).
    public static let recordVariable = ArchiveRecordMode.environmentVariable

    // MARK: Snapshots: our own recordings

    /// Encodes `value` with `registry` and compares it with the snapshot at `fixture`, writing
    /// it as the record mode says (``ArchiveRecording/compareOrRecord(_:at:compare:)``).
    /// - Parameters:
    ///   - value: what to encode.
    ///   - registry: the registry to encode with.
    ///   - fixture: the snapshot's path.
    ///   - base: what a relative `fixture` is resolved against.
    ///   - format: the snapshot's format when it is recorded (binary, XML or canonical JSON).
    ///   - comparison: graph (default), values or bytes.
    ///   - writingOptions: the archiver's options.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    ///   - testFilePath: the calling test file, for `relativeTo: .testFile`.
    public static func checkArchiveSnapshot<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
        format: ArchiveFixtureFormat = .binary, comparison: ArchiveSnapshotComparison = .graph,
        writingOptions: ArchiveWritingOptions = .default, record: ArchiveRecordMode? = nil, testFilePath: String = #filePath
    ) -> String? {
        checkArchiveSnapshot(of: value, registry: registry, at: ArchiveFixtureLocation(fixture, relativeTo: base, testFilePath: testFilePath),
                      format: format, comparison: comparison, writingOptions: writingOptions, record: record)
    }

    /// The same with the snapshot beside the test: `__Snapshots__/<TestFile>/<test>.<ext>`
    /// (``ArchiveFixtureLocation/besideTest(named:format:testFilePath:function:)``).
    /// - Parameters:
    ///   - value: what to encode.
    ///   - registry: the registry to encode with.
    ///   - name: what tells this snapshot from the test's others (nil for its only one).
    ///   - format: the snapshot's format, which also gives its extension.
    ///   - comparison: graph (default), values or bytes.
    ///   - writingOptions: the archiver's options.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    ///   - testFilePath: the calling test file.
    ///   - function: the calling test.
    public static func checkArchiveSnapshot<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, named name: String? = nil, format: ArchiveFixtureFormat = .binary,
        comparison: ArchiveSnapshotComparison = .graph, writingOptions: ArchiveWritingOptions = .default,
        record: ArchiveRecordMode? = nil, testFilePath: String = #filePath, function: String = #function
    ) -> String? {
        checkArchiveSnapshot(of: value, registry: registry,
                      at: ArchiveFixtureLocation.besideTest(named: name, format: format, testFilePath: testFilePath, function: function),
                      format: format, comparison: comparison, writingOptions: writingOptions, record: record)
    }

    /// The same at a location already resolved.
    /// - Parameters:
    ///   - value: what to encode.
    ///   - registry: the registry to encode with.
    ///   - location: the snapshot's location.
    ///   - format: the snapshot's format when it is recorded.
    ///   - comparison: graph (default), values or bytes.
    ///   - writingOptions: the archiver's options.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    public static func checkArchiveSnapshot<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, at location: ArchiveFixtureLocation, format: ArchiveFixtureFormat = .binary,
        comparison: ArchiveSnapshotComparison = .graph, writingOptions: ArchiveWritingOptions = .default, record: ArchiveRecordMode? = nil
    ) -> String? {
        let recording: ArchiveRecording
        do {
            recording = try ArchiveRecording.current(call: record)
        } catch {
            return error.message
        }
        return checkArchiveSnapshot(of: value, registry: registry, at: location, format: format, comparison: comparison,
                             writingOptions: writingOptions, recording: recording)
    }

    /// The same with the record mode already chosen.
    static func checkArchiveSnapshot<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, at location: ArchiveFixtureLocation, format: ArchiveFixtureFormat,
        comparison: ArchiveSnapshotComparison, writingOptions: ArchiveWritingOptions, recording: ArchiveRecording
    ) -> String? {
        let made: [UInt8]
        do {
            made = try format.archive(value, registry: registry, options: writingOptions)
        } catch {
            return "could not archive \(T.self): \(error)"
        }
        return recording.compareOrRecord(made, at: location) { file in
            compare(made, format: format, with: file, comparison: comparison, subject: "the archive of \(T.self)", role: "the fixture")
        }
    }

    // MARK: References: files another program made

    /// Encodes `value` with `registry` in the format of the file at `reference` — one another
    /// program made — and compares the two, less the fields `ignoring` names. Never writes: no
    /// record mode, scope or variable applies, and a missing reference is a failure. A failure
    /// that lists fields only the reference holds ends with an `ignoring:` list to paste.
    /// - Parameters:
    ///   - value: what to encode.
    ///   - registry: the registry to encode with.
    ///   - reference: the reference file's path.
    ///   - base: what a relative `reference` is resolved against.
    ///   - comparison: graph (default), values or bytes.
    ///   - ignoring: patterns of fields the reference holds and the model leaves out on
    ///     purpose (``ArchiveFieldPattern``).
    ///   - writingOptions: the archiver's options.
    ///   - testFilePath: the calling test file, for `relativeTo: .testFile`.
    public static func checkArchiveReference<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, reference: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
        comparison: ArchiveSnapshotComparison = .graph, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default,
        testFilePath: String = #filePath
    ) -> String? {
        checkArchiveReference(of: value, registry: registry, at: ArchiveFixtureLocation(reference, relativeTo: base, testFilePath: testFilePath),
                       comparison: comparison, ignoring: ignoring, writingOptions: writingOptions)
    }

    /// The same at a location already resolved.
    /// - Parameters:
    ///   - value: what to encode.
    ///   - registry: the registry to encode with.
    ///   - location: the reference file's location.
    ///   - comparison: graph (default), values or bytes.
    ///   - ignoring: patterns of fields the reference holds and the model leaves out on purpose.
    ///   - writingOptions: the archiver's options.
    public static func checkArchiveReference<T: ArchiveObjectEncodable>(
        of value: T, registry: ArchiveRegistry, at location: ArchiveFixtureLocation,
        comparison: ArchiveSnapshotComparison = .graph, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default
    ) -> String? {
        let patterns: [ArchiveFieldPattern]
        do {
            patterns = try ArchiveFieldPattern.parse(ignoring)
        } catch {
            return error.message
        }
        let file: ArchiveFixtureFile
        do {
            file = try ArchiveFixtureFile(reading: location)
        } catch {
            return error.message + "; a reference is never recorded: put the file the other program made there"
        }
        let made: [UInt8]
        do {
            made = try file.format.archive(value, registry: registry, options: writingOptions)
        } catch {
            return "could not archive \(T.self): \(error)"
        }
        return compare(made, format: file.format, with: file, comparison: comparison, patterns: patterns, subject: "the archive of \(T.self)",
                       role: referenceRole)
    }

    /// Compares `made` (in `format`) with `file`: nil when they match as `comparison` asks,
    /// otherwise the diff (A: the file, B: `made`) less what `patterns` name, and the layout
    /// reasons when only the bytes differ.
    static func compare(_ made: [UInt8], format: ArchiveFixtureFormat, with file: ArchiveFixtureFile, comparison: ArchiveSnapshotComparison,
                        patterns: [ArchiveFieldPattern] = [], subject: String, role: String) -> String? {
        if comparison == .bytes && file.bytes == made { return nil }
        let path = file.location.path
        let fixtureGraph: ArchiveGraph
        do {
            fixtureGraph = try file.graph()
        } catch {
            return "\(role) \(path) is not a keyed archive: \(error)"
        }
        let madeFile = ArchiveFixtureFile(made: made, format: format, location: file.location)
        let madeGraph: ArchiveGraph
        do {
            madeGraph = try madeFile.graph()
        } catch {
            return "could not read back what was encoded: \(error)"
        }
        var options = ArchiveDiff.Options()
        options.valuesOnly = comparison == .values
        let diff = ArchiveDiff(fixtureGraph, madeGraph, options: options)
        let (kept, dropped) = unignored(diff, a: fixtureGraph, b: madeGraph, patterns: patterns, ignoringMutability: false)
        let graphsMatch = kept.isEmpty && diff.omittedCount == 0 && diff.incompleteReason == nil
        if comparison != .bytes && graphsMatch { return nil }
        var lines = ["\(subject) differs from \(path) (A: \(role), B: encoded now):"]
        lines += differenceLines(kept, diff)
        if comparison == .bytes && graphsMatch {
            let what = file.format == .json ? "text" : "bytes"
            lines[0] = "\(subject) holds the graph of \(path) but not its \(what) (A: \(role), B: encoded now):"
            if file.format != format, file.format == .json || format == .json {
                lines.append("  layout: format: A is \(file.format.rawValue), B is \(format.rawValue)")
            }
            let reasons = (try? ArchiveLayoutExplanation.explain(file.propertyListBytes(), madeFile.propertyListBytes())) ?? []
            lines += reasons.map { "  layout: " + $0 }
        }
        if !dropped.isEmpty, !patterns.isEmpty || role == referenceRole {
            lines += FieldListing.ignoringSuggestion(dropped, given: patterns, purpose: "if the model leaves them out on purpose")
        }
        if let page = ArchiveDiffPage.writeIfRequested(fixtureGraph, madeGraph, diff: diff, fixturePath: path) { lines.append(page) }
        return lines.joined(separator: "\n")
    }

    static let referenceRole = "the reference"

    /// The differences no pattern names, and among them the fields only A holds (each with
    /// the archived class of the object holding it, and its key). A pattern judges a
    /// difference by its key path and the class chain of the object holding the field (in B
    /// for a field only B holds, in A otherwise).
    static func unignored(_ diff: ArchiveDiff, a: ArchiveGraph, b: ArchiveGraph, patterns: [ArchiveFieldPattern],
                          ignoringMutability: Bool) -> (kept: [ArchiveDiff.Difference], dropped: [(className: String, key: String)]) {
        var kept: [ArchiveDiff.Difference] = []
        var dropped: [(className: String, key: String)] = []
        for difference in diff.differences {
            // A Swift model keeps a collection's values, not its mutability.
            if ignoringMutability, difference.kind == .classChanged, immutableName(difference.a) == immutableName(difference.b) { continue }
            guard case .key(let key)? = difference.path.components.last else {
                kept.append(difference)
                continue
            }
            let holder = ArchiveKeyPath(Array(difference.path.components.dropLast()))
            let chain = (difference.kind == .onlyInB ? b : a).classChain(at: holder)
            if patterns.contains(where: { $0.matches(keyPath: difference.path, classChain: chain) }) { continue }
            kept.append(difference)
            if difference.kind == .onlyInA { dropped.append((chain.first ?? "", key)) }
        }
        return (kept, dropped)
    }

    /// The kept differences indented (at most 100, then a count), then what the diff itself
    /// left out or could not compare.
    static func differenceLines(_ kept: [ArchiveDiff.Difference], _ diff: ArchiveDiff) -> [String] {
        var lines = FieldListing.lines(kept.map(\.description))
        if diff.omittedCount > 0 { lines.append("  … and \(diff.omittedCount) more differences, past the \(diff.differences.count) compared") }
        if let reason = diff.incompleteReason { lines.append("  comparison incomplete: \(reason)") }
        return lines
    }

    // MARK: Decoding fixtures

    /// Decodes the archive at `fixture` as `T` and compares it with `expected`: both are
    /// archived with `registry` and their graphs diffed, so what differs is named by the key
    /// paths `encode(to:)` writes. (`T`'s own `==`, when it has one, is not consulted: two
    /// values that archive alike are alike to every reader of the archive.)
    ///
    /// A field the model does not read at all archives alike on both sides, so this check
    /// cannot see it: ``checkNoUnreadFields(_:fixture:relativeTo:registry:ignoring:testFilePath:)``
    /// and ``checkLosslessDecoding(_:fixture:relativeTo:registry:ignoring:readingOptions:writingOptions:testFilePath:)`` do.
    /// - Parameters:
    ///   - type: the model to decode.
    ///   - fixture: the fixture's path (binary, XML or JSON).
    ///   - base: what a relative `fixture` is resolved against.
    ///   - registry: the registry to decode and encode with.
    ///   - expected: the value the fixture should decode as.
    ///   - readingOptions: the unarchiver's options.
    ///   - testFilePath: the calling test file, for `relativeTo: .testFile`.
    public static func checkDecodedFixture<T: ArchiveObjectCodable>(
        _ type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry, equals expected: T,
        readingOptions: ArchiveReadingOptions = .default, testFilePath: String = #filePath
    ) -> String? {
        let decoded: T
        let location = ArchiveFixtureLocation(fixture, relativeTo: base, testFilePath: testFilePath)
        switch decode(T.self, at: location, registry: registry, options: readingOptions) {
        case .failure(let error): return error.message
        case .success(let result): decoded = result.value
        }
        return compareArchived(expected, decoded, registry: registry,
                               header: "\(location.path) decoded as \(T.self) differs from the expected value (A: expected, B: decoded):")
    }

    /// Decodes the archive at `fixture` as `T`, encodes the result again and diffs that with
    /// the fixture by values (`ArchiveDiff/Options/valuesOnly`): whatever the model drops
    /// (a field its `init(from:)` no longer reads, `only in A`) or changes (a value rounded, a
    /// default written instead) is named by its key path — what
    /// ``checkDecodedFixture(_:fixture:relativeTo:registry:equals:readingOptions:testFilePath:)``
    /// cannot see. Differences an `ignoring` pattern names (``ArchiveFieldPattern``, judged by
    /// the key path and the archived class of the object holding the field) are left out, so a
    /// subset model lists what it leaves behind on purpose; the failure ends with such a list
    /// to paste. Foundation's mutable and immutable classes (`NSMutableArray` and `NSArray`, …)
    /// count as one: a model keeps a collection's values, not its mutability.
    /// - Parameters:
    ///   - type: the model to decode and encode.
    ///   - fixture: the fixture's path (binary, XML or JSON).
    ///   - base: what a relative `fixture` is resolved against.
    ///   - registry: the registry to decode and encode with.
    ///   - ignoring: patterns of fields the model drops on purpose.
    ///   - readingOptions: the unarchiver's options.
    ///   - writingOptions: the archiver's options.
    ///   - testFilePath: the calling test file, for `relativeTo: .testFile`.
    public static func checkLosslessDecoding<T: ArchiveObjectCodable>(
        _ type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry,
        ignoring: [String] = [], readingOptions: ArchiveReadingOptions = .default, writingOptions: ArchiveWritingOptions = .default,
        testFilePath: String = #filePath
    ) -> String? {
        let location = ArchiveFixtureLocation(fixture, relativeTo: base, testFilePath: testFilePath)
        let patterns: [ArchiveFieldPattern]
        do {
            patterns = try ArchiveFieldPattern.parse(ignoring)
        } catch {
            return error.message
        }
        let decoded: Decoded<T>
        switch decode(T.self, at: location, registry: registry, options: readingOptions) {
        case .failure(let error): return error.message
        case .success(let result): decoded = result
        }
        let again: ArchiveGraph
        do {
            again = try ArchiveGraph(bytes: KeyedArchiver.archive(decoded.value, registry: registry, options: writingOptions))
        } catch {
            return "could not encode again what \(location.path) decoded as \(T.self): \(error)"
        }
        var options = ArchiveDiff.Options()
        options.valuesOnly = true
        options.maximumDifferences = 10_000
        let diff = ArchiveDiff(decoded.graph, again, options: options)
        let (kept, dropped) = unignored(diff, a: decoded.graph, b: again, patterns: patterns, ignoringMutability: true)
        guard !kept.isEmpty || diff.omittedCount > 0 || diff.incompleteReason != nil else { return nil }
        var lines = ["\(location.path) decoded as \(T.self) and encoded again loses or changes data (A: the fixture, B: \(T.self) encoded again):"]
        lines += differenceLines(kept, diff)
        if !dropped.isEmpty {
            lines += FieldListing.ignoringSuggestion(dropped, given: patterns, purpose: "if the model drops them on purpose")
        }
        return lines.joined(separator: "\n")
    }

    /// `NSMutableArray` → `NSArray`: Foundation's mutable classes by their immutable name.
    static func immutableName(_ name: String) -> String {
        name.hasPrefix("NSMutable") ? "NS" + name.dropFirst(9) : name
    }

    /// Archives `value`, decodes it, archives the result again and diffs the two archives; also
    /// decodes with `ArchiveReadingOptions/reportsUnreadFields` so that a field `encode(to:)`
    /// writes and `init(from:)` never reads — a key typo, a field forgotten on one side — fails
    /// with the key named, less the fields an `ignoring` pattern names (``ArchiveFieldPattern``):
    /// those written on purpose for other readers only, such as an old key kept for old readers
    /// after a rename. The failure ends with such a list to paste. The two archives are compared
    /// whole, ignored fields included.
    /// - Parameters:
    ///   - value: the value to send through.
    ///   - registry: the registry to encode and decode with.
    ///   - ignoring: patterns of fields `encode(to:)` writes and `init(from:)` does not read on purpose.
    public static func checkArchiveRoundTrip<T: ArchiveObjectCodable>(_ value: T, registry: ArchiveRegistry, ignoring: [String] = []) -> String? {
        let patterns: [ArchiveFieldPattern]
        do {
            patterns = try ArchiveFieldPattern.parse(ignoring)
        } catch {
            return error.message
        }
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
        let unread = unarchiver.unreadFields.filter { field in !patterns.contains { $0.matches(field) } }
        if !unread.isEmpty {
            lines.append("\(T.self) encodes fields its init(from:) never reads:")
            lines += FieldListing.lines(unread.map(\.description))
        }
        if let difference = compareArchived(value, decoded, registry: registry, header: "\(T.self) archived, decoded and archived again differs (A: first archive, B: second):") {
            lines.append(difference)
        }
        if !unread.isEmpty {
            lines += FieldListing.ignoringSuggestion(unread.map { ($0.className, $0.key) }, given: patterns,
                                                     purpose: "if it writes them on purpose for other readers only (an old key kept for old readers)")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Decodes the archive at `fixture` as `T` and lists the fields no `init(from:)` read,
    /// less those an `ignoring` pattern names (``ArchiveFieldPattern``: `key`, `Class.key`, or
    /// a key path with `*` and `[*]`). The list names at most 100 fields, then how many more,
    /// and ends with an `ignoring:` argument to paste, grouped by `Class.key` with counts.
    /// - Parameters:
    ///   - type: the model to decode.
    ///   - fixture: the fixture's path (binary, XML or JSON).
    ///   - base: what a relative `fixture` is resolved against.
    ///   - registry: the registry to decode with.
    ///   - ignoring: patterns of fields left unread on purpose.
    ///   - testFilePath: the calling test file, for `relativeTo: .testFile`.
    public static func checkNoUnreadFields<T: ArchiveObjectDecodable>(
        _ type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry,
        ignoring: [String] = [], testFilePath: String = #filePath
    ) -> String? {
        let location = ArchiveFixtureLocation(fixture, relativeTo: base, testFilePath: testFilePath)
        let patterns: [ArchiveFieldPattern]
        do {
            patterns = try ArchiveFieldPattern.parse(ignoring)
        } catch {
            return error.message
        }
        var options = ArchiveReadingOptions()
        options.reportsUnreadFields = true
        let unread: [ArchiveUnreadField]
        switch decode(T.self, at: location, registry: registry, options: options) {
        case .failure(let error): return error.message
        case .success(let result): unread = result.unarchiver.unreadFields.filter { field in !patterns.contains { $0.matches(field) } }
        }
        guard !unread.isEmpty else { return nil }
        var lines = ["\(location.path) holds \(FieldListing.count(unread.count, "field")) no init(from:) read:"]
        lines += FieldListing.lines(unread.map(\.description))
        lines += FieldListing.ignoringSuggestion(unread.map { ($0.className, $0.key) }, given: patterns,
                                                 purpose: "to leave them unread on purpose")
        return lines.joined(separator: "\n")
    }

    /// Reads the fixture at `location` and decodes it as `T`, keeping the unarchiver (for its
    /// unread fields) and the fixture's graph.
    static func decode<T: ArchiveObjectDecodable>(_ type: T.Type, at location: ArchiveFixtureLocation, registry: ArchiveRegistry,
                                                  options: ArchiveReadingOptions) -> Result<Decoded<T>, ArchiveFixtureError> {
        let graph: ArchiveGraph
        do {
            graph = try ArchiveFixtureFile(reading: location).graph(options: options)
        } catch let error as ArchiveFixtureError {
            return .failure(error)
        } catch {
            return .failure(ArchiveFixtureError("could not decode \(location.path) as \(T.self): \(error)"))
        }
        let unarchiver = KeyedUnarchiver(graph: graph, registry: registry, options: options)
        do {
            return .success(Decoded(value: try unarchiver.decode(T.self), unarchiver: unarchiver, graph: graph))
        } catch {
            return .failure(ArchiveFixtureError("could not decode \(location.path) as \(T.self): \(error)"))
        }
    }

    /// What ``decode(_:at:registry:options:)`` gives.
    struct Decoded<T> {
        let value: T
        let unarchiver: KeyedUnarchiver
        let graph: ArchiveGraph
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
