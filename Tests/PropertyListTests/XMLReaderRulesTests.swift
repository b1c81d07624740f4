import Foundation
import Testing
@testable import PropertyList

/// The reading rules of xml-format-notes.md, each asserted on its own input.
@Suite struct XMLReaderRulesTests {
    static func read(_ body: String) throws(PropertyListError) -> PropertyListValue {
        try XMLPropertyListReader.read(Array(body.utf8)).value
    }

    static func code(_ body: String) -> PropertyListError.Code? {
        do { _ = try read(body); return nil } catch { return error.code }
    }

    @Test func acceptedForms() throws {
        #expect(try Self.read("<plist><string>a\r\nb\rc</string></plist>") == "a\r\nb\rc")
        #expect(try Self.read("\u{FEFF}<?xml version=\"1.0\"?><!-- c --><string>x</string>") == "x")
        #expect(try Self.read("<string>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;&#0;</string>") == "<>&'\"AB😀\u{0}")
        #expect(try Self.read("<string><![CDATA[<raw>&]]></string>") == "<raw>&")
        #expect(try Self.read("<integer> -0x1F</integer>") == -31)
        #expect(try Self.read("<integer>+ 007</integer>") == 7)
        #expect(try Self.read("<integer>18446744073709551615</integer>") == .integer(PropertyListInteger(UInt64.max)))
        #expect(try Self.read("<integer>-9223372036854775808</integer>") == .integer(PropertyListInteger(Int64.min)))
        #expect(try Self.read("<real>.5</real>") == 0.5)
        #expect(try Self.read("<real>1E3</real>") == 1000.0)
        #expect(try Self.read("<real>-INFINITY</real>") == .double(-.infinity))
        #expect(try Self.read("<real>1e999</real>") == .double(.infinity))
        #expect(try Self.read("<true></true>") == true)
        #expect(try Self.read("<false />") == false)
        #expect(try Self.read("<data>AAE</data>") == .data([]))
        #expect(try Self.read("<data>AAECAw</data>") == .data([0, 1, 2]))
        #expect(try Self.read("<data>AA*E=</data>") == .data([0, 1]))
        #expect(try Self.read("<date>2001-01-01T00:00:00Z</date>") == .date(PropertyListDate(secondsSinceReferenceDate: 0)))
        #expect(try Self.read("<date>0000-12-30T00:00:00Z</date>") == .date(PropertyListDate(secondsSinceReferenceDate: -63_114_076_800)))
        #expect(try Self.read("<date>2001-02-30T24:00:00Z</date>") == .date(PropertyListDate(secondsSinceReferenceDate: Double(31 + 29 + 1) * 86_400)))
        #expect(try Self.read("<array><key>k</key></array>") == ["k"])
        #expect(try Self.read("<dict><key>a</key><integer>1</integer><key>b</key><true/><key>a</key><integer>2</integer></dict>") == ["a": 2, "b": true])
        #expect(try Self.read("<dict><key>CF$UID</key><integer>4294967297</integer></dict>") == .uid(PropertyListUID(1)))
        #expect(try Self.read("<dict><key>CF$UID</key><real>2.7</real></dict>") == .uid(PropertyListUID(2)))
        #expect(try Self.read("<dict><key>CF$UID</key><string>1</string></dict>") == ["CF$UID": "1"])
        #expect(try Self.read("<plist version=\"1.0\"><array/></plist>trailing garbage") == [])
        #expect(try XMLPropertyListReader.read(Array("<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD PLIST 1.0//EN\" \"x\"><true/>".utf8)).doctype == .legacyAppleComputer)
    }

    @Test func rejectedForms() {
        #expect(Self.code("<plist></plist>") == .xmlSyntax)
        #expect(Self.code("<plist/>") == .xmlSyntax)
        #expect(Self.code("<plist><true/><true/></plist>") == .xmlSyntax)
        #expect(Self.code("<String>a</String>") == .xmlUnexpectedElement)
        #expect(Self.code("<set></set>") == .xmlUnexpectedElement)
        #expect(Self.code("<string>&nbsp;</string>") == .invalidEntity)
        #expect(Self.code("<string>a & b</string>") == .invalidEntity)
        #expect(Self.code("<string>&#X41;</string>") == .invalidEntity)
        #expect(Self.code("<string>&#xD800;</string>") == .invalidEntity)
        #expect(Self.code("<string>&#123456789;</string>") == .invalidEntity)
        #expect(Self.code("<string>a<!-- c --></string>") == .xmlSyntax)
        let invalidUTF8: [UInt8] = Array("<string>".utf8) + [0xFF, 0xC0, 0x80] + Array("</string>".utf8)
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(invalidUTF8) }
        #expect((try? XMLPropertyListReader.read(Array("<string>".utf8) + [0xED, 0xA0, 0x80] + Array("</string>".utf8))) == nil)
        #expect(Self.code("<integer>1e3</integer>") == .invalidNumber)
        #expect(Self.code("<integer>1 </integer>") == .invalidNumber)
        #expect(Self.code("<integer>18446744073709551616</integer>") == .invalidNumber)
        #expect(Self.code("<integer>-9223372036854775809</integer>") == .invalidNumber)
        #expect(Self.code("<integer/>") == .invalidNumber)
        #expect(Self.code("<real>1e</real>") == .invalidNumber)
        #expect(Self.code("<real>0x1p3</real>") == .invalidNumber)
        #expect(Self.code("<real>1.5 </real>") == .invalidNumber)
        #expect(Self.code("<date>2001-01-01T00:00:00.5Z</date>") == .invalidDate)
        #expect(Self.code("<date>2001-01-01 00:00:00Z</date>") == .invalidDate)
        #expect(Self.code("<data/>") == .xmlSyntax)
        #expect(Self.code("<dict><string>a</string><true/></dict>") == .xmlUnexpectedElement)
        #expect(Self.code("<dict><key>a</key></dict>") == .xmlSyntax)
        #expect(Self.code("<array>text<true/></array>") == .xmlSyntax)
        #expect(Self.code("<!DOCTYPE plist [ <!ENTITY x \"y\"> ]><true/>") == .xmlSyntax)
        #expect(Self.code("<array><true/>") == .truncated)
    }

    @Test func nestingLimitIsCoreFoundations512() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        }
        #expect(Self.code(nested(512)) == nil)
        #expect(Self.code(nested(513)) == .depthLimitExceeded)
        #expect(Self.code(nested(100_000)) == .depthLimitExceeded)
        var options = PropertyListReadingOptions()
        options.maximumDepth = 10
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader.read(Array(nested(11).utf8), options: options) }
        #expect(try XMLPropertyListReader.read(Array(nested(10).utf8), options: options).value != .bool(false))
    }

    @Test func errorsCarryLineAndColumn() {
        do {
            _ = try Self.read("<plist>\n<dict>\n\t<key>a</key>\n\t<integer>x</integer>\n</dict></plist>")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidNumber)
            #expect(error.location == .line(4, column: 11))
        }
    }
}


@Suite struct XMLReaderDuplicateKeyTests {
    /// Duplicates are found whatever the key order (sorted input takes a faster path).
    @Test func duplicatesInAnyOrderKeepTheLastValueAtTheFirstPosition() throws {
        let value = try XMLReaderRulesTests.read("<dict><key>z</key><integer>1</integer><key>a</key><integer>2</integer><key>z</key><integer>3</integer></dict>")
        #expect(value.dictionaryValue?.keys == ["z", "a"])
        #expect(value["z"] == 3)
        let sorted = try XMLReaderRulesTests.read("<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>")
        #expect(sorted.dictionaryValue?.keys == ["a", "b"])
        #expect(sorted["a"] == 3)
    }

    /// A binary file may store a key twice; Core Foundation's binary reader keeps the first
    /// value and every XML reader the last. Written as XML such a dictionary would change
    /// meaning (a review's finding: `convert --to xml` turned a = 1 into a = 2), so the XML
    /// writer refuses it, naming the key; the binary writer keeps both, as read.
    @Test func theXMLWriterRefusesAKeyStoredTwice() throws {
        // The reviewer's file: {a: 1, a: 2} in a hand-made bplist00.
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object: [UInt8] in [[0xD2, 0x01, 0x01, 0x02, 0x03], [0x51, 0x61], [0x10, 0x01], [0x10, 0x02]] {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableOffset = UInt8(bytes.count)
        bytes += offsets + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 4] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, tableOffset]
        let value = try BinaryPropertyListReader.readValue(bytes)
        #expect(value.dictionaryValue?.keys == ["a", "a"])
        do {
            _ = try XMLPropertyListWriter().write(value)
            Issue.record("wrote a dictionary with a key stored twice")
        } catch {
            #expect(error.code == .unsupportedValue)
            #expect(error.message.contains("\"a\" twice"), "\(error)")
        }
        // Nested and unsorted too; distinct keys that are canonically equivalent are not twins.
        let nested: PropertyListValue = .array([.dictionary(PropertyListDictionary(entries: [.init(key: "z", value: 1), .init(key: "b", value: 2), .init(key: "z", value: 3)]))])
        #expect(throws: PropertyListError.self) { try XMLPropertyListWriter().write(nested) }
        let equivalent: PropertyListValue = .dictionary(PropertyListDictionary(entries: [.init(key: "e\u{301}", value: 1), .init(key: "\u{e9}", value: 2)]))
        #expect(try XMLPropertyListReader.read(try XMLPropertyListWriter().write(equivalent)).value == equivalent)
        // Binary keeps both, byte for byte.
        let document = try BinaryPropertyListReader.read(bytes)
        #expect(try BinaryPropertyListWriter.matching(document).write(document) == bytes)
    }

    /// A review's finding, measured against Core Foundation (Foundation on Linux runs its XML
    /// reader): the text of a `<string>` or `<key>` loses one leading U+FEFF — raw, as a
    /// character reference or in CDATA — and keeps any other. Each case is read by both.
    @Test func aLeadingByteOrderMarkIsDropped() throws {
        let bodies = [
            "<string>\u{FEFF}abc</string>", "<string>&#xFEFF;abc</string>", "<string>\u{FEFF}\u{FEFF}abc</string>",
            "<string>\u{FEFF}</string>", "<string>a\u{FEFF}bc</string>", "<string>&amp;\u{FEFF}bc</string>",
            "<string><![CDATA[\u{FEFF}x]]></string>", "<string>\u{FEFF}é</string>", "<string>\u{FFFE}abc</string>",
            "<string>&#xFEFF;&#xFEFF;x</string>", "<dict><key>\u{FEFF}k</key><string>\u{FEFF}v</string></dict>",
            // Keys equal once the mark is gone are one key (the last value), as in Core Foundation.
            "<dict><key>a</key><integer>1</integer><key>\u{FEFF}a</key><integer>2</integer></dict>",
        ]
        for body in bodies {
            let document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n"
            let ours = try XMLPropertyListReader.read(Array(document.utf8)).value
            let theirs = try PropertyListSerialization.propertyList(from: Data(document.utf8), options: [], format: nil)
            switch ours {
            case .string(let string):
                #expect(Array(string.unicodeScalars) == Array(((theirs as? String) ?? "-").unicodeScalars), "\(body)")
            case .dictionary(let dictionary):
                let foundation = theirs as? [String: Any] ?? [:]
                #expect(dictionary.count == foundation.count, "\(body)")
                for entry in dictionary.entries {
                    #expect(Array(entry.key.unicodeScalars) == Array((foundation.keys.first { $0.unicodeScalars.elementsEqual(entry.key.unicodeScalars) } ?? "-").unicodeScalars), "\(body)")
                    #expect("\(entry.value)".isEmpty == false)
                }
            default:
                Issue.record("\(body): \(ours)")
            }
        }
        #expect(try XMLReaderRulesTests.read("<string>\u{FEFF}abc</string>") == "abc")
        #expect(try XMLReaderRulesTests.read("<dict><key>a</key><integer>1</integer><key>\u{FEFF}a</key><integer>2</integer></dict>") == ["a": 2])
    }

    /// A review's finding: `{a: 1, \u{FEFF}a: 2}` passed the twin check and came back from XML as
    /// `{a: 2}` (Foundation on Linux reads it back so too). Keys that a reader takes for one are
    /// refused like twins; keys that differ after the drop are written.
    @Test func keysAReaderWouldMergeAreRefused() throws {
        let merged: PropertyListValue = .dictionary(PropertyListDictionary(entries: [.init(key: "a", value: 1), .init(key: "\u{FEFF}a", value: 2)]))
        do {
            _ = try XMLPropertyListWriter().write(merged)
            Issue.record("wrote keys that read back as one")
        } catch {
            #expect(error.code == .unsupportedValue && error.message.contains("reads back from XML as another key"), "\(error)")
        }
        // The same through Core Foundation's reader: both entries become one.
        let xml = Array("<plist><dict><key>a</key><integer>1</integer><key>\u{FEFF}a</key><integer>2</integer></dict></plist>".utf8)
        let foundation = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil) as? [String: Any]
        #expect(foundation?.count == 1)
        let distinct: PropertyListValue = .dictionary(PropertyListDictionary(entries: [.init(key: "a", value: 1), .init(key: "\u{FEFF}b", value: 2)]))
        #expect(try XMLPropertyListReader.read(try XMLPropertyListWriter().write(distinct)).value == ["a": 1, "b": 2])
    }

    /// A UID in Core Foundation's layout and in looser layouts reads the same.
    @Test func uidLayouts() throws {
        #expect(try XMLReaderRulesTests.read("<dict>\n\t<key>CF$UID</key>\n\t<integer>7</integer>\n</dict>") == .uid(PropertyListUID(7)))
        #expect(try XMLReaderRulesTests.read("<dict><!-- c --><key>CF$UID</key><integer> 7</integer></dict>") == .uid(PropertyListUID(7)))
        #expect(try XMLReaderRulesTests.read("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>") == ["CF$UID": 7, "x": true])
        #expect(try XMLReaderRulesTests.read("<dict><key>CF$UID</key><integer>99999999999</integer></dict>") == .uid(PropertyListUID(UInt64(99_999_999_999 & 0xFFFF_FFFF))))
    }
}
