import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The binary table that typed decoding reads in place (``BinaryArchiveTable``) against the
/// usual path (value tree → ``ArchiveGraph``): whatever the table accepts, the graph must accept
/// too, and both must show typed decoding the same objects. The table may decline any file
/// (it then takes the usual path), so only acceptance is checked, never refusal.
@Suite struct DirectBinaryDecodingTests {
    /// Every object of a store as a plain value, so that two stores can be compared with `==`.
    static func canonical(_ store: ArchiveObjectStore) -> [PropertyListValue] {
        (0..<store.count).map { uid in
            switch store.object(uid) {
            case .null: return ["kind": "null"]
            case .string(let string): return ["kind": "string", "value": .string(string)]
            case .integer(let integer): return ["kind": "integer", "value": .integer(integer)]
            case .real(let real): return ["kind": "real", "value": .real(real)]
            case .bool(let flag): return ["kind": "bool", "value": .bool(flag)]
            case .data(let bytes): return ["kind": "data", "value": .data(bytes)]
            case .date(let date): return ["kind": "date", "value": .date(date)]
            case .instance(let instance):
                let descriptor = store.classDescriptor(of: uid)
                var duplicate: PropertyListValue = "none"
                if let (key, occurrences) = instance.fields.firstDuplicateKey() {
                    duplicate = ["key": .string(key), "occurrences": .integer(PropertyListInteger(Int64(occurrences)))]
                }
                return ["kind": "instance", "class": .integer(PropertyListInteger(Int64(instance.classUID))),
                        "name": .string(descriptor?.name ?? "-"), "chain": .array((descriptor?.classes ?? []).map { .string($0) }),
                        "fields": .dictionary(instance.fields.dictionary), "keys": .array(instance.fields.storedKeys.map { .string($0) }),
                        "duplicate": duplicate]
            case .classDescriptor(let descriptor):
                return ["kind": "class", "name": .string(descriptor.name), "chain": .array(descriptor.classes.map { .string($0) }),
                        "hints": descriptor.hints.map { .array($0.map { .string($0) }) } ?? "none"]
            case .other(let value): return ["kind": "other", "value": value]
            }
        }
    }

    /// Checks one file; returns whether the table took it.
    @discardableResult
    static func compare(_ bytes: [UInt8], options: ArchiveReadingOptions = .default, _ name: String) -> Bool {
        guard let table = BinaryArchiveTable.read(bytes, options: options) else { return false }
        let graph: ArchiveGraph
        do {
            // The usual path itself: ArchiveGraph(bytes:) now reads from the table when it can.
            graph = try bytes.withUnsafeBytes { try ArchiveGraph(valueTreeOf: $0, options: options) }
        } catch {
            Issue.record("\(name): the binary table accepted a file the graph refuses: \(error)")
            return true
        }
        #expect(table.top == graph.topFields, "\(name): $top differs")
        // The graph made from the table (what ArchiveGraph(bytes:) returns) is the usual one.
        #expect((try? ArchiveGraph(bytes: bytes, options: options)) == graph, "\(name): the graph from the table differs")
        #expect((try? ArchiveGraph(data: DataEntryPointTests.slice(Data(bytes)), options: options)) == graph, "\(name): the graph from Data differs")
        let direct = canonical(.binary(table)), usual = canonical(.graph(graph))
        // The same bytes in a `Data` slice, read in place: taken alike, read alike.
        let dataTable = BinaryArchiveTable.read(DataEntryPointTests.slice(Data(bytes)), options: options)
        #expect(dataTable != nil, "\(name): the table took the array but not the same bytes as Data")
        if let dataTable, canonical(.binary(dataTable)) != direct { Issue.record("\(name): the table reads Data and arrays differently") }
        #expect(direct.count == usual.count, "\(name): object counts differ")
        if let uid = direct.indices.first(where: { $0 < usual.count && direct[$0] != usual[$0] }) {
            Issue.record("\(name): object \(uid) differs: \(direct[uid]) against \(usual[uid])")
        }
        return true
    }

    static func binaryFiles(in directory: URL) -> [(String, [UInt8])] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { name in
            guard let data = try? Data(contentsOf: directory.appendingPathComponent(name)) else { return nil }
            let bytes = [UInt8](data)
            return bytes.starts(with: Array("bplist00".utf8)) ? (name, bytes) : nil
        }
    }

    @Test func projectFixturesAgree() throws {
        var accepted = 0, total = 0
        for directory in ["", "hostile/archives", "hostile/plist", "fuzz-findings"] {
            for (name, bytes) in Self.binaryFiles(in: ArchiveFixtures.projectFixtures.appendingPathComponent(directory)) {
                total += 1
                if Self.compare(bytes, "\(directory)/\(name)") { accepted += 1 }
            }
        }
        print("Binary table: took \(accepted) of \(total) binary project fixtures (the rest take the graph path)")
        // The README's fleet archive is the plain NSKeyedArchiver shape the table exists for.
        let fleet = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
        #expect(BinaryArchiveTable.read(fleet, options: .default) != nil)
    }

    @Test func appleCorpusAgrees() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var accepted = 0, binary = 0
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            guard bytes.starts(with: Array("bplist00".utf8)) else { continue }
            binary += 1
            if Self.compare(bytes, entry.relativePath) { accepted += 1 }
        }
        print("Binary table: took \(accepted) of \(binary) binary Apple archives")
        #expect(accepted > 0)
    }

    /// Tight limits on accepted files: each limit the graph path enforces, the table enforces.
    @Test func limitsAreEnforcedAlike() throws {
        let fleet = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
        var samples: [(String, [UInt8])] = [("fleet.plist", fleet)]
        if ArchiveFixtures.isCorpusAvailable {
            for entry in ArchiveFixtures.entries.prefix(60) {
                let bytes = try ArchiveFixtures.bytes(entry)
                if bytes.starts(with: Array("bplist00".utf8)) { samples.append((entry.relativePath, bytes)) }
            }
        }
        var variants: [(String, ArchiveReadingOptions)] = []
        for limit in [0, 1, 3, 4, 5, 8, 15, 16, 40] {
            var options = ArchiveReadingOptions()
            options.maximumValueByteCount = limit
            variants.append(("maximumValueByteCount \(limit)", options))
            options = ArchiveReadingOptions()
            options.maximumClassChainLength = limit
            variants.append(("maximumClassChainLength \(limit)", options))
            options = ArchiveReadingOptions()
            options.propertyList.maximumDepth = limit
            variants.append(("maximumDepth \(limit)", options))
            options = ArchiveReadingOptions()
            options.propertyList.maximumValueLength = limit
            variants.append(("maximumValueLength \(limit)", options))
            options = ArchiveReadingOptions()
            options.propertyList.maximumCollectionElementCount = limit
            variants.append(("maximumCollectionElementCount \(limit)", options))
        }
        for sample in samples {
            // Limits around the file's own sizes, where an off-by-one would show.
            let objects = (try? ArchiveGraph(bytes: sample.1).objects.count) ?? 0
            for delta in [-1, 0, 1] {
                var options = ArchiveReadingOptions()
                options.maximumObjectCount = objects + delta
                variants.append(("maximumObjectCount \(objects + delta)", options))
                options = ArchiveReadingOptions()
                options.propertyList.maximumObjectCount = objects + delta
                variants.append(("plist maximumObjectCount \(objects + delta)", options))
            }
            if let tree = try? PropertyListCodec.decode(sample.1) {
                let size = Self.expandedSize(tree)
                for delta in [-1, 0, 1] {
                    var options = ArchiveReadingOptions()
                    options.propertyList.maximumExpandedValueCount = size + delta
                    variants.append(("maximumExpandedValueCount \(size + delta)", options))
                }
            }
            for (label, options) in variants {
                Self.compare(sample.1, options: options, "\(sample.0) with \(label)")
            }
        }
    }

    static func expandedSize(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let elements), .set(let elements): return 1 + elements.reduce(0) { $0 + expandedSize($1) }
        case .dictionary(let dictionary): return 1 + dictionary.count + dictionary.values.reduce(0) { $0 + expandedSize($1) }
        default: return 1
        }
    }

    /// Random corruptions of valid archives: the table must never accept what the graph refuses.
    @Test func mutatedArchivesNeverDisagree() throws {
        var generator = SplitMix(seed: 0x5EED_D1EC)
        let small = try KeyedArchiver.archive(Array(FleetFixtureTests.makeFleet().prefix(2)), registry: Fleet.registry, format: .binary)
        var seeds: [(String, [UInt8])] = [("two-pilot fleet", small)]
        if ArchiveFixtures.isCorpusAvailable {
            let corpus = ArchiveFixtures.entries.filter { $0.format == "binary" }
            for entry in corpus.prefix(200) {
                let bytes = try ArchiveFixtures.bytes(entry)
                if bytes.count < 4096, BinaryArchiveTable.read(bytes, options: .default) != nil { seeds.append((entry.relativePath, bytes)) }
                if seeds.count >= 6 { break }
            }
        }
        var accepted = 0, tried = 0
        for (name, original) in seeds {
            for round in 0..<1500 {
                var bytes = original
                for _ in 0...(generator.next() % 3) {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 4 {
                    case 0: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                    case 1: bytes[position] ^= 1 << UInt8(generator.next() % 8)
                    case 2: bytes[position] = bytes[position] &+ 1
                    default: bytes[position] = bytes[position] &- 1
                    }
                }
                tried += 1
                if Self.compare(bytes, "\(name) mutation \(round)") { accepted += 1 }
            }
        }
        print("Binary table: took \(accepted) of \(tried) mutated archives, each checked against the graph path")
    }

    /// Typed decoding through the table gives what it gives through the graph.
    @Test func typedDecodingAgrees() throws {
        for format in [ArchiveFormat.binary] {
            let bytes = try KeyedArchiver.archive(FleetFixtureTests.makeFleet(), registry: Fleet.registry, format: format)
            #expect(BinaryArchiveTable.read(bytes, options: .default) != nil)
            let direct = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry).decode([Pilot].self)
            let usual = try KeyedUnarchiver(graph: try ArchiveGraph(bytes: bytes), registry: Fleet.registry).decode([Pilot].self)
            let fromData = try KeyedUnarchiver(data: DataEntryPointTests.slice(Data(bytes)), registry: Fleet.registry).decode([Pilot].self)
            #expect(try KeyedArchiver.archive(fromData, registry: Fleet.registry, format: .binary) == bytes)
            #expect(try KeyedArchiver.archive(direct, registry: Fleet.registry, format: .binary) == KeyedArchiver.archive(usual, registry: Fleet.registry, format: .binary))
            #expect(try KeyedArchiver.archive(direct, registry: Fleet.registry, format: .binary) == bytes)
            // The generic view is still there, built on request.
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry)
            #expect(try unarchiver.graph == ArchiveGraph(bytes: bytes))
        }
    }
}

/// A small seeded generator, so that a failure names a reproducible round.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// A bplist00 file written by hand, object by object, for shapes no writer makes.
enum HandMadeBinaryPlist {
    static func marker(_ high: UInt8, count: Int) -> [UInt8] {
        if count < 15 { return [high << 4 | UInt8(count)] }
        if count < 256 { return [high << 4 | 0xF, 0x10, UInt8(count)] }
        if count < 65_536 { return [high << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)] }
        return [high << 4 | 0xF, 0x12] + bigEndian(UInt64(count), width: 4)
    }
    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }
    static func ascii(_ text: String) -> [UInt8] { marker(5, count: text.utf8.count) + Array(text.utf8) }
    static func data(_ bytes: [UInt8]) -> [UInt8] { marker(4, count: bytes.count) + bytes }
    static func integer(_ value: UInt32) -> [UInt8] { [0x12] + bigEndian(UInt64(value), width: 4) }
    static func references(_ list: [UInt64], size: Int) -> [UInt8] { list.flatMap { bigEndian($0, width: size) } }
    static func array(_ list: [UInt64], size: Int) -> [UInt8] { marker(0xA, count: list.count) + references(list, size: size) }
    static func dictionary(_ keys: [UInt64], _ values: [UInt64], size: Int) -> [UInt8] {
        marker(0xD, count: keys.count) + references(keys, size: size) + references(values, size: size)
    }

    /// The file: header, the objects in order (each followed by its `padding`, if any), the
    /// offset table of 4-byte offsets, the trailer.
    static func file(_ objects: [[UInt8]], referenceSize: Int = 1, padding: [Int: [UInt8]] = [:]) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(bytes.count)
            bytes += object
            bytes += padding[index] ?? []
        }
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), width: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, UInt8(referenceSize)]
        bytes += bigEndian(UInt64(objects.count), width: 8) + bigEndian(0, width: 8) + bigEndian(UInt64(table), width: 8)
        return bytes
    }

    /// An archive whose root is objects 1–4 as keys and 5, 6, 7, 9 as values, `$objects` being
    /// object 7 and `$top` the empty dictionary 9; `objects` replaces or adds from index 5 on.
    static func archive(archiver: [UInt8] = ascii("NSKeyedArchiver"), objectList: [UInt64], extra: [[UInt8]] = [],
                        referenceSize: Int = 1, rootKeys: [UInt64] = [1, 2, 3, 4], padding: [Int: [UInt8]] = [:]) -> [UInt8] {
        let size = referenceSize
        return file([dictionary(rootKeys, [5, 6, 7, 9], size: size), ascii("$archiver"), ascii("$version"), ascii("$objects"), ascii("$top"),
                     archiver, integer(100_000), array(objectList, size: size), ascii("$null"), dictionary([], [], size: size)] + extra,
                    referenceSize: size, padding: padding)
    }
}

extension DirectBinaryDecodingTests {
    /// Review finding: `$archiver` as data whose bytes and the filler after them spell
    /// "NSKeyedArchiver" in UTF-16 was read as a string (and a large one read past the file).
    @Test func archiverThatIsNotAStringIsLeftToTheGraph() throws {
        let text = Array("NSKeyedArchiver".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let spelled = HandMadeBinaryPlist.archive(archiver: HandMadeBinaryPlist.data(Array(text[..<15])), objectList: [8], padding: [5: Array(text[15...])])
        #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: spelled) }
        #expect(BinaryArchiveTable.read(spelled, options: .default) == nil)
        #expect(!Self.compare(spelled, "data $archiver spelling the name"))

        let large = HandMadeBinaryPlist.archive(archiver: HandMadeBinaryPlist.data([UInt8](repeating: 0x41, count: 1 << 20)), objectList: [8])
        #expect(BinaryArchiveTable.read(large, options: .default) == nil)
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver(bytes: large, registry: Fleet.registry) }
    }

    /// Review finding: with 8-byte references, 0xFFFF_FFFF_FFFF_FFFF loaded as -1 and passed
    /// every `< objectCount` check (an index before the start of the validator's tables).
    @Test func negativeEightByteReferencesAreRefused() throws {
        let minusOne = UInt64.max
        let inObjects = HandMadeBinaryPlist.archive(objectList: [8, minusOne], referenceSize: 8)
        let inRootKeys = HandMadeBinaryPlist.archive(objectList: [8], referenceSize: 8, rootKeys: [minusOne, 2, 3, 4])
        for bytes in [inObjects, inRootKeys] {
            #expect(BinaryArchiveTable.read(bytes, options: .default) == nil)
            #expect(throws: ArchiveError.self) { try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry) }
        }
        // The same shape with a reference in range is read, so the refusal is the reference's.
        let valid = HandMadeBinaryPlist.archive(objectList: [8], referenceSize: 8)
        #expect(Self.compare(valid, "8-byte references"))
    }

    /// Review finding: one class dictionary listed many times in `$objects` was measured again
    /// at every listing, and the tree-size budget was checked only at the end (quadratic work
    /// from a small file). Now the size is remembered and the budget checked as it grows.
    @Test func repeatedClassDictionaryIsMeasuredOnce() throws {
        let count = 2048
        let classDictionary = HandMadeBinaryPlist.dictionary([11, 13] + [UInt64](repeating: 15, count: count - 2),
                                                             [12, 14] + [UInt64](repeating: 16, count: count - 2), size: 2)
        let extra = [classDictionary, HandMadeBinaryPlist.ascii("$classname"), HandMadeBinaryPlist.ascii("X"),
                     HandMadeBinaryPlist.ascii("$classes"), HandMadeBinaryPlist.array([12], size: 2),
                     HandMadeBinaryPlist.ascii("k"), [0x10, 0x01]]
        let bytes = HandMadeBinaryPlist.archive(objectList: [8] + [UInt64](repeating: 10, count: count), extra: extra, referenceSize: 2)
        // Both paths agree on acceptance under the default budget and under one it exceeds.
        Self.compare(bytes, "one class dictionary listed \(count) times")
        var tight = ArchiveReadingOptions()
        tight.propertyList.maximumExpandedValueCount = count * 100
        #expect(BinaryArchiveTable.read(bytes, options: tight) == nil)
        #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes, options: tight) }
    }

    /// Review finding: many class dictionaries sharing one long `$classes` array each made its
    /// own copy of the names (1.75 MB of file, 1.15 GB of names). The names of one array are now
    /// made once and shared.
    @Test func sharedClassChainsAreReadOnce() throws {
        let dictionaries = 2000, names = 1024
        var extra: [[UInt8]] = [HandMadeBinaryPlist.ascii("$classname"), HandMadeBinaryPlist.ascii("X"), HandMadeBinaryPlist.ascii("$classes"),
                                HandMadeBinaryPlist.array([UInt64](repeating: 11, count: names), size: 2)]
        // Distinct class dictionaries (objects 14 on), all naming the one array, object 13.
        extra += [[UInt8]](repeating: HandMadeBinaryPlist.dictionary([10, 12], [11, 13], size: 2), count: dictionaries)
        let bytes = HandMadeBinaryPlist.archive(objectList: [8] + (0..<dictionaries).map { UInt64(14 + $0) }, extra: extra, referenceSize: 2)
        #expect(Self.compare(bytes, "\(dictionaries) class dictionaries sharing \(names) names"))
        let table = try #require(BinaryArchiveTable.read(bytes, options: .default))
        #expect(table.descriptors.count == dictionaries)
        let storages = Set(table.descriptors.map { $0.classes.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) } })
        #expect(storages.count == 1, "each class dictionary made its own copy of the shared names")
        // The graph path shares them too (it had the same amplification).
        let graph = try ArchiveGraph(bytes: bytes)
        let graphStorages = Set(graph.objects.compactMap { object -> Int? in
            guard case .classDescriptor(let descriptor) = object else { return nil }
            return descriptor.classes.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
        })
        #expect(graphStorages.count == 1, "the graph made a copy of the shared names per class dictionary")
    }
}

/// Files for the second review: like `HandMadeBinaryPlist.archive`, with `$top` given, and with
/// extra offset-table entries pointing at the bytes of existing objects (objects sharing bytes).
enum AliasedBinaryPlist {
    typealias P = HandMadeBinaryPlist

    static func archive(objectList: [UInt64], extra: [[UInt8]], topKeys: [UInt64] = [], topValues: [UInt64] = [],
                        aliases: [Int] = [], referenceSize size: Int = 2) -> [UInt8] {
        let objects: [[UInt8]] = [P.dictionary([1, 2, 3, 4], [5, 6, 7, 9], size: size), P.ascii("$archiver"), P.ascii("$version"),
                                  P.ascii("$objects"), P.ascii("$top"), P.ascii("NSKeyedArchiver"), P.integer(100_000),
                                  P.array(objectList, size: size), P.ascii("$null"), P.dictionary(topKeys, topValues, size: size)] + extra
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        offsets += aliases.map { offsets[$0] }
        let table = bytes.count
        for offset in offsets { bytes += P.bigEndian(UInt64(offset), width: 4) }
        bytes += [0, 0, 0, 0, 0, 0, 4, UInt8(size)]
        bytes += P.bigEndian(UInt64(offsets.count), width: 8) + P.bigEndian(0, width: 8) + P.bigEndian(UInt64(table), width: 8)
        return bytes
    }

    /// Distinct storages among long strings: where their UTF-8 bytes live.
    static func storages(_ strings: [String]) -> Int {
        Set(strings.map { text in text.utf8.withContiguousStorageIfAvailable { Int(bitPattern: $0.baseAddress) } ?? -1 }).count
    }
}

extension DirectBinaryDecodingTests {
    /// Second review: many offset-table entries at one long string, all in `$objects`. The reader
    /// refuses at the second copy (decoded contents past the file size); the table checked that
    /// only at the end, after scanning the string once per alias. Both now refuse at once (the
    /// cost is documented, not timed here).
    @Test func aliasedLongStringIsRefusedByBoth() throws {
        let aliases = 300
        let bytes = AliasedBinaryPlist.archive(objectList: [8, 10] + (0..<aliases).map { UInt64(11 + $0) },
                                               extra: [HandMadeBinaryPlist.ascii(String(repeating: "a", count: 64 << 10))],
                                               aliases: [Int](repeating: 10, count: aliases))
        #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        #expect(BinaryArchiveTable.read(bytes, options: .default) == nil)
    }

    /// Second review: one object whose fields all name one array was walked fields × elements
    /// times before the tree-size budget was checked; the budget is now checked per field.
    @Test func fieldsSharingOneArrayMeetTheBudgetPerField() throws {
        var tight = ArchiveReadingOptions()
        tight.propertyList.maximumExpandedValueCount = 10_000
        let side = 1000
        let extra: [[UInt8]] = [HandMadeBinaryPlist.dictionary([UInt64](repeating: 11, count: side), [UInt64](repeating: 12, count: side), size: 2),
                                HandMadeBinaryPlist.ascii("k"), HandMadeBinaryPlist.array([UInt64](repeating: 13, count: side), size: 2), [0x10, 0x01]]
        let bytes = AliasedBinaryPlist.archive(objectList: [8, 10], extra: extra)
        #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes, options: tight) }
        #expect(BinaryArchiveTable.read(bytes, options: tight) == nil)
    }

    /// Second review: a long string named many times (in `$classes`, as `$classname`, in `$top`,
    /// by several `$objects` entries) was made once per reference; the value tree shares one.
    @Test func longStringNamedManyTimesIsMadeOnce() throws {
        let length = 16 << 10, names = 200, classDictionaries = 20, topEntries = 50
        // 10: class dictionary; 11 "$classname"; 12 the long string; 13 "$classes"; 14 an array naming
        // 12 `names` times; 15 unused; 16 the chain [12]; 17 the `$top` key "k"; 18…: class dictionaries.
        let extra = [HandMadeBinaryPlist.dictionary([11, 13], [12, 14], size: 2), HandMadeBinaryPlist.ascii("$classname"),
                     HandMadeBinaryPlist.ascii(String(repeating: "N", count: length)), HandMadeBinaryPlist.ascii("$classes"),
                     HandMadeBinaryPlist.array([UInt64](repeating: 12, count: names), size: 2), HandMadeBinaryPlist.ascii("unused"),
                     HandMadeBinaryPlist.array([12], size: 2), HandMadeBinaryPlist.ascii("k")]
            + [[UInt8]](repeating: HandMadeBinaryPlist.dictionary([11, 13], [12, 16], size: 2), count: classDictionaries)
        let bytes = AliasedBinaryPlist.archive(objectList: [8, 10, 12, 12] + (0..<classDictionaries).map { UInt64(18 + $0) }, extra: extra,
                                               topKeys: [UInt64](repeating: 17, count: topEntries), topValues: [UInt64](repeating: 12, count: topEntries))
        #expect(Self.compare(bytes, "a long string named many times"))
        let table = try #require(BinaryArchiveTable.read(bytes, options: .default))
        #expect(AliasedBinaryPlist.storages(table.descriptors[0].classes) == 1)
        #expect(AliasedBinaryPlist.storages(table.descriptors.map(\.name)) == 1)
        #expect(AliasedBinaryPlist.storages(table.top.entries.compactMap { if case .string(let text) = $0.value { return text } else { return nil } }) == 1)
        // Typed decoding reads the same entry, and two entries naming one object, as one value.
        let store = ArchiveObjectStore.binary(table)
        let read = [2, 3, 2].compactMap { uid -> String? in if case .string(let text) = store.object(uid) { return text } else { return nil } }
        #expect(read.count == 3)
        #expect(AliasedBinaryPlist.storages(read) == 1)
    }
}

extension DirectBinaryDecodingTests {
    /// A collection's references are read from the bytes as its elements are decoded: UID
    /// objects of one and two bytes in one array, behind two-byte object references, in order;
    /// and an element that is not a UID is named by the general path, in both formats.
    @Test func collectionReferencesAreReadInPlace() throws {
        let words = (0..<300).map { "word \($0)" }
        var objects: [PropertyListValue] = ["$null", ["$class": SecurityPolicyTests.uid(2), "NS.objects": .array(words.indices.map { SecurityPolicyTests.uid(UInt64($0 + 3)) })],
                                            SecurityPolicyTests.classDictionary(["NSArray", "NSObject"])]
        objects += words.map { .string($0) }
        let plist: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": SecurityPolicyTests.uid(1)], "$objects": .array(objects)]
        let binary = try BinaryPropertyListWriter().write(plist)
        #expect(BinaryArchiveTable.read(binary, options: .default) != nil)
        #expect(try KeyedUnarchiver.unarchive([String].self, from: binary, registry: ArchiveRegistry()) == words)

        let notReferences: [(String, [PropertyListValue])] = [
            ("NS.objects[1]", ["$null", ["$class": SecurityPolicyTests.uid(2), "NS.objects": [SecurityPolicyTests.uid(3), 7]],
                               SecurityPolicyTests.classDictionary(["NSArray", "NSObject"]), "a"]),
            ("NS.keys[1]", ["$null", ["$class": SecurityPolicyTests.uid(2), "NS.keys": [SecurityPolicyTests.uid(3), "b"], "NS.objects": [SecurityPolicyTests.uid(3), SecurityPolicyTests.uid(3)]],
                            SecurityPolicyTests.classDictionary(["NSDictionary", "NSObject"]), "a"]),
        ]
        for (named, objects) in notReferences {
            let plist: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": SecurityPolicyTests.uid(1)], "$objects": .array(objects)]
            for bytes in [try BinaryPropertyListWriter().write(plist), try XMLPropertyListWriter().write(plist)] {
                let error = SecurityPolicyTests.error { () throws(ArchiveError) in
                    if named.hasPrefix("NS.keys") {
                        _ = try KeyedUnarchiver.unarchive([String: String].self, from: bytes, registry: ArchiveRegistry())
                    } else {
                        _ = try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: ArchiveRegistry())
                    }
                }
                #expect(error?.code == .typeMismatch)
                #expect(error?.uid == PropertyListUID(1))
                #expect(error?.message.hasPrefix("\(named) is a") == true, "\(error?.message ?? "no error")")
            }
        }
    }
}
