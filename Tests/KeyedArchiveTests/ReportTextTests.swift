import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The texts a user reads when something differs or is missing: the diff in index order, the
/// layout report naming reuse and order, the missing-key error with every key (to a bound) and
/// the nearest one, and dates with four-digit years.
@Suite struct ReportTextTests {
    static let fleet = ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")

    // MARK: Diff order

    /// Differences in an array come in index order, so `--max 1` keeps the first.
    @Test func arrayDifferencesInAscendingOrder() throws {
        func archive(_ names: [String]) throws -> ArchiveGraph { try ArchiveGraph(bytes: KeyedArchiver.archive(names, registry: ArchiveRegistry())) }
        let a = try archive((0..<8).map { "n\($0)" })
        var changed = (0..<8).map { "n\($0)" }
        changed[7] = "x7"
        changed[0] = "x0"
        changed[3] = "x3"
        let b = try archive(changed)
        #expect(ArchiveDiff(a, b).differences.map(\.path.description) == ["root[0]", "root[3]", "root[7]"])
        var options = ArchiveDiff.Options()
        options.maximumDifferences = 1
        let capped = ArchiveDiff(a, b, options: options)
        #expect(capped.description == "root[0]: value changed: \"n0\" → \"x0\"\n… and 2 more differences")
    }

    // MARK: Layout

    /// The fleet's binary document, and a copy whose one shared object is stored twice.
    static func reuseCopy() throws -> (a: [UInt8], b: [UInt8], shared: Int, copy: Int) {
        let bytes = [UInt8](try Data(contentsOf: fleet))
        var document = try BinaryPropertyListReader.read(bytes)
        // The first object two array or dictionary value slots point at.
        var seen: Set<Int> = []
        var target: (container: Int, slot: Int, object: Int)?
        search: for (index, object) in document.objects.enumerated() {
            let references: [Int]
            switch object {
            case .array(let elements): references = elements
            case .dictionary(_, let values): references = values
            default: continue
            }
            for (slot, reference) in references.enumerated() {
                if !seen.insert(reference).inserted {
                    target = (index, slot, reference)
                    break search
                }
            }
        }
        let (container, slot, shared) = try #require(target)
        document.objects.append(document.objects[shared])
        let copy = document.objects.count - 1
        switch document.objects[container] {
        case .array(var elements):
            elements[slot] = copy
            document.objects[container] = .array(elements)
        case .dictionary(let keys, var values):
            values[slot] = copy
            document.objects[container] = .dictionary(keys: keys, values: values)
        default: break
        }
        return (bytes, try BinaryPropertyListWriter().write(document), shared, copy)
    }

    @Test func layoutNamesObjectReuse() throws {
        let (a, b, shared, copy) = try Self.reuseCopy()
        #expect(ArchiveDiff(try ArchiveGraph(bytes: a), try ArchiveGraph(bytes: b)).isEqual)
        let lines = try ArchiveLayoutExplanation.explain(a, b)
        // The writer numbers the objects itself, so the numbers are not `shared` and `copy`.
        _ = (shared, copy)
        #expect(lines.contains { $0.hasPrefix("object reuse in the property list: for 1 reference A points at an object it refers to elsewhere too, where B stores an equal object again (first $objects[") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("uniquing in the property list: A's file holds") })
        let reversed = try ArchiveLayoutExplanation.explain(b, a)
        #expect(reversed.contains { $0.hasPrefix("object reuse in the property list: for 1 reference B points at an object it refers to elsewhere too") }, "\(reversed)")
    }

    /// Python's plistlib writes the same values in its own object order (and sorts keys).
    @Test func layoutNamesObjectOrder() throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("python3 not found; skipping the plistlib layout comparison")
            return
        }
        let rewritten = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-plistlib-\(UUID().uuidString).plist")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import plistlib, sys; open(sys.argv[2], 'wb').write(plistlib.dumps(plistlib.load(open(sys.argv[1], 'rb')), fmt=plistlib.FMT_BINARY))",
                             Self.fleet.path, rewritten.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let a = [UInt8](try Data(contentsOf: Self.fleet)), b = [UInt8](try Data(contentsOf: rewritten))
        #expect(ArchiveDiff(try ArchiveGraph(bytes: a), try ArchiveGraph(bytes: b)).isEqual)
        let lines = try ArchiveLayoutExplanation.explain(a, b)
        #expect(lines.contains { $0.hasPrefix("object order in the property list: ") && $0.contains(" of 184 objects sit at other positions in the files (first ") }, "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("no difference of layout found") })
    }

    /// The canonical JSON of an Apple file, converted back to binary: the same graph, other bytes,
    /// and the report says which references point where.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func layoutOfAJSONRoundTripOfAnAppleFile() throws {
        let apple = try ArchiveFixtures.bytes("nskeyedunarchiver-rs/simpleArray.plist")
        let converted = try PropertyListCodec.encode(PropertyListJSONReader.read(PropertyListJSONRenderer.render(PropertyListCodec.decode(apple))), format: .binary)
        #expect(converted != apple)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: apple), try ArchiveGraph(bytes: converted)).isEqual)
        let lines = try ArchiveLayoutExplanation.explain(apple, converted)
        #expect(lines == ["object reuse in the property list: for 1 reference A points at an object it refers to elsewhere too, where B stores an equal object again (first $objects[4].$class: A #19, B #26 besides #19)"])
    }

    // MARK: Missing keys

    struct Needs: KeyedArchivable {
        var value: String
        init(value: String) { self.value = value }
        init(from decoder: KeyedArchiveDecoder) throws { value = try decoder.decode(String.self, forKey: "registraionNumber") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(value, forKey: "unused") }
    }

    /// An object with `keys` (each an integer field), decoded as ``Needs``.
    static func missingKeyMessage(_ keys: [String]) throws -> String {
        let fields = keys.map { PropertyListDictionary.Entry(key: $0, value: .int(1)) } + [.init(key: "$class", value: .uid(PropertyListUID(2)))]
        let plist: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$version", value: 100_000), .init(key: "$archiver", value: "NSKeyedArchiver"),
            .init(key: "$top", value: ["root": .uid(PropertyListUID(1))]),
            .init(key: "$objects", value: ["$null", .dictionary(PropertyListDictionary(entries: fields)), ["$classname": "Needs", "$classes": ["Needs", "NSObject"]]]),
        ]))
        var registry = ArchiveRegistry()
        registry.register(Needs.self)
        let bytes = try PropertyListCodec.encode(plist, format: .binary)
        do {
            _ = try KeyedUnarchiver.unarchive(Needs.self, from: bytes, registry: registry)
        } catch {
            return error.message
        }
        return ""
    }

    @Test func missingKeyListsEveryKeyToABoundAndTheNearest() throws {
        #expect(try Self.missingKeyMessage(["model", "registrationNumber", "airframeHours", "wingspan"]) ==
            "expected String, found no value (the object's keys: \"model\", \"registrationNumber\", \"airframeHours\", \"wingspan\"; did you mean \"registrationNumber\"?)")
        // 40 keys: 32 listed, the rest counted; the nearest found among all of them.
        let many = (0..<39).map { "field\($0)" } + ["RegistraionNumber"]
        let message = try Self.missingKeyMessage(many)
        #expect(message.hasPrefix("expected String, found no value (the object's keys: \"field0\", \"field1\", "))
        #expect(message.hasSuffix("\"field30\", \"field31\" and 8 more; did you mean \"RegistraionNumber\"?)"), "\(message)")
        // Nothing near: no guess.
        #expect(try Self.missingKeyMessage(["model", "hours"]) == "expected String, found no value (the object's keys: \"model\", \"hours\")")
        #expect(try Self.missingKeyMessage([]) == "expected String, found no value (the object has no keys)")
    }

    @Test func nearestKeyByEditDistance() {
        #expect(NearestKey.nearest(to: "registraionNumber", in: ["model", "registrationNumber", "registrationNumbers"]) == "registrationNumber")
        #expect(NearestKey.nearest(to: "url", in: ["name", "URL"]) == "URL")          // case alone is always near
        #expect(NearestKey.nearest(to: "name", in: ["game", "Name"]) == "Name")      // a case difference is half an edit
        #expect(NearestKey.nearest(to: "id", in: ["uuid", "kind"]) == nil)           // two edits are too many for two letters
        #expect(NearestKey.nearest(to: "x", in: []) == nil)
        // Hostile keys: long ones are skipped, and the work stops at its budget.
        let long = String(repeating: "a", count: 100_000)
        #expect(NearestKey.nearest(to: "aaaa", in: [long, "aaab"]) == "aaab")
        let crowd = [String](repeating: String(repeating: "b", count: 200), count: 100_000)
        #expect(NearestKey.nearest(to: String(repeating: "b", count: 199) + "c", in: crowd + ["never reached"]) == String(repeating: "b", count: 200))
    }

    // MARK: Dates

    @Test(arguments: [
        (-63_114_076_800.0, "0000-12-30T00:00:00Z"),
        (-63_145_699_200.0, "-0001-12-30T00:00:00Z"),   // year 0 is a leap year: 366 days before
        (-63_113_904_000.0, "0001-01-01T00:00:00Z"),    // these four from Python's datetime
        (-59_011_545_600.0, "0131-01-01T00:00:00Z"),
        (0.0, "2001-01-01T00:00:00Z"),
        (252_423_907_200.0, "9999-12-31T00:00:00Z"),
        (252_423_993_600.0, "10000-01-01T00:00:00Z"),
    ])
    func datesHaveFourDigitYears(seconds: Double, text: String) {
        #expect(RenderBuffer.isoDate(PropertyListDate(secondsSinceReferenceDate: seconds)) == text)
    }
}
