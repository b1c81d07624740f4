import Foundation
import Testing

/// `keyedarchive graph --html`: the page embeds the graph as JSON that a JSON reader
/// (Foundation's) reads back, with no `<` left in it, so no text of the archive can close its
/// element; the page fetches nothing (its CSP allows nothing) and names itself as the tool's.
/// The page in a real browser: GraphPageBrowserTests.
@Suite struct GraphPageTests {
    static func page(_ path: String, _ extra: [String] = []) throws -> String {
        let run = try ToolEndToEndTests.run(["graph", path, "--html"] + extra)
        #expect(run.status == 0, "\(run.error)")
        return String(decoding: run.output, as: UTF8.self)
    }

    /// The data between `<script type="application/json" id="graph-data">` and its end.
    static func data(_ page: String) throws -> [String: Any] {
        let open = try #require(page.range(of: "<script type=\"application/json\" id=\"graph-data\">"))
        let close = try #require(page.range(of: "</script>", range: open.upperBound..<page.endIndex))
        let text = page[open.upperBound..<close.lowerBound]
        #expect(!text.contains("<"))
        #expect(!text.contains(">"))
        #expect(!text.contains("&"))
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func hostileStringsAreDataNotMarkup() throws {
        let page = try Self.page(GraphCommandTests.hostile)
        #expect(String(page.prefix(1024)).contains("<meta name=\"generator\" content=\"keyedarchive graph page\">"))
        #expect(page.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-"))
        // The page's own two script elements and nothing else end one.
        #expect(page.components(separatedBy: "</script>").count - 1 == 2)
        #expect(!page.unicodeScalars.contains { [0x202E, 0x2066, 0x2069, 0x200F, 0x2028].contains($0.value) })
        let data = try Self.data(page)
        let side = try #require((data["sides"] as? [[String: Any]])?.first)
        let texts = try #require(side["t"] as? [String])
        let labels = try #require(side["l"] as? [String])
        // The texts are the dump's (escaped for a terminal), read back exactly by a JSON reader.
        #expect(texts.contains(#""<script>document.title=\"pwned\"</script>""#))
        #expect(texts.contains(#""abc\u202egnp.exe\u2066x\u2069 \u200f""#))
        #expect(labels.contains(#""<b onclick=\"x()\">key</b>""#))
        #expect(side["truncated"] as? Bool == false)
    }

    /// The page's Content-Security-Policy lets exactly its own script run: the hash it names is
    /// the SHA-256 (Python's hashlib) of the text of the page's one executable script element.
    @Test func theScriptIsTheOneThePolicyAllows() throws {
        let page = try Self.page(GraphCommandTests.fleet)
        let script = """
        import base64, hashlib, re, sys
        page = sys.stdin.read()
        policy = re.search(r"script-src '(sha256-[^']+)'", page).group(1)
        scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
        assert len(scripts) == 1, len(scripts)
        actual = "sha256-" + base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
        print(policy)
        print(actual)
        """
        let run = try ToolEndToEndTests.run(["python3", "-c", script], input: Data(page.utf8), executable: URL(fileURLWithPath: "/usr/bin/env"))
        let lines = String(decoding: run.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(run.status == 0, "\(run.error)")
        #expect(lines.count == 2 && lines[0] == lines[1], "ArchiveGraphPage.scriptHash should be \(lines.last ?? "?")")
    }

    /// The fleet's page holds its 55 objects' walk: the back-references flagged are the five
    /// owners, the references the shared glider and airplane and the owners.
    @Test func fleetPageData() throws {
        let data = try Self.data(try Self.page(GraphCommandTests.fleet))
        let side = try #require((data["sides"] as? [[String: Any]])?.first)
        #expect(side["objects"] as? Int == 55)
        let kinds = try #require(side["k"] as? [Int]), back = try #require(side["b"] as? [Int]), uids = try #require(side["u"] as? [Int])
        let references = kinds.indices.filter { kinds[$0] == 3 }
        #expect(references.filter { back[$0] == 1 }.count == 5)
        #expect(Set(references.filter { back[$0] == 0 }.map { uids[$0] }) == [11, 5])
        let classes = try #require(side["classes"] as? [[Any]])
        let counts = Dictionary(uniqueKeysWithValues: classes.compactMap { entry in (entry[1] as? String).map { ($0, entry[3] as? Int ?? -1) } })
        #expect(counts["Pilot"] == 3)
        #expect(counts["Glider"] == 2)
    }

    /// Past --max-nodes the page keeps the first nodes and says it stopped.
    @Test func boundedEmbedding() throws {
        let data = try Self.data(try Self.page(GraphCommandTests.fleet, ["--max-nodes", "10"]))
        let side = try #require((data["sides"] as? [[String: Any]])?.first)
        #expect((side["p"] as? [Int])?.count == 10)
        #expect(side["truncated"] as? Bool == true)
    }
}

/// `keyedarchive diff A B --html`: both graphs, each difference located at its key path on
/// both sides (the node the path leads to), exit status as diff's.
@Suite struct DiffPageToolTests {
    @Test func differencesAreLocatedOnBothSides() throws {
        let changed = ToolEndToEndTests.packageRoot.appendingPathComponent("Fixtures/graph/fleet-changed.plist").path
        let run = try ToolEndToEndTests.run(["diff", GraphCommandTests.fleet, changed, "--html"])
        #expect(run.status == 1, "\(run.error)")
        let data = try GraphPageTests.data(String(decoding: run.output, as: UTF8.self))
        #expect(data["mode"] as? String == "diff")
        let sides = try #require(data["sides"] as? [[String: Any]])
        #expect(sides.count == 2)
        let diffs = try #require(data["diffs"] as? [[Any]])
        #expect(diffs.count == 2)
        let registration = try #require(diffs.first { $0[1] as? String == "root[0].airplanes[0].registrationNumber" })
        #expect(registration[0] as? String == "valueChanged")
        let textsA = try #require(sides[0]["t"] as? [String]), textsB = try #require(sides[1]["t"] as? [String])
        #expect(textsA[try #require(registration[3] as? Int)] == "\"N3918K\"")
        #expect(textsB[try #require(registration[4] as? Int)] == "\"N3918X\"")
        let sharing = try #require(diffs.first { $0[0] as? String == "sharingChanged" })
        #expect(sharing[1] as? String == "root[1].airplanes[0]")
        // A: Bessie's reference to Amelia's glider leads to the glider; B: her own copy.
        #expect(textsA[try #require(sharing[3] as? Int)] == "Glider")
        #expect(textsB[try #require(sharing[4] as? Int)] == "Glider")
        let equal = try ToolEndToEndTests.run(["diff", GraphCommandTests.fleet, GraphCommandTests.fleet, "--html"])
        #expect(equal.status == 0)
        let usage = try ToolEndToEndTests.run(["diff", GraphCommandTests.fleet, changed, "-o", "x.html"])
        #expect(usage.status == 2)
    }
}

/// Runs the browser test (Tests/Browser/test_graph_page.py: Debian's chromium driven by
/// playwright) against the tool this build made; it skips with a message where python3,
/// playwright or chromium is missing.
@Suite struct GraphPageBrowserTests {
    @Test(.timeLimit(.minutes(5))) func pagesInARealBrowser() throws {
        let script = ToolEndToEndTests.packageRoot.appendingPathComponent("Tests/Browser/test_graph_page.py").path
        let process = Process()
        // The python3 on PATH: the one `python3 -m pip install playwright` (.ci/run) installed into.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script]
        var environment = ProcessInfo.processInfo.environment
        environment["KEYEDARCHIVE_TOOL"] = ToolEndToEndTests.executable.path
        environment.removeValue(forKey: "KEYEDARCHIVE_SCREENSHOT")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            print("GraphPageBrowserTests: python3 not found; skipping the browser test")
            return
        }
        if text.hasPrefix("SKIP:") {
            print("GraphPageBrowserTests: \(text)")
            return
        }
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
