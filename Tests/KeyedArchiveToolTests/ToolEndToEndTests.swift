import Foundation
import Testing

/// Runs the built `keyedarchive` executable and checks output and exit status.
@Suite struct ToolEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sharedCorpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")
    static var corpusAvailable: Bool { FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("MANIFEST.tsv").path) }

    /// The executable sits beside the test bundle in the build products folder: `.build/debug`
    /// (or `.build/<triple>/debug`) for `swift test`, DerivedData's `Build/Products/Debug` under
    /// Xcode, wherever `--build-path` put it. On Linux the test binary itself is the `.xctest`
    /// file; on macOS it is a bundle loaded by a runner elsewhere (Bundle.main is the runner), so
    /// the loaded `.xctest` bundles are looked at first. `KEYEDARCHIVE_TOOL` overrides the search.
    static var executable: URL {
        let fileManager = FileManager.default
        if let override = ProcessInfo.processInfo.environment["KEYEDARCHIVE_TOOL"] { return URL(fileURLWithPath: override) }
        let testBundles = (Bundle.allBundles + [Bundle.main]).map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        let starts = testBundles.map { $0.deletingLastPathComponent() } + [Bundle.main.bundleURL]
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("keyedarchive")
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        return packageRoot.appendingPathComponent(".build/debug/keyedarchive")
    }

    struct Run {
        var status: Int32
        var output: Data
        var error: String
    }

    static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil, executable program: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = program ?? executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe(), error = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // The tool writes at most one line to standard error, so reading it last cannot block.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        return Run(status: process.terminationStatus, output: outputData, error: String(decoding: errorData, as: UTF8.self))
    }

    /// Empty input and a directory are named as such, on one line, with a failure status.
    @Test func emptyInputAndDirectoriesAreNamed() throws {
        let empty = try Self.run(["plist", "-"], input: Data())
        #expect(empty.status != 0)
        #expect(empty.error.contains("input is empty"))
        #expect(empty.error.split(separator: "\n").count == 1)
        let directory = try Self.run(["dump", Self.packageRoot.appendingPathComponent("Fixtures").path])
        #expect(directory.status != 0)
        #expect(directory.error.contains("is a directory"))
        #expect(directory.error.split(separator: "\n").count == 1)
        // A binary file cut short: its last 32 bytes are not a trailer, and the message says so.
        let fleet = try Data(contentsOf: Self.packageRoot.appendingPathComponent("Fixtures/fleet.plist"))
        let cut = try Self.run(["dump", "-"], input: fleet.prefix(100))
        #expect(cut.status != 0)
        #expect(cut.error.contains("cut short"), "\(cut.error)")
    }

    @Test func validateAdmitsOrExplainsEachRefusal() throws {
        let fleet = Self.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
        let all = "Pilot,Airplane,Glider,PoweredAirplane,NSArray,NSDictionary,NSDate"
        let admitted = try Self.run(["validate", fleet, "--allow", all])
        #expect(admitted.status == 0, "\(admitted.error)")
        #expect(String(decoding: admitted.output, as: UTF8.self).contains("admitted"))

        // Strict, without Glider and NSDate: each refused object on its own line with its class
        // chain, key path, UID and the --allow that would admit it; exit status 1.
        let refused = try Self.run(["validate", fleet, "--strict", "--allow", "Pilot,Airplane,PoweredAirplane,NSArray,NSDictionary"])
        #expect(refused.status == 1)
        let lines = String(decoding: refused.output, as: UTF8.self).split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("refused: classNotAllowed at root[") && $0.contains("(object #") && $0.contains("--allow ") })
        #expect(lines.contains { $0.contains("class Glider is not in the allowlist [classes: Glider < Airplane < NSObject]") && $0.hasSuffix("--allow Glider") })
        #expect(lines.contains { $0.contains(".licenseDate") && $0.hasSuffix("--allow NSDate") })
        #expect(refused.error.split(separator: "\n").count == 1)
        #expect(refused.error.contains("reachable objects refused"))
        // One --allow for them all, the given names first; spaces after the commas are fine.
        #expect(refused.error.hasSuffix("; to admit every refused class: --allow Pilot,Airplane,PoweredAirplane,NSArray,NSDictionary,NSDate,Glider\n"), "\(refused.error)")
        let spaced = try Self.run(["validate", fleet, "--allow", "Pilot, Airplane , Glider,PoweredAirplane,NSArray,NSDictionary,NSDate"])
        #expect(spaced.status == 0, "\(spaced.error)")

        // The primitive policy: the fleet's names and model strings are plain strings.
        let noStrings = try Self.run(["validate", fleet, "--allow", all, "--primitives", "integers,reals,booleans,data,dates"])
        #expect(noStrings.status == 1)
        #expect(String(decoding: noStrings.output, as: UTF8.self).contains("primitive policy does not admit plain strings"))
        #expect(try Self.run(["validate", fleet, "--allow", all, "--primitives", "texts"]).status == 2)
        #expect(try Self.run(["validate", fleet]).status == 2)
        // Not an archive: one line, status 1.
        let notArchive = try Self.run(["validate", "-", "--allow", "X"], input: Data("<plist><true/></plist>".utf8))
        #expect(notArchive.status == 1)
        #expect(notArchive.error.contains("invalidArchiveHeader"))
    }

    @Test func usageErrorsExitWithTwo() throws {
        #expect(try Self.run([]).status == 2)
        #expect(try Self.run(["frobnicate"]).status == 2)
        let missingTarget = try Self.run(["convert", "x.plist"])
        #expect(missingTarget.status == 2)
        #expect(missingTarget.error.contains("--to"))
        #expect(try Self.run(["convert", "x.plist", "--to", "yaml"]).status == 2)
    }

    @Test func faultyInputIsOneLineWithOffsetAndExitOne() throws {
        let truncated = Data("bplist00".utf8) + Data(repeating: 0, count: 40)
        let binary = try Self.run(["plist", "-"], input: truncated)
        #expect(binary.status == 1)
        #expect(binary.output.isEmpty)
        #expect(binary.error.split(separator: "\n").count == 1)
        #expect(binary.error.contains("byte offset"))
        let xml = try Self.run(["plist", "-"], input: Data("<plist>\n<integer>1x</integer></plist>".utf8))
        #expect(xml.status == 1)
        #expect(xml.error.contains("line 2"))
        let missing = try Self.run(["plist", "/nonexistent/file.plist"])
        #expect(missing.status == 1)
    }

    /// Characters that must never reach a terminal raw from an input: C0 (newline, tab, ESC),
    /// DEL, C1, U+2028/2029 and the bidi controls (a line's own final newline aside).
    static func rawControls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    /// Each line of `text` (split only at "\n") is free of raw controls, and there are `count`.
    static func expectSafeLines(_ text: String, count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(text.hasSuffix("\n"), "\(text.debugDescription)", sourceLocation: sourceLocation)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == count, "\(text.debugDescription)", sourceLocation: sourceLocation)
        for line in lines {
            #expect(rawControls(in: String(line)).isEmpty, "\(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    /// The trial's findings: `dump - </dev/zero` read 5.5 GB before it was killed, and
    /// `plist /dev/zero` said "permission". An input whose first bytes are neither format is
    /// refused after its first chunk, whatever follows; a missing file is named as missing.
    @Test func endlessOrMissingInputsAreRefusedEarly() throws {
        for command in ["plist", "dump", "json", "convert"] {
            var arguments = [command, "/dev/zero"]
            if command == "convert" { arguments += ["--to", "xml"] }
            let run = try Self.run(arguments)
            #expect(run.status == 1, "\(command)")
            #expect(run.error.contains("unknownFormat at byte offset 0"), "\(command): \(run.error)")
        }
        let zeros = try Self.run(["dump", "-"], input: Data(count: 200_000))
        #expect(zeros.status == 1 && zeros.error.contains("unknownFormat"), "\(zeros.error)")
        let missing = try Self.run(["plist", "/nonexistent/file.plist"])
        #expect(missing.status == 1 && missing.error.contains("no such file"), "\(missing.error)")
        // White space alone decides nothing yet: XML may follow it.
        let spaced = try Self.run(["plist", "-"], input: Data(String(repeating: " ", count: 2_000_000).utf8) + Data("<plist><true/></plist>".utf8))
        #expect(spaced.status == 0, "\(spaced.error)")
        #expect(String(decoding: spaced.output, as: UTF8.self) == "true\n")
        // Nor does a UTF-8 byte-order mark before the white space (a review's finding).
        let marked = try Self.run(["plist", "-"], input: Data([0xEF, 0xBB, 0xBF]) + Data(String(repeating: "\n", count: 2_000_000).utf8) + Data("<plist><true/></plist>".utf8))
        #expect(marked.status == 0, "\(marked.error)")
    }

    /// Each command's own help, on standard output with status 0 (the trial found
    /// `plist --help` an error with status 2); a non-ASCII character in an `<integer>` is
    /// quoted whole, not as U+FFFD.
    @Test func commandHelpAndWholeCharactersInMessages() throws {
        for command in ["plist", "convert", "dump", "json", "validate", "diff", "schema"] {
            let help = try Self.run([command, "--help"])
            #expect(help.status == 0, "\(command)")
            #expect(String(decoding: help.output, as: UTF8.self).hasPrefix("usage: keyedarchive \(command)"), "\(command)")
        }
        // `-h` as the value of `-o` is a file name, not a request for help.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-help-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let named = try Self.run(["convert", "-", "--to", "xml", "-o", "-h"], input: Data("<plist><true/></plist>".utf8), in: output)
        #expect(named.status == 0 && FileManager.default.fileExists(atPath: output.appendingPathComponent("-h").path), "\(named.error)")
        let arabic = try Self.run(["plist", "-"], input: Data("<plist><integer>\u{661}\u{662}</integer></plist>".utf8))
        #expect(arabic.status == 1)
        #expect(arabic.error.contains("<integer> holds '\u{661}'"), "\(arabic.error)")
    }

    /// An XML archive from `$objects` entries written as XML (index 0, `$null`, is added).
    static func xmlArchive(_ objects: [String]) -> Data {
        Data(("<plist version=\"1.0\"><dict><key>$archiver</key><string>NSKeyedArchiver</string>"
            + "<key>$version</key><integer>100000</integer>"
            + "<key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>"
            + "<key>$objects</key><array><string>$null</string>" + objects.joined() + "</array></dict></plist>").utf8)
    }

    static func uid(_ value: Int) -> String { "<dict><key>CF$UID</key><integer>\(value)</integer></dict>" }

    static func classDictionary(_ name: String, chain: [String]) -> String {
        "<dict><key>$classname</key><string>\(name)</string><key>$classes</key><array>"
            + chain.map { "<string>\($0)</string>" }.joined() + "</array></dict>"
    }

    /// The trial's finding: a chain of 5,000 objects with 100-character keys made each refusal
    /// print a half-megabyte key path. The path keeps its ends and counts what it leaves out.
    @Test func validateShortensDeepKeyPaths() throws {
        let depth = 5_000, key = String(repeating: "k", count: 100)
        // Objects 1…depth form the chain (class at depth+2), depth+1 is the refused leaf (class at depth+3).
        var objects: [String] = []
        for index in 1...depth {
            objects.append("<dict><key>$class</key>\(Self.uid(depth + 2))<key>\(key)</key>\(Self.uid(index + 1))</dict>")
        }
        objects.append("<dict><key>$class</key>\(Self.uid(depth + 3))</dict>")
        objects.append(Self.classDictionary("Link", chain: ["Link", "NSObject"]))
        objects.append(Self.classDictionary("Leaf", chain: ["Leaf", "NSObject"]))
        let run = try Self.run(["validate", "-", "--allow", "Link"], input: Self.xmlArchive(objects))
        #expect(run.status == 1)
        let output = String(decoding: run.output, as: UTF8.self)
        #expect(output.utf8.count < 5_000, "\(output.utf8.count) bytes")
        #expect(output.contains("at root.\(key).") && output.contains(".….(\(depth - 31) more).….\(key)"), "\(output.prefix(600))")
        #expect(run.error.hasSuffix("; to admit every refused class: --allow Link,Leaf\n"), "\(run.error)")
    }

    /// The trial's findings on the suggested --allow: it named `$classes[0]` where the allowlist
    /// checks `$classname`, offered nothing for an empty `$classes`, and left out the classes of
    /// refusals past the 1,000 listed.
    @Test func validateSuggestsEveryRefusedClassName() throws {
        // 1: an NSArray of 1,100 objects: 1,050 of class B, 49 of class C, one whose
        // `$classname` is Evil but whose `$classes` starts with NSString, and one with no `$classes`.
        let count = 1_100
        let arrayClass = count + 2, bClass = count + 3, cClass = count + 4, evilClass = count + 5, bareClass = count + 6
        var elements: [String] = []
        var objects = ["<dict><key>$class</key>\(Self.uid(arrayClass))<key>NS.objects</key><array>"]
        for index in 0..<count {
            elements.append("<dict><key>$class</key>\(Self.uid(index < 1_050 ? bClass : index < 1_098 ? cClass : index == 1_098 ? evilClass : bareClass))</dict>")
            objects[0] += Self.uid(index + 2)
        }
        objects[0] += "</array></dict>"
        objects += elements
        objects.append(Self.classDictionary("NSArray", chain: ["NSArray", "NSObject"]))
        objects.append(Self.classDictionary("B", chain: ["B", "NSObject"]))
        objects.append(Self.classDictionary("C", chain: ["C", "NSObject"]))
        objects.append(Self.classDictionary("Evil", chain: ["NSString", "NSObject"]))
        objects.append(Self.classDictionary("Bare", chain: []))
        let run = try Self.run(["validate", "-", "--allow", "NSArray"], input: Self.xmlArchive(objects))
        #expect(run.status == 1)
        let output = String(decoding: run.output, as: UTF8.self)
        #expect(output.hasSuffix("… and 100 more refusals\n"), "\(output.suffix(200))")
        #expect(run.error.hasSuffix("; to admit every refused class: --allow NSArray,B,C,Evil,Bare\n"), "\(run.error)")
        let admitted = try Self.run(["validate", "-", "--allow", "NSArray,B,C,Evil,Bare"], input: Self.xmlArchive(objects))
        #expect(admitted.status == 0, "\(admitted.error)")
    }

    /// A class name with ESC sequences, a newline, U+2028, U+202E and a C1 CSI, as XML
    /// character references, and a user key (the `$top` key and a field) with a newline.
    static let hostileName = "Evil&#x1B;[31mRED&#x1B;[0m&#xA;second&#x2028;line&#x202E;rev&#x9B;2J"
    static let escapedName = #"Evil\u001b[31mRED\u001b[0m\nsecond\u2028line\u202erev\u009b2J"#
    static func hostileArchive(classes: Bool = true) -> Data {
        // Without `classes`, `$classes` is not an array (a dictionary without `$classes` is
        // read since issue 51).
        let chain = classes ? "<key>$classes</key><array><string>\(hostileName)</string><string>NSObject</string></array>" : "<key>$classes</key><integer>1</integer>"
        return Data("""
            <plist version="1.0"><dict>
            <key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$version</key><integer>100000</integer>
            <key>$top</key><dict><key>root&#xA;two</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$objects</key><array><string>$null</string>
            <dict><key>$class</key><dict><key>CF$UID</key><integer>2</integer></dict><key>air
            plane</key><dict><key>CF$UID</key><integer>3</integer></dict></dict>
            <dict><key>$classname</key><string>Holder</string><key>$classes</key><array><string>Holder</string></array></dict>
            <dict><key>$class</key><dict><key>CF$UID</key><integer>4</integer></dict></dict>
            <dict><key>$classname</key><string>\(hostileName)</string>\(chain)</dict>
            </array></dict></plist>
            """.utf8)
    }

    /// The reviewer's finding: `validate` printed a hostile class name raw (ESC sequences, then
    /// a second line). Each refusal is one line, the key path's newline escaped too.
    @Test func validatePrintsOneEscapedLinePerRefusal() throws {
        let run = try Self.run(["validate", "-", "--allow", "Holder"], input: Self.hostileArchive())
        #expect(run.status == 1)
        let output = String(decoding: run.output, as: UTF8.self)
        Self.expectSafeLines(output, count: 1)
        #expect(output.hasPrefix(#"refused: classNotAllowed at root\ntwo.air\nplane (object #3): class \#(Self.escapedName) is not in the allowlist"#), "\(output)")
        #expect(output.contains("[classes: \(Self.escapedName) < NSObject]"))
        #expect(output.hasSuffix("--allow \(Self.escapedName)\n"))
        Self.expectSafeLines(run.error, count: 1)
        // No ready-made --allow for a name a shell would read otherwise.
        #expect(!run.error.contains("to admit every refused class"))
    }

    /// Errors on standard error stay one line: an XML excerpt that runs over line ends (seven
    /// hostile fixtures did), and a class name quoted by `dump` and `json`.
    @Test func errorsQuotingTheInputAreOneLine() throws {
        let fixture = Self.packageRoot.appendingPathComponent("Fixtures/hostile/plist/xml-mismatched-end.xml").path
        let mismatched = try Self.run(["plist", fixture])
        #expect(mismatched.status == 1)
        Self.expectSafeLines(mismatched.error, count: 1)
        #expect(mismatched.error.contains(#"expected </array>, found '</dict>\n</plist>\n'"#), "\(mismatched.error)")

        let escapes = try Self.run(["plist", "-"], input: Data("<plist><array>\n\u{1B}[2J\u{202E}</array></plist>".utf8))
        #expect(escapes.status == 1)
        Self.expectSafeLines(escapes.error, count: 1)
        #expect(escapes.error.contains(#"'\u001b[2J\u202e</array></plist>'"#), "\(escapes.error)")

        for command in ["dump", "json", "validate"] {
            let run = try Self.run([command, "-"] + (command == "validate" ? ["--allow", "Holder"] : []), input: Self.hostileArchive(classes: false))
            #expect(run.status == 1, "\(command)")
            #expect(run.output.isEmpty, "\(command)")
            Self.expectSafeLines(run.error, count: 1)
            #expect(run.error.contains("$classes is an integer, expected an array of strings [classes: \(Self.escapedName)]"), "\(command): \(run.error)")
        }
    }

    @Test func plistPrintsCanonicalJSON() throws {
        let xml = Data("<plist><dict><key>b</key><real>0.1</real><key>a</key><dict><key>CF$UID</key><integer>3</integer></dict><key>$date</key><date>2001-01-01T00:00:01Z</date></dict></plist>".utf8)
        let run = try Self.run(["plist", "-"], input: xml)
        #expect(run.status == 0)
        let json = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        #expect((json?["b"] as? [String: Any])?["$real"] as? Double == 0.1)
        #expect((json?["a"] as? [String: Any])?["$uid"] as? Int == 3)
        #expect(((json?["$date"] as? [String: Any])?["$date"] as? Double) == 1)
    }

    /// Converting any Apple fixture to its own format reproduces it byte for byte, through the
    /// tool, and converting to the other format and back keeps the values.
    @Test(.enabled(if: ToolEndToEndTests.corpusAvailable, "Apple corpus not found at ../shared/fixtures/apple; skipping"))
    func convertToOwnFormatIsByteIdentical() throws {
        let manifest = try String(contentsOf: Self.sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var checked = 0
        for line in manifest.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t")
            guard columns.count > 3 else { continue }
            let path = Self.sharedCorpus.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(String(columns[0])).path
            let format = String(columns[3])
            let run = try Self.run(["convert", path, "--to", format])
            #expect(run.status == 0, "\(path): \(run.error)")
            #expect(run.output == (try Data(contentsOf: URL(fileURLWithPath: path))), "\(path)")
            checked += 1
        }
        #expect(checked == 208)
    }

    @Test func convertReadsStandardInputAndWritesFile() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-convert-\(UUID().uuidString).plist")
        defer { try? FileManager.default.removeItem(at: output) }
        let xml = Data("<plist><array><integer>1</integer><string>two</string></array></plist>".utf8)
        let run = try Self.run(["convert", "-", "--to", "binary", "-o", output.path], input: xml)
        #expect(run.status == 0)
        let written = try Data(contentsOf: output)
        #expect(written.prefix(8) == Data("bplist00".utf8))
        let back = try PropertyListSerialization.propertyList(from: written, options: [], format: nil) as? [Any]
        #expect(back?.count == 2)
        #expect(back?.last as? String == "two")
    }

    /// Converting to XML loses what Core Foundation's XML loses; the tool says where, once, on
    /// standard error, and still succeeds (a new user's trial: the losses were silent).
    @Test func convertToXMLNamesTheFirstLoss() throws {
        // Core Foundation's binary writer, through Foundation: a date half a second past a
        // whole one, and a 32-bit real.
        let withFraction = try PropertyListSerialization.data(fromPropertyList: ["when": Date(timeIntervalSinceReferenceDate: 10.5), "n": 1] as [String: Any], format: .binary, options: 0)
        let lossy = try Self.run(["convert", "-", "--to", "xml"], input: withFraction)
        #expect(lossy.status == 0)
        #expect(lossy.error.contains("warning: -: XML does not keep every value: root.when: date 10.5 reads back as date 10.0"), "\(lossy.error)")
        #expect(lossy.error.split(separator: "\n").count == 1)
        let float = try PropertyListSerialization.data(fromPropertyList: [NSNumber(value: Float(1.25))], format: .binary, options: 0)
        #expect(try Self.run(["convert", "-", "--to", "xml"], input: float).error.contains("root[0]: the 32-bit real 1.25 becomes a 64-bit real"))
        // Nothing lost, nothing said.
        let fleet = Self.packageRoot.appendingPathComponent("Fixtures/fleet.plist").path
        let clean = try Self.run(["convert", fleet, "--to", "xml"])
        #expect(clean.status == 0 && clean.error.isEmpty, "\(clean.error)")
    }
}
