import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// ``ArchiveValue`` on the Apple corpus: every top-level key of every file decoded as the dynamic
/// type (classes that are not Foundation's admitted as object references through one opaque
/// registration), compared with `keyedarchive json`'s rendering of the same file; the
/// Darwin-made value archives compared with the values their manifest lines name; and every
/// value graph decoded, encoded again and decoded once more to the same values and class names.
@Suite struct ArchiveValueCorpusTests {
    /// A model that stands for every class of an archive that is not one of Foundation's value
    /// classes, so that ArchiveValue admits them as references (it never makes one).
    struct Opaque: KeyedArchivable {
        init(from decoder: KeyedArchiveDecoder) throws {}
        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    static let foundationNames: Set<String> = Set(FoundationClass.allCases.flatMap(\.defaultNames))

    /// The class names of `graph` that are not Foundation value classes.
    static func otherClasses(_ graph: ArchiveGraph) -> [String] {
        var names: Set<String> = []
        for object in graph.objects {
            if case .classDescriptor(let descriptor) = object, !foundationNames.contains(descriptor.name) { names.insert(descriptor.name) }
        }
        return names.sorted()
    }

    static func registry(admitting names: [String]) -> ArchiveRegistry {
        var registry = ArchiveRegistry()
        if let first = names.first { registry.register(Opaque.self, className: first, aliases: Array(names.dropFirst())) }
        return registry
    }

    /// Files whose decode as ArchiveValue is refused, and why (each checked to be refused so).
    static let expectedRefusals: [String: ArchiveError.Code] = [
        // An NSMutableArray that contains itself.
        "nskeyedunarchiver-rs/circularReference.plist": .cyclicReference,
    ]

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyCorpusValueMatchesTheJSONRendering() throws {
        var decodedKeys = 0, foundationObjects = 0, files = 0
        var classesSeen: Set<String> = []
        var refused: [String: ArchiveError.Code] = [:]
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            guard let graph = try? ArchiveGraph(bytes: bytes) else { continue }
            files += 1
            let document = try ArchiveJSONReference.Document(bytes: bytes)
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Self.registry(admitting: Self.otherClasses(graph)))
            for (key, json) in document.top.sorted(by: { $0.key < $1.key }) {
                let value: ArchiveValue?
                do {
                    value = try Self.decodeTop(key, from: unarchiver)
                } catch {
                    refused[entry.relativePath] = (error as? ArchiveError)?.code ?? .modelError
                    break
                }
                guard let value else { continue }
                decodedKeys += 1
                if let mismatch = ArchiveJSONReference.mismatch(value, json, in: document, path: key) {
                    Issue.record("\(entry.relativePath): \(mismatch)")
                }
            }
            for object in graph.objects {
                if case .classDescriptor(let descriptor) = object, Self.foundationNames.contains(descriptor.name) {
                    classesSeen.insert(descriptor.name)
                    foundationObjects += 1
                }
            }
        }
        print("ArchiveValue over the corpus: \(decodedKeys) top-level values of \(files) archives match keyedarchive json; Foundation classes met: \(classesSeen.sorted()); refused: \(refused)")
        #expect(refused == Self.expectedRefusals)
        #expect(decodedKeys > 150)
        // Every mapped Foundation class appears somewhere in the corpus but NSURL's mutable twin.
        #expect(classesSeen.isSuperset(of: ["NSArray", "NSMutableArray", "NSDictionary", "NSMutableDictionary", "NSSet", "NSMutableSet", "NSMutableString",
                                            "NSMutableData", "NSDate", "NSURL", "NSUUID", "NSNull", "NSValue", "NSIndexPath", "NSIndexSet",
                                            "NSMutableIndexSet", "NSOrderedSet", "NSMutableOrderedSet"]))
    }

    /// The Darwin-made archives of corelibs' tests, against the values their manifest lines name.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func darwinValueArchivesDecodeToTheManifestValues() throws {
        let unarchiverFolder = "corelibs-foundation/unarchiver/"
        let fixtures = "corelibs-foundation/macos-10.14/"
        let numbers: [ArchiveValue] = [1, 2, 3, 4, 5]
        let expected: [(String, ArchiveValue)] = [
            (unarchiverFolder + "NSKeyedUnarchiver-ArrayTest.plist", ["baa", "baa", "black", "sheep"]),
            (unarchiverFolder + "NSKeyedUnarchiver-ComplexTest.plist", [
                "uuid": .uuid(try #require(UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))),
                "url": .url(try #require(URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org")))),
                "string": "hello",
                "array": [.null, "hello", 34545, ["key": "val"]],
            ]),
            (unarchiverFolder + "NSKeyedUnarchiver-OrderedSetTest.plist", .orderedSet(ArchiveOrderedSet(["valgeir", "nico", "puzzle"]))),
            (unarchiverFolder + "NSKeyedUnarchiver-RangeTest.plist", .special(.range(ArchiveRange(location: 97345, length: 98345)))),
            (unarchiverFolder + "NSKeyedUnarchiver-RectTest.plist", .special(.rect(ArchiveRect(x: 400, y: 300, width: 200, height: 300)))),
            (unarchiverFolder + "NSKeyedUnarchiver-EdgeInsetsTest.plist", .special(.edgeInsets(ArchiveEdgeInsets(top: 1, left: 2, bottom: 3, right: 4)))),
            (unarchiverFolder + "NSKeyedUnarchiver-URLTest.plist", .url(try #require(URL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com"))))),
            (unarchiverFolder + "NSKeyedUnarchiver-UUIDTest.plist", .uuid(try #require(UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")))),
            (fixtures + "NSIndexPath-Empty.archive", .indexPath(IndexPath())),
            (fixtures + "NSIndexPath-OneIndex.archive", .indexPath(IndexPath(index: 52))),
            (fixtures + "NSIndexPath-ManyIndices.archive", .indexPath(IndexPath(indexes: [4, 8, 15, 16, 23, 42]))),
            (fixtures + "NSIndexSet-Empty.archive", .indexSet(ArchiveIndexSet())),
            (fixtures + "NSIndexSet-OneRange.archive", .indexSet(ArchiveIndexSet(ranges: [0..<50]))),
            (fixtures + "NSIndexSet-ManyRanges.archive", .indexSet(ArchiveIndexSet(ranges: [0..<50, 100..<150, 1000..<1050, (Int.max - 50)..<Int.max]))),
            (fixtures + "NSMutableIndexSet-Empty.archive", .indexSet(ArchiveIndexSet(archivesAsMutable: true))),
            (fixtures + "NSMutableIndexSet-OneRange.archive", .indexSet(ArchiveIndexSet(ranges: [0..<50], archivesAsMutable: true))),
            (fixtures + "NSMutableIndexSet-ManyRanges.archive", .indexSet(ArchiveIndexSet(ranges: [0..<50, 100..<150, 1000..<1050, (Int.max - 50)..<Int.max], archivesAsMutable: true))),
            (fixtures + "NSOrderedSet-Empty.archive", .orderedSet(ArchiveOrderedSet())),
            (fixtures + "NSOrderedSet-Numbers.archive", .orderedSet(ArchiveOrderedSet(numbers))),
            (fixtures + "NSMutableOrderedSet-Empty.archive", .orderedSet(ArchiveOrderedSet(archivesAsMutable: true))),
            (fixtures + "NSMutableOrderedSet-Numbers.archive", .orderedSet(ArchiveOrderedSet(numbers, archivesAsMutable: true))),
            (fixtures + "NSSet-Empty.archive", .set([])),
            (fixtures + "NSSet-Numbers.archive", .set(numbers)),
            (fixtures + "NSMutableSet-Empty.archive", .set([], mutable: true)),
            (fixtures + "NSMutableSet-Numbers.archive", .set(numbers, mutable: true)),
        ]
        for (path, value) in expected {
            let decoded = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: ArchiveFixtures.bytes(path), registry: ArchiveRegistry())
            #expect(decoded == value, "\(path)")
            #expect(decoded.isMutable == value.isMutable, "\(path)")
        }
    }

    /// Decode → encode → decode of every archive whose graph holds Foundation value classes only:
    /// the same values, the same class names; and Apple-faithful encoding gives Apple's bytes
    /// where the typed API does.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func valueGraphsEncodeBackToTheSameValuesAndClasses() throws {
        var roundTrips = 0
        var identical: [String] = [], other: [String] = []
        for entry in ArchiveFixtures.entries where Self.expectedRefusals[entry.relativePath] == nil {
            let bytes = try ArchiveFixtures.bytes(entry)
            guard let graph = try? ArchiveGraph(bytes: bytes), Self.otherClasses(graph).isEmpty else { continue }
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
            let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: {
                var options = ArchiveWritingOptions.appleFaithful
                options.era = GraphRebuilder.era(of: graph) ?? .current
                return options
            }())
            var values: [(String, ArchiveValue)] = []
            // Unkeyed values (`$0`, `$1`, …) in the order they were encoded, then the keyed ones.
            func unkeyedPosition(_ key: String) -> Int? { key.hasPrefix("$") ? Int(key.dropFirst()) : nil }
            let unkeyed = graph.top.compactMap { top in unkeyedPosition(top.key).map { ($0, top.key) } }.sorted { $0.0 < $1.0 }
            #expect(unkeyed.map(\.0) == Array(0..<unkeyed.count), "\(entry.relativePath)")
            for key in unkeyed.map(\.1) + graph.top.map(\.key).filter({ unkeyedPosition($0) == nil }) {
                guard let value = try Self.decodeTop(key, from: unarchiver) else { continue }
                values.append((key, value))
                if unkeyedPosition(key) != nil {
                    try archiver.encodeUnkeyed(value)
                } else {
                    try archiver.encode(value, forKey: key)
                }
            }
            let ours = try archiver.finish(format: entry.format == "xml" ? .xml : .binary)
            let again = try KeyedUnarchiver(bytes: ours, registry: ArchiveRegistry())
            for (key, value) in values {
                let reread = try #require(try Self.decodeTop(key, from: again))
                #expect(reread == value, "\(entry.relativePath): \(key)")
                #expect(Self.mutableFlags(reread) == Self.mutableFlags(value), "\(entry.relativePath): \(key)")
            }
            let ourClasses = try Self.classNames(ours), appleClasses = try Self.classNames(bytes)
            #expect(ourClasses == appleClasses, "\(entry.relativePath): ours \(ourClasses.sorted()), Apple's \(appleClasses.sorted())")
            roundTrips += 1
            if ours == bytes { identical.append(entry.relativePath) } else { other.append(entry.relativePath) }
        }
        print("ArchiveValue round trips: \(roundTrips) value archives to the same values and class names; byte-identical to Apple's: \(identical.count); not: \(other)")
        #expect(roundTrips > 40)
    }

    /// The value under a top-level key as the file spells it: `$0`, `$1`, … are unkeyed values.
    static func decodeTop(_ storedKey: String, from unarchiver: KeyedUnarchiver) throws -> ArchiveValue? {
        if storedKey.hasPrefix("$"), let position = Int(storedKey.dropFirst()) {
            return try unarchiver.decodeUnkeyed(ArchiveValue.self, at: position)
        }
        return try unarchiver.decodeIfPresent(ArchiveValue.self, forKey: ArchiveKeys.unescape(storedKey) ?? storedKey)
    }

    /// The class names of the objects reachable from the top of an archive (one Instruments
    /// payload holds an `NSMutableArray` nothing refers to).
    static func classNames(_ bytes: [UInt8]) throws -> Set<String> {
        Set(try ArchiveJSONReference.Document(bytes: bytes).objects.values.compactMap { $0["$class"]?.string })
    }

    /// The mutable flags of a value and everything in it, in walk order (equality ignores them).
    static func mutableFlags(_ value: ArchiveValue) -> [Bool] {
        var flags: [Bool] = []
        var pending = [value]
        while let next = pending.popLast() {
            flags.append(next.isMutable)
            switch next {
            case .array(let elements, _), .set(let elements, _): pending.append(contentsOf: elements)
            case .orderedSet(let set): pending.append(contentsOf: set.elements)
            case .dictionary(let entries, _): for entry in entries { pending.append(entry.key); pending.append(entry.value) }
            default: break
            }
        }
        return flags
    }
}
