import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `IndexPath` ↔ NSIndexPath, ``ArchiveIndexSet`` ↔ NSIndexSet, ``ArchiveOrderedSet`` ↔
/// NSOrderedSet, against two independent references: the archives Foundation on macOS 10.14
/// wrote for swift-corelibs-foundation's fixtures (decoded to the values their manifest lines
/// name, and rebuilt byte for byte), and Foundation on Linux's own NSKeyedArchiver and
/// NSKeyedUnarchiver in this process.
@Suite struct FoundationIndexMappingTests {
    static let folder = "corelibs-foundation/macos-10.14/"

    static func archive<T: ArchiveObjectEncodable>(_ value: T, options: ArchiveWritingOptions = .appleFaithful, format: ArchiveFormat = .binary) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        try archiver.encode(value)
        return try archiver.finish(format: format)
    }

    // The values of FixtureValues.swift, as MANIFEST.tsv names them.
    static let indexPaths: [(String, IndexPath)] = [
        ("NSIndexPath-Empty", IndexPath()),
        ("NSIndexPath-OneIndex", IndexPath(index: 52)),
        ("NSIndexPath-ManyIndices", IndexPath(indexes: [4, 8, 15, 16, 23, 42])),
    ]
    static let manyRanges = [0..<50, 100..<150, 1000..<1050, (Int.max - 50)..<Int.max]
    static let indexSets: [(String, ArchiveIndexSet)] = [
        ("NSIndexSet-Empty", ArchiveIndexSet()),
        ("NSIndexSet-OneRange", ArchiveIndexSet(ranges: [0..<50])),
        ("NSIndexSet-ManyRanges", ArchiveIndexSet(ranges: manyRanges)),
        ("NSMutableIndexSet-Empty", ArchiveIndexSet(archivesAsMutable: true)),
        ("NSMutableIndexSet-OneRange", ArchiveIndexSet(ranges: [0..<50], archivesAsMutable: true)),
        ("NSMutableIndexSet-ManyRanges", ArchiveIndexSet(ranges: manyRanges, archivesAsMutable: true)),
    ]
    static let orderedSets: [(String, ArchiveOrderedSet<Int>)] = [
        ("NSOrderedSet-Empty", ArchiveOrderedSet()),
        ("NSOrderedSet-Numbers", ArchiveOrderedSet([1, 2, 3, 4, 5])),
        ("NSMutableOrderedSet-Empty", ArchiveOrderedSet(archivesAsMutable: true)),
        ("NSMutableOrderedSet-Numbers", ArchiveOrderedSet([1, 2, 3, 4, 5], archivesAsMutable: true)),
    ]

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleArchivesDecodeToTheirValues() throws {
        for (name, expected) in Self.indexPaths {
            #expect(try FoundationDecoding.decode(IndexPath.self, ArchiveFixtures.bytes(Self.folder + name + ".archive")) == expected, "\(name)")
        }
        for (name, expected) in Self.indexSets {
            let decoded = try FoundationDecoding.decode(ArchiveIndexSet.self, ArchiveFixtures.bytes(Self.folder + name + ".archive"))
            #expect(decoded == expected && decoded.archivesAsMutable == expected.archivesAsMutable, "\(name)")
        }
        #expect(try FoundationDecoding.decode(ArchiveIndexSet.self, ArchiveFixtures.bytes(Self.folder + "NSIndexSet-ManyRanges.archive")).count == 200)
        for (name, expected) in Self.orderedSets {
            let decoded = try FoundationDecoding.decode(ArchiveOrderedSet<Int>.self, ArchiveFixtures.bytes(Self.folder + name + ".archive"))
            #expect(decoded == expected && decoded.archivesAsMutable == expected.archivesAsMutable, "\(name)")
        }
        let darwin = try FoundationDecoding.decode(ArchiveOrderedSet<String>.self, ArchiveFixtures.bytes("corelibs-foundation/unarchiver/NSKeyedUnarchiver-OrderedSetTest.plist"))
        #expect(darwin.elements == ["valgeir", "nico", "puzzle"])
    }

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func appleArchivesAreRebuiltByteForByte() throws {
        // macOS 10.14 wrote the classic root key order (format-notes §3.4).
        var options = ArchiveWritingOptions.appleFaithful
        options.era = .classic
        var checked = 0
        func expectApple(_ ours: [UInt8], _ name: String) throws {
            let apple = try ArchiveFixtures.bytes(Self.folder + name + ".archive")
            let difference = ours == apple ? "" : String(describing: try GraphRebuilder.compare(ours, apple))
            #expect(ours == apple, "\(name): \(difference)")
            checked += 1
        }
        for (name, value) in Self.indexPaths { try expectApple(try Self.archive(value, options: options), name) }
        for (name, value) in Self.indexSets { try expectApple(try Self.archive(value, options: options), name) }
        for (name, value) in Self.orderedSets { try expectApple(try Self.archive(value, options: options), name) }
        #expect(checked == 13)
    }

    /// Every NSIndexPath, NSIndexSet and NSMutableIndexSet anywhere in the Apple corpus (Xcode's
    /// state files and nibs among them), taken out of its archive with the generic view and
    /// archived alone: our typed decoding and Foundation on Linux's NSKeyedUnarchiver must read
    /// the same indexes.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyIndexObjectOfTheCorpusReadsAsFoundationReadsIt() throws {
        var paths = 0, sets = 0, packedPaths = 0, packedSets = 0
        for entry in ArchiveFixtures.entries {
            guard let graph = try? ArchiveGraph(bytes: ArchiveFixtures.bytes(entry)) else { continue }
            for (uid, object) in graph.objects.enumerated() {
                guard case .instance(let instance) = object,
                      let descriptor = graph.classDescriptor(of: PropertyListUID(UInt64(uid))),
                      ["NSIndexPath", "NSIndexSet", "NSMutableIndexSet"].contains(descriptor.name) else { continue }
                // The object's fields: inline numbers as they are, the packed data as an NSMutableData.
                var fields: [(String, ArchiveGenericObject.Field)] = []
                for field in instance.fields {
                    switch field.value {
                    case .uid(let target):
                        guard case .instance(let data) = graph.objects[Int(target.value)], case .data(let bytes)? = data.value(forKey: "NS.data") else {
                            Issue.record("\(entry) #\(uid): \(field.key) is not packed data")
                            continue
                        }
                        fields.append((field.key, Self.packedData(bytes)))
                    default:
                        fields.append((field.key, .inline(field.value)))
                    }
                }
                let archiver = KeyedArchiver(registry: ArchiveRegistry())
                try archiver.encode(ArchiveGenericObject(classes: descriptor.classes, fields: fields))
                let alone = try archiver.finish()
                if descriptor.name == "NSIndexPath" {
                    let ours = try FoundationDecoding.decode(IndexPath.self, alone)
                    let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexPath.self, from: Data(alone))
                    #expect(foundation.map { $0 as IndexPath } == ours, "\(entry) #\(uid)")
                    paths += 1
                    if ours.count > 1 { packedPaths += 1 }
                } else {
                    let ours = try FoundationDecoding.decode(ArchiveIndexSet.self, alone)
                    let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: Data(alone))
                    #expect(foundation.map { Array($0 as IndexSet) } == Array(ours), "\(entry) #\(uid)")
                    #expect(ours.archivesAsMutable == (descriptor.name == "NSMutableIndexSet"))
                    sets += 1
                    if ours.ranges.count > 1 { packedSets += 1 }
                }
            }
        }
        print("Corpus index objects read as Foundation reads them: \(paths) index paths (\(packedPaths) packed), \(sets) index sets (\(packedSets) packed)")
        #expect(paths >= 21 && sets >= 20 && packedPaths > 0 && packedSets > 0)
    }

    @Test func roundTripsKeepEveryValue() throws {
        let paths = [IndexPath(), IndexPath(index: -1), IndexPath(indexes: [0, 127, 128, 16_383, 16_384, Int.max, Int.min, -1])]
        let sets = [ArchiveIndexSet(integers: [0, 1, 2, 5, 7, 8, Int.max - 1]), ArchiveIndexSet(ranges: [3..<4], archivesAsMutable: true)]
        for format in [ArchiveFormat.binary, .xml] {
            let options = ArchiveWritingOptions.default
            for path in paths { #expect(try FoundationDecoding.decode(IndexPath.self, Self.archive(path, options: options, format: format)) == path) }
            for set in sets {
                let decoded = try FoundationDecoding.decode(ArchiveIndexSet.self, Self.archive(set, options: options, format: format))
                #expect(decoded == set && decoded.archivesAsMutable == set.archivesAsMutable)
            }
            let strings = ArchiveOrderedSet(["b", "a", "c"], archivesAsMutable: true)
            let decoded = try FoundationDecoding.decode(ArchiveOrderedSet<String>.self, Self.archive(strings, options: options, format: format))
            #expect(decoded.elements == ["b", "a", "c"] && decoded.archivesAsMutable)
        }
    }

    @Test func indexSetKeepsNSIndexSetsCanonicalForm() {
        var set = ArchiveIndexSet(ranges: [10..<20, 0..<5])
        set.insert(contentsOf: 5..<10)
        #expect(set.ranges == [0..<20])
        set.insert(contentsOf: 30..<40)
        set.insert(contentsOf: 25..<26)
        set.insert(contentsOf: 19..<31)
        #expect(set.ranges == [0..<40])
        set.insert(contentsOf: 50..<50)
        #expect(set.ranges == [0..<40] && set.count == 40 && set.contains(39) && !set.contains(40))
        #expect(ArchiveIndexSet(integers: [4, 2, 3, 9]).ranges == [2..<5, 9..<10])
        #expect(Array(ArchiveIndexSet(integers: [4, 2, 3, 9])) == [2, 3, 4, 9])
        #expect(ArchiveIndexSet(integers: [4, 2, 3, 9]).description == "[2..<5, 9..<10]")
        #expect(ArchiveOrderedSet(["b", "a"]).description == #"["b", "a"]"#)
        #expect(ArchiveOrderedSet([3, 1, 3, 2, 1]).elements == [3, 1, 2])
        // Equality is of the indexes and elements, not of the class each is archived as.
        #expect(ArchiveIndexSet(ranges: [1..<3], archivesAsMutable: true) == ArchiveIndexSet(integers: [1, 2]))
        #expect(ArchiveOrderedSet([1, 2], archivesAsMutable: true) == ArchiveOrderedSet([1, 2]))
        #expect(ArchiveOrderedSet([1, 2]) != ArchiveOrderedSet([2, 1]))
        var ordered = ArchiveOrderedSet(["x", "y", "z"])
        #expect(ordered.remove("y") && !ordered.remove("y") && Array(ordered) == ["x", "z"] && !ordered.contains("y"))
    }

    /// The model of Docs/Tutorial.md §8, as printed there.
    struct Selection: KeyedArchivable {
        var rows: ArchiveIndexSet
        var focus: IndexPath
        var tags: ArchiveOrderedSet<String>

        init(rows: ArchiveIndexSet, focus: IndexPath, tags: ArchiveOrderedSet<String>) {
            self.rows = rows
            self.focus = focus
            self.tags = tags
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            rows = try decoder.decode(ArchiveIndexSet.self, forKey: "rows")
            focus = try decoder.decode(IndexPath.self, forKey: "focus")
            tags = try decoder.decode(ArchiveOrderedSet<String>.self, forKey: "tags")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(rows, forKey: "rows")
            try encoder.encode(focus, forKey: "focus")
            try encoder.encode(tags, forKey: "tags")
        }
    }

    @Test func tutorialModelRoundTrips() throws {
        let selection = Selection(rows: ArchiveIndexSet(ranges: [0..<3, 10..<12]), focus: IndexPath(indexes: [1, 4]),
                                  tags: ArchiveOrderedSet(["draft", "urgent"]))
        var registry = ArchiveRegistry()
        registry.register(Selection.self)
        for format in [ArchiveFormat.binary, .xml] {
            let bytes = try KeyedArchiver.archive(selection, registry: registry, format: format)
            let decoded = try KeyedUnarchiver.unarchive(Selection.self, from: bytes, registry: registry)
            #expect(decoded.rows == selection.rows && decoded.focus == selection.focus && decoded.tags == selection.tags)
            #expect(decoded.rows.ranges == [0..<3, 10..<12])
        }
    }

    // MARK: Foundation on Linux as the other side

    @Test func foundationReadsOurArchives() throws {
        let path = IndexPath(indexes: [4, 8, 15, 16, 23, 42])
        let fromPath = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexPath.self, from: Data(Self.archive(path)))
        #expect(fromPath.map { $0 as IndexPath } == path)
        let set = ArchiveIndexSet(ranges: Self.manyRanges)
        let fromSet = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: Data(Self.archive(set)))
        #expect(fromSet.map { ($0 as IndexSet).rangeView.map { $0 } } == Self.manyRanges)
        let one = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: Data(Self.archive(ArchiveIndexSet(ranges: [7..<9]))))
        #expect(one.map { Array($0 as IndexSet) } == [7, 8])
        let ordered = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSOrderedSet.self, NSString.self], from: Data(Self.archive(ArchiveOrderedSet(["x", "y", "z"])))) as? NSOrderedSet
        #expect(ordered?.array as? [String] == ["x", "y", "z"])
        // The short forms: no index, one index, no range, an empty ordered set.
        for short in [IndexPath(), IndexPath(index: 9)] {
            #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexPath.self, from: Data(Self.archive(short))).map { $0 as IndexPath } == short)
        }
        let empty = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: Data(Self.archive(ArchiveIndexSet())))
        #expect(empty?.count == 0)
        let none = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSOrderedSet.self], from: Data(Self.archive(ArchiveOrderedSet<String>()))) as? NSOrderedSet
        #expect(none?.count == 0)
    }

    @Test func weReadFoundationsArchives() throws {
        let path = IndexPath(indexes: [1, 300, 70_000])
        let pathBytes = try NSKeyedArchiver.archivedData(withRootObject: path as NSIndexPath, requiringSecureCoding: true)
        #expect(try FoundationDecoding.decode(IndexPath.self, [UInt8](pathBytes)) == path)
        var indexes = IndexSet(integersIn: 3..<9)
        indexes.insert(integersIn: 20..<21)
        indexes.insert(1 << 40)
        let setBytes = try NSKeyedArchiver.archivedData(withRootObject: NSMutableIndexSet(indexSet: indexes), requiringSecureCoding: true)
        let decoded = try FoundationDecoding.decode(ArchiveIndexSet.self, [UInt8](setBytes))
        #expect(decoded.ranges == indexes.rangeView.map { $0 })
        #expect(decoded.archivesAsMutable)
        let ordered = NSOrderedSet(array: ["one", "two", "three"])
        let orderedBytes = try NSKeyedArchiver.archivedData(withRootObject: ordered, requiringSecureCoding: true)
        #expect(try FoundationDecoding.decode(ArchiveOrderedSet<String>.self, [UInt8](orderedBytes)).elements == ["one", "two", "three"])
    }

    // MARK: Refusals

    static func hostile(_ classes: [String], _ fields: [(String, ArchiveGenericObject.Field)]) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveGenericObject(classes: classes, fields: fields))
        return try archiver.finish()
    }

    static func packedData(_ bytes: [UInt8]) -> ArchiveGenericObject.Field {
        .object(ArchiveGenericObject(classes: ["NSMutableData", "NSData", "NSObject"], fields: [("NS.data", .inline(.data(bytes)))]))
    }

    @Test func lyingCountsAndBadNumbersAreNamed() throws {
        let pathClasses = ["NSIndexPath", "NSObject"], setClasses = ["NSIndexSet", "NSObject"]
        let int = { (value: Int64) in ArchiveGenericObject.Field.inline(.integer(PropertyListInteger(value))) }
        let cases: [(any ArchiveObjectDecodable.Type, [UInt8], String, String)] = [
            // A count far beyond the bytes: refused before anything is allocated for it.
            (IndexPath.self, try Self.hostile(pathClasses, [("NSIndexPathLength", int(Int64.max)), ("NSIndexPathData", Self.packedData([1, 2]))]),
             "NSIndexPathLength asks for 9223372036854775807 numbers, but NSIndexPathData has 2 bytes", "root.NSIndexPathData"),
            (IndexPath.self, try Self.hostile(pathClasses, [("NSIndexPathLength", int(3)), ("NSIndexPathData", Self.packedData([1, 0x82, 0x80]))]),
             "NSIndexPathData ends after 1 of the 3 numbers", "root.NSIndexPathData"),
            (IndexPath.self, try Self.hostile(pathClasses, [("NSIndexPathLength", int(2)), ("NSIndexPathData", Self.packedData([1, 2, 3]))]),
             "NSIndexPathData has 1 bytes after the numbers", "root.NSIndexPathData"),
            (IndexPath.self, try Self.hostile(pathClasses, [("NSIndexPathLength", int(2)), ("NSIndexPathData", Self.packedData([1] + [UInt8](repeating: 0xFF, count: 9) + [0x02]))]),
             "NSIndexPathData has a number at byte 1 that does not fit 64 bits", "root.NSIndexPathData"),
            (IndexPath.self, try Self.hostile(pathClasses, [("NSIndexPathLength", int(-2))]), "NSIndexPathLength is -2", "root.NSIndexPathLength"),
            (ArchiveIndexSet.self, try Self.hostile(setClasses, [("NSRangeCount", int(Int64.max)), ("NSRangeData", Self.packedData([1, 2, 3, 4]))]),
             "but NSRangeData has 4 bytes", "root.NSRangeData"),
            (ArchiveIndexSet.self, try Self.hostile(setClasses, [("NSRangeCount", int(2)), ("NSRangeData", Self.packedData([0, 1] + [UInt8](repeating: 0xFF, count: 8) + [0x7F, 2]))]),
             "goes past Int.max", "root.NSRangeData"),
            (ArchiveIndexSet.self, try Self.hostile(setClasses, [("NSRangeCount", int(1)), ("NSLocation", int(-1)), ("NSLength", int(1))]), "NSLocation is -1", "root.NSLocation"),
            (ArchiveIndexSet.self, try Self.hostile(setClasses, [("NSRangeCount", int(1)), ("NSLocation", int(Int64.max)), ("NSLength", int(1))]), "goes past Int.max", "root.NSLength"),
            (ArchiveIndexSet.self, try Self.hostile(setClasses, [("NSRangeCount", int(-3))]), "NSRangeCount is -3", "root.NSRangeCount"),
        ]
        for (type, bytes, message, keyPath) in cases {
            let error = FoundationDecoding.refusal(type, bytes)
            #expect(error?.code == .valueOutOfRange, "\(message): \(String(describing: error))")
            #expect(error?.message.contains(message) == true, "\(message): \(String(describing: error))")
            #expect(error?.keyPath.description == keyPath, "\(message): \(String(describing: error?.keyPath))")
            #expect(error?.uid?.value == 1)
        }
    }
    // MARK: What Foundation accepts, we accept

    @Test func rangesOutOfOrderOrOverlappingGiveTheirUnion() throws {
        // (100, 5), (0, 10), (5, 3), (104, 10): NSIndexSet adds ranges one by one, merging, so
        // the set is their union in its canonical form.
        let packed: [UInt8] = [100, 5, 0, 10, 5, 3, 104, 10]
        let int = { (value: Int64) in ArchiveGenericObject.Field.inline(.integer(PropertyListInteger(value))) }
        let bytes = try Self.hostile(["NSIndexSet", "NSObject"], [("NSRangeCount", int(4)), ("NSRangeData", Self.packedData(packed))])
        let decoded = try FoundationDecoding.decode(ArchiveIndexSet.self, bytes)
        #expect(decoded.ranges == [0..<10, 100..<114])
        // Foundation on Linux reads the same integers, but keeps the four ranges as stored
        // (its rangeView lists them unmerged and unsorted): compared as integers.
        let foundation = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: Data(bytes)))
        let foundationIntegers = Set((foundation as IndexSet).rangeView.flatMap { Array($0) })
        #expect(foundationIntegers == Set(decoded.ranges.flatMap { Array($0) }))
        // The packed bytes may also be stored inline; an absent count is 0, as decodeInteger reads it.
        let inline = try Self.hostile(["NSIndexSet", "NSObject"], [("NSRangeCount", int(4)), ("NSRangeData", .inline(.data(packed)))])
        #expect(try FoundationDecoding.decode(ArchiveIndexSet.self, inline).ranges == [0..<10, 100..<114])
        #expect(try FoundationDecoding.decode(ArchiveIndexSet.self, Self.hostile(["NSIndexSet", "NSObject"], [])).isEmpty)
        let inlinePath = try Self.hostile(["NSIndexPath", "NSObject"], [("NSIndexPathLength", int(3)), ("NSIndexPathData", .inline(.data([3, 0x80, 0x01, 7])))])
        #expect(try FoundationDecoding.decode(IndexPath.self, inlinePath) == IndexPath(indexes: [3, 128, 7]))
    }

    @Test func orderedSetsKeepTheFirstOfRepeatedElements() throws {
        // A repeated element is kept where it first occurs, and reading stops at the first
        // missing number, as Foundation reads NS.object.N. (Foundation on Darwin keeps each
        // element once, as NSOrderedSet always does; Foundation on Linux reads the same elements
        // and numbers, but keeps the repeat, an NSOrderedSet holding "a" twice.)
        let bytes = try Self.hostile(["NSOrderedSet", "NSObject"], [("NS.object.0", .object("a")), ("NS.object.1", .object("b")),
                                                                   ("NS.object.2", .object("a")), ("NS.object.3", .object("c")),
                                                                   ("NS.object.5", .object("after a gap"))])
        #expect(try FoundationDecoding.decode(ArchiveOrderedSet<String>.self, bytes).elements == ["a", "b", "c"])
        let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSOrderedSet.self, NSString.self], from: Data(bytes)) as? NSOrderedSet
#if canImport(Darwin)
        #expect(foundation?.array as? [String] == ["a", "b", "c"])
#else
        #expect(foundation?.array as? [String] == ["a", "b", "a", "c"])
#endif
    }

    @Test func sharedIndexPathsAreReadOnce() throws {
        // One 20,000-index path object referenced 2,000 times: read once, the element budget
        // charged once (read per reference it would be 40 million indexes, far past this budget).
        var packed: [UInt8] = []
        for index in 0..<20_000 { PackedIndexes.append(UInt64(index), to: &packed) }
        let path = ArchiveGenericObject(classes: ["NSIndexPath", "NSObject"], fields: [
            ("NSIndexPathLength", .inline(.integer(PropertyListInteger(20_000)))), ("NSIndexPathData", Self.packedData(packed)),
        ])
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray([any ArchiveObjectEncodable](repeating: path, count: 2_000)))
        let bytes = try archiver.finish()
        #expect(bytes.count < 100_000)
        var options = ArchiveReadingOptions()
        options.maximumTotalElementCount = 30_000
        let paths = try KeyedUnarchiver.unarchive([IndexPath].self, from: bytes, registry: ArchiveRegistry(), options: options)
        #expect(paths.count == 2_000 && paths.allSatisfy { $0 == IndexPath(indexes: Array(0..<20_000)) })
        options.maximumTotalElementCount = 21_999
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive([IndexPath].self, from: bytes, registry: ArchiveRegistry(), options: options) }
    }

    @Test func onlyTheMappedNamesAreAdmitted() throws {
        // An NSIndexSet asked for as an IndexPath, and an index set's names without the mapping.
        let set = try Self.archive(ArchiveIndexSet(ranges: [1..<3]))
        #expect(FoundationDecoding.refusal(IndexPath.self, set)?.code == .classNotAllowed)
        let narrow = ArchiveRegistry(foundationClasses: [.array, .string])
        #expect(throws: ArchiveError.self) { try FoundationDecoding.decode(ArchiveIndexSet.self, set, registry: narrow) }
        #expect(FoundationDecoding.refusal([Int].self, set)?.code == .classNotAllowed)
    }
}
