import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Issue 26: an XML archive we write decodes to the values archived, or the write is refused
/// (`unrepresentableValue`); and an NSDictionary holding one key twice — which Core Foundation's
/// XML reader makes of keys `"x"` and `"\u{FEFF}x"` — is refused by default or keeps the entry
/// Foundation's NSKeyedUnarchiver keeps. The references are Foundation on Linux (its
/// `NSKeyedUnarchiver` runs Core Foundation's XML reader) and the values the tests archived.
@Suite struct XMLArchiveFidelityTests {
    static var lossy: ArchiveWritingOptions {
        var options = ArchiveWritingOptions()
        options.xmlValueLoss = .acceptAsCoreFoundation
        return options
    }

    static var keepLast: ArchiveReadingOptions {
        var options = ArchiveReadingOptions()
        options.duplicateDictionaryKeys = .keepLast
        return options
    }

    /// What Foundation's `NSKeyedUnarchiver` makes of the dictionary under `root`, as exact
    /// scalars (a Swift `[String: String]` would merge canonically equal keys).
    static func foundationDictionary(_ bytes: [UInt8]) throws -> [[Unicode.Scalar]: String] {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        let dictionary = try #require(unarchiver.decodeObject(forKey: "root") as? NSDictionary)
        var result: [[Unicode.Scalar]: String] = [:]
        for (key, value) in dictionary {
            let key = try #require(key as? String)
            result[Array(key.unicodeScalars)] = try #require(value as? String)
        }
        return result
    }

    static func scalars(_ dictionary: [String: String]) -> [[Unicode.Scalar]: String] {
        Dictionary(dictionary.map { (Array($0.key.unicodeScalars), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Writing

    /// The issue's reproduction: refused as XML, naming where the key is stored and showing its
    /// U+FEFF; binary carries it and reads back as archived.
    @Test func twinKeysFromALeadingByteOrderMarkAreRefusedInXML() throws {
        let value = ["x": "a", "\u{FEFF}x": "b"]
        let error = try #require(throws: ArchiveError.self) {
            try KeyedArchiver.archive(value, registry: ArchiveRegistry(), format: .xml)
        }
        #expect(error.code == .unrepresentableValue)
        // NS.keys are sorted by UTF-16 units: "x" first, "\u{FEFF}x" second.
        #expect(error.keyPath == ArchiveKeyPath([.key("root"), .key("NS.keys"), .index(1)]))
        #expect(error.message.contains("\"\\u{FEFF}x\""), "\(error)")
        #expect(error.remedy?.contains("acceptAsCoreFoundation") == true)

        let binary = try KeyedArchiver.archive(value, registry: ArchiveRegistry())
        let back = try KeyedUnarchiver.unarchive([String: String].self, from: binary, registry: ArchiveRegistry())
        #expect(Self.scalars(back) == Self.scalars(value))
        #expect(try Self.foundationDictionary(binary) == Self.scalars(value))
    }

    /// Opted in, the archive is Core Foundation's: Foundation reads one key, and so do we when
    /// asked to keep the last; by default we refuse it, naming the key.
    @Test func acceptingTheLossWritesWhatFoundationWrites() throws {
        let value = ["x": "a", "\u{FEFF}x": "b"]
        let xml = try KeyedArchiver.archive(value, registry: ArchiveRegistry(), format: .xml, options: Self.lossy)
        let foundation = try Self.foundationDictionary(xml)
        #expect(foundation == [Array("x".unicodeScalars): "b"])
        let error = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchive([String: String].self, from: xml, registry: ArchiveRegistry())
        }
        #expect(error.code == .duplicateKey)
        #expect(error.message.contains("\"x\""), "\(error)")
        let kept = try KeyedUnarchiver.unarchive([String: String].self, from: xml, registry: ArchiveRegistry(), options: Self.keepLast)
        #expect(Self.scalars(kept) == foundation)
        // Foundation's own XML archive of the dictionary loses a key the same way (which value
        // survives depends on its hash order of NS.keys; ours are sorted).
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(NSDictionary(dictionary: value), forKey: "root")
        archiver.finishEncoding()
        #expect(try Self.foundationDictionary([UInt8](archiver.encodedData)).count == 1)
    }

    /// Every place a string can sit: an `$objects` string, a field key, a class name, a `$top`
    /// key, a string inside an inline value and an inline dictionary's key.
    @Test(arguments: ["value", "fieldKey", "className", "topKey", "inlineString", "inlineKey"])
    func everyLeadingByteOrderMarkIsRefused(place: String) throws {
        let mark = "\u{FEFF}"
        let object = ArchiveGenericObject(classes: [place == "className" ? mark + "Thing" : "Thing", "NSObject"])
        object.fields.append((place == "fieldKey" ? mark + "name" : "name", .object(ArchiveSharedValue(.string(place == "value" ? mark + "Ada" : "Ada")))))
        var table = PropertyListDictionary()
        table.append(key: place == "inlineKey" ? mark + "k" : "k", value: .array([.string(place == "inlineString" ? mark + "v" : "v")]))
        object.fields.append(("table", .inline(.dictionary(table))))
        let topKey = place == "topKey" ? mark + "root" : "root"
        func archive(_ format: ArchiveFormat, _ options: ArchiveWritingOptions = .default) throws -> [UInt8] {
            let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
            try archiver.encode(object, forKey: topKey)
            return try archiver.finish(format: format)
        }
        let error = try #require(throws: ArchiveError.self) { try archive(.xml) }
        #expect(error.code == .unrepresentableValue)
        let expected: [ArchiveKeyPath.Component]
        switch place {
        case "value": expected = [.key("root"), .key("name")]
        case "fieldKey": expected = [.key("root"), .key(mark + "name")]
        case "className": expected = [.key("root"), .key("$classname")]
        case "topKey": expected = [.key(topKey)]
        case "inlineString": expected = [.key("root"), .key("table"), .key("k"), .index(0)]
        default: expected = [.key("root"), .key("table"), .key(mark + "k")]
        }
        #expect(error.keyPath == ArchiveKeyPath(expected), "\(error)")
        #expect(error.message.contains("\\u{FEFF}"), "\(error)")

        // Binary keeps it; lossy XML is written, and Core Foundation's reader drops the mark.
        let graph = try ArchiveGraph(bytes: try archive(.binary))
        #expect(graph.top.contains { $0.key.unicodeScalars.elementsEqual(topKey.unicodeScalars) })
        let xml = try archive(.xml, Self.lossy)
        let read = try #require(try PropertyListSerialization.propertyList(from: Data(xml), format: nil) as? NSDictionary)
        #expect(!String(decoding: xml, as: UTF8.self).isEmpty && read.count == 4)
        #expect(!(String(describing: read).unicodeScalars.contains("\u{FEFF}")))
    }

    struct Numbers: KeyedArchivable, Equatable {
        var double: Double
        var float: Float
        var doubles: [Double]
        var floats: [Float]

        init(double: Double, float: Float, doubles: [Double], floats: [Float]) {
            self.double = double
            self.float = float
            self.doubles = doubles
            self.floats = floats
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            double = try decoder.decode(Double.self, forKey: "double")
            float = try decoder.decode(Float.self, forKey: "float")
            doubles = try decoder.decode([Double].self, forKey: "doubles")
            floats = try decoder.decode([Float].self, forKey: "floats")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(double, forKey: "double")
            try encoder.encode(float, forKey: "float")
            try encoder.encode(doubles, forKey: "doubles")
            try encoder.encode(floats, forKey: "floats")
        }

        /// Bit for bit: −0 and 0, and NaN payloads, are different values here.
        var bits: [UInt64] {
            [double.bitPattern, UInt64(float.bitPattern)] + doubles.map(\.bitPattern) + floats.map { UInt64($0.bitPattern) }
        }
    }

    static var numbersRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Numbers.self)
        return registry
    }

    /// What changes only in its stored form is written (a 32-bit real widened, an infinity, the
    /// reader's own NaN): Foundation decodes the XML to the same numbers, and so do we. −0 and
    /// other NaNs would come back as other values, so they are refused where they sit.
    @Test func numbersAreWrittenWhenEveryDecodeReturnsThem() throws {
        let kept = Numbers(double: .infinity, float: 0.1, doubles: [.nan, -.infinity, .leastNonzeroMagnitude, 1e300], floats: [.nan, 2.5, -.infinity, .leastNonzeroMagnitude])
        let xml = try KeyedArchiver.archive(kept, registry: Self.numbersRegistry, format: .xml)
        #expect(try KeyedUnarchiver.unarchive(Numbers.self, from: xml, registry: Self.numbersRegistry).bits == kept.bits)
        // Core Foundation's reader (through Foundation) reads the same numbers from the XML.
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(xml), format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        let object = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["double"] != nil })
        #expect((object["double"] as? Double) == .infinity)
        #expect((object["float"] as? Double).map { Float($0).bitPattern } == Float(0.1).bitPattern)

        let cases: [(Numbers, [ArchiveKeyPath.Component])] = [
            (Numbers(double: -0.0, float: 1, doubles: [], floats: []), [.key("root"), .key("double")]),
            (Numbers(double: 1, float: -0.0, doubles: [], floats: []), [.key("root"), .key("float")]),
            (Numbers(double: 1, float: 1, doubles: [2, Double(bitPattern: 0x7FF8_0000_0000_0001)], floats: []), [.key("root"), .key("doubles"), .key("NS.objects"), .index(1)]),
            (Numbers(double: 1, float: 1, doubles: [], floats: [-Float.nan]), [.key("root"), .key("floats"), .key("NS.objects"), .index(0)]),
        ]
        for (numbers, path) in cases {
            let error = try #require(throws: ArchiveError.self) {
                try KeyedArchiver.archive(numbers, registry: Self.numbersRegistry, format: .xml)
            }
            #expect(error.code == .unrepresentableValue)
            #expect(error.keyPath == ArchiveKeyPath(path), "\(error)")
            let binary = try KeyedArchiver.archive(numbers, registry: Self.numbersRegistry)
            #expect(try KeyedUnarchiver.unarchive(Numbers.self, from: binary, registry: Self.numbersRegistry).bits == numbers.bits)
            // Accepted, the value changes on the way, as it does with Core Foundation.
            let lossy = try KeyedArchiver.archive(numbers, registry: Self.numbersRegistry, format: .xml, options: Self.lossy)
            #expect(try KeyedUnarchiver.unarchive(Numbers.self, from: lossy, registry: Self.numbersRegistry).bits != numbers.bits)
        }
    }

    /// Inline values: a date with a fraction of a second (the XML keeps whole seconds), and a
    /// plain dictionary `{CF$UID: n}` (XML readers take it for a reference) are refused; a
    /// whole-second date and a 16-byte integer read back as the same values.
    @Test func inlineDatesAndReferenceLookalikes() throws {
        func archive(_ value: PropertyListValue, _ format: ArchiveFormat) throws -> [UInt8] {
            let object = ArchiveGenericObject(classes: ["Thing", "NSObject"])
            object.fields.append(("value", .inline(value)))
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(object, forKey: "root")
            return try archiver.finish(format: format)
        }
        for refused: PropertyListValue in [
            .date(PropertyListDate(secondsSinceReferenceDate: 1.5)),
            .date(PropertyListDate(secondsSinceReferenceDate: -0.0)),
            .dictionary(["CF$UID": .integer(PropertyListInteger(Int64(1)))]),
            .array([.dictionary(["CF$UID": .real(.float64(1))])]),
        ] {
            let error = try #require(throws: ArchiveError.self) { try archive(refused, .xml) }
            #expect(error.code == .unrepresentableValue, "\(refused)")
            #expect(error.keyPath.components.prefix(2) == [.key("root"), .key("value")], "\(error)")
            _ = try archive(refused, .binary)
        }
        for (kept, expected) in [
            (PropertyListValue.date(PropertyListDate(secondsSinceReferenceDate: -86_401)), Date(timeIntervalSinceReferenceDate: -86_401) as Any),
            (.integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: true)), 7 as Any),
        ] {
            let xml = try archive(kept, .xml)
            // Foundation's reader of the XML: the same date, the same number.
            let plist = try #require(try PropertyListSerialization.propertyList(from: Data(xml), format: nil) as? [String: Any])
            let objects = try #require(plist["$objects"] as? [Any])
            let field = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["value"] != nil }?["value"])
            if let date = expected as? Date { #expect(field as? Date == date) } else { #expect((field as? NSNumber)?.intValue == 7) }
        }
    }

    // MARK: Reading twin keys

    /// A hand-made archive of one NSDictionary whose `NS.keys` entries are the given `<string>`
    /// texts (XML escapes allowed, so `&#xFEFF;x`), mapped to `a`, `b`, `c`, …
    static func twinKeyArchive(keys: [String], sameKeyObject: Bool = false) -> [UInt8] {
        func uid(_ n: Int) -> String { "<dict><key>CF$UID</key><integer>\(n)</integer></dict>" }
        let keyUIDs = keys.indices.map { sameKeyObject ? 2 : 2 + $0 }
        let valueUIDs = keys.indices.map { 2 + keys.count + $0 }
        let classUID = 2 + 2 * keys.count
        var objects = ["<string>$null</string>"]
        objects.append("<dict><key>$class</key>\(uid(classUID))<key>NS.keys</key><array>\(keyUIDs.map(uid).joined())</array><key>NS.objects</key><array>\(valueUIDs.map(uid).joined())</array></dict>")
        objects += keys.map { "<string>\($0)</string>" }
        objects += keys.indices.map { "<string>\(String(UnicodeScalar(UInt8(97 + $0))))</string>" }
        objects.append("<dict><key>$classes</key><array><string>NSDictionary</string><string>NSObject</string></array><key>$classname</key><string>NSDictionary</string></dict>")
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict><key>$archiver</key><string>NSKeyedArchiver</string><key>$objects</key><array>\(objects.joined())</array><key>$top</key><dict><key>root</key>\(uid(1))</dict><key>$version</key><integer>100000</integer></dict></plist>"
        return Array(text.utf8)
    }

    /// The same archive as binary, written by Foundation's own writer (duplicate `NS.keys`
    /// entries survive: they are separate string objects, or one object named twice).
    static func binary(_ xml: [UInt8]) throws -> [UInt8] {
        let plist = try PropertyListSerialization.propertyList(from: Data(xml), format: nil)
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0))
    }

    static let twinKeyCases: [(keys: [String], sameObject: Bool, shown: String)] = [
        (["x", "&#xFEFF;x"], false, "\"x\""),
        (["&#xFEFF;x", "x"], false, "\"x\""),
        (["", "&#xFEFF;"], false, "\"\""),
        (["x", "y", "x"], false, "\"x\""),
        (["x", "x"], true, "\"x\""),
    ]

    /// Refused by default in both formats, naming the key as stored (an empty key as `""`);
    /// kept as Foundation keeps it under `.keepLast`, typed and as a `PropertyListValue` tree.
    @Test(arguments: 0..<5, [false, true])
    func twinKeysAreRefusedOrReadAsFoundationReadsThem(index: Int, asBinary: Bool) throws {
        let (keys, sameObject, shown) = Self.twinKeyCases[index]
        let xml = Self.twinKeyArchive(keys: keys, sameKeyObject: sameObject)
        let bytes = asBinary ? try Self.binary(xml) : xml
        let foundation = try Self.foundationDictionary(bytes)

        let typed = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchive([String: String].self, from: bytes, registry: ArchiveRegistry())
        }
        #expect(typed.code == .duplicateKey)
        #expect(typed.uid == PropertyListUID(1))
        #expect(typed.message.contains("the key \(shown) twice"), "\(typed)")
        let tree = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchive(PropertyListValue.self, from: bytes, registry: ArchiveRegistry())
        }
        #expect(tree.code == .duplicateKey)
        #expect(tree.message.contains("the key \(shown) twice"), "\(tree)")

        let kept = try KeyedUnarchiver.unarchive([String: String].self, from: bytes, registry: ArchiveRegistry(), options: Self.keepLast)
        #expect(Self.scalars(kept) == foundation)
        let keptTree = try KeyedUnarchiver.unarchive(PropertyListValue.self, from: bytes, registry: ArchiveRegistry(), options: Self.keepLast)
        let entries = try #require(keptTree.dictionaryValue).entries
        #expect(entries.count == foundation.count)
        for entry in entries { #expect(foundation[Array(entry.key.unicodeScalars)] == entry.value.stringValue) }
        // The generic view shows every stored entry either way.
        let graph = try ArchiveGraph(bytes: bytes)
        guard case .instance(let dictionary) = graph.objects[1] else { Issue.record("root is not an instance"); return }
        #expect(dictionary.value(forKey: "NS.keys")?.arrayValue?.count == keys.count)
    }

    /// A custom key type is named by the value the archive stores, not by a dump of the type.
    struct Tag: ArchiveObjectCodable, Hashable {
        let raw: String
        func archiveReference(in encoder: KeyedArchiveEncoder) throws -> ArchiveReference { try raw.archiveReference(in: encoder) }
        static func decode(archiveReference reference: ArchiveReference, from decoder: KeyedArchiveDecoder) throws -> Tag {
            Tag(raw: try String.decode(archiveReference: reference, from: decoder))
        }
    }

    @Test func aCustomKeyIsNamedByItsStoredValue() throws {
        let bytes = Self.twinKeyArchive(keys: ["x", "&#xFEFF;x"])
        let error = try #require(throws: ArchiveError.self) {
            try KeyedUnarchiver.unarchive([Tag: String].self, from: bytes, registry: ArchiveRegistry())
        }
        #expect(error.code == .duplicateKey)
        #expect(error.message.contains("the key \"x\" twice"), "\(error)")
        #expect(!error.message.contains("Tag("), "\(error)")
        let kept = try KeyedUnarchiver.unarchive([Tag: String].self, from: bytes, registry: ArchiveRegistry(), options: Self.keepLast)
        #expect(kept == [Tag(raw: "x"): "b"])
    }
}
