#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive
import PropertyList

/// Archives `values` with `registry` and expects them to be compatible, under `mode`, with the
/// committed contract at `contract` — a schema file (`keyedarchive schema --json`,
/// Docs/Compatibility.md). A breaking change fails the test with the lines `keyedarchive compat`
/// prints for it, then the verdict. Several values stand for several archives: a key some of
/// them lack is optional, as it is across a folder of fixtures.
///
/// A contract is a *reference*: what readers in users' hands require. No test run writes it,
/// whatever the record mode (``ArchiveRecordMode`` concerns snapshots; under `failed` and `all`
/// the run says it left the contract alone). A missing contract is a failure naming its path and
/// the call that records it: record one on purpose with
/// ``ArchiveExpectations/recordContract(of:registry:at:writingOptions:)``, review it and check it in.
/// - Parameters:
///   - values: what to archive, one archive each.
///   - registry: the registry to encode with.
///   - contract: the schema file's path.
///   - base: what a relative `contract` is resolved against.
///   - mode: which directions fail: backward, forward or full (the default).
///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
///   - writingOptions: the archiver's options.
///   - record: this call's record mode; nil for the scope's, the environment's or the default.
///     It never writes the contract; `failed` and `all` only say they left it alone.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveCompatible<T: ArchiveObjectEncodable>(
    of values: [T], registry: ArchiveRegistry, contract: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    mode: ArchiveCompatibility.Mode = .full, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default,
    record: ArchiveRecordMode? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    let location = ArchiveFixtureLocation(contract, relativeTo: base, testFilePath: "\(filePath)")
    if let message = ArchiveExpectations.checkArchiveCompatible(of: values, registry: registry, contract: location, mode: mode, ignoring: ignoring,
                                                            writingOptions: writingOptions, record: record) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// The same for one value.
/// - Parameters:
///   - value: what to archive.
///   - registry: the registry to encode with.
///   - contract: the schema file's path.
///   - base: what a relative `contract` is resolved against.
///   - mode: which directions fail: backward, forward or full (the default).
///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
///   - writingOptions: the archiver's options.
///   - record: this call's record mode; nil for the scope's, the environment's or the default.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectArchiveCompatible<T: ArchiveObjectEncodable>(
    of value: T, registry: ArchiveRegistry, contract: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    mode: ArchiveCompatibility.Mode = .full, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default,
    record: ArchiveRecordMode? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    expectArchiveCompatible(of: [value], registry: registry, contract: contract, relativeTo: base, mode: mode, ignoring: ignoring,
                            writingOptions: writingOptions, record: record, fileID: fileID, filePath: filePath, line: line, column: column)
}

/// Expects the archives (and schema files) in `folder` — a team's fixtures of the version being
/// built — to be compatible, under `mode`, with the committed contract at `contract`, failing
/// with `keyedarchive compat`'s lines. The contract is never written (see
/// `expectArchiveCompatible(of:registry:contract:…)`): record it on purpose with
/// ``ArchiveExpectations/recordContract(fixturesIn:at:)`` or `keyedarchive schema FOLDER --json > CONTRACT`.
/// - Parameters:
///   - folder: the fixtures' folder (read as `compat` reads one: recursively, files that are
///     neither archives nor schema files passed over).
///   - contract: the schema file's path.
///   - base: what relative `folder` and `contract` paths are resolved against.
///   - mode: which directions fail: backward, forward or full (the default).
///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
///   - record: this call's record mode; nil for the scope's, the environment's or the default.
///   - fileID: the caller's file ID (for Swift Testing).
///   - filePath: the caller's file path (for XCTest and for `relativeTo: .testFile`).
///   - line: the caller's line.
///   - column: the caller's column.
public func expectFixturesCompatible(
    folder: String, contract: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    mode: ArchiveCompatibility.Mode = .full, ignoring: [String] = [], record: ArchiveRecordMode? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    let folderLocation = ArchiveFixtureLocation(folder, relativeTo: base, testFilePath: "\(filePath)")
    let location = ArchiveFixtureLocation(contract, relativeTo: base, testFilePath: "\(filePath)")
    if let message = ArchiveExpectations.checkFixturesCompatible(folder: folderLocation.path, contract: location, mode: mode,
                                                                    ignoring: ignoring, record: record) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension ArchiveExpectations {
    // MARK: Compatibility with a contract

    /// Archives `values` and checks them against the contract at `contract` (a schema file)
    /// under `mode`; nil when they are compatible. The contract is never written. The failure text is `keyedarchive compat`'s lines for the changes, indented,
    /// after a line naming the contract.
    /// - Parameters:
    ///   - values: what to archive, one archive each (named `T #1`, `T #2`, … in examples).
    ///   - registry: the registry to encode with.
    ///   - contract: the schema file's location.
    ///   - mode: which directions fail.
    ///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
    ///   - writingOptions: the archiver's options.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    public static func checkArchiveCompatible<T: ArchiveObjectEncodable>(
        of values: [T], registry: ArchiveRegistry, contract: ArchiveFixtureLocation, mode: ArchiveCompatibility.Mode = .full,
        ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default, record: ArchiveRecordMode? = nil
    ) -> String? {
        var files: [(name: String, bytes: [UInt8])] = []
        for (index, value) in values.enumerated() {
            do {
                files.append(("\(T.self) #\(index + 1)", try KeyedArchiver.archive(value, registry: registry, options: writingOptions)))
            } catch {
                return "could not archive \(T.self): \(error)"
            }
        }
        let current: ArchiveSchemaSource
        do {
            current = try ArchiveSchemaSource(name: "the archives of \(T.self)", files: files)
        } catch {
            return "could not read back the archive of \(T.self): \(error)"
        }
        return checkArchiveCompatible(current, subject: "the archives of \(T.self)", contract: contract, mode: mode, ignoring: ignoring, record: record,
                                      newReaders: registry,
                                  howToRecord: "ArchiveExpectations.recordContract(of: VALUES, registry: REGISTRY, at: ArchiveFixtureLocation(\"\(contract.path)\"))")
    }

    /// Checks the archives and schema files in `folder` against the contract at `contract`
    /// under `mode`; nil when compatible. The contract is never written.
    /// - Parameters:
    ///   - folder: the fixtures' folder, an absolute path or one relative to the working directory.
    ///   - contract: the schema file's location.
    ///   - mode: which directions fail.
    ///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    public static func checkFixturesCompatible(
        folder: String, contract: ArchiveFixtureLocation, mode: ArchiveCompatibility.Mode = .full,
        ignoring: [String] = [], record: ArchiveRecordMode? = nil
    ) -> String? {
        let current: ArchiveSchemaSource
        do {
            current = try ArchiveSchemaSource.load(path: folder)
        } catch {
            return "could not read the fixtures: \(error)"
        }
        return checkArchiveCompatible(current, subject: "the fixtures in \(folder)", contract: contract, mode: mode, ignoring: ignoring, record: record,
                                  howToRecord: "keyedarchive schema \(folder) --json > \(contract.path)")
    }

    /// The one decision for both: read the contract and compare. A contract is never written
    /// here, in any record mode: a missing one is a failure that says how to record it
    /// (`howToRecord`), and a `failed` or `all` run says it left an existing one alone.
    static func checkArchiveCompatible(_ current: ArchiveSchemaSource, subject: String, contract location: ArchiveFixtureLocation,
                                   mode: ArchiveCompatibility.Mode, ignoring: [String], record: ArchiveRecordMode?, newReaders: ArchiveRegistry? = nil,
                                   howToRecord: String) -> String? {
        let recording: ArchiveRecording
        do {
            recording = try ArchiveRecording.current(call: record)
        } catch {
            return error.message
        }
        // A schema file, or a folder of them: one per kind of archive, compared like with like.
        let isFolder = (try? FileManager.default.contentsOfDirectory(atPath: location.path)) != nil
        guard location.exists || isFolder else {
            return "the contract \(location.path) does not exist (\(location.origin)); a test run never records a contract, in any "
                + "record mode (\(recording)): record it on purpose, review it and check it in: \(howToRecord)"
        }
        let committed: ArchiveSchemaSource
        if isFolder {
            do {
                committed = try ArchiveSchemaSource.load(path: location.path)
            } catch {
                return "the contract folder \(location.path) does not read: \(error)"
            }
        } else {
            guard let contractData = FileManager.default.contents(atPath: location.path) else {
                return "could not read the contract \(location.path) (\(location.origin)): not a readable file"
            }
            do {
                committed = ArchiveSchemaSource(name: location.path, schema: try ArchiveSchema(jsonFile: [UInt8](contractData)))
            } catch {
                return "the contract \(location.path) is not a readable schema file: \(error)"
            }
        }
        let leftAlone = recording.mode == .failed || recording.mode == .all
            ? "\(recording) left the contract \(location.path) as it was: a contract is a reference, never rewritten by a test run"
            : nil
        // The team's decisions, kept beside the contracts, apply to every expectation alike.
        var decisions = ArchiveCompatibilityDecisions()
        if let path = ArchiveCompatibilityDecisions.file(besideOldSide: location.path) {
            do {
                decisions = try ArchiveCompatibilityDecisions(contentsOfFile: path)
            } catch {
                return "the decisions beside the contract \(location.path) do not read: \(error)"
            }
        }
        let report = ArchiveCompatibilityReport([ArchiveCompatibility(old: committed, new: current, newReaders: newReaders)],
                                                mode: mode, ignoring: ignoring, decisions: decisions)
        // One decisions file serves every contract beside it, so a decision naming nothing here
        // is no news to a test that passes: noted only in a failure's message (the report's
        // text has the notes; this one is for the unmatched-ignore failure).
        let decisionNotes = report.unknownDecisions.map { unknown in
            "  note: decision \(unknown.pattern) in \(decisions.source) names nothing the contract or \(subject) has"
                + (unknown.nearest.map { " (nearest: \($0))" } ?? "")
        }
        // An ignore that matches nothing fails the expectation: it would hide a later break.
        guard report.unmatchedIgnores.isEmpty else {
            return (["\(subject) against the contract \(location.path): an ignore pattern matches no change"]
                + report.unmatchedIgnores.map { "  " + $0.description } + decisionNotes).joined(separator: "\n")
        }
        guard !report.isCompatible else {
            if let leftAlone { print("KeyedArchiveTesting: \(leftAlone)") }
            return nil
        }
        let lines = report.textDescription.split(separator: "\n").map { "  " + $0 }
        let page = ArchiveDiffPage.writeIfRequested(report, new: current, contractPath: location.path)
        return ((["\(subject) are not compatible with the contract \(location.path) under \(mode.rawValue) (old: the contract, new: \(subject)):"] + lines)
            + (leftAlone.map { [$0] } ?? []) + (page.map { [$0] } ?? [])).joined(separator: "\n")
    }

    // MARK: Recording a contract, on purpose

    /// Records the contract of `values` at `location`: the schema file (`keyedarchive schema
    /// --json`) of their archives, a new file. This is the one way the testing library writes a
    /// contract, and it never replaces one: a released contract is a reference readers in
    /// users' hands rely on, so a file already there is an error (record the next version's
    /// contract under a new name, or remove the old file yourself). Call it once, review the
    /// file, check it in, and test against it with `expectArchiveCompatible`.
    /// - Parameters:
    ///   - values: what to archive, one archive each.
    ///   - registry: the registry to encode with.
    ///   - location: where the new contract goes.
    ///   - writingOptions: the archiver's options.
    /// - Returns: the path written.
    /// - Throws: ``ArchiveFixtureError`` when a file is there already, a value does not archive, or
    ///   the file cannot be written.
    @discardableResult
    public static func recordContract<T: ArchiveObjectEncodable>(of values: [T], registry: ArchiveRegistry, at location: ArchiveFixtureLocation,
                                                                 writingOptions: ArchiveWritingOptions = .default) throws(ArchiveFixtureError) -> String {
        var files: [(name: String, bytes: [UInt8])] = []
        for (index, value) in values.enumerated() {
            do {
                files.append(("\(T.self) #\(index + 1)", try KeyedArchiver.archive(value, registry: registry, options: writingOptions)))
            } catch {
                throw ArchiveFixtureError("could not archive \(T.self): \(error)")
            }
        }
        let source: ArchiveSchemaSource
        do {
            source = try ArchiveSchemaSource(name: "the archives of \(T.self)", files: files)
        } catch {
            throw ArchiveFixtureError("could not read back the archive of \(T.self): \(error)")
        }
        return try writeNewContract(source.schema, at: location)
    }

    /// Records the contract of the archives and schema files in `folder` at `location`, a new
    /// file, as ``recordContract(of:registry:at:writingOptions:)`` does (the same as
    /// `keyedarchive schema FOLDER --json > CONTRACT`).
    /// - Parameters:
    ///   - folder: the fixtures' folder.
    ///   - location: where the new contract goes.
    /// - Returns: the path written.
    /// - Throws: ``ArchiveFixtureError`` when a file is there already, the fixtures do not read, or
    ///   the file cannot be written.
    @discardableResult
    public static func recordContract(fixturesIn folder: String, at location: ArchiveFixtureLocation) throws(ArchiveFixtureError) -> String {
        let source: ArchiveSchemaSource
        do {
            source = try ArchiveSchemaSource.load(path: folder)
        } catch {
            throw ArchiveFixtureError("could not read the fixtures: \(error)")
        }
        return try writeNewContract(source.schema, at: location)
    }

    private static func writeNewContract(_ schema: ArchiveSchema, at location: ArchiveFixtureLocation) throws(ArchiveFixtureError) -> String {
        guard !FileManager.default.fileExists(atPath: location.path) else {
            throw ArchiveFixtureError("\(location.path) is there already: a contract is never replaced; record this version's under a new name")
        }
        let message = ArchiveRecording.write(Array(schema.jsonDescription.utf8), at: location, why: "it was asked for", then: "review it and check it in", kind: "contract")
        guard message.hasPrefix("recorded ") else { throw ArchiveFixtureError(message) }
        return location.path
    }
}
