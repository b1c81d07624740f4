// Foundation, not FoundationEssentials: ObjCBool (a folder is not a fixture) is Foundation's.
import Foundation

/// What a relative fixture path is resolved against.
#if hasFeature(NonexhaustiveAttribute)
@nonexhaustive
#endif
public enum ArchiveFixtureBase: Hashable, Sendable {
    /// The process's working directory (the default, as a plain file path is read): the
    /// package's root under `swift test`, but not under Xcode or another runner.
    case workingDirectory
    /// The folder of the test file that calls the expectation (from its `#filePath`), wherever
    /// the tests are run from: `fixture: "Fixtures/app.plist", relativeTo: .testFile`.
    case testFile
    /// A folder of your choice (itself resolved against the working directory when relative).
    case folder(String)
}

/// Where a fixture lives: its absolute path, and how that path was found, so a message about
/// it can say both (`fixture not found: PATH (resolved from …)`).
///
/// Expectations make one from their `fixture:` and `relativeTo:` arguments, or, for a snapshot
/// without a path, from the test's `#filePath` and `#function`
/// (``besideTest(named:format:testFilePath:function:)``).
public struct ArchiveFixtureLocation: Hashable, Sendable, CustomStringConvertible {
    /// The fixture's absolute path.
    public let path: String
    /// How ``path`` was found: `resolved from "Fixtures/app.plist" against the folder of the
    /// test file /…/Tests/ServiceTests`, and the like.
    public let origin: String

    /// `path` as given, resolved against `base` when it is relative.
    /// - Parameters:
    ///   - path: the fixture's path; absolute, or relative to `base`.
    ///   - base: what a relative path is resolved against.
    ///   - testFilePath: the test file's path, for ``ArchiveFixtureBase/testFile`` (the caller's
    ///     `#filePath` by default).
    public init(_ path: String, relativeTo base: ArchiveFixtureBase = .workingDirectory, testFilePath: String = #filePath) {
        if path.hasPrefix("/") {
            self.path = Self.standardized(path)
            origin = "given as an absolute path"
            return
        }
        let folder: String
        let described: String
        switch base {
        case .workingDirectory:
            folder = FileManager.default.currentDirectoryPath
            described = "the working directory \(folder)"
        case .testFile:
            folder = Self.folder(of: testFilePath)
            described = "the folder of the test file \(folder)"
        case .folder(let given):
            folder = given.hasPrefix("/") ? given : Self.join(FileManager.default.currentDirectoryPath, given)
            described = "the folder \(folder)"
        }
        self.path = Self.standardized(Self.join(folder, path))
        origin = "resolved from \"\(path)\" against \(described)"
    }

    private init(path: String, origin: String) {
        self.path = path
        self.origin = origin
    }

    /// The snapshot file of one test, beside the test file as snapshot libraries keep theirs:
    /// `__Snapshots__/<TestFile>/<test>.<ext>` in the test file's folder, or
    /// `<test>.<name>.<ext>` when the test names its snapshots (a test with two snapshots must).
    /// The test's name is its function's without the argument list (`readsWhatTheAppWrote()`
    /// is `readsWhatTheAppWrote`); any character but an ASCII letter, digit, `-` or `_` becomes `_`.
    /// - Parameters:
    ///   - name: what tells this snapshot from the test's others, or nil for its only one.
    ///   - format: the snapshot's format, which gives the extension (`plist`, `xml`, `json`).
    ///   - testFilePath: the test file's path (the caller's `#filePath` by default).
    ///   - function: the test's function (the caller's `#function` by default).
    public static func besideTest(named name: String? = nil, format: ArchiveFixtureFormat, testFilePath: String = #filePath,
                                  function: String = #function) -> ArchiveFixtureLocation {
        let folder = folder(of: testFilePath)
        let fileName = testFilePath.split(separator: "/").last.map(String.init) ?? "Tests"
        let stem = fileName.hasSuffix(".swift") ? String(fileName.dropLast(6)) : fileName
        var test = function
        if let parenthesis = test.firstIndex(of: "(") { test = String(test[..<parenthesis]) }
        var file = fileComponent(test.isEmpty ? "test" : test)
        if let name { file += "." + fileComponent(name) }
        let relative = "\(snapshotFolderName)/\(fileComponent(stem))/\(file).\(format.fileExtension)"
        return ArchiveFixtureLocation(path: standardized(join(folder, relative)),
                                      origin: "named after the test \(function) in \(fileName): \(relative) beside it")
    }

    /// The folder beside each test file that holds its snapshots, as swift-snapshot-testing
    /// names its own.
    public static let snapshotFolderName = "__Snapshots__"

    /// The one message for a fixture that is not there: `fixture not found: PATH (resolved from …)`.
    public var notFoundMessage: String {
        "fixture not found: \(path) (\(origin))"
    }

    /// ``path``.
    public var description: String { path }

    /// Whether a file (not a folder) is at ``path``.
    public var exists: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// The folder of `filePath`, absolute (a relative `#filePath`, as some build systems give,
    /// is taken from the working directory).
    static func folder(of filePath: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        guard let slash = filePath.lastIndex(of: "/") else { return cwd }
        let folder = String(filePath[..<slash])
        if folder.isEmpty { return "/" }
        return folder.hasPrefix("/") ? folder : standardized(join(cwd, folder))
    }

    static func join(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    /// `path` without `.` components and with `..` applied (lexically: no link is followed).
    static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// A file-name component made of ASCII letters, digits, `-` and `_` only (no `.`: a name
    /// never climbs out of the snapshot folder).
    static func fileComponent(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "_")
                ? scalar : "_"
        }))
    }
}
