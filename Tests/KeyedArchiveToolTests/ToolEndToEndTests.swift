import Foundation
import Testing

/// Runs the built `keyedarchive` executable and checks output and exit status.
@Suite struct ToolEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sharedCorpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")
    static var corpusAvailable: Bool { FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("MANIFEST.tsv").path) }

    /// The executable sits beside the test bundle in the build products folder.
    static var executable: URL {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("keyedarchive")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/keyedarchive")
    }

    struct Run {
        var status: Int32
        var output: Data
        var error: String
    }

    static func run(_ arguments: [String], input: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // The tool writes at most one line to standard error, so reading it last cannot block.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        return Run(status: process.terminationStatus, output: outputData, error: String(decoding: errorData, as: UTF8.self))
    }

    @Test func validateAdmitsOrExplainsEachRefusal() throws {
        let fleet = Self.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
        let all = "Pilot,Airplane,Glider,PoweredAirplane,NSArray,NSDictionary,NSDate"
        let admitted = try Self.run(["validate", fleet, "--allow", all])
        #expect(admitted.status == 0, "\(admitted.error)")
        #expect(String(decoding: admitted.output, as: UTF8.self).contains("admitted"))

        // Without Glider and NSDate: each refused object on its own line with its class chain,
        // key path, UID and the --allow that would admit it; exit status 1.
        let refused = try Self.run(["validate", fleet, "--allow", "Pilot,Airplane,PoweredAirplane,NSArray,NSDictionary"])
        #expect(refused.status == 1)
        let lines = String(decoding: refused.output, as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("refused: classNotAllowed at root[") && $0.contains("(object #") && $0.contains("--allow ") })
        #expect(lines.contains { $0.contains("class Glider is not in the allowlist [classes: Glider < Airplane < NSObject]") && $0.hasSuffix("--allow Glider") })
        #expect(lines.contains { $0.contains(".licenseDate") && $0.hasSuffix("--allow NSDate") })
        #expect(refused.error.split(separator: "\n").count == 1)
        #expect(refused.error.contains("reachable objects refused"))

        // The primitive policy: the fleet's names and model strings are plain strings.
        let noStrings = try Self.run(["validate", fleet, "--allow", all, "--primitives", "integers,reals,booleans,data,dates"])
        #expect(noStrings.status == 1)
        #expect(String(decoding: noStrings.output, as: UTF8.self).contains("primitive policy does not admit plain strings"))
        #expect(try Self.run(["validate", fleet, "--allow", all, "--primitives", "texts"]).status == 2)
        #expect(try Self.run(["validate", fleet]).status == 2)
        // Not an archive: one line, status 1.
        let notArchive = try Self.run(["validate", "-", "--allow", "X"], input: Data("<plist><true/></plist>".utf8))
        #expect(notArchive.status == 1)
        #expect(notArchive.error.contains("invalidArchiveHeader"))
    }

    @Test func usageErrorsExitWithTwo() throws {
        #expect(try Self.run([]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2)
        let missingTarget = try Self.run(["convert", "x.plist"])
        #expect(missingTarget.status == 2)
        #expect(missingTarget.error.contains("--to"))
        #expect(try Self.run(["convert", "x.plist", "--to", "yaml"]).status == 2)
    }

    @Test func faultyInputIsOneLineWithOffsetAndExitOne() throws {
        let truncated = Data("bplist00".utf8) + Data(repeating: 0, count: 40)
        let binary = try Self.run(["plist", "-"], input: truncated)
        #expect(binary.status == 1)
        #expect(binary.output.isEmpty)
        #expect(binary.error.split(separator: "\n").count == 1)
        #expect(binary.error.contains("byte offset"))
        let xml = try Self.run(["plist", "-"], input: Data("<plist>\n<integer>1x</integer></plist>".utf8))
        #expect(xml.status == 1)
        #expect(xml.error.contains("line 2"))
        let missing = try Self.run(["plist", "/nonexistent/file.plist"])
        #expect(missing.status == 1)
    }

    @Test func plistPrintsCanonicalJSON() throws {
        let xml = Data("<plist><dict><key>b</key><real>0.1</real><key>a</key><dict><key>CF$UID</key><integer>3</integer></dict><key>$date</key><date>2001-01-01T00:00:01Z</date></dict></plist>".utf8)
        let run = try Self.run(["plist", "-"], input: xml)
        #expect(run.status == 0)
        let json = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        #expect((json?["b"] as? [String: Any])?["$real"] as? Double == 0.1)
        #expect((json?["a"] as? [String: Any])?["$uid"] as? Int == 3)
        #expect(((json?["$date"] as? [String: Any])?["$date"] as? Double) == 1)
    }

    /// Converting any Apple fixture to its own format reproduces it byte for byte, through the
    /// tool, and converting to the other format and back keeps the values.
    @Test(.enabled(if: ToolEndToEndTests.corpusAvailable, "Apple corpus not found at ../shared/fixtures/apple; skipping"))
    func convertToOwnFormatIsByteIdentical() throws {
        let manifest = try String(contentsOf: Self.sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var checked = 0
        for line in manifest.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t")
            guard columns.count > 3 else { continue }
            let path = Self.sharedCorpus.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(String(columns[0])).path
            let format = String(columns[3])
            let run = try Self.run(["convert", path, "--to", format])
            #expect(run.status == 0, "\(path): \(run.error)")
            #expect(run.output == (try Data(contentsOf: URL(fileURLWithPath: path))), "\(path)")
            checked += 1
        }
        #expect(checked == 208)
    }

    @Test func convertReadsStandardInputAndWritesFile() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-convert-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: output) }
        let xml = Data("<plist><array><integer>1</integer><string>two</string></array></plist>".utf8)
        let run = try Self.run(["convert", "-", "--to", "binary", "-o", output.path], input: xml)
        #expect(run.status == 0)
        let written = try Data(contentsOf: output)
        #expect(written.prefix(8) == Data("bplist00".utf8))
        let back = try PropertyListSerialization.propertyList(from: written, options: [], format: nil) as? [Any]
        #expect(back?.count == 2)
        #expect(back?.last as? String == "two")
    }
}
