import Foundation

/// Runs the independent reference tools (Python's plistlib) from tests.
enum ReferenceTools {
    static let scriptsRoot = AppleFixtureCorpus.packageRoot.appendingPathComponent("Tests/Scripts")

    static var pythonPath: String? {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            for directory in path.split(separator: ":") {
                let candidate = "\(directory)/python3"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    static var isPythonAvailable: Bool { pythonPath != nil }

    /// Runs a command and returns (status, stdout+stderr).
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// One entry for `plistlib_reference.py`: a plist file and our JSON for it.
    struct Comparison {
        var plistPath: String
        var ourJSON: [UInt8]
        var format: String
    }

    /// Compares our JSON with plistlib's reading of each file; returns (matched, mismatch lines).
    static func compareWithPlistlib(_ comparisons: [Comparison]) throws -> (matched: Int, report: String, status: Int32) {
        guard let python = pythonPath else { return (0, "python3 not found", -1) }
        let directory = try temporaryDirectory("plistlib")
        defer { try? FileManager.default.removeItem(at: directory) }
        var listing = ""
        for (index, comparison) in comparisons.enumerated() {
            let jsonURL = directory.appendingPathComponent("\(index).json")
            try Data(comparison.ourJSON).write(to: jsonURL)
            listing += "\(comparison.plistPath)\t\(jsonURL.path)\t\(comparison.format)\n"
        }
        let listURL = directory.appendingPathComponent("list.tsv")
        try listing.write(to: listURL, atomically: true, encoding: .utf8)
        let result = try run(python, [scriptsRoot.appendingPathComponent("plistlib_reference.py").path, listURL.path])
        let matched = result.output.split(separator: "\n").last.flatMap { line -> Int? in
            line.split(separator: " ").first.flatMap { Int($0) }
        } ?? 0
        return (matched, result.output, result.status)
    }
}
