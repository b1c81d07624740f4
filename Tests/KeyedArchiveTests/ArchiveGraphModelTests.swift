import Foundation
import KeyedArchive
import PropertyList
import Testing

/// The table of nodes `keyedarchive graph` draws from: key paths parsed as the package prints
/// them, and nodes found by key path through references, as ArchiveDiff names places.
@Suite struct ArchiveGraphModelTests {
    @Test func keyPathsParseAsPrinted() {
        #expect(ArchiveGraphModel.parseKeyPath("root") == ArchiveKeyPath([.key("root")]))
        #expect(ArchiveGraphModel.parseKeyPath("root.airplanes[1].owner")
                == ArchiveKeyPath([.key("root"), .key("airplanes"), .index(1), .key("owner")]))
        #expect(ArchiveGraphModel.parseKeyPath("root[0][2]") == ArchiveKeyPath([.key("root"), .index(0), .index(2)]))
        for text in ["", "[0]", ".root", "root..a", "root[x]", "root[-1]", "root[1]x", "root[1"] {
            #expect(ArchiveGraphModel.parseKeyPath(text) == nil, "\(text)")
        }
        // What the parser reads back is what ArchiveKeyPath prints.
        let path = ArchiveKeyPath([.key("root"), .index(3), .key("registrationNumber")])
        #expect(ArchiveGraphModel.parseKeyPath(path.description) == path)
    }

    @Test func nodesAreFoundThroughReferences() throws {
        let bytes = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
        let model = ArchiveGraphModel(try ArchiveGraph(bytes: bytes))
        // Bessie's first airplane is a reference to Amelia's glider: found where it is in full.
        let gliderPath = try #require(ArchiveGraphModel.parseKeyPath("root[1].airplanes[0]"))
        let glider = try #require(model.node(at: gliderPath))
        #expect(model.nodes[glider].text == "Glider")
        #expect(model.nodes[glider].uid == 11)
        #expect(model.keyPath(of: glider).description == "root[0].airplanes[1]")
        let registrationPath = try #require(ArchiveGraphModel.parseKeyPath("root[1].airplanes[0].registrationNumber"))
        let registration = try #require(model.node(at: registrationPath))
        #expect(model.nodes[registration].text == "\"D-8721\"")
        #expect(model.node(at: ArchiveKeyPath([.key("root"), .index(9)])) == nil)
        #expect(model.node(at: ArchiveKeyPath([.key("root"), .index(1), .key("nothing")]), deepest: true).map { model.nodes[$0].text } == "Pilot")
    }
}
