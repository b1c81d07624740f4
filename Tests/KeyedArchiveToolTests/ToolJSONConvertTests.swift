import Foundation
import Testing

/// `keyedarchive convert FILE.json`: the canonical JSON `plist` prints, edited with jq or by
/// hand, back to a property list. Foundation's `PropertyListSerialization` (Core Foundation)
/// reads what the tool writes.
@Suite struct ToolJSONConvertTests {
    static let fleet = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist")

    @Test func plistThenConvertGivesTheSamePlist() throws {
        let json = try ToolEndToEndTests.run(["plist", Self.fleet.path])
        #expect(json.status == 0)
        for format in ["binary", "xml"] {
            let converted = try ToolEndToEndTests.run(["convert", "-", "--to", format], input: json.output)
            #expect(converted.status == 0, "\(converted.error)")
            let again = try ToolEndToEndTests.run(["plist", "-"], input: converted.output)
            if format == "binary" {
                #expect(again.output == json.output, "plist(convert(plist(P))) != plist(P)")
            }
            // Core Foundation reads the same values from the original and the converted file
            // (compared as the XML it writes for each: its UIDs do not compare equal by value).
            func coreFoundationXML(_ data: Data) throws -> Data {
                let value = try PropertyListSerialization.propertyList(from: data, format: nil)
                return try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
            }
            let original = try coreFoundationXML(Data(contentsOf: Self.fleet))
            #expect(try coreFoundationXML(converted.output) == original, "\(format)")
        }
    }

    /// The worked edit of Docs/Testing.md: jq changes one string, the archive keeps every other byte's meaning.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")))
    func jqEditsAnArchive() throws {
        let json = try ToolEndToEndTests.run(["plist", Self.fleet.path])
        let jq = Process()
        jq.executableURL = URL(fileURLWithPath: "/usr/bin/jq")
        jq.arguments = [#"(.["$objects"][] | select(. == "Amelia")) |= "Amelie""#]
        let input = Pipe(), output = Pipe()
        jq.standardInput = input
        jq.standardOutput = output
        try jq.run()
        input.fileHandleForWriting.write(json.output)
        try input.fileHandleForWriting.close()
        let edited = output.fileHandleForReading.readDataToEndOfFile()
        jq.waitUntilExit()
        #expect(jq.terminationStatus == 0)
        let converted = try ToolEndToEndTests.run(["convert", "-", "--to", "binary"], input: edited)
        #expect(converted.status == 0, "\(converted.error)")
        let again = try ToolEndToEndTests.run(["plist", "-"], input: converted.output)
        let expected = String(decoding: json.output, as: UTF8.self).replacingOccurrences(of: "\"Amelia\"", with: "\"Amelie\"")
        #expect(String(decoding: again.output, as: UTF8.self) == expected)
    }

    @Test func badJSONIsOneLineWithLineAndColumn() throws {
        let run = try ToolEndToEndTests.run(["convert", "-", "--to", "binary"], input: Data("{\n  \"a\": {\"$uid\": \"x\"}\n}".utf8))
        #expect(run.status == 1)
        #expect(run.output.isEmpty)
        #expect(run.error == "keyedarchive convert: error: -: invalidTaggedValue at line 2, column 17: $uid must hold an integer from 0 to 4294967295, not the string \"x\"\n", "\(run.error)")
    }
}

/// `keyedarchive diff`: exit 0 equal, 1 different, 2 trouble; text and JSON output.
@Suite struct ToolDiffTests {
    static let fleet = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
    static let fleetXML = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.xml").path

    @Test func exitStatusesAndOutput() throws {
        let same = try ToolEndToEndTests.run(["diff", Self.fleet, Self.fleetXML])
        #expect(same.status == 0, "\(same.error)")
        #expect(same.output.isEmpty)
        let json = try ToolEndToEndTests.run(["plist", Self.fleet])
        let edited = String(decoding: json.output, as: UTF8.self).replacingOccurrences(of: "\"Amelia\"", with: "\"Amelie\"")
        let converted = try ToolEndToEndTests.run(["convert", "-", "--to", "xml"], input: Data(edited.utf8))
        let different = try ToolEndToEndTests.run(["diff", Self.fleet, "-"], input: converted.output)
        #expect(different.status == 1)
        #expect(String(decoding: different.output, as: UTF8.self) == "root[0].name: value changed: \"Amelia\" → \"Amelie\"\n")
        let machine = try ToolEndToEndTests.run(["diff", "--json", Self.fleet, "-"], input: converted.output)
        let object = try JSONSerialization.jsonObject(with: machine.output) as? [String: Any]
        #expect(object?["equal"] as? Bool == false)
        let first = (object?["differences"] as? [[String: Any]])?.first
        #expect(first?["kind"] as? String == "valueChanged")
        #expect(first?["path"] as? String == "root[0].name")
        let layout = try ToolEndToEndTests.run(["diff", "--layout", Self.fleet, Self.fleetXML])
        #expect(layout.status == 0)
        #expect(String(decoding: layout.output, as: UTF8.self).hasPrefix("layout: format: A is binary, B is xml\n"))
        let missing = try ToolEndToEndTests.run(["diff", Self.fleet, "/nonexistent"])
        #expect(missing.status == 2)
        #expect(missing.error.contains("no such file"))
        let usage = try ToolEndToEndTests.run(["diff", Self.fleet])
        #expect(usage.status == 2)
    }
}
