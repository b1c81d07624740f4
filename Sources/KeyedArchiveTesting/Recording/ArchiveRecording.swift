// Foundation, not FoundationEssentials: ObjCBool (a folder is not a fixture) is Foundation's.
import Foundation
import PropertyList

/// The record mode in force for one expectation and where it was set — and the one place
/// that decides, for a fixture, whether to compare with it or write it
/// (``compareOrRecord(_:at:compare:)``). Every recording expectation goes through it, so
/// every one treats the modes alike; one of your own can too.
public struct ArchiveRecording: Hashable, Sendable, CustomStringConvertible {
    /// Where the mode was set.
    #if hasFeature(NonexhaustiveAttribute)
    @nonexhaustive
    #endif
    public enum Origin: Hashable, Sendable {
        /// By the expectation's `record:` argument.
        case call
        /// By ``withArchiveRecording(_:operation:)`` around the expectation.
        case scope
        /// By `KEYEDARCHIVE_RECORD`, with the value it had.
        case environment(String)
        /// By nothing: ``ArchiveRecordMode/missing``, the default.
        case defaultMode
    }

    /// The mode.
    public let mode: ArchiveRecordMode
    /// Where it was set.
    public let origin: Origin

    /// A mode set at `origin`.
    /// - Parameters:
    ///   - mode: the record mode.
    ///   - origin: where it was set, for the messages.
    public init(mode: ArchiveRecordMode, origin: Origin) {
        self.mode = mode
        self.origin = origin
    }

    /// The mode for an expectation: `call` when given, else the one ``withArchiveRecording(_:operation:)``
    /// set for the current task, else the one `KEYEDARCHIVE_RECORD` names in `environment`, else
    /// ``ArchiveRecordMode/missing``.
    /// - Parameters:
    ///   - call: the expectation's own `record:` argument.
    ///   - environment: the process environment (by default, this process's).
    /// - Throws: ``ArchiveFixtureError`` when `KEYEDARCHIVE_RECORD` holds a value that names no
    ///   mode — a typo must not quietly leave fixtures as they are, nor rewrite them.
    public static func current(call: ArchiveRecordMode? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws(ArchiveFixtureError) -> ArchiveRecording {
        if let call { return ArchiveRecording(mode: call, origin: .call) }
        if let scoped = ArchiveRecordMode.scoped { return ArchiveRecording(mode: scoped, origin: .scope) }
        if let value = environment[ArchiveRecordMode.environmentVariable] {
            guard let mode = ArchiveRecordMode(environmentValue: value) else {
                throw ArchiveFixtureError("\(ArchiveRecordMode.environmentVariable)=\(value.excerptForMessage(64)) names no record mode: use all, failed, missing or never (1 means all)")
            }
            return ArchiveRecording(mode: mode, origin: .environment(value))
        }
        return ArchiveRecording(mode: .missing, origin: .defaultMode)
    }

    /// `record mode failed (from KEYEDARCHIVE_RECORD=failed)`, `record mode all (set by an .archiveRecording trait or withArchiveRecording)`, ….
    public var description: String {
        switch origin {
        case .call: return "record mode \(mode) (set by the call)"
        case .scope: return "record mode \(mode) (set by an .archiveRecording trait or withArchiveRecording)"
        case .environment(let value): return "record mode \(mode) (from \(ArchiveRecordMode.environmentVariable)=\(value.excerptForMessage(64)))"
        case .defaultMode: return "record mode \(mode) (the default)"
        }
    }

    /// Compares `made` with the fixture at `location`, or writes it there, as the mode says:
    ///
    /// | fixture | never | missing | failed | all |
    /// | --- | --- | --- | --- | --- |
    /// | absent | fail: not found | write, fail once | write, fail once | write, fail once |
    /// | equal | pass | pass | pass | write, fail |
    /// | different | fail: the difference | fail: the difference | write, fail: the difference | write, fail |
    ///
    /// Nothing else is ever written, and nothing is written in ``ArchiveRecordMode/never``.
    /// - Parameters:
    ///   - made: the fixture's bytes as the code makes them now.
    ///   - location: where the fixture is.
    ///   - compare: the fixture read from disk → nil when it matches `made`, otherwise the
    ///     failure text (a diff).
    /// - Returns: nil when the expectation holds; otherwise the failure text, which says what
    ///   was written.
    public func compareOrRecord(_ made: [UInt8], at location: ArchiveFixtureLocation,
                                compare: (ArchiveFixtureFile) -> String?) -> String? {
        guard location.exists else {
            if mode == .never {
                return "\(location.notFoundMessage); \(self) does not write it"
            }
            return Self.write(made, at: location, why: "there was no fixture", then: "check it in and run the test again")
        }
        if mode == .all {
            return Self.write(made, at: location, why: "of the \(self)", then: "check it in, and run the test again in another mode")
        }
        let file: ArchiveFixtureFile
        do {
            file = try ArchiveFixtureFile(reading: location)
        } catch {
            return error.message
        }
        guard let difference = compare(file) else { return nil }
        guard mode == .failed else { return difference }
        let written = Self.write(made, at: location, why: "of the \(self)", then: "review the change, check it in and run the test again")
        return difference + "\n" + written
    }

    /// Writes `bytes` at `location` (making its folders), and says so: `recorded PATH (N bytes)
    /// because WHY; THEN`, or why it could not.
    static func write(_ bytes: [UInt8], at location: ArchiveFixtureLocation, why: String, then: String, kind: String = "fixture") -> String {
        let url = URL(fileURLWithPath: location.path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: location.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "could not write the \(kind) \(location.path): a folder is there"
        }
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            return "could not write the \(kind) \(location.path): \(error.localizedDescription)"
        }
        return "recorded \(location.path) (\(bytes.count) bytes) because \(why); \(then)"
    }
}
