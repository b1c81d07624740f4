import Foundation
import Testing

/// `--version`, each command's own help, binary output refused on a terminal, the `plist` hint
/// for a plain property list, and `validate` admitting Foundation's value classes unless strict.
@Suite struct ToolConvenienceTests {
    typealias Tool = ToolEndToEndTests
    static let fleet = Tool.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func versionAndCommandHelp() throws {
        let version = try Tool.run(["--version"])
        #expect(version.status == 0)
        #expect(Self.text(version.output).hasPrefix("keyedarchive 0."))
        let overview = Self.text(try Tool.run(["--help"]).output)
        #expect(overview.contains("COMMAND --help") && overview.contains("--version"))
        let options = ["plist": ["FILE"], "convert": ["--to binary|xml", "-o OUT", "--force"], "dump": ["FILE", "-> #UID", "--raw"],
                       "json": ["$ref", "--raw", "--plain-numbers"], "validate": ["--allow", "--strict", "--primitives"],
                       "diff": ["A, B", "--values", "--layout", "--json", "--max N", "Exit status", "canonical JSON", "--html"],
                       "graph": ["--dot", "--html", "-o OUT", "--force", "--start PATH", "--depth N", "--max-nodes N"],
                       "schema": ["FILE...", "--json", "--swift", "--name N"],
                       "compat": ["--against OLD NEW", "--mode", "--transitive", "--ignore", "--format", "exit status"]]
        // Every command the overview lists has its own help here.
        let listed = overview.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "commands:" }.dropFirst().prefix { !$0.isEmpty }
            .filter { !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(Set(listed) == Set(options.keys), "\(listed)")
        for (command, mentions) in options {
            let help = try Tool.run([command, "--help"])
            let text = Self.text(help.output)
            #expect(help.status == 0)
            #expect(text.hasPrefix("usage: keyedarchive \(command) "), "\(command)")
            // More than the usage line: what it does, its options, an example.
            #expect(text.split(separator: "\n").count > 6, "\(command)")
            #expect(text.contains("\n  keyedarchive \(command) "), "\(command): no example")
            for mention in mentions { #expect(text.contains(mention), "\(command) help lacks \(mention)") }
            #expect(Self.text(try Tool.run(["help", command]).output) == text)
            #expect(Self.text(try Tool.run([command, "-h"]).output) == text)
        }
    }

    /// Runs the tool on a pseudo-terminal made by Python's `pty` module (Foundation on Linux
    /// has no terminal API): standard output and error both go to the terminal, and come back
    /// mixed in `output`.
    static func runOnTerminal(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))",
                             Tool.executable.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Self.text(data))
    }

    @Test func binaryIsNotWrittenToATerminal() throws {
        let xml = Tool.packageRoot.appendingPathComponent("Fixtures/fleet.xml").path
        let refused = try Self.runOnTerminal(["convert", xml, "--to", "binary"])
        #expect(refused.status == 2)
        #expect(refused.output.contains("not writing a binary property list to a terminal"), "\(refused.output)")
        #expect(try Self.runOnTerminal(["convert", xml, "--to", "binary", "--force"]).status == 0)
        #expect(try Self.runOnTerminal(["convert", xml, "--to", "binary", "-o", "-"]).status == 0)
        // XML is text: written to a terminal as before.
        #expect(try Self.runOnTerminal(["convert", Self.fleet, "--to", "xml"]).status == 0)
        // Not a terminal: written as before.
        let piped = try Tool.run(["convert", xml, "--to", "binary"])
        #expect(piped.status == 0 && piped.output.starts(with: Data("bplist00".utf8)))
    }

    /// Foundation's values as values by default, the fields as stored with --raw; the legend
    /// line; plain JSON numbers on request.
    @Test func dumpAndJSONShowValuesUnlessRaw() throws {
        let shown = Self.text(try Tool.run(["dump", Self.fleet]).output)
        #expect(shown.split(separator: "\n").dropFirst().first?.hasPrefix("(#N: object N of $objects") == true)
        #expect(shown.contains(" NSDictionary {") && !shown.contains("NS.keys") && shown.contains("licenseDate: date "))
        let raw = Self.text(try Tool.run(["dump", Self.fleet, "--raw"]).output)
        #expect(raw.contains("NS.keys") && raw.contains("NS.time"))
        let real = try NSKeyedArchiver.archivedData(withRootObject: ["ratio": NSNumber(value: 0.1)] as NSDictionary, requiringSecureCoding: true)
        let plain = try Tool.run(["json", "-", "--plain-numbers"], input: real)
        let parsed = try JSONSerialization.jsonObject(with: plain.output) as? [String: Any]
        let root = (parsed?["$top"] as? [String: Any])?["root"] as? [String: Any]
        #expect((root?["$dict"] as? [String: Any])?["ratio"] as? Double == 0.1, "\(Self.text(plain.output))")
        #expect(Self.text(try Tool.run(["json", "-"], input: real).output).contains("{\"$real\": 0.1}"))
        #expect(Self.text(try Tool.run(["json", "-", "--raw"], input: real).output).contains("\"NS.keys\""))
        #expect(try Tool.run(["dump", Self.fleet, "--plain-numbers"]).status == 2)
    }

    @Test func dumpOfAPlainPropertyListSuggestsPlist() throws {
        let plain = try PropertyListSerialization.data(fromPropertyList: ["name": "Ka 8"], format: .binary, options: 0)
        for command in ["dump", "json"] {
            let run = try Tool.run([command, "-"], input: plain)
            #expect(run.status == 1)
            #expect(run.error.contains("invalidArchiveHeader") && run.error.contains("keyedarchive plist - prints it"), "\(run.error)")
            #expect(run.error.split(separator: "\n").count == 1)
        }
        // An archive with a faulty header is not a plain property list.
        let archive = try NSKeyedArchiver.archivedData(withRootObject: "x" as NSString, requiringSecureCoding: true)
        var dictionary = try #require(try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any])
        dictionary["$version"] = 7
        let faulty = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)
        let run = try Tool.run(["dump", "-"], input: faulty)
        #expect(run.status == 1 && run.error.contains("$version") && !run.error.contains("plist"), "\(run.error)")
    }

    /// An archive of Foundation's value classes written by Foundation's NSKeyedArchiver: admitted
    /// with no class of one's own, refused class by class when strict.
    @Test func validateAdmitsFoundationValueClassesUnlessStrict() throws {
        let values: NSDictionary = ["when": NSDate(timeIntervalSinceReferenceDate: 1), "where": NSURL(string: "https://example.org") ?? NSURL(fileURLWithPath: "/"),
                                    "who": NSUUID(), "what": NSArray(array: ["a", NSNumber(value: 1)]), "bytes": NSData(bytes: [1, 2], length: 2)]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: values, requiringSecureCoding: true)
        let admitted = try Tool.run(["validate", "-", "--allow", ""], input: archive)
        #expect(admitted.status == 0, "\(admitted.error)")
        let strict = try Tool.run(["validate", "-", "--allow", "", "--strict"], input: archive)
        #expect(strict.status == 1)
        let refused = Set(Self.text(strict.output).split(separator: "\n").compactMap { $0.split(separator: " ").first { $0.hasPrefix("NS") } })
        #expect(refused.isSuperset(of: ["NSDictionary", "NSDate", "NSURL", "NSUUID", "NSArray"]), "\(refused)")
        // User classes still need --allow.
        let fleet = try Tool.run(["validate", Self.fleet, "--allow", "Pilot,Airplane,PoweredAirplane"])
        #expect(fleet.status == 1)
        #expect(fleet.error.hasSuffix("; to admit every refused class: --allow Pilot,Airplane,PoweredAirplane,Glider\n"), "\(fleet.error)")
    }
}

/// The one version constant: what `--version` prints is CHANGELOG.md's latest heading.
@Suite struct VersionTests {
    @Test func versionIsTheChangelogsLatestHeading() throws {
        let changelog = try String(contentsOf: ToolEndToEndTests.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## [") })
        let version = try #require(heading.dropFirst(4).split(separator: "]").first.map(String.init))
        #expect(version.split(separator: ".").count == 3 && version.allSatisfy { $0.isNumber || $0 == "." }, "\(heading)")
        let run = try ToolEndToEndTests.run(["--version"])
        #expect(run.status == 0)
        #expect(String(decoding: run.output, as: UTF8.self).hasPrefix("keyedarchive \(version) ("))
    }
}
