import Foundation
import Testing

/// The README's quick start is Examples/QuickStart/main.swift word for word, and that program,
/// built as `keyedarchive-quickstart`, runs and prints what its comments say.
@Suite struct QuickStartTests {
    static let root = ToolEndToEndTests.packageRoot

    /// The first ```swift block after the "## Quick start" heading.
    static func readmeBlock() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## Quick start\n"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```\n"))
        return String(rest[open.upperBound..<close.lowerBound]) + "\n"
    }

    @Test func readmeQuickStartIsTheExample() throws {
        let example = try String(contentsOf: Self.root.appendingPathComponent("Examples/QuickStart/main.swift"), encoding: .utf8)
        #expect(try Self.readmeBlock() == example)
        // It comes right after the two set-up commands, which stay first.
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.hasPrefix("# KeyedArchive\n\n```sh\nswift run keyedarchive dump Fixtures/fleet.plist\nswift test\n```\n"))
        let headings = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(headings.first == "## Quick start")
    }

    /// The executable sits beside the test bundle in the build products folder.
    static var executable: URL {
        ToolEndToEndTests.executable.deletingLastPathComponent().appendingPathComponent("keyedarchive-quickstart")
    }

    @Test func quickStartRunsAsCommented() throws {
        let process = Process()
        process.executableURL = Self.executable
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "Amelia [\"SEP\", \"TMG\"]")
        #expect(lines.dropFirst().first == "classNotAllowed root")
        #expect(lines.last?.hasPrefix("class Pilot is not admitted for [String] (") == true, "\(lines)")
    }
}
