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

/// The texts of the tool's reports: four-digit years, array differences in index order.
@Suite struct ToolReportTextTests {
    @Test func dumpPrintsFourDigitYears() throws {
        // An NSDate of 30 December of year 0 (proleptic Gregorian), written as JSON.
        let archive = #"{"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": {"$uid": 1}}, "$objects": ["$null", {"NS.time": {"$real": -63114076800}, "$class": {"$uid": 2}}, {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]}]}"#
        let run = try ToolEndToEndTests.run(["dump", "-"], input: Data(archive.utf8))
        #expect(run.status == 0, "\(run.error)")
        #expect(String(decoding: run.output, as: UTF8.self).hasSuffix("  root: date 0000-12-30T00:00:00Z\n"))
    }

    @Test func diffListsArrayDifferencesInIndexOrder() throws {
        func archive(_ names: [String]) -> Data {
            let strings = names.map { "\"\($0)\"" }.joined(separator: ", ")
            let uids = names.indices.map { "{\"$uid\": \($0 + 3)}" }.joined(separator: ", ")
            return Data(#"{"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": {"$uid": 1}}, "$objects": ["$null", {"NS.objects": [\#(uids)], "$class": {"$uid": 2}}, {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}, \#(strings)]}"#.utf8)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let a = folder.appendingPathComponent("a.json"), b = folder.appendingPathComponent("b.json")
        try archive((0..<8).map { "n\($0)" }).write(to: a)
        try archive(["x0", "n1", "n2", "n3", "n4", "n5", "n6", "x7"]).write(to: b)
        let all = try ToolEndToEndTests.run(["diff", a.path, b.path])
        #expect(String(decoding: all.output, as: UTF8.self) == "root[0]: value changed: \"n0\" → \"x0\"\nroot[7]: value changed: \"n7\" → \"x7\"\n")
        let first = try ToolEndToEndTests.run(["diff", "--max", "1", a.path, b.path])
        #expect(String(decoding: first.output, as: UTF8.self) == "root[0]: value changed: \"n0\" → \"x0\"\n… and 1 more differences (--max raises the cap)\n")
    }
}
