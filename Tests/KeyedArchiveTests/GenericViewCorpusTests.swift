import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The generic view, `dump` and `json` over every archive in the Apple corpus.
@Suite struct GenericViewCorpusTests {
    @Test func everyAppleFixtureBuildsAGraphAndRenders() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        #expect(ArchiveFixtures.entries.count == 208)
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            let graph: ArchiveGraph
            do {
                graph = try ArchiveGraph(bytes: bytes)
            } catch {
                Issue.record("\(entry): \(error)")
                continue
            }
            #expect(!graph.top.isEmpty, "\(entry)")
            let dump = ArchiveDumper.dump(graph)
            let json = ArchiveJSONRenderer.render(graph)
            #expect(dump.utf8.count < bytes.count * 40 + 4096, "\(entry): dump is \(dump.utf8.count) bytes for \(bytes.count)")
            #expect(json.utf8.count < bytes.count * 40 + 4096, "\(entry): json is \(json.utf8.count) bytes for \(bytes.count)")
            do {
                _ = try JSONSerialization.jsonObject(with: Data(json.utf8))
            } catch {
                Issue.record("\(entry): JSON does not parse: \(error)")
            }
        }
    }
}
