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
            key-added  breaks backward  Pilot.rank  absent → required (2 of 2) NSString  at Fixtures/compat/rules/key-added/new/amelia.plist: root.rank  — new readers that decode "rank" with decode(_:forKey:) fail on old archives, which lack it: decode it with decodeIfPresent and a default
            note: few samples, so "required" may be chance: Pilot: 2 instances in the old side; Pilot: 2 instances in the new side. Keep at least 3 instances of each class in a contract's archives
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
        #expect(Self.text(all) == """
            ignored (ignoring:/--ignore):
              Hangar.plane: 1 change — class-changed Hangar.plane; against \(Self.rules)/class-changed/old
              Hangar.spare: 1 change — class-changed Hangar.spare; against \(Self.rules)/class-changed/old
            compatible under full: no changes, 2 ignored

            """)
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
        #expect(Self.text(run).hasPrefix("key-added  breaks backward  Pilot.rank  absent → required (2 of 2) NSString  at Fixtures/compat/rules/key-added/new/amelia.plist: root.rank"))
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

    /// A contract and its decisions in a folder of their own: `v1.schema.json` of key-added/old.
    static func contractFolder(decisions: String?) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-decisions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let old = "\(rules)/key-added/old"
        let schema = try ToolEndToEndTests.run(["schema", "--json", "\(old)/amelia.xml", "\(old)/bessie.xml"], in: ToolEndToEndTests.packageRoot)
        try schema.output.write(to: directory.appendingPathComponent("v1.schema.json"))
        if let decisions { try Data(decisions.utf8).write(to: directory.appendingPathComponent("compat-decisions.txt")) }
        return directory
    }

    /// `compat-decisions.txt` beside the contract is read: the accepted change no longer fails,
    /// and it is listed once, with its reason, the line and what it covered; JSON lists it under
    /// `accepted`. The file is named on standard error.
    @Test func decisionsBesideTheContractAcceptChanges() throws {
        let folder = try Self.contractFolder(decisions: "# accepted on purpose\nkey-added:Pilot.rank  v2 ranks pilots; v1 readers never read it (review 12/2026)\n")
        defer { try? FileManager.default.removeItem(at: folder) }
        let contract = folder.appendingPathComponent("v1.schema.json").path
        let decisionsFile = folder.appendingPathComponent("compat-decisions.txt").path
        let run = try Self.run(["--against", contract, "\(Self.rules)/key-added/new"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error == "keyedarchive compat: note: read 1 decision from \(decisionsFile)\n")
        #expect(Self.text(run) == """
            accepted by \(decisionsFile):
              key-added:Pilot.rank: 1 change — key-added Pilot.rank; against \(contract); why: v2 ranks pilots; v1 readers never read it (review 12/2026) (line 2)
            compatible under full: no changes, 1 accepted by decisions

            """)
        let json = try Self.run(["--against", contract, "\(Self.rules)/key-added/new", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        let accepted = try #require(object["accepted"] as? [[String: Any]])
        #expect(accepted.count == 1)
        #expect(accepted.first?["pattern"] as? String == "key-added:Pilot.rank")
        #expect(accepted.first?["line"] as? Int == 2)
        #expect(object["compatible"] as? Bool == true)
        // The same file named explicitly, against the fixtures themselves.
        let named = try Self.run(["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new", "--decisions", decisionsFile])
        #expect(named.status == 0, "\(named.error)")
        // A RULE:TARGET decision accepts that kind of change only: the class alone is broader.
        let otherRule = try Self.contractFolder(decisions: "key-removed:Pilot.rank  not this change\n")
        defer { try? FileManager.default.removeItem(at: otherRule) }
        let notAccepted = try Self.run(["--against", otherRule.appendingPathComponent("v1.schema.json").path, "\(Self.rules)/key-added/new"])
        #expect(notAccepted.status == 1)
    }

    /// A decisions file that does not read is trouble (2), naming the line: no reason, a rule
    /// that is not one (with the nearest), a pattern decided twice. A decision naming nothing
    /// either side has is a note with the nearest name, and accepts nothing.
    @Test func decisionsThatDoNotReadAreTrouble() throws {
        for (text, expected) in [("key-added:Pilot.rank\n", "line 1: the decision key-added:Pilot.rank says no reason"),
                                 ("# c\nkey-addd:Pilot.rank  why\n", "line 2: key-addd in key-addd:Pilot.rank is not a rule (nearest: key-added)"),
                                 ("Pilot.rank  a\nPilot.rank  b\n", "line 2: the pattern Pilot.rank is decided twice (first on line 1)")] {
            let folder = try Self.contractFolder(decisions: text)
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try Self.run(["--against", folder.appendingPathComponent("v1.schema.json").path, "\(Self.rules)/key-added/new"])
            #expect(run.status == 2, "\(text)")
            #expect(run.error.contains(expected), "\(run.error)")
            #expect(run.error.contains("invalidField at \(expected.prefix { $0 != ":" })"), "\(run.error)")
        }
        let typo = try Self.contractFolder(decisions: "Pilot.rnak  a typo\n")
        defer { try? FileManager.default.removeItem(at: typo) }
        let run = try Self.run(["--against", typo.appendingPathComponent("v1.schema.json").path, "\(Self.rules)/key-added/new"])
        #expect(run.status == 1)
        #expect(Self.text(run).contains("note: decision \"Pilot.rnak\" names nothing either side has (nearest: Pilot.rank)\n"))
    }

    /// An ignore pattern says what it covers: a class pattern lists the changes it took out; a
    /// `Class.key` of another class than the one that changed (a superclass, an old name) names
    /// the classes where the key did change.
    @Test func patternsSayWhatTheyCover() throws {
        let pair = ["\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new"]
        let classWide = try Self.run(["--against", pair[0], pair[1], "--ignore", "Pilot"])
        #expect(classWide.status == 0)
        #expect(Self.text(classWide).contains("ignored (ignoring:/--ignore):\n  Pilot (a class: every change to it and its keys): 1 change — key-added Pilot.rank; against \(pair[0])\n"))
        let superclass = try Self.run(["--against", pair[0], pair[1], "--ignore", "Aviator.rank"])
        #expect(superclass.status == 2)
        #expect(superclass.error.contains("ignore pattern \"Aviator.rank\" matches no change; a pattern names one class, not its subclasses or other names: the key changed on Pilot.rank (name each)"),
                "\(superclass.error)")
    }

    /// `--format github` across versions: one annotation per change, naming every old version it
    /// was found against, each pointing at a file of the new side.
    @Test func githubAnnotatesEachChangeOnce() throws {
        let story = "Fixtures/compat/story"
        let run = try Self.run(["--transitive", "\(story)/v1", "\(story)/v2", "\(story)/v4", "\(story)/v5", "--format", "github"])
        let annotations = Self.text(run).split(separator: "\n").filter { $0.hasPrefix("::") }
        let json = try Self.run(["--transitive", "\(story)/v1", "\(story)/v2", "\(story)/v4", "\(story)/v5", "--json"])
        let changes = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])["changes"] as? [[String: Any]]
        let distinct = Set((changes ?? []).map { "\($0["rule"] ?? "") \($0["class"] ?? "") \($0["key"] ?? "") \($0["new"] ?? "")" })
        #expect(!annotations.isEmpty)
        #expect(annotations.count == distinct.count, "\(annotations.count) annotations for \(distinct.count) distinct of \(changes?.count ?? 0) changes")
        #expect((changes?.count ?? 0) > distinct.count, "the story repeats changes across versions, so this checks something")
        var seen: Set<String> = []
        for annotation in annotations {
            let message = annotation.split(separator: "::", maxSplits: 2).last.map(String.init) ?? ""
            let identity = message.split(separator: " ", omittingEmptySubsequences: true).prefix(1).joined() + (message.components(separatedBy: "  ").dropFirst(2).first ?? "")
            #expect(seen.insert(identity).inserted, "annotated twice: \(annotation)")
            if let file = annotation.split(separator: ",").first(where: { $0.contains("file=") }) {
                #expect(file.contains("\(story)/v5/"), "\(annotation)")
            }
        }
    }

    /// Presence carries its evidence and never contradicts the advice: a key written every time
    /// but sometimes `$null` is optional, said so with both counts; a required key says on how
    /// many samples; a failing verdict that rests on fewer than three instances says so.
    @Test func presenceShowsItsEvidence() throws {
        let run = try Self.run(["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/null-added/new"])
        let lines = Self.text(run).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("key-added  compatible  Pilot.nickname  absent → optional (written 2 of 2, $null in 1) $null | NSString  at ") && $0.contains("treat it as optional") },
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("key-removed  breaks forward  Pilot.hours  required (2 of 2) int8 → absent") })
        #expect(lines.contains("note: few samples, so \"required\" may be chance: Pilot: 2 instances in the old side; Pilot: 2 instances in the new side. Keep at least 3 instances of each class in a contract's archives"))
        // A compatible report has nothing resting on it, and says nothing.
        let compatible = try Self.run(["--against", "\(Self.rules)/key-added/old", "\(Self.rules)/key-added/new", "--mode", "forward"])
        #expect(!Self.text(compatible).contains("few samples"))
    }
}
