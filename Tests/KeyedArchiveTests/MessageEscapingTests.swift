import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Text an archive supplies (class names, `$classes` chains, keys) reaches error messages
/// escaped: a message is one line whatever the archive holds, and cannot move the cursor, change
/// colours or reorder what a terminal shows (Docs/Security.md, "Error messages").
@Suite struct MessageEscapingTests {
    /// ESC sequences, a newline, a line separator, a right-to-left override, a C1 CSI, a tab
    /// and a first-strong isolate: everything a hostile name could use to break or paint a line.
    static let hostileName = "Evil\u{1B}[31mRED\u{1B}[0m\nsecond\u{2028}line\u{202E}desrever\u{9B}2J\t\u{2068}x"
    /// The same name as messages spell it.
    static let escapedName = "Evil\\u001b[31mRED\\u001b[0m\\nsecond\\u2028line\\u202edesrever\\u009b2J\\t\\u2068x"

    /// A user key holding a newline (and an ESC), as a field name and as a `$top` key.
    static let hostileKey = "air\nplane\u{1B}[2K"
    static let escapedKey = "air\\nplane\\u001b[2K"

    /// Whether a message shows a character that must never reach a terminal raw. Spelled out
    /// here rather than taken from the library, so that the test checks the rule itself.
    static func rawControls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    static func expectOneSafeLine(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rawControls(in: text).isEmpty, "raw control characters in: \(text.debugDescription)", sourceLocation: sourceLocation)
    }


    /// `root` (under a hostile `$top` key) is an NSDictionary-like object of class `Holder`
    /// whose field `hostileKey` refers to an object of the hostile class.
    static func hostileArchive() throws -> [UInt8] {
        try SecurityPolicyTests.archive([
            "$null",
            ["$class": SecurityPolicyTests.uid(2), hostileKey: SecurityPolicyTests.uid(3)],
            SecurityPolicyTests.classDictionary(["Holder", "NSObject"]),
            ["$class": SecurityPolicyTests.uid(4)],
            SecurityPolicyTests.classDictionary([hostileName, "Airplane", hostileName, "NSObject"]),
        ], top: [hostileKey: SecurityPolicyTests.uid(1)])
    }

    @Test func theEscapeKeepsOrdinaryTextAndIsIdempotent() {
        for text in ["Glider", "Café 飛行機 😀", "e\u{301}", "back\\slash \"quoted\"", "NS.objects[3]", "\u{A0}\u{FEFF}\u{2027}\u{202F}"] {
            #expect(text.escapedForMessage == text)
        }
        #expect(Self.hostileName.escapedForMessage == Self.escapedName)
        #expect(Self.escapedName.escapedForMessage == Self.escapedName)
        for scalar in [0x00, 0x1F, 0x7F, 0x80, 0x85, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069] {
            let escaped = String(Character(Unicode.Scalar(UInt32(scalar))!)).escapedForMessage
            Self.expectOneSafeLine(escaped)
            #expect(escaped.hasPrefix("\\"), "U+\(String(scalar, radix: 16)) → \(escaped)")
        }
    }

    /// The reviewer's finding: `keyedarchive validate` printed the class name raw (ESC
    /// sequences, then a second line). The refusal's message, chain, remedy and key path are
    /// all escaped now.
    @Test func allowlistRefusalsAreOneLine() throws {
        let graph = try ArchiveGraph(bytes: try Self.hostileArchive())
        let report = ArchiveClassAllowlist(classNames: ["Holder"]).check(graph)
        #expect(report.refusalCount == 1)
        let refusal = try #require(report.refusals.first)
        #expect(refusal.code == .classNotAllowed)
        // The structured fields keep the archive's own text; only the display escapes it.
        #expect(refusal.classChain.first == Self.hostileName)
        #expect(refusal.keyPath == ArchiveKeyPath([.key(Self.hostileKey), .key(Self.hostileKey)]))
        #expect(refusal.keyPath.description == "\(Self.escapedKey).\(Self.escapedKey)")
        Self.expectOneSafeLine(refusal.message)
        Self.expectOneSafeLine(refusal.remedy ?? "")
        Self.expectOneSafeLine(refusal.description)
        #expect(refusal.description.contains("class \(Self.escapedName) is not in the allowlist"), "\(refusal.description)")
        #expect(refusal.description.contains("[classes: \(Self.escapedName) < Airplane < \(Self.escapedName) < NSObject]"))
        #expect(refusal.description.hasSuffix("--allow \(Self.escapedName)"))
        #expect(refusal.description.hasPrefix("classNotAllowed at \(Self.escapedKey).\(Self.escapedKey) (object #3): "))
    }

    /// Typed decoding's refusal names the class in its message, its chain and the Swift literal
    /// of its remedy: all escaped.
    @Test func typedDecodingRefusalsAreOneLine() throws {
        let bytes = try SecurityPolicyTests.airplane(className: [Self.hostileName, "Airplane", "NSObject"])
        let refused = try #require(SecurityPolicyTests.error { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) })
        #expect(refused.code == .classNotAllowed)
        Self.expectOneSafeLine(refused.message)
        Self.expectOneSafeLine(refused.description)
        #expect(refused.message.contains("class \(Self.escapedName) is not registered"), "\(refused.message)")
        // The remedy spells the name as a Swift literal, with Swift's escapes.
        let remedy = try #require(refused.remedy)
        Self.expectOneSafeLine(remedy)
        #expect(remedy.contains(#"className: "Evil\u{1b}[31mRED\u{1b}[0m\u{a}second\u{2028}line\u{202e}desrever\u{9b}2J\u{9}\u{2068}x""#), "\(remedy)")
    }

    /// Faults found while reading the graph: a duplicate user key (named in the message and the
    /// key path), a class dictionary without `$classes`, a foreign `$archiver`.
    /// A class name of 20,000 NUL characters escapes to 120 KB: every message quoting a class
    /// name or a key cuts it (the `typed` fuzz target found a 98 KB description this way, a
    /// model class asked for as an IndexPath).
    @Test func longNamesAndKeysAreCutInMessages() throws {
        let name = "NS" + String(repeating: "\u{0}", count: 20_000)
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveGenericObject(classes: [name, "NSObject"], fields: [(name, .inline(.integer(1)))]))
        let bytes = try archiver.finish()
        var refusals: [ArchiveError] = []
        for attempt in [{ _ = try KeyedUnarchiver.unarchive(IndexPath.self, from: bytes, registry: ArchiveRegistry()) },
                        { _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry()) },
                        { _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry) }] {
            do { try attempt() } catch let error as ArchiveError { refusals.append(error) }
        }
        refusals.append(contentsOf: ArchiveClassAllowlist(classNames: ["NSArray"]).check(try ArchiveGraph(bytes: bytes)).refusals)
        #expect(refusals.count == 4)
        for refusal in refusals {
            #expect(refusal.code == .classNotAllowed)
            #expect(refusal.description.utf8.count < 4_000, "\(refusal.description.utf8.count) bytes: \(refusal.description.prefix(200))")
        }
    }

    @Test func graphFaultsAreOneLine() throws {
        let duplicate = try SecurityPolicyTests.archive([
            "$null",
            .dictionary(PropertyListDictionary(entries: [
                .init(key: "$class", value: SecurityPolicyTests.uid(2)),
                .init(key: Self.hostileKey, value: 1),
                .init(key: Self.hostileKey, value: 2),
            ])),
            SecurityPolicyTests.classDictionary(["Holder", "NSObject"]),
        ])
        let duplicateReport = ArchiveClassAllowlist(classNames: ["Holder"]).check(try ArchiveGraph(bytes: duplicate))
        let duplicateError = try #require(duplicateReport.refusals.first)
        #expect(duplicateError.code == .duplicateKey)
        Self.expectOneSafeLine(duplicateError.description)
        #expect(duplicateError.description.hasPrefix("duplicateKey at root.\(Self.escapedKey) (object #1): key \(Self.escapedKey) appears 2 times"), "\(duplicateError.description)")

        // (A class dictionary without `$classes` is read since issue 51: one whose `$classes`
        // is not an array is the fault here.)
        let noClasses = try SecurityPolicyTests.archive([
            "$null",
            ["$class": SecurityPolicyTests.uid(2)],
            ["$classname": .string(Self.hostileName), "$classes": 1],
        ])
        let missing = try #require(SecurityPolicyTests.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: noClasses) })
        #expect(missing.code == .invalidClassDescriptor)
        Self.expectOneSafeLine(missing.description)
        #expect(missing.description.contains("$classes is an integer, expected an array of strings [classes: \(Self.escapedName)]"), "\(missing.description)")

        let archiver = try BinaryPropertyListWriter().write([
            "$archiver": .string(Self.hostileName), "$version": 100000, "$top": ["root": SecurityPolicyTests.uid(1)], "$objects": ["$null", "x"],
        ])
        // Any archiver's name is read since issue 51 (Apple's unarchiver never reads it): `dump`
        // prints it escaped, on one line.
        let header = try #require(try ArchiveDumper.dump(archiver).split(separator: "\n").first.map(String.init))
        Self.expectOneSafeLine(header)
        #expect(header.hasPrefix("\"\(Self.escapedName)\", version 100000"), "\(header)")
        let numbered = try BinaryPropertyListWriter().write(["$archiver": 7, "$version": 100000, "$top": [:], "$objects": ["$null"]])
        let foreign = try #require(SecurityPolicyTests.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: numbered) })
        #expect(foreign.code == .invalidArchiveHeader)
        Self.expectOneSafeLine(foreign.description)
    }

    /// A property-list fault wrapped in an ArchiveError keeps the PropertyList layer's escaping.
    @Test func wrappedPropertyListFaultsAreOneLine() {
        let xml = Array("<plist><dict><key>k</key><array></dict>\n</plist>\n".utf8)
        let wrapped = SecurityPolicyTests.error { () throws(ArchiveError) in _ = try ArchiveGraph(bytes: xml) }
        #expect(wrapped?.code == .invalidPropertyList)
        Self.expectOneSafeLine(wrapped?.description ?? "")
        #expect(wrapped?.description.contains(#"found '</dict>\n</plist>\n'"#) == true, "\(wrapped?.description ?? "no error")")
    }
}

@Suite struct RenderedStringEscapingTests {
    /// `dump` and `json` show a string's terminal controls, separators and bidi controls as
    /// `\uXXXX`; the JSON still reads back to the very same string.
    @Test func dumpAndJSONShowNoRawControls() throws {
        let hostile = "plane\u{202E}enalp\u{9B}31m\u{2028}next\u{1B}[0m é 飛行機 \"q\" \\"
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(hostile, forKey: "root")
        let bytes = try archiver.finish()
        let dump = try ArchiveDumper.dump(bytes)
        let json = try ArchiveJSONRenderer.render(bytes)
        for output in [dump, json] {
            #expect(!output.unicodeScalars.contains { $0 != "\n" && MessageText.needsEscape($0) }, "\(output)")
            #expect(output.contains("\\u202e") && output.contains("\\u009b") && output.contains("\\u2028") && output.contains("\\u001b"))
            #expect(output.contains("é 飛行機"))
        }
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        #expect(Self.strings(in: parsed).contains(hostile))
    }

    static func strings(in value: Any) -> [String] {
        if let string = value as? String { return [string] }
        if let array = value as? [Any] { return array.flatMap { strings(in: $0) } }
        if let dictionary = value as? [String: Any] { return dictionary.values.flatMap { strings(in: $0) } }
        return []
    }
}
