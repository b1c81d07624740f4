#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a snapshot expectation writes its fixture, as swift-snapshot-testing's record modes
/// have it. A *snapshot* is our own recording of what we encode, and these modes rewrite it; a
/// *reference* (a file another program made, ``expectArchiveReference(of:registry:reference:relativeTo:comparison:ignoring:writingOptions:fileID:filePath:line:column:)``)
/// is never written in any mode.
///
/// The mode is chosen per call (`record: .failed`), per scope (``withArchiveRecording(_:operation:)``)
/// or for the whole run by the environment variable `KEYEDARCHIVE_RECORD`; the first of these
/// that is set wins, and with none of them the mode is ``missing``.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveRecordMode: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Never write: a missing fixture is a failure naming its path and this mode. For CI.
    case never
    /// Write a fixture that is missing (and fail once, saying so); compare an existing one.
    /// The default.
    case missing
    /// Write a missing fixture, and rewrite one that differs (failing with the difference):
    /// accepts every change the run finds. Review the diff before checking it in.
    case failed
    /// Write every fixture, whether it differs or not, and fail saying so.
    case all

    /// The environment variable that sets the mode for a run: `KEYEDARCHIVE_RECORD=all`,
    /// `failed`, `missing` or `never` (`1`, `true` or `yes` mean `all`).
    public static let environmentVariable = "KEYEDARCHIVE_RECORD"

    /// The mode a value of ``environmentVariable`` names, or nil when it names none: `all`,
    /// `failed`, `missing`, `never` (any case); `1`, `true`, `yes` mean ``all``; an empty value,
    /// `0`, `false` and `no` mean the default, ``missing``.
    public init?(environmentValue: String) {
        let value = String(environmentValue.filter { !$0.isWhitespace }).lowercased()
        switch value {
        case "1", "true", "yes": self = .all
        case "", "0", "false", "no": self = .missing
        default:
            guard let mode = ArchiveRecordMode(rawValue: value) else { return nil }
            self = mode
        }
    }

    /// The mode's name: `never`, `missing`, `failed` or `all`.
    public var description: String { rawValue }

    /// The mode ``withArchiveRecording(_:operation:)`` set for the current task, if any.
    @TaskLocal static var scoped: ArchiveRecordMode?
}

/// Runs `operation` with `mode` as the record mode of every snapshot expectation in it (and in
/// the tasks it starts) that does not name its own: `withArchiveRecording(.all) { … }` records
/// one suite's snapshots again, whatever `KEYEDARCHIVE_RECORD` says.
/// - Parameters:
///   - mode: the record mode inside `operation`.
///   - operation: the code to run.
/// - Returns: what `operation` returns.
public func withArchiveRecording<R>(_ mode: ArchiveRecordMode, operation: () throws -> R) rethrows -> R {
    try ArchiveRecordMode.$scoped.withValue(mode, operation: operation)
}

/// The same for asynchronous code.
/// - Parameters:
///   - mode: the record mode inside `operation`.
///   - isolation: the actor `operation` runs on (the caller's).
///   - operation: the code to run.
/// - Returns: what `operation` returns.
public func withArchiveRecording<R>(_ mode: ArchiveRecordMode, isolation: isolated (any Actor)? = #isolation,
                                    operation: () async throws -> R) async rethrows -> R {
    try await ArchiveRecordMode.$scoped.withValue(mode, operation: operation, isolation: isolation)
}
