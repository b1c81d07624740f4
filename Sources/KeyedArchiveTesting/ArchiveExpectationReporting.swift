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

/// Encodes `value` with `registry` and expects it to match the keyed archive at `fixture`
/// (a path): by graph (the default, ``ArchiveDiff``), by values, or by exact bytes. A
/// difference fails the test with the diff's lines. When the fixture is missing, or
/// `KEYEDARCHIVE_RECORD=1` is set, the archive is written there and the test fails once
/// saying so. Works from Swift Testing and from XCTest.
public func expectArchiveSnapshot<T: ArchiveObjectEncodable>(
    of value: T, registry: ArchiveRegistry, fixture: String, format: ArchiveFormat = .binary,
    comparison: ArchiveSnapshotComparison = .graph, writingOptions: ArchiveWritingOptions = .default,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkSnapshot(of: value, registry: registry, fixture: fixture, format: format,
                                                       comparison: comparison, writingOptions: writingOptions) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Decodes the archive at `fixture` as `T` with `registry` and expects it to equal `expected`,
/// failing with the key paths that differ (both are archived and their graphs compared).
public func expectDecodedFixture<T: ArchiveObjectCodable>(
    _ type: T.Type, fixture: String, registry: ArchiveRegistry, equals expected: T,
    readingOptions: ArchiveReadingOptions = .default,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkDecoding(type, fixture: fixture, registry: registry, equals: expected, readingOptions: readingOptions) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Expects `value` to survive archive → decode → archive unchanged, and its `init(from:)` to
/// read every field its `encode(to:)` writes: a key typo or a field forgotten on one side fails
/// with the key named.
public func expectArchiveRoundTrip<T: ArchiveObjectCodable>(
    _ value: T, registry: ArchiveRegistry,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkRoundTrip(value, registry: registry) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// Decodes the archive at `fixture` as `T` and expects every field in it to be read by some
/// `init(from:)`, failing with each unread field's key path and class — the app started writing
/// a field the model ignores. `ignoring` lists key paths known to be unread on purpose.
public func expectNoUnreadFields<T: ArchiveObjectDecodable>(
    decoding type: T.Type, fixture: String, registry: ArchiveRegistry, ignoring: Set<String> = [],
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    if let message = ArchiveExpectations.checkUnreadFields(type, fixture: fixture, registry: registry, ignoring: ignoring) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
