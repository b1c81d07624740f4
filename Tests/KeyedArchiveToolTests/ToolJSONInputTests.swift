import Foundation
import Testing

/// Every command that reads an archive takes its canonical JSON (what `plist` prints) as it takes
/// the binary or XML file: a fixture kept as JSON in a repository is a first-class archive.
@Suite struct ToolJSONInputTests {
    static let fleet = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path

    /// `plist FILE` written to a temporary `.json` file.
    static func fleetJSON() throws -> String {
        let json = try ToolEndToEndTests.run(["plist", fleet])
        #expect(json.status == 0)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-json-\(UUID().uuidString).json")
        try json.output.write(to: url)
        return url.path
    }

    /// The same output and status from the binary file and from its JSON, for each command.
    @Test(arguments: [
        ["dump"], ["dump", "--raw"], ["json"], ["json", "--plain-numbers"],
        ["validate", "--allow", "Pilot,Airplane,PoweredAirplane,Glider"], ["validate", "--allow", "Pilot"],
        ["schema"], ["schema", "--json"], ["schema", "--swift"],
    ])
    func commandReadsJSONAsTheArchive(arguments: [String]) throws {
        let json = try Self.fleetJSON()
        let fromBinary = try ToolEndToEndTests.run(arguments.prefix(1) + [Self.fleet] + arguments.dropFirst())
        let fromJSON = try ToolEndToEndTests.run(arguments.prefix(1) + [json] + arguments.dropFirst())
        #expect(fromJSON.status == fromBinary.status, "\(fromJSON.error)")
        #expect(!fromBinary.output.isEmpty)
        // validate names the file it read.
        func named(_ path: String) -> String { String(decoding: fromBinary.output, as: UTF8.self).replacingOccurrences(of: Self.fleet, with: path) }
        #expect(String(decoding: fromJSON.output, as: UTF8.self) == named(json))
        #expect(fromJSON.error == fromBinary.error.replacingOccurrences(of: Self.fleet, with: json))
        // From standard input too.
        let piped = try ToolEndToEndTests.run(arguments.prefix(1) + ["-"] + arguments.dropFirst(), input: try Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(String(decoding: piped.output, as: UTF8.self) == named("-"))
    }

    @Test func diffComparesJSONWithBinaryAndXML() throws {
        let json = try Self.fleetJSON()
        let xml = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.xml").path
        for other in [Self.fleet, xml] {
            let run = try ToolEndToEndTests.run(["diff", other, json])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.isEmpty)
        }
        let edited = try String(contentsOfFile: json, encoding: .utf8).replacingOccurrences(of: "\"Amelia\"", with: "\"Amelie\"")
        let different = try ToolEndToEndTests.run(["diff", json, "-"], input: Data(edited.utf8))
        #expect(different.status == 1)
        #expect(String(decoding: different.output, as: UTF8.self) == "root[0].name: value changed: \"Amelia\" → \"Amelie\"\n")
        let layout = try ToolEndToEndTests.run(["diff", "--layout", xml, json])
        #expect(layout.status == 0)
        let lines = String(decoding: layout.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "layout: format: A is xml, B is json (JSON is compared as the binary property list it stands for)")
    }

    @Test func faultyJSONIsOneLineWithLineAndColumn() throws {
        for command in ["dump", "json", "validate", "schema"] {
            let extra = command == "validate" ? ["--allow", "Pilot"] : []
            let run = try ToolEndToEndTests.run([command, "-"] + extra, input: Data("{\n  \"a\": {\"$uid\": \"x\"}\n}".utf8))
            #expect(run.status == 1)
            #expect(run.output.isEmpty)
            #expect(run.error == "keyedarchive \(command): error: -: invalidTaggedValue at line 2, column 17: $uid must hold an integer from 0 to 4294967295, not the string \"x\"\n", "\(run.error)")
        }
        let diff = try ToolEndToEndTests.run(["diff", Self.fleet, "-"], input: Data("[1,]".utf8))
        #expect(diff.status == 2)
        #expect(diff.error.hasPrefix("keyedarchive diff: error: -: jsonSyntax at line 1, column"), "\(diff.error)")
    }
}
