import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `dump` and `json` showing Foundation's value objects as values, on an archive Foundation's
/// NSKeyedArchiver on Linux wrote, the expected text made from Foundation's own objects.
@Suite struct FoundationRenderingTests {
    static let base = URL(string: "https://example.org/hangar/") ?? URL(fileURLWithPath: "/")
    static let url = NSURL(string: "bay/3?x=1", relativeTo: base) ?? NSURL(fileURLWithPath: "/")
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
    static let date = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
    static let indexes: IndexSet = {
        var set = IndexSet(integersIn: 2..<5)
        set.insert(9)
        return set
    }()

    static func archive() throws -> Data {
        let values: NSDictionary = [
            "when": date as NSDate, "who": uuid as NSUUID, "where": url, "indexes": indexes as NSIndexSet,
            "path": NSIndexPath(indexes: [0, 3], length: 2), "point": NSValue(point: NSPoint(x: 1.5, y: -2)),
            "ratio": NSNumber(value: 2.5), "list": NSOrderedSet(array: ["a", "b"]), "tags": NSSet(array: ["x"]),
            "distance": NSMeasurement(doubleValue: 12.5, unit: UnitLength.kilometers),
        ]
        return try NSKeyedArchiver.archivedData(withRootObject: values, requiringSecureCoding: false)
    }

    @Test func dumpShowsValues() throws {
        let graph = try ArchiveGraph(data: try Self.archive())
        let text = try ArchiveDumper.dump(graph, rendering: .readable)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let ranges = Self.indexes.rangeView.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)...\($0.upperBound - 1)" }
        let expected = [
            "when: date \(formatter.string(from: Self.date))",
            "who: uuid \(Self.uuid.uuidString)",
            "where: url \"\(Self.url.absoluteString)\"",
            "indexes: indexes \(ranges.joined(separator: ", "))",
            "path: indexPath [0, 3]",
            "point: nsvalue point {1.5, -2}",
            "distance: measurement \"12.5 \(UnitLength.kilometers.symbol)\"",
            "ratio: 2.5",
            "[0]: \"a\"",
        ]
        for line in expected { #expect(lines.contains(line), "\(line) missing from:\n\(text)") }
        #expect(text.contains(" NSOrderedSet [") && text.contains(" NSSet [") && text.contains("root: #1 NSDictionary {"))
        #expect(text.split(separator: "\n")[1].hasPrefix("(#N: object N of $objects"))
        // Raw: the fields as stored, as before.
        let raw = ArchiveDumper.dump(graph)
        #expect(raw.contains("NS.uuidbytes") && raw.contains("NS.time") && raw.contains("NS.keys") && !raw.contains("(#N:"))
        #expect(try ArchiveDumper.dump(graph, rendering: .raw) == raw)
    }

    @Test func jsonShowsValuesAndPlainNumbers() throws {
        let graph = try ArchiveGraph(data: try Self.archive())
        let rendering = ArchiveRenderingOptions(foundationValues: true, plainNumbers: true)
        let json = try ArchiveJSONRenderer.render(graph, rendering: rendering)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let root = try #require((parsed["$top"] as? [String: Any])?["root"] as? [String: Any])
        #expect(root["$class"] as? String == "NSDictionary")
        let values = try #require(root["$dict"] as? [String: Any])
        #expect((values["who"] as? [String: Any])?["$uuid"] as? String == Self.uuid.uuidString)
        #expect((values["where"] as? [String: Any])?["$url"] as? String == Self.url.absoluteString)
        #expect((values["when"] as? [String: Any])?["$date"] as? Double == Self.date.timeIntervalSinceReferenceDate)
        #expect(values["ratio"] as? Double == 2.5)
        #expect((values["list"] as? [String: Any])?["$array"] as? [String] == ["a", "b"])
        // Without plain numbers a real stays tagged; raw keeps the fields.
        let tagged = try ArchiveJSONRenderer.render(graph, rendering: ArchiveRenderingOptions(foundationValues: true))
        #expect(tagged.contains("{\"$real\": 2.5}"))
        #expect(try ArchiveJSONRenderer.render(graph, rendering: .raw) == ArchiveJSONRenderer.render(graph))
    }

    /// A Foundation object that does not read as its value is shown as stored, with why.
    @Test func malformedValuesAreShownAsStoredWithANote() throws {
        var file = try #require(try PropertyListSerialization.propertyList(from: try Self.archive(), format: nil) as? [String: Any])
        var objects = try #require(file["$objects"] as? [Any])
        for (index, object) in objects.enumerated() {
            if var fields = object as? [String: Any], fields["NS.uuidbytes"] != nil {
                fields["NS.uuidbytes"] = Data([1, 2, 3])
                objects[index] = fields
            }
        }
        file["$objects"] = objects
        let broken = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
        let graph = try ArchiveGraph(data: broken)
        let text = try ArchiveDumper.dump(graph, rendering: .readable)
        let line = try #require(text.split(separator: "\n").first { $0.contains("who:") })
        #expect(line.contains("NSUUID {") && line.contains("(shown as stored:"), "\(line)")
        #expect(text.contains("NS.uuidbytes: <3 bytes"))
        let json = try ArchiveJSONRenderer.render(graph, rendering: .readable)
        #expect(json.contains("\"$note\": \"shown as stored: "))
        _ = try JSONSerialization.jsonObject(with: Data(json.utf8))
    }
}
