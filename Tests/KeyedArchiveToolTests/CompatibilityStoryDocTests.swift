import Foundation
import Testing

/// Docs/Compatibility.md's commands, run: every `$ keyedarchive …` line of its `text` blocks is
/// run from the package root, and must print exactly the lines that follow it and exit with the
/// `[exit status N]` given; a command ending in `> FILE` must print exactly what FILE holds.
@Suite struct CompatibilityStoryDocTests {
    struct Example: CustomStringConvertible {
        var command: String
        var output: [String] = []
        var status: Int32?
        var description: String { command }
    }

    /// The examples of the document, in order.
    static func examples() throws -> [Example] {
        let text = try String(contentsOf: ToolEndToEndTests.packageRoot.appendingPathComponent("Docs/Compatibility.md"), encoding: .utf8)
        var examples: [Example] = []
        var inBlock = false
        var current: Int?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") {
                inBlock = line == "```text" && !inBlock
                current = nil
                continue
            }
            guard inBlock else { continue }
            if line.hasPrefix("$ keyedarchive ") {
                examples.append(Example(command: String(line.dropFirst(2))))
                current = examples.count - 1
            } else if let index = current, examples[index].status == nil {
                if line.hasPrefix("[exit status "), let status = Int32(line.dropFirst("[exit status ".count).dropLast()) {
                    examples[index].status = status
                } else {
                    examples[index].output.append(line)
                }
            }
        }
        return examples
    }

    /// Arguments as a shell would split the document's commands (none has spaces inside an
    /// argument; single quotes are taken off).
    static func arguments(_ command: String) -> [String] {
        command.split(separator: " ").dropFirst().map { word in
            word.hasPrefix("'") && word.hasSuffix("'") && word.count >= 2 ? String(word.dropFirst().dropLast()) : String(word)
        }
    }

    @Test func documentHasTheStory() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 12, "\(examples.count) examples")
        for version in ["v2", "v3", "v4", "v4-fixed", "v5"] {
            #expect(examples.contains { $0.command.hasSuffix("Fixtures/compat/story/\(version)") || $0.command.contains("Fixtures/compat/story/\(version) ") }, "\(version)")
        }
        for mode in ["--mode forward", "--mode backward", "--transitive", "--format github", "--json", "--ignore"] {
            #expect(examples.contains { $0.command.contains(mode) }, "\(mode)")
        }
    }

    @Test(arguments: try CompatibilityStoryDocTests.examples())
    func commandPrintsWhatTheDocumentSays(_ example: Example) throws {
        var arguments = Self.arguments(example.command)
        var expectedFile: String?
        if let redirect = arguments.firstIndex(of: ">"), redirect + 1 < arguments.count {
            expectedFile = arguments[redirect + 1]
            arguments.removeSubrange(redirect...)
        }
        let run = try ToolEndToEndTests.run(arguments, in: ToolEndToEndTests.packageRoot)
        let output = String(decoding: run.output, as: UTF8.self)
        if let expectedFile {
            let committed = try String(contentsOf: ToolEndToEndTests.packageRoot.appendingPathComponent(expectedFile), encoding: .utf8)
            #expect(output == committed, "\(expectedFile) is not what the command writes")
            #expect(run.status == 0)
        } else {
            #expect(output == example.output.map { $0 + "\n" }.joined(), "\(example.command)")
            #expect(run.status == example.status, "\(example.command): \(run.error)")
        }
    }
}
