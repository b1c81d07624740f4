import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `keyedarchive compat`: the text, JSON, JUnit and GitHub outputs, modes, `--transitive`,
/// `--ignore`, schema files and standard input as sides, and exit statuses 0, 1 and 2.
@Suite struct CompatCommandTests {
    static let rules = "Fixtures/compat/rules"

    static func run(_ arguments: [String], input: Data? = nil) throws -> ToolEndToEndTests.Run {
        try ToolEndToEndTests.run(["compat"] + arguments, input: input, in: ToolEndToEndTests.packageRoot)
    }

    static func text(_ run: ToolEndToEndTests.Run) -> String {
        String(decoding: run.output, as: UTF8.self)
    }

    /// The text report, word for word: a line per change, then the verdict; exit 1.
    @Test func textReportOfABreakingChange() throws {
        let run = try Self.run(["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new"])
        #expect(run.status == 1, "\(run.error)")
        #expect(Self.text(run) == """
            key-added  breaks backward  Pilot.rank  absent → required NSString  at Fixtures/compat/rules/key-added/new/amelia.plist: root.rank  — new readers that decode "rank" with decode(_:forKey:) fail on old archives, which lack it: decode it with decodeIfPresent and a default
            incompatible under full: 1 change, 1 breaking

            """)
        #expect(run.error.isEmpty)
    }

    /// The mode decides what fails: a backward break passes `--mode forward` (and says it was
    /// not checked); a warning never fails.
    @Test func modesDecideWhatFails() throws {
        let added = ["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new"]
        #expect(try Self.run(added + ["--mode", "backward"]).status == 1)
        let forward = try Self.run(added + ["--mode", "forward"])
        #expect(forward.status == 0)
        #expect(Self.text(forward).contains("  breaks backward (not checked under forward)  Pilot.rank"))
        #expect(Self.text(forward).hasSuffix("compatible under forward: 1 change, 0 breaking\n"))
        let widened = try Self.run(["--against", "\(Self.rules)/integer-widened/old", "\(Self.rules)/integer-widened/new"])
        #expect(widened.status == 0)
        #expect(Self.text(widened).hasPrefix("integer-widened  warning forward  Pilot.hours  int16 at most → int32"))
        let same = try Self.run(["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/old"])
        #expect(same.status == 0)
        #expect(Self.text(same) == "compatible under full: no changes\n")
    }

    /// `--ignore` takes a rule, a class or `Class.key` out, and the verdict counts it.
    @Test func ignoredChangesAreCounted() throws {
        let pair = ["--against", "\(Self.rules)/class-changed/old", "\(Self.rules)/class-changed/new"]
        #expect(try Self.run(pair).status == 1)
        let one = try Self.run(pair + ["--ignore", "Hangar.plane"])
        #expect(one.status == 1)
        #expect(Self.text(one).hasSuffix("incompatible under full: 1 change, 1 breaking, 1 ignored\n"))
        let all = try Self.run(pair + ["--ignore", "Hangar.plane", "--ignore", "Hangar.spare"])
        #expect(all.status == 0)
        #expect(Self.text(all) == "compatible under full: no changes, 2 ignored\n")
        #expect(try Self.run(pair + ["--ignore", "class-changed"]).status == 0)
        let top = try Self.run(["--against", "\(Self.rules)/top-key-added/old", "\(Self.rules)/top-key-added/new", "--ignore", "$top.backup"])
        #expect(top.status == 0)
    }

    /// An `--ignore` that matches no change is trouble (exit 2), naming the pattern and the
    /// nearest real name (issue 43): a typo, a comma-separated list, a pattern for a change no
    /// longer there would each hide a later break on what they name.
    @Test func anIgnoreThatMatchesNothingIsAnError() throws {
        let pair = ["--against", "\(Self.rules)/class-changed/old", "\(Self.rules)/class-changed/new"]
        let typo = try Self.run(pair + ["--ignore", "Hangar.plnae", "--ignore", "Hangar.spare"])
        #expect(typo.status == 2)
        #expect(typo.output.isEmpty)
        #expect(typo.error == "keyedarchive compat: error: --ignore: ignore pattern \"Hangar.plnae\" matches no change (nearest: Hangar.plane); remove it: a pattern that matches nothing would hide a later break on what it names\n")
        let list = try Self.run(pair + ["--ignore", "Hangar.plane,Hangar.spare"])
        #expect(list.status == 2)
        #expect(list.error.contains("ignore pattern \"Hangar.plane,Hangar.spare\" matches no change"), "\(list.error)")
        // A real name whose change is not there (the same side against itself) is refused too.
        let none = try Self.run(["--against", "\(Self.rules)/class-changed/old", "\(Self.rules)/class-changed/old", "--ignore", "Hangar.plane"])
        #expect(none.status == 2)
        #expect(none.error.contains("ignore pattern \"Hangar.plane\" matches no change (nearest: Hangar.plane)"), "\(none.error)")
    }

    /// The JSON report, read by Foundation's JSON reader.
    @Test func jsonReport() throws {
        let run = try Self.run(["--against", "\(Self.rules)/null-added/old", "\(Self.rules)/null-added/new", "--json"])
        #expect(run.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
        #expect(document["compatible"] as? Bool == false)
        #expect(document["mode"] as? String == "full")
        #expect(document["against"] as? [String] == ["\(Self.rules)/null-added/old"])
        let changes = try #require(document["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        let change = try #require(changes.first)
        #expect(change["rule"] as? String == "null-added")
        #expect(change["breaks"] as? [String] == ["forward"])
        #expect(change["breaking"] as? Bool == true)
        #expect(change["class"] as? String == "Pilot" && change["key"] as? String == "nickname")
        #expect(change["old"] as? String == "never $null" && change["new"] as? String == "$null in 1 of 2")
        #expect(change["example"] as? String == "\(Self.rules)/null-added/new/bessie.plist: root.nickname")
        // A class-level change has no key: JSON null.
        let renamed = try Self.run(["--against", "\(Self.rules)/class-renamed/old", "\(Self.rules)/class-renamed/new", "--format", "json"])
        let renamedDocument = try #require(try JSONSerialization.jsonObject(with: renamed.output) as? [String: Any])
        let renamedChange = try #require((renamedDocument["changes"] as? [[String: Any]])?.first)
        #expect(renamedChange["key"] is NSNull)
        #expect(renamedChange["old"] as? String == "Pilot" && renamedChange["new"] as? String == "Aviator")
    }

    /// JUnit XML for CI, read by Foundation's XML parser: a test case per change, failures for
    /// what breaks under the mode.
    @Test func junitReport() throws {
        let run = try Self.run(["--against", "\(Self.rules)/class-added/old", "\(Self.rules)/class-added/new", "--format", "junit"])
        #expect(run.status == 0)
        let counts = try Self.xmlElementCounts(run.output)
        #expect(counts["testsuites"] == 1 && counts["testsuite"] == 1 && counts["testcase"] == 2 && counts["failure"] == nil)
        let breaking = try Self.run(["--against", "\(Self.rules)/class-changed/old", "\(Self.rules)/class-changed/new", "--format", "junit"])
        #expect(breaking.status == 1)
        let breakingCounts = try Self.xmlElementCounts(breaking.output)
        #expect(breakingCounts["testcase"] == 2 && breakingCounts["failure"] == 2)
        let text = Self.text(breaking)
        #expect(text.contains(#"<testsuites name="keyedarchive compat" tests="2" failures="2">"#))
        #expect(text.contains(#"<testcase classname="Hangar" name="class-changed Hangar.plane">"#))
    }

    static func xmlElementCounts(_ data: Data) throws -> [String: Int] {
        final class Counter: NSObject, XMLParserDelegate {
            var counts: [String: Int] = [:]
            func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                counts[elementName, default: 0] += 1
            }
        }
        let parser = XMLParser(data: data)
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "JUnit output is not well-formed XML: \(String(describing: parser.parserError))")
        return counter.counts
    }

    /// GitHub annotations: `::error` on the example archive for what breaks, `::warning` for a
    /// warning, then the verdict.
    @Test func githubAnnotations() throws {
        let run = try Self.run(["--against", "\(Self.rules)/key-became-optional/old", "\(Self.rules)/key-became-optional/new", "--format", "github"])
        #expect(run.status == 1)
        let lines = Self.text(run).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("::error file=\(Self.rules)/key-became-optional/new/bessie.plist,title=keyedarchive compat%3A key-became-optional::key-became-optional  breaks forward  Pilot.callsign"))
        #expect(lines[1] == "incompatible under full: 1 change, 1 breaking")
        let warning = try Self.run(["--against", "\(Self.rules)/integer-widened/old", "\(Self.rules)/integer-widened/new", "--format", "github"])
        #expect(Self.text(warning).hasPrefix("::warning file="))
    }

    /// `--transitive OLD1 OLD2 NEW` checks NEW against each, with a verdict each and in all.
    @Test func transitiveChecksEveryVersion() throws {
        let v1 = "\(Self.rules)/class-added/old"
        let v2 = "\(Self.rules)/class-added/new"
        let run = try Self.run(["--transitive", v1, v2, v2])
        #expect(run.status == 0, "\(run.error)")
        let text = Self.text(run)
        #expect(text.hasPrefix("against \(v1)\nclass-added  compatible  License"))
        #expect(text.contains("\nagainst \(v2)\n  compatible under full: no changes\n"))
        #expect(text.hasSuffix("compatible under full transitive against 2 versions: 2 changes, 0 breaking\n"))
        // --against may name the versions too; one failing version fails the whole.
        let failing = try Self.run(["--transitive", "--against", "\(Self.rules)/key-added/new", "--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new"])
        #expect(failing.status == 1)
        #expect(Self.text(failing).hasSuffix("incompatible under full transitive against 2 versions: 1 change, 1 breaking\n"))
    }

    /// A schema file (the committed contract) and standard input stand in for a side.
    @Test func schemaFilesAndStandardInputAsSides() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = "\(Self.rules)/key-added/old"
        let schema = try ToolEndToEndTests.run(["schema", "--json", "\(old)/amelia.xml", "\(old)/bessie.xml"], in: ToolEndToEndTests.packageRoot)
        let contract = directory.appendingPathComponent("v1.schema.json")
        try schema.output.write(to: contract)
        let run = try Self.run(["--against", contract.path, "\(Self.rules)/key-added/new"])
        #expect(run.status == 1)
        #expect(Self.text(run).hasPrefix("key-added  breaks backward  Pilot.rank  absent → required NSString  at Fixtures/compat/rules/key-added/new/amelia.plist: root.rank"))
        let piped = try Self.run(["--against", "-", "\(Self.rules)/key-added/new"], input: schema.output)
        #expect(piped.output == run.output)
        // A contract merged from both versions: the key is optional in it, so no one breaks.
        let merged = try ToolEndToEndTests.run(["schema", "--json", contract.path, "\(Self.rules)/key-added/new/amelia.plist", "\(Self.rules)/key-added/new/bessie.plist"],
                                               in: ToolEndToEndTests.packageRoot)
        let grown = directory.appendingPathComponent("v1-v2.schema.json")
        try merged.output.write(to: grown)
        let against = try Self.run(["--against", grown.path, "\(Self.rules)/key-added/new", "--mode", "forward"])
        #expect(against.status == 0)
        #expect(Self.text(against).hasPrefix("key-became-required  breaks backward (not checked under forward)  Pilot.rank  optional (2 of 4) → required"))
    }

    /// Trouble is 2: a missing side, an archive that is not valid, a newer schema file, a wrong
    /// command line; each on one line.
    @Test func troubleExitsWithTwo() throws {
        let pair = ["\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new"]
        let missing = try Self.run(["--against", "/no/such/folder", pair[1]])
        #expect(missing.status == 2)
        #expect(missing.error == "keyedarchive compat: error: /no/such/folder: no such file or folder\n")
        let hostile = try Self.run(["--against", "Fixtures/hostile", pair[1]])
        #expect(hostile.status == 2)
        #expect(hostile.error.hasPrefix("keyedarchive compat: error: Fixtures/hostile/"))
        #expect(hostile.error.split(separator: "\n").count == 1)
        let newer = try Self.run(["--against", "-", pair[1]], input: Data(#"{"format": "keyedarchive-schema", "version": 2}"#.utf8))
        #expect(newer.status == 2)
        #expect(newer.error.contains("unsupportedVersion"))
        for arguments in [[pair[1]], ["--against", pair[0]], ["--against", pair[0], pair[1], pair[1]], ["--against", pair[0], "--against", pair[0], pair[1]],
                          ["--against", pair[0], pair[1], "--mode", "sideways"], ["--against", pair[0], pair[1], "--format", "xml"],
                          ["--against", pair[0], pair[1], "--json", "--format", "junit"], ["--transitive", pair[1]], ["--against", "-", "-"]] {
            let run = try Self.run(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.error.hasPrefix("keyedarchive compat: error: "), "\(arguments): \(run.error)")
        }
    }

    /// `compat --help` lists every rule with what it means.
    @Test func helpListsEveryRule() throws {
        let run = try ToolEndToEndTests.run(["compat", "--help"])
        #expect(run.status == 0)
        let text = Self.text(run)
        for rule in ["class-removed", "class-renamed", "class-module-changed", "class-chain-changed", "class-added", "key-removed", "key-added",
                     "key-became-optional", "key-became-required", "null-added", "null-removed", "kind-changed", "storage-changed",
                     "collection-changed", "class-changed", "integer-widened", "element-kind-changed", "element-class-changed",
                     "top-key-added", "top-key-removed", "top-key-changed"] {
            #expect(text.contains("\n  \(rule)  "), "\(rule)")
        }
        #expect(text.contains("exit status: 0 compatible under the mode, 1 breaking, 2 trouble"))
    }
}
