import KeyedArchive
import PropertyList
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Reports a failed expectation to the framework running the test: Swift Testing's
/// `Issue.record` at the caller's source location when a Swift Testing test is running,
/// XCTest's `XCTFail` at the caller's file and line otherwise.
func reportArchiveExpectationFailure(_ message: String, fileID: String, filePath: StaticString, line: UInt, column: UInt) {
    #if canImport(Testing)
    if Test.current != nil {
        Issue.record(Comment(rawValue: message),
                     sourceLocation: SourceLocation(fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column)))
        return
    }
    #endif
    #if canImport(XCTest)
    XCTFail(message, file: filePath, line: line)
    #else
    print("\(filePath):\(line): error: \(message)")
    #endif
}

/// Encodes `value` with `registry` and expects it to match the snapshot at `fixture` — a file
/// this test records, our own encoding — by graph (the default, `ArchiveDiff`), by values, or
/// by exact bytes. A difference fails the test with the diff's lines. The record mode
/// (``ArchiveRecordMode``: this call's `record:`, else ``withArchiveRecording(_:operation:)``'s,
/// else `KEYEDARCHIVE_RECORD`'s, else `missing`) says when the file is written. For a file
/// another program made, use ``expectArchiveReference(of:registry:reference:relativeTo:comparison:ignoring:writingOptions:fileID:filePath:line:column:)``,
/// which never writes. Works from Swift Testing and from XCTest.
/// - Parameters:
///   - value: what to encode.
///   - registry: the registry to encode with.
///   - fixture: the snapshot's path.
///   - base: what a relative `fixture` is resolved against (the working directory, or the test file's folder).
///   - format: the snapshot's format when it is recorded: binary, XML or canonical JSON.
///   - comparison: graph (default), values or bytes.
///   - writingOptions: the archiver's options.
///   - record: this call's record mode; nil for the scope's, the environment's or the default.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveSnapshot<T: ArchiveObjectEncodable>(
    of value: T, registry: ArchiveRegistry, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    format: ArchiveFixtureFormat = .binary, comparison: ArchiveSnapshotComparison = .graph,
    writingOptions: ArchiveWritingOptions = .default, record: ArchiveRecordMode? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    let location = ArchiveFixtureLocation(fixture, relativeTo: base, testFilePath: "\(filePath)")
    if let message = ArchiveExpectations.checkArchiveSnapshot(of: value, registry: registry, at: location, format: format,
                                                       comparison: comparison, writingOptions: writingOptions, record: record) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// The same with the snapshot kept beside the test, named after it as snapshot libraries name
/// theirs: `__Snapshots__/<TestFile>/<test>.plist` (`.xml`, `.json` for those formats) in the
/// test file's folder, or `<test>.<name>.plist` with `named:` — which a test with more than one
/// snapshot must give each, as must a parameterized test.
/// - Parameters:
///   - value: what to encode.
///   - registry: the registry to encode with.
///   - name: what tells this snapshot from the test's others (nil for its only one).
///   - format: the snapshot's format: binary, XML or canonical JSON.
///   - comparison: graph (default), values or bytes.
///   - writingOptions: the archiver's options.
///   - record: this call's record mode; nil for the scope's, the environment's or the default.
///   - function: the calling test (names the file).
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (the snapshot folder is beside it).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveSnapshot<T: ArchiveObjectEncodable>(
    of value: T, registry: ArchiveRegistry, named name: String? = nil, format: ArchiveFixtureFormat = .binary,
    comparison: ArchiveSnapshotComparison = .graph, writingOptions: ArchiveWritingOptions = .default, record: ArchiveRecordMode? = nil,
    function: String = #function, fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    let location = ArchiveFixtureLocation.besideTest(named: name, format: format, testFilePath: "\(filePath)", function: function)
    var message = SnapshotNames.claim(location, by: "\(fileID):\(line)")
    if message == nil {
        message = ArchiveExpectations.checkArchiveSnapshot(of: value, registry: registry, at: location, format: format,
                                                    comparison: comparison, writingOptions: writingOptions, record: record)
    }
    if let message {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Encodes `value` with `registry`, in the format of the file at `reference`, and expects it to
/// match that file — one *another program* made (the app's own archive, a `.mom`, a nib) — by
/// graph, values or bytes, less the fields `ignoring` names (a model that leaves some out on
/// purpose). A reference is never written: no record mode, scope or environment variable
/// applies, and a missing reference is a failure naming its path.
/// - Parameters:
///   - value: what to encode.
///   - registry: the registry to encode with.
///   - reference: the reference file's path (binary, XML or JSON).
///   - base: what a relative `reference` is resolved against.
///   - comparison: graph (default), values or bytes.
///   - ignoring: patterns of fields the reference holds and the model leaves out on purpose
///     (``ArchiveFieldPattern``: `key`, `Class.key`, a key path with `*` and `[*]`).
///   - writingOptions: the archiver's options.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveReference<T: ArchiveObjectEncodable>(
    of value: T, registry: ArchiveRegistry, reference: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    comparison: ArchiveSnapshotComparison = .graph, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkArchiveReference(of: value, registry: registry, reference: reference, relativeTo: base,
                                                        comparison: comparison, ignoring: ignoring, writingOptions: writingOptions,
                                                        testFilePath: "\(filePath)") {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Decodes the archive at `fixture` as `T` with `registry` and expects it to equal `expected`,
/// failing with the key paths that differ (both are archived and their graphs compared). A
/// field the model does not read is invisible to this check (both sides archive without it):
/// pair it with ``expectNoUnreadFields(decoding:fixture:relativeTo:registry:ignoring:fileID:filePath:line:column:)``
/// or ``expectLosslessDecoding(_:fixture:relativeTo:registry:ignoring:readingOptions:fileID:filePath:line:column:)``.
/// - Parameters:
///   - type: the model to decode.
///   - fixture: the fixture's path (binary, XML or JSON).
///   - base: what a relative `fixture` is resolved against.
///   - registry: the registry to decode and encode with.
///   - expected: the value the fixture should decode as.
///   - readingOptions: the unarchiver's options.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectDecodedFixture<T: ArchiveObjectCodable>(
    _ type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry, equals expected: T,
    readingOptions: ArchiveReadingOptions = .default,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkDecodedFixture(type, fixture: fixture, relativeTo: base, registry: registry, equals: expected,
                                                       readingOptions: readingOptions, testFilePath: "\(filePath)") {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Decodes the archive at `fixture` as `T`, encodes the result again and expects the two to
/// hold the same values: a field the model drops or changes fails with its key path (`root.wingspan:
/// only in A: real 15.5`), which neither ``expectDecodedFixture(_:fixture:relativeTo:registry:equals:readingOptions:fileID:filePath:line:column:)``
/// (both sides archived through the same model) nor a snapshot of our own values would show.
/// `ignoring` names what a subset model drops on purpose, by ``ArchiveFieldPattern``.
/// - Parameters:
///   - type: the model to decode and encode.
///   - fixture: the fixture's path (binary, XML or JSON).
///   - base: what a relative `fixture` is resolved against.
///   - registry: the registry to decode and encode with.
///   - ignoring: patterns of fields the model drops on purpose.
///   - readingOptions: the unarchiver's options.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectLosslessDecoding<T: ArchiveObjectCodable>(
    _ type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry,
    ignoring: [String] = [], readingOptions: ArchiveReadingOptions = .default,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkLosslessDecoding(type, fixture: fixture, relativeTo: base, registry: registry, ignoring: ignoring,
                                                               readingOptions: readingOptions, testFilePath: "\(filePath)") {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Expects `value` to survive archive → decode → archive unchanged, and its `init(from:)` to
/// read every field its `encode(to:)` writes: a key typo or a field forgotten on one side fails
/// with the key named. `ignoring` names fields written on purpose for other readers only — the
/// old key of a rename, kept with the real value while old readers remain — by
/// ``ArchiveFieldPattern`` (`key`, `Class.key`, a key path with `*` and `[*]`); the failure ends
/// with such a list to paste. The two archives are still compared whole.
/// - Parameters:
///   - value: the value to send through.
///   - registry: the registry to encode and decode with.
///   - ignoring: patterns of fields `encode(to:)` writes and `init(from:)` does not read on purpose.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveRoundTrip<T: ArchiveObjectCodable>(
    _ value: T, registry: ArchiveRegistry, ignoring: [String] = [],
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkArchiveRoundTrip(value, registry: registry, ignoring: ignoring) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Decodes the archive at `fixture` as `T` and expects every field in it to be read by some
/// `init(from:)`, failing with each unread field's key path and class — the app started writing
/// a field the model ignores. `ignoring` names fields left unread on purpose, by
/// ``ArchiveFieldPattern``: a bare `key`, `Class.key`, or a key path with `*` and `[*]`
/// (`root.choices[*].model`). The failure lists at most 100 fields and counts the rest, and
/// ends with an `ignoring:` argument to paste, grouped by `Class.key` with counts.
/// - Parameters:
///   - type: the model to decode.
///   - fixture: the fixture's path (binary, XML or JSON).
///   - base: what a relative `fixture` is resolved against.
///   - registry: the registry to decode with.
///   - ignoring: patterns of fields left unread on purpose.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectNoUnreadFields<T: ArchiveObjectDecodable>(
    decoding type: T.Type, fixture: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, registry: ArchiveRegistry,
    ignoring: [String] = [],
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkNoUnreadFields(type, fixture: fixture, relativeTo: base, registry: registry, ignoring: ignoring,
                                                           testFilePath: "\(filePath)") {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
