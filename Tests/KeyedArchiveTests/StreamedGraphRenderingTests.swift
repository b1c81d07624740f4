import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The streamed renderings of a graph already built (what `keyedarchive dump` and `json` print,
/// after letting the file's bytes go) are the renderings of the same archive from its bytes.
@Suite struct StreamedGraphRenderingTests {
    static func samples() throws -> [(String, [UInt8])] {
        var samples = [("fleet.plist", [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist"))))]
        if ArchiveFixtures.isCorpusAvailable {
            for entry in ArchiveFixtures.entries.filter({ $0.category == "xcuserstate" }).prefix(3) {
                samples.append((entry.relativePath, try ArchiveFixtures.bytes(entry)))
            }
        }
        return samples
    }

    @Test func streamedGraphRenderingsAreTheBytesRenderings() throws {
        let samples = try Self.samples()
        #expect(samples.count >= 1)
        for (name, bytes) in samples {
            let graph = try ArchiveGraph(bytes: bytes)
            for rendering in [ArchiveRenderingOptions.readable, ArchiveRenderingOptions(foundationValues: false)] {
                var fromGraph: [UInt8] = [], fromBytes: [UInt8] = []
                try ArchiveDumper.dump(graph, rendering: rendering) { fromGraph += $0 }
                try ArchiveDumper.dump(bytes, rendering: rendering) { fromBytes += $0 }
                #expect(fromGraph == fromBytes, "\(name): dump")
                #expect(String(decoding: fromGraph, as: UTF8.self) == (try ArchiveDumper.dump(graph, rendering: rendering)), "\(name): dump as a string")
                fromGraph = []
                fromBytes = []
                try ArchiveJSONRenderer.render(graph, rendering: rendering) { fromGraph += $0 }
                try ArchiveJSONRenderer.render(bytes, rendering: rendering) { fromBytes += $0 }
                #expect(fromGraph == fromBytes, "\(name): json")
                #expect(!fromGraph.isEmpty)
            }
        }
    }
}
