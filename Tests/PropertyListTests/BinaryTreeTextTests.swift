import Foundation
import Testing
@testable import PropertyList

/// The texts `keyedarchive plist` and `keyedarchive convert --to xml` make of a binary file
/// straight from its bytes (`BinaryPropertyListTree`) against the usual path (the file's value,
/// then `PropertyListJSONRenderer` or `XMLPropertyListWriter`, and for XML the loss found by
/// reading the whole XML back): the same bytes and the same loss, or no plan where the usual
/// path refuses the file — on the Apple corpus, our fixtures, generated values, hand-made files
/// and damaged copies; and Python's plistlib reads the streamed texts as we do.
@Suite struct BinaryTreeTextTests {
    /// A text made, or the refusal's words, with the chunks handed over before it ended.
    struct Outcome: Equatable {
        var output: [UInt8]
        var refusal: String?
    }

    // MARK: JSON

    /// The usual path: the file's value, rendered in chunks.
    static func usualJSON(_ bytes: [UInt8], budget: Int = PropertyListJSONRenderer.defaultMaximumByteCount) -> Outcome {
        var outcome = Outcome(output: [])
        do {
            let value = try bytes.withUnsafeBytes { (raw) throws(PropertyListError) in try PropertyListCodec.fileValue(raw) }
            try PropertyListJSONRenderer.render(value, maximumByteCount: budget) { outcome.output.append(contentsOf: $0) }
        } catch {
            outcome.refusal = "\(error)"
        }
        return outcome
    }

    /// The text from the bytes, or nil when the plan leaves the file to the usual path.
    static func treeJSON(_ bytes: [UInt8], budget: Int = PropertyListJSONRenderer.defaultMaximumByteCount) -> Outcome? {
        bytes.withUnsafeBytes { raw -> Outcome? in
            guard let tree = BinaryPropertyListTree.plan(raw, for: .json) else { return nil }
            var outcome = Outcome(output: [])
            do throws(PropertyListError) {
                try tree.renderJSON(raw, maximumByteCount: budget) { outcome.output.append(contentsOf: $0) }
            } catch {
                outcome.refusal = "\(error)"
            }
            return outcome
        }
    }

    /// Both paths agree on `bytes`; returns whether the plan took the file.
    @discardableResult
    static func expectJSONAgreement(_ bytes: [UInt8], _ comment: @autoclosure () -> String) -> Bool {
        let expected = usualJSON(bytes)
        guard let actual = treeJSON(bytes) else { return false }
        #expect(expected.refusal == nil, "the plan took a file the usual path refuses: \(comment())")
        #expect(actual == expected, Comment(rawValue: comment()))
        return true
    }

    // MARK: XML

    /// The usual path: the XML of the file's value, and what reading it back finds lost.
    static func usualXML(_ bytes: [UInt8]) -> (xml: [UInt8], loss: String?)? {
        guard let value = try? bytes.withUnsafeBytes({ (raw) throws(PropertyListError) in try PropertyListCodec.fileValue(raw) }),
              let xml = try? XMLPropertyListWriter().write(value) else { return nil }
        return (xml, XMLConversionLoss.firstLoss(of: value, readingBack: xml))
    }

    /// The XML from the bytes (in chunks) and its loss, or nil when the plan leaves the file.
    static func treeXML(_ bytes: [UInt8]) -> (xml: [UInt8], loss: String?, chunks: Int)? {
        bytes.withUnsafeBytes { raw -> (xml: [UInt8], loss: String?, chunks: Int)? in
            guard let tree = BinaryPropertyListTree.plan(raw, for: .xml) else { return nil }
            var xml: [UInt8] = []
            var chunks = 0
            do throws(PropertyListError) {
                try tree.writeXML(raw) { chunk in
                    chunks += 1
                    xml.append(contentsOf: chunk)
                }
            } catch {
                Issue.record("the XML writer refused a planned file: \(error)")
            }
            return (xml, tree.firstXMLLoss(raw), chunks)
        }
    }

    /// Both paths agree on `bytes`; returns whether the plan took the file.
    @discardableResult
    static func expectXMLAgreement(_ bytes: [UInt8], _ comment: @autoclosure () -> String) -> Bool {
        let expected = usualXML(bytes)
        guard let actual = treeXML(bytes) else { return false }
        guard let expected else {
            Issue.record("the plan took a file the usual path refuses: \(comment())")
            return true
        }
        #expect(actual.xml == expected.xml, Comment(rawValue: comment()))
        #expect(actual.loss == expected.loss, Comment(rawValue: comment()))
        return true
    }

    /// Every binary file of the corpus and of Fixtures/, and whether it is an ordinary one
    /// (not made to be refused: Fixtures/hostile, fuzz-findings, deep).
    static func binaryFiles() throws -> [(name: String, bytes: [UInt8], ordinary: Bool)] {
        var files: [(name: String, bytes: [UInt8], ordinary: Bool)] = []
        if AppleFixtureCorpus.isAvailable {
            for entry in AppleFixtureCorpus.entries(format: "binary") { files.append((entry.relativePath, try AppleFixtureCorpus.bytes(entry), true)) }
        }
        let ours = try FileManager.default.subpathsOfDirectory(atPath: AppleFixtureCorpus.fixturesRoot.path).sorted()
        for path in ours {
            let bytes = [UInt8]((try? Data(contentsOf: AppleFixtureCorpus.fixturesRoot.appendingPathComponent(path))) ?? Data())
            let ordinary = !["hostile/", "fuzz-findings/", "deep/"].contains { path.hasPrefix($0) }
            if bytes.starts(with: Array("bplist00".utf8)) { files.append(("Fixtures/" + path, bytes, ordinary)) }
        }
        return files
    }

    /// Every binary file of the corpus and of Fixtures/ (the hostile ones too): the same JSON
    /// and the same XML, the same loss named; the plan takes every ordinary file but the few
    /// with a shared container.
    @Test func corpusAndFixturesGiveTheSameTexts() throws {
        let files = try Self.binaryFiles()
        let ordinary = files.filter(\.ordinary).count
        #expect(ordinary > (AppleFixtureCorpus.isAvailable ? 186 : 10) && files.count > ordinary + 200, "\(ordinary) ordinary files of \(files.count)")
        var plannedJSON = 0, plannedXML = 0, losses = 0
        for (name, bytes, isOrdinary) in files {
            let json = Self.expectJSONAgreement(bytes, name)
            let xml = Self.expectXMLAgreement(bytes, name)
            if isOrdinary, json { plannedJSON += 1 }
            if isOrdinary, xml { plannedXML += 1 }
            if isOrdinary, Self.usualXML(bytes)?.loss != nil { losses += 1 }
        }
        #expect(plannedJSON >= ordinary - 3, "\(plannedJSON) of \(ordinary) files rendered from their bytes")
        #expect(plannedXML >= ordinary - 3, "\(plannedXML) of \(ordinary) files written from their bytes")
        if AppleFixtureCorpus.isAvailable { #expect(losses > 20, "\(losses) files lose a value in XML") }
    }

    /// Generated values of every kind (reals of both widths, NaNs, −0, 16-byte integers, dates
    /// with fractions, text with U+FEFF, CR and controls), written by our binary writer.
    @Test(arguments: [UInt64(11), 12, 13, 14, 15, 16])
    func generatedFilesGiveTheSameTexts(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        var plannedXML = 0
        for index in 0..<80 {
            let value = generator.value(depth: 3, allowSets: index % 4 == 0)
            let bytes = try BinaryPropertyListWriter().write(value)
            Self.expectJSONAgreement(bytes, "seed \(seed), value \(index)")
            if Self.expectXMLAgreement(bytes, "seed \(seed), value \(index)") { plannedXML += 1 }
        }
        #expect(plannedXML > 40, "\(plannedXML) of 80 written from their bytes")
    }

    /// Losses of every kind, each named as reading the XML back names it, and values the XML
    /// writer refuses left to the usual path (which names them).
    @Test func everyLossIsNamedAsTheXMLReadBackNamesIt() throws {
        let uid = PropertyListValue.dictionary(PropertyListDictionary(entries: [.init(key: "CF$UID", value: 7)]))
        let markedUID = PropertyListValue.dictionary(PropertyListDictionary(entries: [.init(key: "\u{FEFF}CF$UID", value: .double(3.9))]))
        func dictionary(_ entries: [(String, PropertyListValue)]) -> PropertyListValue {
            .dictionary(PropertyListDictionary(entries: entries.map { .init(key: $0.0, value: $0.1) }))
        }
        let lossy: [(String, PropertyListValue, String?)] = [
            ("nothing", ["a": 1, "b": [true, "x"]], nil),
            ("a 32-bit real", [1, .float(0.5)], "root[1]: the 32-bit real 0.5 becomes a 64-bit real"),
            ("-0", ["z": .double(-0.0)], "root.z: real -0.0 reads back as 0.0"),
            ("a NaN payload", [.double(Double(bitPattern: 0x7FF0_0000_0000_0001))], nil),
            ("a 32-bit NaN", [.float(.nan)], nil),
            ("a 16-byte 5", [.integer(PropertyListInteger(high: 0, low: 5, isStoredAs128Bit: true))], "root[0]: the 16-byte integer 5 becomes an 8-byte integer"),
            ("a 16-byte 2^64 - 1", [.integer(PropertyListInteger(UInt64.max))], nil),
            ("a date's fraction", ["when": .date(PropertyListDate(secondsSinceReferenceDate: 10.5))], "root.when: date 10.5 reads back as date 10.0"),
            ("a far date", [.date(PropertyListDate(secondsSinceReferenceDate: -3e12 + 0.25))], nil),
            ("a string's mark", ["s": "\u{FEFF}x"], "root.s: string \"\u{FEFF}x\" reads back as \"x\""),
            ("a key's mark", dictionary([("a", 1), ("\u{FEFF}b", 2)]), nil),
            ("two keys' marks", dictionary([("\u{FEFF}a", 1), ("\u{FEFF}\u{FEFF}a", 2)]), nil),
            ("marked keys the other way", dictionary([("\u{FEFF}\u{FEFF}a", [1, 2]), ("\u{FEFF}a", [3])]), nil),
            ("a CF$UID dictionary", ["u": uid], "root.u: a dictionary reads back as UID 7"),
            ("a marked CF$UID dictionary with a real", [markedUID], nil),
            ("a CF$UID dictionary with a string", [dictionary([("CF$UID", "7")])], nil),
            ("CR and controls", ["c": "a\r\nb\u{01}"], nil),
            ("deep loss", ["a": [1, "two", ["b": .float(0.25), "c": "kept"]]], "root.a[2].b: the 32-bit real 0.25 becomes a 64-bit real"),
            ("the first of two", [["k": .double(-0.0)], .float(1)], "root[0].k: real -0.0 reads back as 0.0"),
        ]
        for (name, value, expected) in lossy {
            let bytes = try BinaryPropertyListWriter().write(value)
            #expect(Self.expectXMLAgreement(bytes, name), "\(name): not planned")
            if let expected { #expect(Self.treeXML(bytes)?.loss == expected, "\(name)") }
            Self.expectJSONAgreement(bytes, name)
        }
        // The NaN's payload, the far date and the marks are named too (as reading back names them).
        for (name, value, _) in lossy where ["a NaN payload", "a far date", "two keys' marks", "a key's mark"].contains(name) {
            #expect(Self.treeXML(try BinaryPropertyListWriter().write(value))?.loss != nil, "\(name)")
        }
        // What the XML writer refuses is the usual path's, which names it.
        let refused: [(String, [UInt8])] = [
            ("a set", BinaryRewriterTests.handMade([[0xA1, 1], [0xC1, 2], [0x09]])),
            ("an integer past 2^64 - 1", BinaryRewriterTests.handMade([[0xA1, 1], [0x14, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)])),
            ("a key stored twice", BinaryRewriterTests.handMade([[0xD2, 1, 1, 2, 3], [0x51, 0x6B], [0x10, 1], [0x10, 2]])),
            ("keys one mark apart", BinaryRewriterTests.handMade([[0xD2, 1, 2, 3, 3], [0x51, 0x6B], [0x62, 0xFE, 0xFF, 0, 0x6B], [0x09]])),
            ("an infinite date", BinaryRewriterTests.handMade([[0xA1, 1], [0x33, 0x7F, 0xF0, 0, 0, 0, 0, 0, 0]])),
        ]
        for (name, bytes) in refused {
            #expect(Self.usualXML(bytes) == nil, "\(name): the usual path writes it")
            #expect(Self.treeXML(bytes) == nil, "\(name): planned")
        }
        #expect(Self.treeJSON(BinaryRewriterTests.handMade([[0xA1, 1], [0xC1, 2], [0x09]])) == nil, "a set in JSON: planned")
    }

    /// Hand-made encodings Core Foundation's writer would not use, and faults reachable or not:
    /// the same texts, or no plan where the usual path refuses the file.
    @Test func handMadeAndFaultyFilesAgree() {
        let cases: [[UInt8]] = [
            BinaryRewriterTests.handMade([[0x13, 0, 0, 0, 0, 0, 0, 0, 1]]),
            BinaryRewriterTests.handMade([[0x62, 0, 0x61, 0, 0x62]]),
            BinaryRewriterTests.handMade([[0x63, 0, 0xE9, 0xD8, 0x3D, 0xDE, 0x00]]),
            BinaryRewriterTests.handMade([[0x5F, 0x10, 3, 0x61, 0x62, 0x63]]),
            BinaryRewriterTests.handMade([[0xA1, 1], [0x8F] + [UInt8](repeating: 0, count: 15) + [5]]),
            BinaryRewriterTests.handMade([[0xA2, 0, 1, 0, 2], [0x09], [0x51, 0x78]], referenceSize: 2),
            BinaryRewriterTests.handMade([[0xA2, 1, 2], [0x08], [0x51, 0x78]], offsetSize: 3),
            BinaryRewriterTests.handMade([[0xD1, 1, 2], [0x51, 0x6B], [0x23, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]]),
            BinaryRewriterTests.handMade([[0xD1, 1, 2], [0x51, 0x24], [0x10, 1]]),
            BinaryRewriterTests.handMade([[0xD1, 1, 2], [0x54, 0x24, 0x75, 0x69, 0x64], [0x10, 1]]),
            BinaryRewriterTests.handMade([[0xA2, 1, 1], [0x51, 0x73]]),
            BinaryRewriterTests.handMade([[0xA2, 1, 1], [0xA1, 2], [0x09]]),
            BinaryRewriterTests.handMade([[0xA1, 1], [0x09], [0x51, 0x7A]]),
            BinaryRewriterTests.handMade([[0x10, 5]]),
            BinaryRewriterTests.handMade([[0xA0]]),
            BinaryRewriterTests.handMade([[0xD0]]),
            BinaryRewriterTests.handMade([[0xA1, 0]]),
            BinaryRewriterTests.handMade([[0xD1, 1, 1], [0x10, 1]]),
            BinaryRewriterTests.handMade([[0xA1, 5]]),
            BinaryRewriterTests.handMade([[0x09], [0x71]]),
            BinaryRewriterTests.handMade([[0x61, 0xD8, 0x00]]),
            BinaryRewriterTests.handMade([[0xA1, 1], [0x84, 1, 0, 0, 0, 0]]),
            BinaryRewriterTests.aliased(),
        ]
        for (index, bytes) in cases.enumerated() {
            Self.expectJSONAgreement(bytes, "case \(index)")
            Self.expectXMLAgreement(bytes, "case \(index)")
        }
        #expect(Self.treeJSON(cases[11]) == nil, "a container reached twice is the usual path's")
        // Nesting: past maximumDepth the usual path refuses; near it, both write it.
        for levels in [400, 600] {
            var deep: [[UInt8]] = (0..<levels).map { index in [0xA1] + BinaryRewriterTests.bigEndian(UInt64(index + 1), width: 2) }
            deep[levels - 1] = [0xA1] + BinaryRewriterTests.bigEndian(UInt64(levels), width: 2)
            deep.append([0x80, 1])
            let nested = BinaryRewriterTests.handMade(deep, referenceSize: 2, offsetSize: 2)
            // The usual path's writers recurse: on a stack the test chooses (onBigStack).
            let (usualJSON, treeJSON, usualXML, treeXML) = onBigStack { (Self.usualJSON(nested), Self.treeJSON(nested), Self.usualXML(nested), Self.treeXML(nested)) }
            #expect((treeJSON != nil) == (levels < 512), "\(levels) levels")
            if let treeJSON {
                #expect(usualJSON.refusal == nil && treeJSON == usualJSON, "\(levels) levels")
            }
            if let treeXML {
                #expect(treeXML.xml == usualXML?.xml && treeXML.loss == usualXML?.loss, "\(levels) levels")
            }
        }
    }

    /// Damaged copies of Apple files: whatever the usual path makes of each, the plan makes
    /// too, or leaves it to the usual path.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func damagedAppleFilesAgree() throws {
        var generator = RandomPropertyListGenerator(seed: 3637)
        let originals = try AppleFixtureCorpus.entries(format: "binary").map { ($0, try AppleFixtureCorpus.bytes($0)) }.filter { $0.1.count < 20_000 }
        var planned = 0
        for (entry, original) in originals.prefix(50) {
            for trial in 0..<12 {
                var bytes = original
                if trial == 11 {
                    bytes.removeLast(1 + generator.below(min(40, bytes.count - 1)))
                } else {
                    for _ in 0...generator.below(3) { bytes[generator.below(bytes.count)] = UInt8(truncatingIfNeeded: generator.next()) }
                }
                if Self.expectJSONAgreement(bytes, "\(entry), trial \(trial)") { planned += 1 }
                Self.expectXMLAgreement(bytes, "\(entry), trial \(trial)")
            }
        }
        #expect(planned > 50, "\(planned) damaged files rendered from their bytes")
    }

    /// The byte budget stops the text from the bytes where it stops the value's: the same
    /// chunks handed over, the same refusal.
    @Test func theByteBudgetStopsAtTheSameByte() throws {
        let value = PropertyListValue.array((0..<40_000).map { .dictionary(PropertyListDictionary(entries: [.init(key: "k\($0)", value: .string(String(repeating: "v", count: $0 % 50)))])) })
        let bytes = try BinaryPropertyListWriter().write(value)
        for budget in [10, 70_000, 1 << 20, 1 << 30] {
            let expected = Self.usualJSON(bytes, budget: budget)
            let actual = Self.treeJSON(bytes, budget: budget)
            #expect(actual == expected, "budget \(budget)")
            #expect((expected.refusal == nil) == (budget == 1 << 30), "budget \(budget)")
        }
        // A large file's XML comes in chunks of about a mebibyte.
        let xml = try #require(Self.treeXML(bytes))
        #expect(xml.xml == (try XMLPropertyListWriter().write(value)))
        #expect(xml.chunks >= 2 && xml.chunks <= xml.xml.count / BinaryPropertyListTree.xmlChunkSize + 1, "\(xml.chunks) chunks")
    }

    /// Python's plistlib reads the streamed texts of the corpus as we read them: the JSON
    /// against the binary file, and the XML (written to disk) against our reading of it.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable && ReferenceTools.isPythonAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func plistlibReadsTheStreamedTexts() throws {
        let directory = try ReferenceTools.temporaryDirectory("streamed")
        defer { try? FileManager.default.removeItem(at: directory) }
        var comparisons: [ReferenceTools.Comparison] = []
        for (index, entry) in AppleFixtureCorpus.entries(format: "binary").enumerated() {
            let bytes = try AppleFixtureCorpus.bytes(entry)
            guard let json = Self.treeJSON(bytes), json.refusal == nil, let xml = Self.treeXML(bytes) else { continue }
            comparisons.append(.init(plistPath: entry.url.path, ourJSON: json.output, format: "binary"))
            // plistlib (expat) refuses raw control characters, which Core Foundation writes and reads.
            guard !xml.xml.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { continue }
            let url = directory.appendingPathComponent("\(index).xml")
            try Data(xml.xml).write(to: url)
            let ours = try PropertyListJSONRenderer.render(try XMLPropertyListReader.read(xml.xml).value)
            comparisons.append(.init(plistPath: url.path, ourJSON: ours, format: "xml"))
        }
        #expect(comparisons.count >= 186 + 150, "\(comparisons.count) texts compared")
        let result = try ReferenceTools.compareWithPlistlib(comparisons)
        #expect(result.status == 0, "\(result.report)")
        #expect(result.matched == comparisons.count)
    }
}
