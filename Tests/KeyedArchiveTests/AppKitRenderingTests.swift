import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `dump` and `json` show AppKit's value objects (NSColor, NSFont, NSParagraphStyle) and the
/// Foundation classes mapped field by field as values; `--raw` keeps their fields. The archives
/// are written with the keys AppKit stores (the nibs and Terminal profiles of the corpus), and
/// the corpus itself is shown with no colour, font or style left as fields.
@Suite struct AppKitRenderingTests {
    static func archive(_ values: [(key: String, value: any ArchiveObjectEncodable)]) throws -> ArchiveGraph {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveDictionary(values.map { (key: $0.key, value: $0.value) }), forKey: "root")
        return try ArchiveGraph(bytes: try archiver.finish())
    }

    static func color(_ space: Int, _ fields: [(key: String, value: ArchiveGenericObject.Field)]) -> ArchiveGenericObject {
        ArchiveGenericObject(classes: ["NSColor", "NSObject"], fields: [("NSColorSpace", .inline(.integer(PropertyListInteger(Int64(space)))))] + fields)
    }

    static func lines(_ graph: ArchiveGraph, _ options: ArchiveRenderingOptions = .readable) throws -> Set<String> {
        Set(try ArchiveDumper.dump(graph, rendering: options).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test func appKitValuesAreShownAsValues() throws {
        let tabs = ArchiveArray([28.0, 56.0].map { ArchiveGenericObject(classes: ["NSTextTab", "NSObject"], fields: [("NSLocation", .inline(.real(.float64($0))))]) })
        let space = ArchiveGenericObject(classes: ["NSColorSpace", "NSObject"], fields: [("NSID", .inline(.integer(7)))])
        let graph = try Self.archive([
            (key: "rgb", value: Self.color(1, [("NSRGB", .inline(.data(Array("0.2 0.4 0.6\0".utf8))))])),
            (key: "device", value: Self.color(2, [("NSRGB", .inline(.data(Array("1 0 0 0.5\0".utf8))))])),
            (key: "white", value: Self.color(3, [("NSWhite", .inline(.data(Array("0.33333299\0".utf8))))])),
            (key: "cmyk", value: Self.color(5, [("NSCMYK", .inline(.data(Array("0 1 1 0\0".utf8))))])),
            (key: "catalog", value: Self.color(6, [("NSCatalogName", .object("System")), ("NSColorName", .object("controlColor")), ("NSColor", .object(Self.color(3, [("NSWhite", .inline(.data(Array("0.6\0".utf8))))])))])),
            (key: "custom", value: Self.color(1, [("NSRGB", .inline(.data(Array("0.98 0 0.03\0".utf8)))), ("NSComponents", .inline(.data(Array("1 0 0 1".utf8)))), ("NSCustomColorSpace", .object(space))])),
            (key: "font", value: ArchiveGenericObject(classes: ["NSFont", "NSObject"], fields: [("NSName", .object("LucidaGrande")), ("NSSize", .inline(.real(.float64(11)))), ("NSfFlags", .inline(.integer(3100)))])),
            (key: "style", value: ArchiveGenericObject(classes: ["NSParagraphStyle", "NSObject"], fields: [("NSAlignment", .inline(.integer(2))), ("NSTabStops", .object(tabs)), ("NSLineBreakMode", .inline(.integer(4)))])),
            (key: "noTabs", value: ArchiveGenericObject(classes: ["NSMutableParagraphStyle", "NSParagraphStyle", "NSObject"], fields: [("NSTabStops", .object(nil)), ("NSAllowsTighteningForTruncation", .inline(.integer(1)))])),
            (key: "odd", value: Self.color(42, [])),
            (key: "decimal", value: ArchiveDecimalNumber(mantissa: [27315], exponent: -2, isNegative: true)),
            (key: "zone", value: ArchiveTimeZone(name: "GMT+0100")),
            (key: "locale", value: ArchiveLocale(identifier: "ja-JP")),
            (key: "transform", value: ArchiveAffineTransform(m11: 2, m22: 2, tX: 3, tY: -4)),
            (key: "sort", value: ArchiveSortDescriptor(key: "name", ascending: false, selector: "compare:")),
            (key: "triple", value: try ArchiveEncodedValue(objCType: "[3i]", value: .array([.int(1), .int(2), .int(3)]))),
        ])
        let lines = try Self.lines(graph)
        for expected in [
            "rgb: color \"calibratedRGB 0.2 0.4 0.6\"", "device: color \"deviceRGB 1 0 0 0.5\"", "white: color \"calibratedWhite 0.33333299\"",
            "cmyk: color \"deviceCMYK 0 1 1 0\"", "catalog: color \"catalog System controlColor\"",
            "custom: color \"calibratedRGB 0.98 0 0.03 (components 1 0 0 1, colour space NSID 7)\"",
            "font: font \"LucidaGrande 11.0\"", "style: paragraphStyle \"alignment center, tab stops 28.0, 56.0, NSLineBreakMode 4\"",
            "noTabs: paragraphStyle \"NSAllowsTighteningForTruncation 1\"",
            "decimal: decimal -273.15", "zone: timeZone \"GMT+0100\"", "locale: locale \"ja-JP\"", "transform: affineTransform [2.0 0.0 0.0 2.0 3.0 -4.0]",
            "sort: sortDescriptor \"name descending compare:\"", "triple: nsvalue [3i] [1, 2, 3]",
        ] {
            #expect(lines.contains(expected), "\(expected) not in \(lines.sorted())")
        }
        // A colour space no rendering knows: shown as stored, with why.
        #expect(lines.contains { $0.hasPrefix("odd: #") && $0.contains("NSColor {") && $0.contains("NSColorSpace 42") }, "\(lines.sorted())")
        // JSON: the same texts, tagged by kind.
        let json = try ArchiveJSONRenderer.render(graph, rendering: .readable)
        #expect(json.contains("\"rgb\": {\"$color\": \"calibratedRGB 0.2 0.4 0.6\"}") && json.contains("\"font\": {\"$font\": \"LucidaGrande 11.0\"}"), "\(json)")
        // --raw: the fields.
        let raw = try Self.lines(graph, .raw)
        #expect(raw.contains("NSColorSpace: 1") && raw.contains("NSName: \"LucidaGrande\"") && raw.contains("NSAlignment: 2"), "\(raw.sorted())")
    }

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyCorpusColourFontAndStyleIsShownAsAValue() throws {
        var shown = 0
        for entry in ArchiveFixtures.entries {
            let graph = try ArchiveGraph(bytes: try ArchiveFixtures.bytes(entry))
            let text = try ArchiveDumper.dump(graph, rendering: .readable)
            for line in text.split(separator: "\n") {
                if line.contains(": color \"") || line.contains(": font \"") || line.contains(": paragraphStyle \"") { shown += 1 }
                for className in ["NSColor", "NSFont", "NSParagraphStyle", "NSMutableParagraphStyle", "NSDecimalNumberPlaceholder", "NSTimeZone", "NSLocale", "NSAffineTransform", "NSSortDescriptor"] {
                    #expect(!line.contains(" \(className) {"), "\(entry.relativePath): \(line)")
                }
            }
        }
        print("AppKit values shown over the corpus: \(shown)")
        #expect(shown > 1_000)
    }
}
