import Foundation
import Testing

/// What a client package must write, checked by the compiler: `Tests/ClientPackage` switches over
/// the public enums as a team's package would, and is type-checked against the modules this test
/// run built, from outside the package (a client has no `-package-name`, so the package-level
/// exemption that lets our own modules switch exhaustively does not apply).
@Suite struct ClientSourceCompatibilityTests {
    static let client = ToolEndToEndTests.packageRoot.appendingPathComponent("Tests/ClientPackage/Sources/Client/Client.swift")

    /// The `Modules` folder of the build products beside the tool (`swift build` lays it out so);
    /// nil under Xcode, whose products are laid out otherwise.
    static var modules: URL? {
        let folder = ToolEndToEndTests.executable.deletingLastPathComponent().appendingPathComponent("Modules")
        let module = folder.appendingPathComponent("KeyedArchive.swiftmodule")
        return FileManager.default.fileExists(atPath: module.path) ? folder : nil
    }

    static func typecheck(_ source: String) throws -> ToolEndToEndTests.Run? {
        guard let modules else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-client-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ToolEndToEndTests.run(["swiftc", "-swift-version", "6", "-typecheck", "-I", modules.path, file.path],
                                         executable: URL(fileURLWithPath: "/usr/bin/env"))
    }

    /// The client compiles as written; without its `@unknown default` cases, every switch over an
    /// enum that may grow is an error, naming the enum, and the switch over the format-fixed
    /// `PropertyListValue` is not.
    @Test func switchesOverEnumsThatMayGrowNeedAnUnknownDefault() throws {
        let source = try String(contentsOf: Self.client, encoding: .utf8)
        guard let written = try Self.typecheck(source) else {
            print("ClientSourceCompatibilityTests: skipped, no Modules folder beside \(ToolEndToEndTests.executable.path) (an Xcode build)")
            return
        }
        #expect(written.status == 0, "\(written.error)")
        #expect(!written.error.contains("warning"), "\(written.error)")

        let withoutDefaults = source.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("@unknown default") }.joined(separator: "\n")
        let run = try #require(try Self.typecheck(withoutDefaults))
        #expect(run.status != 0)
        let complaints = run.error.split(separator: "\n").filter { $0.contains("error: switch covers known cases") }
        let named = Set(complaints.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "'"), let close = line[line.index(after: open)...].firstIndex(of: "'") else { return nil }
            return String(line[line.index(after: open)..<close])
        })
        #expect(named == ["ArchiveValue", "ArchiveCompatibilityRule", "ArchiveDiff.Difference.Kind", "FoundationClass",
                          "ArchiveRecordMode", "PropertyListFormat"], "\(run.error)")
    }

    /// Every public enum with cases is either marked `@nonexhaustive` or in the set the archive
    /// format fixes (Docs/PublicAPI.md lists it); a new public enum has to choose.
    @Test func everyPublicEnumThatMayGrowIsNonexhaustive() throws {
        let formatFixed: Set<String> = ["PropertyListValue", "PropertyListReal", "Object", "Component",
                                        "FieldValue", "ArchiveFieldContent", "Direction"]
        var exhaustive: [String] = [], marked: [String] = []
        for module in ["PropertyList", "KeyedArchive", "KeyedArchiveTesting"] {
            let root = ToolEndToEndTests.packageRoot.appendingPathComponent("Sources/\(module)")
            let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() {
                    let words = line.split(separator: " ")
                    guard words.first == "public", let enumWord = words.firstIndex(of: "enum"), enumWord + 1 < words.count else { continue }
                    let name = String(words[enumWord + 1].prefix { $0.isLetter || $0.isNumber })
                    // A caseless enum is a namespace; nothing to switch over. (Its members' bodies
                    // may hold `case` lines of switch statements, indented deeper than a case.)
                    let indentation = String(line.prefix { $0 == " " })
                    let body = lines[(index + 1)...].prefix { !$0.hasPrefix(indentation + "}") }
                    guard body.contains(where: { $0.hasPrefix(indentation + "    case ") }) else { continue }
                    if index >= 2, lines[index - 2].contains("@nonexhaustive") { marked.append(name) } else { exhaustive.append("\(module).\(name)") }
                }
            }
        }
        #expect(exhaustive.allSatisfy { formatFixed.contains(String($0.split(separator: ".").last ?? "")) }, "exhaustive: \(exhaustive.sorted())")
        #expect(marked.count >= 26, "\(marked.sorted())")
    }

    /// Generated models carry a version check: they compile against the package that wrote them;
    /// models from a newer generator fail at the check, naming the version; and models of a
    /// version this release retired (version 1, which named `ArchiveGenericObject`) fail at the
    /// check with the package's own message to regenerate.
    @Test func generatedModelsCheckTheAPIVersion() throws {
        let generated = try ToolEndToEndTests.run(["schema", ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path, "--swift", "--name", "Fleet"])
        #expect(generated.status == 0, "\(generated.error)")
        let source = String(decoding: generated.output, as: UTF8.self)
        #expect(source.contains("private struct GeneratedCodeVersionCheck: ArchiveGeneratedCodeVersion2 {}"))
        guard let current = try Self.typecheck(source) else {
            print("ClientSourceCompatibilityTests: skipped, no Modules folder beside \(ToolEndToEndTests.executable.path) (an Xcode build)")
            return
        }
        #expect(current.status == 0, "\(current.error)")

        let newer = try #require(try Self.typecheck(source.replacingOccurrences(of: "ArchiveGeneratedCodeVersion2", with: "ArchiveGeneratedCodeVersion3")))
        #expect(newer.status != 0)
        #expect(newer.error.contains("cannot find type 'ArchiveGeneratedCodeVersion3' in scope"), "\(newer.error)")

        let older = try #require(try Self.typecheck(source.replacingOccurrences(of: "ArchiveGeneratedCodeVersion2", with: "ArchiveGeneratedCodeVersion1")))
        #expect(older.status != 0)
        let errors = older.error.split(separator: "\n").filter { $0.hasPrefix("/") && $0.contains(": error:") }
        #expect(errors.count == 1 && errors.first?.contains("regenerate them with `keyedarchive schema --swift` of this release") == true, "\(older.error)")
    }
}
