import Foundation
import Testing
@testable import PropertyList

@Suite struct XMLGoldenTests {
    /// Every Apple-made XML file, read and written back, is byte-identical (both DOCTYPEs,
    /// %.17g reals, data line widths by depth, keys in UTF-16 order, raw U+0001 and CR kept).
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func everyXMLFixtureRoundTripsByteForByte() throws {
        let entries = AppleFixtureCorpus.entries(format: "xml")
        #expect(entries.count == 22)
        var legacy = 0
        for entry in entries {
            let bytes = try AppleFixtureCorpus.bytes(entry)
            let document = try XMLPropertyListReader.read(bytes)
            if document.doctype == .legacyAppleComputer { legacy += 1 }
            let written = try XMLPropertyListWriter(doctype: document.doctype).write(document.value)
            #expect(written == bytes, "\(entry)")
        }
        #expect(legacy == 4)
    }

    /// XML fixtures agree with plistlib (except the 3 it rejects; CR normalised as plistlib does).
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable && ReferenceTools.isPythonAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func xmlFixturesAgreeWithPlistlib() throws {
        var comparisons: [ReferenceTools.Comparison] = []
        for entry in AppleFixtureCorpus.entries(format: "xml") where !PlistlibReferenceTests.plistlibRejects.contains(entry.relativePath) {
            let value = try XMLPropertyListReader.read(try AppleFixtureCorpus.bytes(entry)).value
            comparisons.append(.init(plistPath: entry.url.path, ourJSON: try PropertyListJSONRenderer.render(value), format: "xml"))
        }
        let result = try ReferenceTools.compareWithPlistlib(comparisons)
        #expect(result.status == 0, "\(result.report)")
        #expect(result.matched == 19)
    }

    /// The three files plistlib rejects hold raw U+0001 inside <string>; we read them.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func rawControlCharactersAreAccepted() throws {
        for path in PlistlibReferenceTests.plistlibRejects {
            let entry = try #require(AppleFixtureCorpus.entries.first { $0.relativePath == path })
            let value = try XMLPropertyListReader.read(try AppleFixtureCorpus.bytes(entry)).value
            #expect(Self.containsString(value) { $0.unicodeScalars.contains("\u{01}") }, "\(path)")
        }
    }

    static func containsString(_ value: PropertyListValue, _ predicate: (String) -> Bool) -> Bool {
        switch value {
        case .string(let string): return predicate(string)
        case .array(let elements), .set(let elements): return elements.contains { containsString($0, predicate) }
        case .dictionary(let dictionary): return dictionary.entries.contains { predicate($0.key) || containsString($0.value, predicate) }
        default: return false
        }
    }

    /// The same archive in binary and XML (go-ios stores each object both ways): equal values
    /// apart from what XML cannot keep (dictionary order becomes sorted).
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func binaryToXMLToBinaryKeepsEveryValue() throws {
        for entry in AppleFixtureCorpus.entries(format: "binary") {
            let value = try BinaryPropertyListReader.readValue(try AppleFixtureCorpus.bytes(entry))
            let xml = try XMLPropertyListWriter().write(value)
            let back = try XMLPropertyListReader.read(xml).value
            #expect(XMLComparable(afterTrip: value) == XMLComparable(back), "\(entry)")
            // And back to binary: same values again.
            let binary = try BinaryPropertyListWriter().write(back)
            #expect(try BinaryPropertyListReader.readValue(binary) == back, "\(entry)")
        }
    }
}

/// A value as XML can keep it: keys sorted, reals widened to 64 bits, -0 as 0, NaN canonical,
/// dates floored to the second, UIDs truncated to 32 bits, strings and keys without one leading
/// U+FEFF (Core Foundation's reader drops it; keys then equal are one, the last value kept — the
/// writer refuses such a dictionary, so only values read from elsewhere meet that case).
struct XMLComparable: Equatable {
    let value: PropertyListValue

    /// A value as read from XML.
    init(_ value: PropertyListValue) {
        self.value = Self.normalize(value, droppingMarks: false)
    }

    /// A value as it will be once written to XML and read back: also without the leading
    /// U+FEFF the reader drops (applied once, so not to a value already read).
    init(afterTrip value: PropertyListValue) {
        self.value = Self.normalize(value, droppingMarks: true)
    }

    static func normalize(_ value: PropertyListValue, droppingMarks: Bool) -> PropertyListValue {
        func normalize(_ value: PropertyListValue) -> PropertyListValue { Self.normalize(value, droppingMarks: droppingMarks) }
        func unmarked(_ text: String) -> String {
            droppingMarks && text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        }
        switch value {
        case .real(let real):
            let double = real.doubleValue
            if double.isNaN { return .real(.float64(.nan)) }
            return .real(.float64(double == 0 ? 0 : double))
        case .date(let date):
            return .date(PropertyListDate(secondsSinceReferenceDate: date.secondsSinceReferenceDate.rounded(.down)))
        case .uid(let uid): return .uid(PropertyListUID(uid.value & 0xFFFF_FFFF))
        case .integer(let integer):
            // XML keeps the value; the 16-byte storage flag survives only above Int64.max.
            if let signed = integer.int64Value { return .integer(PropertyListInteger(signed)) }
            return .integer(integer)
        case .array(let elements): return .array(elements.map(normalize))
        case .set(let elements): return .array(elements.map(normalize))
        case .string(let string):
            return .string(unmarked(string))
        case .dictionary(let dictionary):
            var readBack: [PropertyListDictionary.Entry] = []
            for entry in XMLKeyOrder.sorted(dictionary.entries) {
                let key = unmarked(entry.key)
                if let same = readBack.firstIndex(where: { $0.key.unicodeScalars.elementsEqual(key.unicodeScalars) }) {
                    readBack[same].value = normalize(entry.value)
                } else {
                    readBack.append(PropertyListDictionary.Entry(key: key, value: normalize(entry.value)))
                }
            }
            let entries = XMLKeyOrder.sorted(readBack)
            // A dictionary that is exactly {CF$UID: integer} reads back from XML as a UID.
            if entries.count == 1, entries[0].key == "CF$UID", case .integer(let integer) = entries[0].value {
                return .uid(PropertyListUID(integer.low & 0xFFFF_FFFF))
            }
            return .dictionary(PropertyListDictionary(entries: entries))
        default: return value
        }
    }
}
