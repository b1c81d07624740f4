import Testing
@testable import PropertyList

/// Text quoted from the input in a ``PropertyListError`` (XML excerpts, keys, an encoding name,
/// a binary version) is escaped, so that every message is one line and cannot drive a terminal:
/// an excerpt used to run over the line ends it quoted (`found '</dict>` newline `</plist>`).
@Suite struct MessageEscapingTests {
    /// Characters that must never reach a message raw, spelled out here rather than taken from
    /// the library: C0 (newline, tab, ESC), DEL, C1, U+2028/2029 and the bidi controls.
    static func rawControls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
            default: return false
            }
        }
    }

    static func error(_ bytes: [UInt8]) -> PropertyListError? {
        do {
            _ = try PropertyListCodec.readFile(bytes)
            return nil
        } catch {
            return error
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var input: [UInt8]
        var code: PropertyListError.Code
        /// How the message spells the hostile part.
        var escaped: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "mismatched end tag (Fixtures/hostile/plist/xml-mismatched-end.xml)",
             input: Array("<plist>\n<array>\n</dict>\n</plist>\n".utf8), code: .xmlSyntax, escaped: #"found '</dict>\n</plist>\n'"#),
        Case(name: "mismatched end tag with ESC and bidi controls",
             input: Array("<plist><string>x</dict>\u{1B}[31m\u{202E}\u{2066}\u{9B}\u{2029}\r\t</plist>".utf8), code: .xmlSyntax,
             escaped: #"found '</dict>\u001b[31m\u202e\u2066\u009b\u2029\r\t</plist>'"#),
        Case(name: "key without a value",
             input: Array("<plist><dict><key>a&#x1B;[2J\nb&#x2028;c</key></dict></plist>".utf8), code: .xmlSyntax, escaped: #"key 'a\u001b[2J\nb\u2028c' has no value"#),
        Case(name: "text between elements",
             input: Array("<plist><array>\n x\u{1B}]0;title\u{7}\n</array></plist>".utf8), code: .xmlSyntax, escaped: #"'x\u001b]0;title\u0007\n</array></plist>'"#),
        Case(name: "unknown entity",
             input: Array("<plist><string>&a\u{1B}\nb;</string></plist>".utf8), code: .invalidEntity, escaped: #"unknown entity '&a\u001b\nb;</st'"#),
        Case(name: "date text",
             input: Array("<plist><date>2001\n\u{202D}</date></plist>".utf8), code: .invalidDate, escaped: #"<date> text '2001\n\u202d' is not"#),
        Case(name: "markup inside text",
             input: Array("<plist><string>a<!b\n\u{1B}c></string></plist>".utf8), code: .xmlSyntax, escaped: #"markup '<!b\n\u001bc></string></plist>' inside text"#),
        Case(name: "encoding name",
             input: Array("<?xml version=\"1.0\" encoding=\"x\u{1B}[2J\"?><plist/>".utf8), code: .xmlSyntax, escaped: #"unsupported encoding 'x\u001b[2j'"#),
        Case(name: "binary version",
             input: Array("bplist\n\u{1B}".utf8) + [UInt8](repeating: 0, count: 40), code: .invalidHeader, escaped: #"version \n\u001b is not bplist00"#),
    ]

    @Test(arguments: cases)
    func quotedInputIsEscaped(_ testCase: Case) throws {
        let error = try #require(Self.error(testCase.input))
        #expect(error.code == testCase.code)
        #expect(Self.rawControls(in: error.message).isEmpty, "\(error.message.debugDescription)")
        #expect(Self.rawControls(in: error.description).isEmpty, "\(error.description.debugDescription)")
        #expect(error.description.contains(testCase.escaped), "\(error.description)")
    }

    /// Ordinary text in an excerpt, non-ASCII letters included, is shown as it is.
    /// An excerpt is cut by Unicode scalars: one `Character` can hold any number of combining
    /// marks, so a cut by characters would not bound a message.
    @Test func excerptsAreBoundedByScalars() {
        let hostile = "a" + String(repeating: "\u{301}", count: 200_000)
        #expect(hostile.count == 1)
        let excerpt = hostile.excerptForMessage(40)
        #expect(excerpt.unicodeScalars.count == 41 && excerpt.hasSuffix("…"))
        #expect("short".excerptForMessage(40) == "short")
        #expect("line\nbreak".excerptForMessage(4) == "line…")
        #expect("a\u{1B}b".excerptForMessage(2) == "a\\u001b…")
    }

    @Test func ordinaryTextIsUnchanged() throws {
        let error = try #require(Self.error(Array("<plist><array>café 飛行機</array></plist>".utf8)))
        #expect(error.description.contains("'café 飛行機</array></plist>'"), "\(error.description)")
    }
}
