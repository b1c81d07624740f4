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
/// The record mode (``ArchiveRecordMode``: this call's `record:`, else
/// ``withArchiveRecording(_:operation:)``'s, else `KEYEDARCHIVE_RECORD`'s, else `missing`) says
/// when the contract is written: a missing one is recorded from `values` (under every mode but
/// `never`); under `failed` a breaking change *extends* the contract — the values' observations
/// merged in, counts added up — as does every run under `all`. Review the schema file's diff
/// before checking it in: an extended contract accepts what it was extended with.
/// - Parameters:
///   - values: what to archive, one archive each.
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
    of values: [T], registry: ArchiveRegistry, contract: String, relativeTo base: ArchiveFixtureBase = .workingDirectory,
    mode: ArchiveCompatibility.Mode = .full, ignoring: [String] = [], writingOptions: ArchiveWritingOptions = .default,
    record: ArchiveRecordMode? = nil,
    fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) {
    let location = ArchiveFixtureLocation(contract, relativeTo: base, testFilePath: "\(filePath)")
    if let message = ArchiveExpectations.checkCompatibility(of: values, registry: registry, contract: location, mode: mode, ignoring: ignoring,
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
/// with `keyedarchive compat`'s lines; the record mode writes or extends the contract as for
/// `expectArchiveCompatible(of:registry:contract:…)`.
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
    if let message = ArchiveExpectations.checkFixturesCompatibility(folder: folderLocation.path, contract: location, mode: mode,
                                                                    ignoring: ignoring, record: record) {
        reportArchiveExpectationFailure(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

extension ArchiveExpectations {
    // MARK: Compatibility with a contract

    /// Archives `values` and checks them against the contract at `contract` (a schema file)
    /// under `mode`, writing or extending it as the record mode says; nil when they are
    /// compatible. The failure text is `keyedarchive compat`'s lines for the changes, indented,
    /// after a line naming the contract.
    /// - Parameters:
    ///   - values: what to archive, one archive each (named `T #1`, `T #2`, … in examples).
    ///   - registry: the registry to encode with.
    ///   - contract: the schema file's location.
    ///   - mode: which directions fail.
    ///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
    ///   - writingOptions: the archiver's options.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    public static func checkCompatibility<T: ArchiveObjectEncodable>(
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
        return checkCompatibility(current, subject: "the archives of \(T.self)", contract: contract, mode: mode, ignoring: ignoring, record: record)
    }

    /// Checks the archives and schema files in `folder` against the contract at `contract`
    /// under `mode`, writing or extending it as the record mode says; nil when compatible.
    /// - Parameters:
    ///   - folder: the fixtures' folder, an absolute path or one relative to the working directory.
    ///   - contract: the schema file's location.
    ///   - mode: which directions fail.
    ///   - ignoring: changes accepted on purpose: rule names, classes or `Class.key`.
    ///   - record: this call's record mode; nil for the scope's, the environment's or the default.
    public static func checkFixturesCompatibility(
        folder: String, contract: ArchiveFixtureLocation, mode: ArchiveCompatibility.Mode = .full,
        ignoring: [String] = [], record: ArchiveRecordMode? = nil
    ) -> String? {
        let current: ArchiveSchemaSource
        do {
            current = try ArchiveSchemaSource.load(path: folder)
        } catch {
            return "could not read the fixtures: \(error)"
        }
        return checkCompatibility(current, subject: "the fixtures in \(folder)", contract: contract, mode: mode, ignoring: ignoring, record: record)
    }

    /// The one decision for both: read the contract, compare, and record through
    /// ``ArchiveRecording/compareOrRecord(_:at:compare:)`` — the new contract being the old one
    /// with `current` merged in (or `current` alone when there was none).
    static func checkCompatibility(_ current: ArchiveSchemaSource, subject: String, contract location: ArchiveFixtureLocation,
                                   mode: ArchiveCompatibility.Mode, ignoring: [String], record: ArchiveRecordMode?) -> String? {
        let recording: ArchiveRecording
        do {
            recording = try ArchiveRecording.current(call: record)
        } catch {
            return error.message
        }
        var committed: ArchiveSchema?
        if location.exists {
            do {
                committed = try ArchiveSchema(jsonFile: try ArchiveFixtureFile(reading: location).bytes)
            } catch let error as ArchiveFixtureError {
                return error.message
            } catch {
                // Never rewritten, in any mode: a contract that does not read is a person's to mend.
                return "the contract \(location.path) is not a readable schema file: \(error)"
            }
        }
        let made = committed.map { ArchiveSchema(graphs: [], schemas: [$0, current.schema]) } ?? current.schema
        return recording.compareOrRecord(Array(made.jsonDescription.utf8), at: location) { _ in
            guard let committed else { return nil }
            let report = ArchiveCompatibilityReport([ArchiveCompatibility(old: ArchiveSchemaSource(name: location.path, schema: committed), new: current)],
                                                    mode: mode, ignoring: ignoring)
            guard !report.isCompatible else { return nil }
            let lines = report.textDescription.split(separator: "\n").map { "  " + $0 }
            return (["\(subject) are not compatible with the contract \(location.path) under \(mode.rawValue) (old: the contract, new: \(subject)):"] + lines)
                .joined(separator: "\n")
        }
    }
}
