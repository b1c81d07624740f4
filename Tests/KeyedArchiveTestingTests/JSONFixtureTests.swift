import Foundation
import KeyedArchive
import KeyedArchiveTesting
import PropertyList
import Testing

/// A fixture kept as the canonical JSON of Docs/PlistJSON.md is read by every expectation as the
/// archive it stands for; snapshots can be recorded as that JSON.
@Suite(.archiveRecording(.missing)) struct JSONFixtureTests {
    let cessna = Airplane(model: "Cessna 172", registrationNumber: "N12345", airframeHours: 40)

    /// The app's archive (built by hand, not by our encoder) as JSON, through the PropertyList
    /// module's renderer.
    static func appJSON(hours: Int = 40, wingspan: Bool = true) throws -> URL {
        let url = try Fixtures.directory().appendingPathComponent("app.json")
        try Data(PropertyListJSONRenderer.render(PropertyListCodec.decode(Fixtures.appArchive(hours: hours, wingspan: wingspan)))).write(to: url)
        return url
    }

    @Test func everyExpectationReadsAJSONFixture() throws {
        let app = try Self.appJSON()
        let registry = Fixtures.registry
        #expect(ArchiveFixtureFormat.detect([UInt8](try Data(contentsOf: app))) == .json)
        expectDecodedFixture(Airplane.self, fixture: app.path, registry: registry, equals: cessna)
        withKnownIssue {
            expectNoUnreadFields(decoding: Airplane.self, fixture: app.path, registry: registry)
        } matching: { issue in
            issue.comments.first?.rawValue.hasPrefix("\(app.path) holds 1 field no init(from:) read:\n  root.wingspan (Airplane, object #1)") == true
        }
        expectNoUnreadFields(decoding: Airplane.self, fixture: app.path, registry: registry, ignoring: ["wingspan"])
        withKnownIssue {
            expectLosslessDecoding(Airplane.self, fixture: app.path, registry: registry)
        } matching: { issue in
            issue.comments.first?.rawValue.contains("\n  root.wingspan: only in A: real 15.5\n") == true
        }
        expectArchiveReference(of: cessna, registry: registry, reference: try Self.appJSON(wingspan: false).path)
        withKnownIssue {
            expectArchiveReference(of: cessna, registry: registry, reference: app.path, comparison: .values)
        } matching: { issue in
            issue.comments.first?.rawValue.hasPrefix("the archive of Airplane differs from \(app.path) (A: the reference, B: encoded now):\n  root.wingspan: only in A: real 15.5\n") == true
        }
        // A model that leaves `wingspan` out on purpose says so.
        expectArchiveReference(of: cessna, registry: registry, reference: app.path, comparison: .values, ignoring: ["Airplane.wingspan"])
        expectArchiveReference(of: cessna, registry: registry, reference: app.path, ignoring: ["wingspan"])
        // A JSON snapshot compares as a graph: the app's JSON holds our graph in another order.
        let snapshot = try Self.appJSON(wingspan: false)
        expectArchiveSnapshot(of: cessna, registry: registry, fixture: snapshot.path, format: .json)
        let message = ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: registry, fixture: snapshot.path, format: .json, comparison: .bytes)
        #expect(message?.hasPrefix("the archive of Airplane holds the graph of \(snapshot.path) but not its text (A: the fixture, B: encoded now):") == true, "\(message ?? "")")
    }

    /// A JSON snapshot recorded by the expectation is the text `keyedarchive plist` prints for our
    /// binary archive, and reads back as that archive.
    @Test func snapshotsRecordAsCanonicalJSON() throws {
        let path = try Fixtures.directory().appendingPathComponent("service.json").path
        let first = ArchiveExpectations.checkArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path, format: .json)
        #expect(first?.hasPrefix("recorded \(path) (") == true)
        let text = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let binary = try KeyedArchiver.archive(cessna, registry: Fixtures.registry)
        #expect(text == (try PropertyListJSONRenderer.render(PropertyListCodec.decode(binary))))
        #expect(try PropertyListCodec.encode(PropertyListJSONReader.read(text), format: .binary) == binary)
        expectArchiveSnapshot(of: cessna, registry: Fixtures.registry, fixture: path, format: .json, comparison: .bytes)
        var changed = cessna
        changed.airframeHours = 41
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: changed, registry: Fixtures.registry, fixture: path, format: .json) ==
            "the archive of Airplane differs from \(path) (A: the fixture, B: encoded now):\n  root.airframeHours: value changed: integer 40 → integer 41")
    }

    @Test func faultyJSONFixtureIsNamedWithLineAndColumn() throws {
        let url = try Fixtures.directory().appendingPathComponent("bad.json")
        try Data("{\n  \"a\": {\"$uid\": \"x\"}\n}".utf8).write(to: url)
        #expect(ArchiveExpectations.checkDecodedFixture(Airplane.self, fixture: url.path, registry: Fixtures.registry, equals: cessna) ==
            "could not decode \(url.path) as Airplane: invalidPropertyList: invalidTaggedValue at line 2, column 17: $uid must hold an integer from 0 to 4294967295, not the string \"x\"")
    }
}
