import Foundation
@_spi(KeyedArchiveInternals) import PropertyList
import Testing
@testable import KeyedArchive

/// The archiver writes binary and XML archives straight from its object table. The reference
/// for its bytes is the general writers run on the archive's value tree (`finishPropertyList()`),
/// whose output the property-list tests check against Core Foundation's own writers: the two
/// must agree byte for byte on every graph.
@Suite struct DirectArchiveWriterTests {
    /// A counter through the writers' mix, so that a failing graph can be made again from the
    /// seed in the message.
    struct Generator: RandomNumberGenerator {
        let seed: UInt64
        var counter: UInt64 = 0
        init(state: UInt64) { seed = state }
        mutating func next() -> UInt64 {
            counter &+= 1
            return PropertyListHash.mix(counter, seed: seed)
        }
    }

    /// Keys and class names overlap with string values on purpose: equal strings are one object
    /// wherever they occur, key or value.
    static let words = ["name", "NS.objects", "model", "Airplane", "$null", "NSObject", "é€中", "😀 ok", "root", "x"]

    static func scalar(_ random: inout Generator) -> PropertyListValue {
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return .string(words.randomElement(using: &random) ?? "")
        case 1: return .integer(PropertyListInteger(Int64.random(in: -2...300, using: &random)))
        case 2: return .integer(PropertyListInteger(UInt64.random(in: 0...UInt64.max, using: &random)))
        case 3: return .integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: true))
        case 4: return .real(Bool.random(using: &random) ? .float64([0.5, -0.0, .infinity, .nan][Int.random(in: 0..<4, using: &random)]) : .float32(2.5))
        case 5: return .bool(Bool.random(using: &random))
        case 6: return .date(PropertyListDate(secondsSinceReferenceDate: Double(Int.random(in: -5...5, using: &random)) * 1e6))
        case 7: return .data((0..<Int.random(in: 0..<20, using: &random)).map { UInt8(truncatingIfNeeded: $0 * 37) })
        default: return .string(String(repeating: "long text ", count: Int.random(in: 1...3, using: &random)))
        }
    }

    static func inlineValue(_ random: inout Generator, depth: Int) -> PropertyListValue {
        guard depth < 3, Int.random(in: 0..<4, using: &random) == 0 else { return scalar(&random) }
        let count = Int.random(in: 0..<20, using: &random)
        if Bool.random(using: &random) {
            return .array((0..<count).map { _ in inlineValue(&random, depth: depth + 1) })
        }
        var dictionary = PropertyListDictionary()
        for _ in 0..<count {
            let key = words.randomElement(using: &random) ?? ""
            let value = inlineValue(&random, depth: depth + 1)
            // Each key once: XML cannot hold a dictionary that stores a key twice.
            if dictionary[key] == nil { dictionary.append(key: key, value: value) }
        }
        return .dictionary(dictionary)
    }

    /// A random graph of generic objects and shared values, with inline values of every kind,
    /// references, arrays of references, cycles and conditional references.
    /// XML archives of these graphs are compared byte for byte with the general writer, which
    /// writes what Core Foundation writes, so by default they accept what XML cannot carry.
    static func archiver(seed: UInt64, objects: Int, xmlValueLoss: ArchiveWritingOptions.XMLValueLoss = .acceptAsCoreFoundation) throws -> KeyedArchiver {
        var random = Generator(state: seed)
        let pool: [any ArchiveObjectEncodable] = words.map { ArchiveSharedValue(.string($0)) }
            + [ArchiveSharedValue(.integer(PropertyListInteger(Int64(7)))), ArchiveSharedValue(.real(.float64(0.5))), ArchiveSharedValue(.bool(true))]
        let classPool = [["Airplane", "NSObject"], ["Glider", "Airplane", "NSObject"], ["NSArray", "NSObject"], ["Pilot"]]
        let generic = (0..<max(objects, 1)).map { _ in
            ArchiveGenericObject(classes: classPool.randomElement(using: &random) ?? ["NSObject"])
        }
        func target(_ random: inout Generator) -> any ArchiveObjectEncodable {
            Bool.random(using: &random) ? (generic.randomElement(using: &random) ?? generic[0]) : (pool.randomElement(using: &random) ?? pool[0])
        }
        for object in generic {
            let keys = Array(["name", "model", "count", "NS.objects", "owner", "flag", "$0", "when"].shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random)))
            for key in keys {
                let field: ArchiveGenericObject.Field
                switch Int.random(in: 0..<5, using: &random) {
                case 0: field = .object(target(&random))
                case 1: field = .object(nil)
                case 2: field = .objects((0..<Int.random(in: 0..<5, using: &random)).map { _ in target(&random) })
                case 3: field = .conditional(generic.randomElement(using: &random) ?? generic[0])
                default: field = .inline(inlineValue(&random, depth: 0))
                }
                object.fields.append((key, field))
            }
        }
        var options = ArchiveWritingOptions()
        options.era = Bool.random(using: &random) ? .current : .classic
        options.xmlValueLoss = xmlValueLoss
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        try archiver.encode(generic[0], forKey: "root")
        if Bool.random(using: &random) {
            try archiver.encode(generic[generic.count / 2], forKey: "other")
            try archiver.topLevelEncoder.encodeRaw(.integer(PropertyListInteger(Int64(42))), forStoredKey: "IB.objectdata.version")
        }
        return archiver
    }

    static func expectSameBytes(seed: UInt64, objects: Int) throws {
        let tree = try archiver(seed: seed, objects: objects).finishPropertyList()
        let viaTree = try BinaryPropertyListWriter().write(tree)
        let direct = try archiver(seed: seed, objects: objects).finish(format: .binary)
        let same = direct == viaTree
        #expect(same, "seed \(seed), \(objects) objects: \(direct.count) bytes against \(viaTree.count)")
        // And the bytes are a readable archive with the tree's values.
        #expect(try BinaryPropertyListReader.readValue(direct) == tree, "seed \(seed)")
        let xmlViaTree = try XMLPropertyListWriter().write(tree)
        let xml = try archiver(seed: seed, objects: objects).finish(format: .xml)
        let sameXML = xml == xmlViaTree
        #expect(sameXML, "seed \(seed), \(objects) objects, XML: \(xml.count) bytes against \(xmlViaTree.count)")
    }

    @Test(arguments: 1...40)
    func randomGraphs(seed: UInt64) throws {
        try Self.expectSameBytes(seed: seed, objects: Int(seed % 13) * 4 + 1)
    }

    /// Object counts around the 1-, 2- and 4-byte reference widths, where the first attempt's
    /// bound and the exact count can fall on different sides.
    @Test(arguments: [30, 45, 60, 75, 90, 11_000, 14_000])
    func referenceWidthBoundaries(objects: Int) throws {
        try Self.expectSameBytes(seed: UInt64(objects), objects: objects)
    }

    /// An `$objects` string equal to another string of the document — a superclass name, a
    /// `$top` key, a field key, a string inside an inline value, an inline dictionary's key, a
    /// fixed string — is one object with it, as Core Foundation's writer makes it. (The direct
    /// writer skips the lookup of strings that cannot equal any of those; each string here has a
    /// length and first and last bytes that nothing else in the document has, so only its own
    /// kind of string can send it to the lookup.)
    @Test func entryStringsEqualToOtherStringsAreOneObject() throws {
        let shared = ["Qx-base-7", "Top~key", "Vv%inline", "Dk#key", "Fk^9", "NSKeyedArchiver", "$null", "$classname", "$top"]
        func archiver() throws -> KeyedArchiver {
            let leaf = ArchiveGenericObject(classes: ["Leaf", "Qx-base-7"])
            for (index, text) in shared.enumerated() { leaf.fields.append(("v\(index)", .object(ArchiveSharedValue(.string(text))))) }
            var table = PropertyListDictionary()
            table.append(key: "Dk#key", value: .bool(true))
            leaf.fields.append(("inline", .inline(.string("Vv%inline"))))
            leaf.fields.append(("table", .inline(.dictionary(table))))
            leaf.fields.append(("Fk^9", .inline(.integer(PropertyListInteger(Int64(9))))))
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(leaf, forKey: "root")
            try archiver.encode(ArchiveSharedValue(.integer(PropertyListInteger(Int64(1)))), forKey: "Top~key")
            return archiver
        }
        let viaTree = try BinaryPropertyListWriter().write(try archiver().finishPropertyList())
        let direct = try archiver().finish(format: .binary)
        #expect(direct == viaTree)
        // Independently of both writers: an ASCII string object holds its bytes as they are, so
        // each of these texts occurs in the file exactly once.
        for text in shared where text.utf8.first != UInt8(ascii: "$") {
            let needle = Array(text.utf8)
            let occurrences = (0...(direct.count - needle.count)).filter { Array(direct[$0..<($0 + needle.count)]) == needle }.count
            #expect(occurrences == 1, "\(text) is written \(occurrences) times")
        }
    }

    /// The same for integers: an `$objects` number equal to `$version`, to an inline field, to an
    /// integer inside an inline array or dictionary or to an inline `$top` field is one object
    /// with it; a number in the 16-byte form stays apart from an equal one in the ordinary form.
    @Test func entryIntegersEqualToOtherIntegersAreOneObject() throws {
        let shared: [Int64] = [100_000, 77, 5551, 9191, 123_456, 7]
        func archiver() throws -> KeyedArchiver {
            let leaf = ArchiveGenericObject(classes: ["Leaf"])
            for (index, value) in shared.enumerated() {
                leaf.fields.append(("n\(index)", .object(ArchiveSharedValue(.integer(PropertyListInteger(value))))))
            }
            leaf.fields.append(("wide", .object(ArchiveSharedValue(.integer(PropertyListInteger(high: 0, low: 7, isStoredAs128Bit: true))))))
            var table = PropertyListDictionary()
            table.append(key: "k", value: .integer(PropertyListInteger(Int64(9191))))
            leaf.fields.append(("inline", .inline(.integer(PropertyListInteger(Int64(77))))))
            leaf.fields.append(("list", .inline(.array([.integer(PropertyListInteger(Int64(5551)))]))))
            leaf.fields.append(("table", .inline(.dictionary(table))))
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(leaf, forKey: "root")
            try archiver.topLevelEncoder.encodeRaw(.integer(PropertyListInteger(Int64(123_456))), forStoredKey: "count")
            return archiver
        }
        let viaTree = try BinaryPropertyListWriter().write(try archiver().finishPropertyList())
        let direct = try archiver().finish(format: .binary)
        #expect(direct == viaTree)
    }

    @Test func fleetArchive() throws {
        let pilots = Fleet.makePilots()
        let viaTree: [UInt8] = try {
            let archiver = KeyedArchiver(registry: Fleet.registry)
            try archiver.encode(pilots, forKey: "root")
            return try BinaryPropertyListWriter().write(try archiver.finishPropertyList())
        }()
        #expect(try KeyedArchiver.archive(pilots, registry: Fleet.registry) == viaTree)
        let xmlViaTree: [UInt8] = try {
            let archiver = KeyedArchiver(registry: Fleet.registry)
            try archiver.encode(pilots, forKey: "root")
            return try XMLPropertyListWriter().write(try archiver.finishPropertyList())
        }()
        #expect(try KeyedArchiver.archive(pilots, registry: Fleet.registry, format: .xml) == xmlViaTree)
    }

    /// The macOS-made binary archives (the groups the Apple-byte tests rebuild), written by value
    /// in both formats.
    @Test func rebuiltAppleGraphs() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        var compared = 0
        for entry in ArchiveFixtures.entries where entry.format == "binary" && AppleByteEqualityTests.macOSMadeGroups.contains(where: { entry.relativePath.hasPrefix($0) }) {
            guard let graph = try? ArchiveGraph(bytes: try ArchiveFixtures.bytes(entry)),
                  let era = GraphRebuilder.era(of: graph),
                  let first = try GraphRebuilder.archiver(rebuilding: graph, era: era, sharing: .byValue),
                  let second = try GraphRebuilder.archiver(rebuilding: graph, era: era, sharing: .byValue),
                  let third = try GraphRebuilder.archiver(rebuilding: graph, era: era, sharing: .byValue) else { continue }
            compared += 1
            let tree = try second.finishPropertyList()
            #expect(try first.finish(format: .binary) == (try BinaryPropertyListWriter().write(tree)), "\(entry)")
            #expect(try third.finish(format: .xml) == (try XMLPropertyListWriter().write(tree)), "\(entry), XML")
        }
        #expect(compared >= 40, "only \(compared) Apple archives could be rebuilt")
        print("Direct archive writers: \(compared) rebuilt Apple archives byte-identical to the tree writers' output, binary and XML")
    }
}
