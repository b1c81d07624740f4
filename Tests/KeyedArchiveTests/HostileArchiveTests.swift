import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The hostile keyed-archive corpus, `Fixtures/hostile/archives/` (built by our own
/// `make_corpus.py` with Python's plistlib): every file in `EXPECTED.tsv` must fail with the
/// listed code, key path and UID at the listed entry point; every file in `VALID.tsv` must be
/// read, rendered and decoded as stated. Docs/Security.md describes the rules the expectations
/// come from.
@Suite struct HostileArchiveTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/hostile/archives")

    struct Row: CustomTestStringConvertible, Sendable {
        let file: String
        let entry: String
        let code: String
        let keyPath: String
        let uid: String
        var testDescription: String { file }
    }

    static func rows(_ listing: String) -> [[String]] {
        guard let text = try? String(contentsOf: folder.appendingPathComponent(listing), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    static let expected: [Row] = rows("EXPECTED.tsv").map { Row(file: $0[0], entry: $0[1], code: $0[2], keyPath: $0[3], uid: $0[4]) }
    static let valid: [Row] = rows("VALID.tsv").map { Row(file: $0[0], entry: $0[1], code: "", keyPath: "", uid: "") }

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(file)))
    }

    /// The fleet classes, Foundation's value classes, and a model that decodes its child eagerly.
    static let registry: ArchiveRegistry = {
        var registry = Fleet.registry
        registry.register(EagerNode.self)
        return registry
    }()

    /// Decodes `key` of `unarchiver` as the type named in the listing.
    static func decode(_ typeName: String, key: String, _ unarchiver: KeyedUnarchiver) throws(ArchiveError) -> Any? {
        switch typeName {
        case "Airplane": return try unarchiver.decodeIfPresent(Airplane.self, forKey: key)
        case "Pilot": return try unarchiver.decodeIfPresent(Pilot.self, forKey: key)
        case "EagerNode": return try unarchiver.decodeIfPresent(EagerNode.self, forKey: key)
        case "String": return try unarchiver.decodeIfPresent(String.self, forKey: key)
        case "[String]": return try unarchiver.decodeIfPresent([String].self, forKey: key)
        case "[String:String]": return try unarchiver.decodeIfPresent([String: String].self, forKey: key)
        case "[String:[String]]": return try unarchiver.decodeIfPresent([String: [String]].self, forKey: key)
        case "Date": return try unarchiver.decodeIfPresent(Date.self, forKey: key)
        case "UUID": return try unarchiver.decodeIfPresent(UUID.self, forKey: key)
        case "Data": return try unarchiver.decodeIfPresent(Data.self, forKey: key)
        case "ArchiveIndexSet": return try unarchiver.decodeIfPresent(ArchiveIndexSet.self, forKey: key)
        default: throw ArchiveError(.invalidState, "the listing names an unknown type \(typeName)")
        }
    }

    /// Runs a `typed:T@key,…` entry: every step but the last must succeed; returns the last
    /// step's outcome.
    static func runTyped(_ entry: String, bytes: [UInt8]) -> Result<Any?, ArchiveError> {
        let steps = entry.dropFirst("typed:".count).split(separator: ",").map { step -> (String, String) in
            let parts = step.split(separator: "@", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "root")
        }
        do {
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
            var last: Any?
            for (typeName, key) in steps {
                last = try decode(typeName, key: key, unarchiver)
            }
            return .success(last)
        } catch {
            return .failure(error)
        }
    }

    @Test func corpusIsPresentAndUpToDate() throws {
        #expect(Self.expected.count >= 40)
        #expect(Self.valid.count >= 9)
        // The files are what make_corpus.py writes now (Python's plistlib, deterministic).
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-archives-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.folder.appendingPathComponent("make_corpus.py").path, output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let generated = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0 != "make_corpus.py" }.sorted()
        #expect(generated == committed)
        for name in generated {
            #expect(try Data(contentsOf: output.appendingPathComponent(name)) == Data(contentsOf: Self.folder.appendingPathComponent(name)), "\(name)")
        }
    }

    @Test(arguments: HostileArchiveTests.expected)
    func raisesTheExpectedError(_ row: Row) throws {
        let bytes = try Self.bytes(row.file)
        let started = ContinuousClock.now
        let outcome: Result<Any?, ArchiveError>
        if row.entry == "graph" {
            outcome = Result { () throws(ArchiveError) in try ArchiveGraph(bytes: bytes) as Any? }
        } else {
            // A file refused by typed decoding is still a valid archive for the generic view,
            // which renders it without error.
            let graph = try ArchiveGraph(bytes: bytes)
            #expect(!ArchiveDumper.dump(graph).isEmpty)
            #expect(!ArchiveJSONRenderer.render(graph).isEmpty)
            outcome = Self.runTyped(row.entry, bytes: bytes)
        }
        guard case .failure(let error) = outcome else {
            Issue.record("\(row.file): \(row.entry) succeeded, expected \(row.code)")
            return
        }
        #expect(error.code.rawValue == row.code, "\(row.file): \(error)")
        if row.keyPath != "-" { #expect(error.keyPath.description == row.keyPath, "\(row.file): \(error)") }
        if row.uid != "-" { #expect(error.uid.map { String($0.value) } == row.uid, "\(row.file): \(error)") }
        // Rejected quickly even in a debug build (the files are at most a few MB).
        #expect(ContinuousClock.now - started < .seconds(10), "\(row.file)")
    }

    @Test(arguments: HostileArchiveTests.valid)
    func validCasesAreReadAndDecoded(_ row: Row) throws {
        let bytes = try Self.bytes(row.file)
        let graph = try ArchiveGraph(bytes: bytes)
        let dump = ArchiveDumper.dump(graph)
        let json = ArchiveJSONRenderer.render(graph)
        // Output linear in the archive: at most a few hundred bytes per object, however shared.
        #expect(dump.utf8.count < 400 * graph.objects.count + 4096, "\(row.file): \(dump.utf8.count) bytes for \(graph.objects.count) objects")
        #expect(json.utf8.count < 400 * graph.objects.count + 4096, "\(row.file)")
        guard row.entry.hasPrefix("typed:") else { return }
        let decoded = try Self.runTyped(row.entry, bytes: bytes).get()
        switch row.file {
        case "pilot-airplane-cycle.plist":
            let pilot = try #require(decoded as? Pilot)
            let glider = try #require(pilot.airplanes.first as? Glider)
            #expect(pilot.name == "Amelia")
            #expect(glider.owner === pilot)
            #expect(glider.winchLaunchCount == 20)
        case "empty-archive.plist":
            #expect(decoded == nil)
        case "archive-in-nsdata.plist":
            let data = try #require(decoded as? Data)
            // The bytes are the inner archive, untouched: still an archive naming class Evil.
            let inner = try ArchiveGraph(bytes: [UInt8](data))
            #expect(inner.className(of: PropertyListUID(1)) == "Evil")
        case "dollar-key-escaped.plist":
            let airplane = try #require(decoded as? Airplane)
            #expect(type(of: airplane) == Glider.self)
        default:
            Issue.record("\(row.file): no expectation for a typed valid case")
        }
    }

    @Test func deepAndExplosiveShapesRenderInLinearWork() throws {
        // Deterministic measure, not time: the renderers' node count (the expansion budget they
        // need) grows with the number of objects, not with the number of paths.
        let laughs = try ArchiveGraph(bytes: try Self.bytes("reference-explosion-64.plist"))
        let deep = try ArchiveGraph(bytes: try Self.bytes("deep-chain-100000.plist"))
        for graph in [laughs, deep] {
            let budget = 6 * graph.objects.count
            #expect(throws: Never.self) { try ArchiveDumper.dump(graph, budget: budget) }
            #expect(throws: Never.self) { try ArchiveJSONRenderer.render(graph, budget: budget) }
            #expect(ArchiveClassAllowlist(classNames: ["NSArray"]).check(graph).admitsEverything)
        }
    }
}

/// A reference past `$objects` deep inside a field is named by its place in the object (a new
/// user's trial: `field deep refers to object 600` named neither the field holding it nor the
/// elements around it).
@Suite struct NestedReferenceMessageTests {
    static func archive(_ objects: [PropertyListValue]) throws -> [UInt8] {
        let root: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$archiver", value: "NSKeyedArchiver"), .init(key: "$version", value: 100000),
            .init(key: "$top", value: .dictionary(PropertyListDictionary(entries: [.init(key: "root", value: .uid(PropertyListUID(1)))]))),
            .init(key: "$objects", value: .array(objects)),
        ]))
        return try BinaryPropertyListWriter().write(root)
    }

    static func message(_ bytes: [UInt8]) -> String {
        do {
            _ = try ArchiveGraph(bytes: bytes)
            return ""
        } catch {
            return error.message
        }
    }

    @Test func outOfRangeReferencesAreNamedByTheirPlaceInTheObject() throws {
        let classDictionary: PropertyListValue = ["$classname": "A", "$classes": ["A", "NSObject"]]
        let nested: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$class", value: .uid(PropertyListUID(2))),
            .init(key: "items", value: .array([.uid(PropertyListUID(1)), .uid(PropertyListUID(500))])),
        ]))
        #expect(Self.message(try Self.archive(["$null", nested, classDictionary])) == "field items[1] refers to object 500, but $objects has 3 entries")
        let deeper: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$class", value: .uid(PropertyListUID(2))),
            .init(key: "x", value: ["inner": ["deep": .uid(PropertyListUID(600))]]),
        ]))
        #expect(Self.message(try Self.archive(["$null", deeper, classDictionary])) == "field x.inner.deep refers to object 600, but $objects has 3 entries")
        let direct: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$class", value: .uid(PropertyListUID(2))), .init(key: "$$escaped", value: .uid(PropertyListUID(9))),
        ]))
        #expect(Self.message(try Self.archive(["$null", direct, classDictionary])) == "field $escaped refers to object 9, but $objects has 3 entries")
    }
}
