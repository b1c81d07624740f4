import Foundation
import KeyedArchive
import Testing

/// The guides' snippets that are not commands or the worked example (those have their own
/// tests): each runs here as written, or is held to code that runs.
@Suite struct GuideSnippetTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift blocks of a guide, with the line each starts on.
    static func swiftBlocks(of document: String) throws -> [(line: Int, code: [String])] {
        let lines = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8).components(separatedBy: "\n")
        var blocks: [(line: Int, code: [String])] = []
        var open: Int?
        for (index, line) in lines.enumerated() where line.hasPrefix("```") {
            if let start = open {
                blocks.append((start + 1, Array(lines[(start + 1)..<index])))
                open = nil
            } else if line == "```swift" {
                open = index
            } else {
                open = nil
            }
        }
        return blocks
    }

    /// Docs/Compatibility.md's Swift: every line of code (the signature listings aside, which
    /// `SignatureDocTests` checks) is a line of the story's models (`CompatibilityStoryTests`,
    /// which archive the story's fixtures) or of `CompatibilityDocSnippetTests`, which run.
    @Test func compatibilityGuideCodeIsTheTestedCode() throws {
        var tested: Set<String> = []
        for file in ["Tests/KeyedArchiveTests/CompatibilityStoryTests.swift", "Tests/KeyedArchiveTestingTests/CompatibilityDocSnippetTests.swift"] {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
            tested.formUnion(text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        let blocks = try Self.swiftBlocks(of: "Docs/Compatibility.md").filter { !($0.code.first?.hasPrefix("func ") ?? false) }
        #expect(blocks.count >= 8)
        for block in blocks {
            for line in block.code.map({ $0.trimmingCharacters(in: .whitespaces) })
            where !line.isEmpty && !line.hasPrefix("//") && line != "}" && !line.hasPrefix("import ") {
                #expect(tested.contains(line), "Docs/Compatibility.md, the block at line \(block.line): not in a test: \(line)")
            }
        }
    }

    /// Docs/Tutorial.md, Writing objects of any class: the snippet is a test of
    /// `DynamicObjectModelTests`, which runs it and checks what it writes.
    @Test func dynamicObjectModelSnippetIsTheTestedCode() throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent("Tests/KeyedArchiveTests/DynamicObjectModelTests.swift"), encoding: .utf8)
        let tested = Set(text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let block = try #require(try Self.swiftBlocks(of: "Docs/Tutorial.md").first { $0.code.first == "let amelia = ArchiveSharedObject { amelia in" })
        for line in block.code.map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty && line != "}" {
            #expect(tested.contains(line), "Docs/Tutorial.md, the block at line \(block.line): not in a test: \(line)")
        }
    }

    /// Docs/Testing.md, Setting up: the manifest fragment, in a package of its own, is a manifest
    /// SwiftPM reads, with a test target on the KeyedArchiveTesting product.
    @Test func manifestFragmentIsAManifest() throws {
        let block = try #require(try Self.swiftBlocks(of: "Docs/Testing.md").first { $0.code.first == "// Package.swift" })
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = ["// swift-tools-version: 6.2", "import PackageDescription", "let package = Package(", "    name: \"Service\","]
            + block.code.dropFirst() + [")"]
        try manifest.joined(separator: "\n").write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let run = try ToolLikeProcess.run(["swift", "package", "dump-package", "--package-path", folder.path])
        guard run.status != 127 else {
            print("GuideSnippetTests: skipped, no swift on PATH")
            return
        }
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("\"KeyedArchiveTesting\""), "\(run.output)")
        #expect(run.output.contains("\"ServiceTests\""))
    }

    /// A logger, as a service has one.
    final class Logger {
        var lines: [String] = []
        func notice(_ line: String) { lines.append(line) }
    }

    /// Docs/Testing.md, Unread fields outside tests: the snippet as written, on the app's
    /// archive of the worked example (which holds a wingspan the model does not read).
    @Test func unreadFieldsOutsideTests() throws {
        let bytes = try Fixtures.appArchive()
        let registry = Fixtures.registry
        let logger = Logger()
        var options = ArchiveReadingOptions()
        options.reportsUnreadFields = true
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry, options: options)
        let airplane = try unarchiver.decode(Airplane.self)
        for field in unarchiver.unreadFields { logger.notice("unread field \(field)") }   // root.wingspan (Airplane, object #1)
        #expect(airplane.model == "Cessna 172")
        #expect(logger.lines == ["unread field root.wingspan (Airplane, object #1)"])
        let document = try String(contentsOf: Self.packageRoot.appendingPathComponent("Docs/Testing.md"), encoding: .utf8)
        let block = try #require(try Self.swiftBlocks(of: "Docs/Testing.md").first { $0.code.first == "var options = ArchiveReadingOptions()" })
        let here = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for line in block.code { #expect(here.contains("        " + line + "\n"), "not run here: \(line)") }
        #expect(document.contains("## Unread fields outside tests"))
    }
}

/// A child process with its output and status (127 when the program is not found).
enum ToolLikeProcess {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }
}
