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

    /// The JSON parses (Foundation's reader, not ours) and says what the text says.
    @Test func jsonParsesWithFoundation() throws {
        let run = try ToolEndToEndTests.run(["schema", "--json", Self.fleet])
        #expect(run.status == 0, "\(run.error)")
        let document = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        let classes = try #require(document["classes"] as? [[String: Any]])
        let glider = try #require(classes.first { $0["name"] as? String == "Glider" })
        #expect(glider["superclass"] as? String == "Airplane")
        #expect(glider["instances"] as? Int == 2)
        let airplane = try #require(classes.first { $0["name"] as? String == "Airplane" })
        let declared = try #require(airplane["declaredKeys"] as? [[String: Any]])
        #expect(declared.contains { $0["key"] as? String == "owner" && $0["backReference"] as? Bool == true })
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
