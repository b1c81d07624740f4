import Foundation
import Testing

/// `keyedarchive graph --dot`: Graphviz's own `dot -Tsvg` (Debian's graphviz, an independent
/// reader of the language) draws the output of the fleet, of a hostile archive and of corpus
/// archives without an error, and what it draws is the fleet's graph as plistlib reads it.
/// `--html` and `--dot` replace only a file they made, unless `--force`. The page itself is
/// checked in a real browser by Tests/Browser/test_graph_page.py (GraphPageBrowserTests).
@Suite struct GraphCommandTests {
    static let fleet = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
    static let hostile = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/graph/hostile-strings.plist").path

    static var dot: URL? {
        ["/usr/bin/dot", "/usr/local/bin/dot", "/opt/homebrew/bin/dot"].map { URL(fileURLWithPath: $0) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// `dot -Tsvg` of `text`: its status, SVG and errors.
    static func draw(_ text: Data) throws -> ToolEndToEndTests.Run {
        guard let dot else { throw CancellationError() }
        return try ToolEndToEndTests.run(["-Tsvg"], input: text, executable: dot)
    }

    static func graph(_ arguments: [String]) throws -> ToolEndToEndTests.Run {
        try ToolEndToEndTests.run(["graph"] + arguments)
    }

    /// A `--max-nodes` near `Int.max` draws the whole graph: the DOT bound (8 model nodes a box)
    /// saturates instead of wrapping to a negative one, which drew nothing.
    @Test func hugeMaximumNodesDrawsEverything() throws {
        let whole = try Self.graph([Self.fleet, "--dot"])
        let huge = try Self.graph([Self.fleet, "--dot", "--max-nodes", String(Int.max)])
        #expect(huge.status == 0, "\(huge.error)")
        #expect(huge.output == whole.output)
    }

    /// The fleet's DOT: one box per object (Glider #11, shared by two pilots' lists, has two
    /// incoming solid edges), each airplane's `owner` a dashed edge back to its pilot.
    @Test func fleetDOTIsItsGraph() throws {
        let run = try Self.graph([Self.fleet, "--dot"])
        #expect(run.status == 0, "\(run.error)")
        let text = String(decoding: run.output, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        let edges = lines.filter { $0.contains(" -> ") }
        // Incoming edges of the box labelled "#11 Glider".
        let glider = try #require(lines.first { $0.contains("[label=\"#11 Glider\\l") })
        let gliderID = String(glider.trimmingCharacters(in: .whitespaces).prefix { $0 != " " })
        let incoming = edges.filter { $0.contains("-> \(gliderID) ") }
        #expect(incoming.count == 2, "\(incoming)")
        #expect(incoming.allSatisfy { !$0.contains("dashed") })
        // Five airplanes, five owner back-references, all dashed; no other edge is.
        let dashed = edges.filter { $0.contains("style=dashed") }
        #expect(dashed.count == 5)
        #expect(dashed.allSatisfy { $0.contains("label=\"owner\"") })
        // Every registration number plistlib reads from the file is in a box.
        for registration in try FleetReference.registrations() {
            #expect(text.contains("registrationNumber: \\\"\(registration)\\\""), "\(registration)")
        }
        guard Self.dot != nil else {
            print("GraphCommandTests: dot (Graphviz) not found; install Debian's graphviz to draw the DOT; drawing skipped")
            return
        }
        let svg = try Self.draw(run.output)
        #expect(svg.status == 0, "\(svg.error)")
        #expect(svg.error.isEmpty, "\(svg.error)")
        let picture = String(decoding: svg.output, as: UTF8.self)
        // Boxes: $top, the root list, 3 pilots, their 3 lists and 3 notes dictionaries, 5 airplanes.
        #expect(picture.components(separatedBy: "<g id=\"node").count - 1 == 16)
        #expect(picture.contains("N3918K"))
    }

    /// A hostile archive's strings (quotes, `\N`, markup, bidi controls) stay inside their
    /// labels: dot draws exactly the archive's three edges and no script element.
    @Test func hostileStringsStayInTheirLabels() throws {
        let run = try Self.graph([Self.hostile, "--dot"])
        #expect(run.status == 0, "\(run.error)")
        let text = String(decoding: run.output, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0.value == 0x202E || $0.value == 0x2066 || $0.value == 0x2028 })
        guard Self.dot != nil else {
            print("GraphCommandTests: dot (Graphviz) not found; drawing skipped")
            return
        }
        let svg = try Self.draw(run.output)
        #expect(svg.status == 0, "\(svg.error)")
        let picture = String(decoding: svg.output, as: UTF8.self)
        #expect(picture.components(separatedBy: "<g id=\"edge").count - 1 == 3)
        #expect(picture.components(separatedBy: "<g id=\"node").count - 1 == 3)
        #expect(!picture.lowercased().contains("<script"))
        #expect(!picture.contains("<img"))
        #expect(picture.contains("&lt;script&gt;document.title"))
        // The label's text is the dump's line, backslashes and all.
        #expect(picture.contains(#"dot: &quot;a\&quot; &#45;&gt; evil [label=\&quot;x\&quot;]; \\N \\G \\l&quot;"#), "\(picture)")
    }

    /// A sample of the Apple corpus (every 20th archive and the largest, at most 300 boxes each) draws without
    /// an error or a warning.
    @Test func corpusArchivesDraw() throws {
        guard ToolEndToEndTests.corpusAvailable else {
            print("GraphCommandTests: Apple corpus not found at ../shared/fixtures/apple; skipping")
            return
        }
        guard Self.dot != nil else {
            print("GraphCommandTests: dot (Graphviz) not found; install Debian's graphviz; skipping")
            return
        }
        let files = try FleetReference.corpusArchives()
        var drawn = 0
        for (position, file) in files.enumerated() where position % 20 == 0 || file.hasSuffix("lancemc85_Trainme.xcuserstate") {
            let run = try Self.graph([file, "--dot", "--max-nodes", "300"])
            guard run.status == 0 else { continue }  // not a keyed archive (a plain plist of the corpus)
            let svg = try Self.draw(run.output)
            #expect(svg.status == 0, "\(file): \(svg.error)")
            #expect(svg.error.isEmpty, "\(file): \(svg.error)")
            drawn += 1
        }
        #expect(drawn >= 8)
    }

    /// `--start` begins at a key path (a reference followed to its object), `--depth` stops
    /// below it; a path that leads nowhere is an error naming it.
    @Test func startAndDepth() throws {
        let start = try Self.graph([Self.fleet, "--dot", "--start", "root[1].airplanes[0]"])
        #expect(start.status == 0, "\(start.error)")
        let text = String(decoding: start.output, as: UTF8.self)
        let boxes = text.split(separator: "\n").filter { $0.contains("[label=") && !$0.contains(" -> ") }
        // Glider #11, and its owner (Amelia, shown elsewhere) as a stub.
        #expect(boxes.first?.contains("#11 Glider") == true, "\(boxes)")
        #expect(boxes.contains { $0.contains("#2 Pilot") && $0.contains("style=dotted") })
        let shallow = try Self.graph([Self.fleet, "--dot", "--depth", "2"])
        let shallowText = String(decoding: shallow.output, as: UTF8.self)
        #expect(shallowText.contains("#2 Pilot"))
        #expect(!shallowText.contains("[label=\"#5 PoweredAirplane"))
        #expect(shallowText.contains("airplanes: #4 NSArray … (below --depth)"))
        let nowhere = try Self.graph([Self.fleet, "--dot", "--start", "root[7].wings"])
        #expect(nowhere.status == 1)
        #expect(nowhere.error.contains("no value at root[7].wings"), "\(nowhere.error)")
        let bad = try Self.graph([Self.fleet, "--dot", "--start", "[1]"])
        #expect(bad.status == 2)
    }

    /// An existing file is replaced only when the command made it, or with --force.
    @Test func replacesOnlyItsOwnFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for format in ["--dot", "--html"] {
            let out = directory.appendingPathComponent("out\(format)")
            try Data("precious".utf8).write(to: out)
            let refused = try Self.graph([Self.fleet, format, "-o", out.path])
            #expect(refused.status == 1)
            #expect(refused.error.contains("not replacing it (give --force to replace it)"), "\(refused.error)")
            #expect(try Data(contentsOf: out) == Data("precious".utf8))
            let forced = try Self.graph([Self.fleet, format, "-o", out.path, "--force"])
            #expect(forced.status == 0, "\(forced.error)")
            let made = try Data(contentsOf: out)
            #expect(made.count > 1000)
            // Its own file is replaced without --force.
            let again = try Self.graph([Self.fleet, format, "-o", out.path])
            #expect(again.status == 0, "\(again.error)")
            #expect(try Data(contentsOf: out) == made)
        }
    }
}

/// Independent readings of the fixtures: Python's plistlib, and the corpus's own list.
enum FleetReference {
    /// The fleet's registration numbers, read by plistlib from the file.
    static func registrations() throws -> [String] {
        let script = """
        import plistlib, sys
        a = plistlib.load(open(sys.argv[1], 'rb'))
        o = a['$objects']
        out = []
        for x in o:
            if isinstance(x, dict) and 'registrationNumber' in x:
                out.append(o[x['registrationNumber'].data])
        print('\\n'.join(out))
        """
        let run = try ToolEndToEndTests.run(["-c", script, GraphCommandTests.fleet], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        let names = String(decoding: run.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(names.count == 5)
        return names
    }

    /// The corpus's files (MANIFEST.tsv's first column), sorted.
    static func corpusArchives() throws -> [String] {
        let manifest = try String(contentsOf: ToolEndToEndTests.sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            guard let path = line.split(separator: "\t").first else { return nil }
            return ToolEndToEndTests.sharedCorpus.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(String(path)).path
        }.sorted()
    }
}
