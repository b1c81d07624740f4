import Foundation
import Testing

/// `keyedarchive schema`: the report, its JSON, the generated Swift, and its refusals.
@Suite struct SchemaCommandTests {
    static let fleet = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
    static let fleetXML = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.xml").path

    @Test func reportNamesClassesKeysAndBackReferences() throws {
        let run = try ToolEndToEndTests.run(["schema", Self.fleet, Self.fleetXML])
        #expect(run.status == 0, "\(run.error)")
        let text = String(decoding: run.output, as: UTF8.self)
        #expect(text.hasPrefix("2 archives"))
        #expect(text.contains("class Glider ("))
        #expect(text.contains("  chain: Glider < Airplane < NSObject"))
        #expect(text.contains("airplanes    required  NSArray of "))
        #expect(text.contains("back-reference: owner closes"))
    }

    /// The JSON (the schema file) parses (Foundation's reader, not ours) and says what the text says.
    @Test func jsonParsesWithFoundation() throws {
        let run = try ToolEndToEndTests.run(["schema", "--json", Self.fleet])
        #expect(run.status == 0, "\(run.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        #expect(document["format"] as? String == "keyedarchive-schema")
        #expect(document["version"] as? Int == 1)
        let classes = try #require(document["classes"] as? [[String: Any]])
        let glider = try #require(classes.first { $0["name"] as? String == "Glider" })
        #expect(glider["chains"] as? [[String]] == [["Glider", "Airplane", "NSObject"]])
        #expect(glider["instances"] as? Int == 2)
        let airplane = try #require(classes.first { $0["name"] as? String == "Airplane" })
        let keys = try #require(airplane["keys"] as? [[String: Any]])
        #expect(keys.map { $0["key"] as? String } == ["airframeHours", "model", "owner", "registrationNumber"])
    }

    /// Schema files among the inputs are merged: the file of one archive and the other archive
    /// give the bytes both archives give, in either order; the text report reads files too.
    @Test func schemaFilesAreMergedWithArchives() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileOfBinary = directory.appendingPathComponent("fleet.schema.json")
        try ToolEndToEndTests.run(["schema", "--json", Self.fleet]).output.write(to: fileOfBinary)
        let both = try ToolEndToEndTests.run(["schema", "--json", Self.fleet, Self.fleetXML])
        let merged = try ToolEndToEndTests.run(["schema", "--json", fileOfBinary.path, Self.fleetXML])
        let reversed = try ToolEndToEndTests.run(["schema", "--json", Self.fleetXML, fileOfBinary.path])
        #expect(both.status == 0 && merged.status == 0 && reversed.status == 0, "\(merged.error)")
        #expect(merged.output == both.output)
        #expect(reversed.output == both.output)
        let text = try ToolEndToEndTests.run(["schema", fileOfBinary.path])
        #expect(String(decoding: text.output, as: UTF8.self).hasPrefix("1 archive, 55 objects"))
        let swift = try ToolEndToEndTests.run(["schema", "--swift", fileOfBinary.path])
        #expect(swift.status == 1)
        #expect(swift.error.contains("--swift needs the archives themselves"))
        let newer = try ToolEndToEndTests.run(["schema", "-"], input: Data(#"{"format": "keyedarchive-schema", "version": 7}"#.utf8))
        #expect(newer.status == 1)
        #expect(newer.error.contains("unsupportedVersion"))
    }

    @Test func swiftOutputUsesTheNamespace() throws {
        let run = try ToolEndToEndTests.run(["schema", Self.fleet, "--swift", "--name", "Fleet"])
        #expect(run.status == 0, "\(run.error)")
        let source = String(decoding: run.output, as: UTF8.self)
        #expect(source.contains("enum Fleet {") && !source.contains("public "))
        #expect(source.contains("static func roundTrip(_ bytes: [UInt8]) throws -> [UInt8]"))
        let published = try ToolEndToEndTests.run(["schema", Self.fleet, "--swift", "--public", "--name", "Fleet"])
        #expect(published.status == 0, "\(published.error)")
        let publicSource = String(decoding: published.output, as: UTF8.self)
        #expect(publicSource.contains("public enum Fleet {") && publicSource.contains("public final class Pilot: NSObject {"))
    }

    /// Every Apple archive at once (one schema of the whole corpus), in all three outputs.
    @Test func runsOnTheWholeCorpus() throws {
        guard ToolEndToEndTests.corpusAvailable else {
            print("Apple corpus not found at ../shared/fixtures/apple; skipping")
            return
        }
        let manifest = try String(contentsOf: ToolEndToEndTests.sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        let files = manifest.split(separator: "\n").dropFirst().compactMap { line -> String? in
            guard let path = line.split(separator: "\t").first, path.hasPrefix("fixtures/apple/") else { return nil }
            return ToolEndToEndTests.sharedCorpus.appendingPathComponent(String(path.dropFirst("fixtures/apple/".count))).path
        }
        #expect(files.count > 200)
        for mode in [[], ["--json"], ["--swift"]] {
            let run = try ToolEndToEndTests.run(["schema"] + files + mode)
            #expect(run.status == 0, "\(mode): \(run.error)")
            #expect(run.output.count > 10_000)
        }
    }

    @Test func refusalsAreOneLine() throws {
        let none = try ToolEndToEndTests.run(["schema"])
        #expect(none.status == 2)
        let badName = try ToolEndToEndTests.run(["schema", Self.fleet, "--swift", "--name", "1x"])
        #expect(badName.status == 2)
        #expect(badName.error.contains("not a Swift type name"))
        let both = try ToolEndToEndTests.run(["schema", Self.fleet, "--swift", "--json"])
        #expect(both.status == 2)
        let publicReport = try ToolEndToEndTests.run(["schema", Self.fleet, "--public"])
        #expect(publicReport.status == 2 && publicReport.error.contains("--public is for --swift"))
        let notArchive = try ToolEndToEndTests.run(["schema", "-"], input: Data("<plist><string>x</string></plist>".utf8))
        #expect(notArchive.status == 1)
        #expect(notArchive.error.split(separator: "\n").count == 1)
    }
}
