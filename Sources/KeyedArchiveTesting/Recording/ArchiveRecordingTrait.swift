#if canImport(Testing) && compiler(>=6.1)
import Testing

/// A Swift Testing trait that runs a test, or every test of a suite, inside
/// ``withArchiveRecording(_:operation:)``: `@Suite(.archiveRecording(.never))`.
public struct ArchiveRecordingTrait: TestTrait, SuiteTrait, TestScoping {
    /// The record mode the tests run with.
    public let mode: ArchiveRecordMode

    /// A suite's trait applies to each of its tests.
    public var isRecursive: Bool { true }

    /// Runs `function` with ``mode`` as the scope's record mode.
    /// - Parameters:
    ///   - test: the test or suite.
    ///   - testCase: the test case, for a parameterized test.
    ///   - function: the test to run.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withArchiveRecording(mode) {
            try await function()
        }
    }
}

extension Trait where Self == ArchiveRecordingTrait {
    /// Runs the test, or each test of the suite, with `mode` as its snapshots' record mode
    /// (unless a call names its own): `@Test(.archiveRecording(.failed))`.
    /// - Parameter mode: the record mode.
    public static func archiveRecording(_ mode: ArchiveRecordMode) -> Self {
        ArchiveRecordingTrait(mode: mode)
    }
}
#endif
