import Foundation
import KeyedArchive
import PropertyList
import Testing

/// The table of nodes `keyedarchive graph` draws from: key paths parsed as the package prints
/// them, and nodes found by key path through references, as ArchiveDiff names places.
@Suite struct ArchiveGraphModelTests: HandBuiltArchives {
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

    /// A class name or key of one character with 100,000 combining marks is cut to 512
    /// scalars in the model (the page and DOT stay small), value text at 2 KiB.
    @Test func longNamesAreCutByScalars() throws {
        let name = "A" + String(repeating: "\u{301}", count: 100_000)
        let value = String(repeating: "x", count: 10_000)
        let bytes = try Self.archiveBytes([
            Self.instance(2, [(name, .string(value))]),
            Self.classDictionary([name, "NSObject"]),
        ])
        let model = ArchiveGraphModel(try ArchiveGraph(bytes: bytes))
        let root = try #require(model.roots.first)
        #expect(model.nodes[root].text.unicodeScalars.count < 600)
        let field = try #require(model.children()[root].first)
        #expect(model.nodes[field].label.unicodeScalars.count < 600)
        #expect(model.nodes[field].text.utf8.count < 2_100)
        #expect(model.nodes[field].text.hasSuffix("… (7954 more bytes)"))
        #expect(model.classes.first?.chain.unicodeScalars.count ?? .max < 700)
        // The key path keeps the whole key (ArchiveKeyPath shortens it where it prints it).
        #expect(model.nodes[field].component == ArchiveKeyPath.Component.key(name))
    }
}
