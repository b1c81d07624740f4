import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The Codable bridge and the property-list tree as an archived object, against Foundation on
/// Linux: its `PropertyListEncoder`/`PropertyListDecoder` for the conventions, and its
/// `NSKeyedArchiver`/`NSKeyedUnarchiver` for the archives. Apple's `encodeEncodable(_:forKey:)`
/// is `PropertyListEncoder` to a tree of plist objects, then `encode(tree, forKey:)`; Foundation
/// on Linux lacks that method, so the tests build the same archive from its parts.
@Suite struct CodableBridgeTests {
    struct Engine: Codable, Equatable {
        var horsepower: Int32
        var hours: UInt64
    }

    enum Kind: Codable, Equatable {
        case glider(winchLaunches: Int)
        case powered(Engine)
    }

    struct Logbook: Codable, Equatable {
        var registration: String
        var tail: String?
        var remark: String?
        var kinds: [Kind]
        var limits: [String: Double]
        var counters: [UInt64]
        var smallest: Int8
        var ratio: Float
        var flag: Bool
        var photo: Data
        var inspected: Date
        var nested: [[Int]]
        var identifier: UUID
        var home: URL
    }

    static let sample = Logbook(
        registration: "D-KXYZ", tail: "飛行機 é", remark: nil,
        kinds: [.glider(winchLaunches: 412), .powered(Engine(horsepower: -1, hours: .max))],
        limits: ["vne": 270.5, "va": 180], counters: [0, 1 << 40, .max], smallest: .min, ratio: 0.1,
        flag: true, photo: Data([0, 1, 2, 0xFF]), inspected: Date(timeIntervalSinceReferenceDate: 700_000_000.25),
        nested: [[], [1, -2, 3]], identifier: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(),
        home: URL(string: "https://example.org/hangar?bay=3") ?? URL(fileURLWithPath: "/"))

    /// A dictionary's entries sorted by key, all the way down: Foundation's dictionaries have no
    /// order, ours keep the encoding order.
    static func canonical(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements): return .array(elements.map(canonical))
        case .set(let elements): return .set(elements.map(canonical))
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(entries: dictionary.entries
                .map { PropertyListDictionary.Entry(key: $0.key, value: canonical($0.value)) }
                .sorted { $0.key < $1.key }))
        default: return value
        }
    }

    @Test func encoderMakesWhatFoundationsPropertyListEncoderMakes() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let foundations = try BinaryPropertyListReader.readValue([UInt8](try encoder.encode(Self.sample)))
        let ours = try PropertyListValueEncoder().encode(Self.sample)
        #expect(Self.canonical(ours) == Self.canonical(foundations))
        // Spot checks that the comparison sees what matters.
        guard case .dictionary(let top) = ours else { Issue.record("not a dictionary"); return }
        #expect(top["remark"] == nil)
        #expect(top["ratio"] == .real(.float32(0.1)))
        #expect(top["inspected"] == .date(PropertyListDate(secondsSinceReferenceDate: 700_000_000.25)))
        #expect(top["photo"] == .data([0, 1, 2, 0xFF]))
        #expect(top.keys.first == "registration")
    }

    /// A Swift `Dictionary` or `Set` encodes its contents in hash order, which changes with each
    /// process's seed and, within one process, with a dictionary's capacity and history. What the
    /// encoder makes of them is sorted, so archives of them are the same bytes on every run.
    @Test func unorderedCollectionsEncodeTheSameWhateverTheirHashOrder() throws {
        let words = (0..<40).map { "w\($0 * 7919 % 1000)" }
        var small: [String: Int] = [:]
        for (index, word) in words.enumerated() { small[word] = index }
        var large = [String: Int](minimumCapacity: 4096)
        for (index, word) in words.enumerated().reversed() { large[word] = index }
        #expect(Array(small.keys) != Array(large.keys), "the two dictionaries must iterate differently for this test to mean anything")
        let encoder = PropertyListValueEncoder()
        let first = try encoder.encode(small), second = try encoder.encode(large)
        #expect(first == second)
        guard case .dictionary(let dictionary) = first else { Issue.record("not a dictionary"); return }
        #expect(dictionary.keys == words.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        // Sets by value; dictionaries whose keys are not strings or integers, as sorted pairs.
        let numbers = Set((0..<300).map { $0 * 37 % 1000 - 500 })
        #expect(try encoder.encode(numbers) == .array(numbers.sorted().map { .integer(PropertyListInteger(Int64($0))) }))
        let byDouble: [Double: String] = [2.5: "b", -1: "a", 10: "c"]
        #expect(try encoder.encode(byDouble) == encoder.encode(Dictionary(uniqueKeysWithValues: byDouble.reversed())))
        // Keys that encode alike (every NaN is a key of its own) are ordered by their values.
        var nans: [Double: String] = [:], reversed: [Double: String] = [:]
        for value in ["a", "b", "c", "d"] { nans[.nan] = value }
        // Each dictionary's hash seed comes from its storage's address: rarely, the two iterate
        // alike; then another is made. The ones tried are kept alive, so that a new one is not
        // given the storage (the address, the seed, the order) of the one just dropped.
        var tried: [[Double: String]] = []
        for _ in 0..<50 where reversed.isEmpty || Array(nans.values) == Array(reversed.values) {
            tried.append(reversed)
            reversed = [:]
            for value in ["d", "c", "b", "a"] { reversed[.nan] = value }
        }
        withExtendedLifetime(tried) {}
        #expect(nans.count == 4 && Array(nans.values) != Array(reversed.values))
        #expect(try encoder.encode(nans) == encoder.encode(reversed))
        // The bytes of an archive, and decoding back.
        let archive = { (value: [String: Int]) throws -> [UInt8] in
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encodeEncodable(value, forKey: "counts")
            return try archiver.finish()
        }
        #expect(try archive(small) == archive(large))
        #expect(try KeyedUnarchiver(bytes: archive(small), registry: ArchiveRegistry()).decodeDecodable([String: Int].self, forKey: "counts") == small)
    }

    @Test func nilIsTheStringNullAsInFoundation() throws {
        let values: [Int?] = [1, nil, 3]
        let ours = try PropertyListValueEncoder().encode(values)
        #expect(ours == .array([.integer(1), .string("$null"), .integer(3)]))
        let foundations = try BinaryPropertyListReader.readValue([UInt8](try PropertyListEncoder().encode(values)))
        #expect(ours == foundations)
        #expect(try PropertyListValueDecoder().decode([Int?].self, from: ours) == values)
    }

    @Test func decoderReadsFoundationsBytesAndFoundationReadsOurs() throws {
        let foundationBytes = [UInt8](try PropertyListEncoder().encode(Self.sample))
        let decoded = try PropertyListValueDecoder().decode(Logbook.self, from: try BinaryPropertyListReader.readValue(foundationBytes))
        #expect(decoded == Self.sample)
        let ourBytes = try BinaryPropertyListWriter().write(try PropertyListValueEncoder().encode(Self.sample))
        #expect(try PropertyListDecoder().decode(Logbook.self, from: Data(ourBytes)) == Self.sample)
    }

    @Test func decodingFaultsNameTheCodingPath() throws {
        var tree = try PropertyListValueEncoder().encode(Self.sample)
        guard case .dictionary(var top) = tree else { Issue.record("not a dictionary"); return }
        top["counters"] = .array([.integer(1), .integer(-1)])
        tree = .dictionary(top)
        do {
            _ = try PropertyListValueDecoder().decode(Logbook.self, from: tree)
            Issue.record("a negative UInt64 was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["counters", "Index 1"])
        }
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Float.self, from: .real(.float64(1e39))) }
        #expect(try PropertyListValueDecoder().decode(Int.self, from: .real(.float64(3))) == 3)
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Int.self, from: .real(.float64(3.5))) }
        // Strict as Foundation's by default; the archive bridge reads booleans and 0/1 as each other.
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Int.self, from: .bool(true)) }
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Bool.self, from: .integer(0)) }
        var lenient = PropertyListValueDecoder()
        lenient.booleansAsIntegers = true
        #expect(try lenient.decode(Int.self, from: .bool(true)) == 1)
        #expect(try lenient.decode(Bool.self, from: .integer(0)) == false)
        #expect(throws: DecodingError.self) { try lenient.decode(Bool.self, from: .integer(2)) }
        #expect(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Int.self, from: .string("1")) }
    }

    /// A class hierarchy with `superEncoder()`: Foundation stores the superclass's part under "super".
    class Vehicle: Codable, Equatable {
        var wheels: Int
        init(wheels: Int) { self.wheels = wheels }
        static func == (lhs: Vehicle, rhs: Vehicle) -> Bool { lhs.wheels == rhs.wheels && type(of: lhs) == type(of: rhs) }
    }

    final class Tug: Vehicle {
        var towbar: String
        init(wheels: Int, towbar: String) {
            self.towbar = towbar
            super.init(wheels: wheels)
        }
        enum CodingKeys: String, CodingKey { case towbar }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            towbar = try container.decode(String.self, forKey: .towbar)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(towbar, forKey: .towbar)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func superEncodersMatchFoundation() throws {
        let tug = Tug(wheels: 4, towbar: "short")
        let ours = try PropertyListValueEncoder().encode(tug)
        #expect(Self.canonical(ours) == Self.canonical(try BinaryPropertyListReader.readValue([UInt8](try PropertyListEncoder().encode(tug)))))
        #expect(ours == ["towbar": "short", "super": ["wheels": 4]])
        let back = try PropertyListValueDecoder().decode(Tug.self, from: ours)
        #expect(back.towbar == "short" && back.wheels == 4)
    }

    // MARK: Archives

    static let plistClasses: [AnyClass] = [NSDictionary.self, NSMutableDictionary.self, NSArray.self, NSMutableArray.self,
                                           NSString.self, NSNumber.self, NSData.self, NSDate.self]

    /// Ours → Foundation: the archived tree, read by Foundation's unarchiver and decoded by its
    /// `PropertyListDecoder` — Apple's `decodeDecodable(_:forKey:)` on Linux.
    @Test(arguments: [ArchiveFormat.binary, .xml])
    func foundationDecodesOurEncodable(format: ArchiveFormat) throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encodeEncodable(Self.sample, forKey: "logbook")
        let bytes = try archiver.finish(format: format)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = true
        let tree = try #require(unarchiver.decodeObject(of: Self.plistClasses, forKey: "logbook"))
        let plist = try PropertyListSerialization.data(fromPropertyList: tree, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(Logbook.self, from: plist) == Self.sample)
        // The containers are archived as Foundation's property-list encoder makes them.
        let graph = try ArchiveGraph(bytes: bytes)
        let names = Set(graph.objects.indices.compactMap { graph.className(of: PropertyListUID(UInt64($0))) })
        #expect(names == ["NSMutableDictionary", "NSMutableArray", "NSDate"])
    }

    /// Foundation → ours: Foundation's `PropertyListEncoder` tree archived by its
    /// `NSKeyedArchiver` (what Apple's `encodeEncodable` writes), decoded by ours. Foundation on
    /// Linux stores the tree's `true` as the integer 1 and, in binary, merges it with the 1 of
    /// `nested`, so this also checks that booleans and 0/1 are read as each other.
    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func weDecodeFoundationsEncodable(format: PropertyListSerialization.PropertyListFormat) throws {
        let tree = try PropertyListSerialization.propertyList(from: try PropertyListEncoder().encode(Self.sample), format: nil)
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(tree, forKey: "logbook")
        archiver.finishEncoding()
        let unarchiver = try KeyedUnarchiver(bytes: [UInt8](archiver.encodedData), registry: ArchiveRegistry())
        #expect(try unarchiver.decodeDecodable(Logbook.self, forKey: "logbook") == Self.sample)
        let again = try KeyedUnarchiver(bytes: [UInt8](archiver.encodedData), registry: ArchiveRegistry())
        #expect(try again.decodeDecodable(Logbook.self, forKey: "absent") == nil)
    }

    @Test func bridgeFaultsCarryTheArchiveAndCodingPath() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encodeEncodable(["limits": ["vne": "fast"]], forKey: "root")
        let bytes = try archiver.finish()
        do {
            _ = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).decodeDecodable([String: [String: Double]].self)
            Issue.record("a string was decoded as a Double")
        } catch {
            #expect(error.code == .typeMismatch)
            #expect(error.keyPath.description == "root.limits.vne")
        }
    }

    /// A tree admits the Foundation property-list classes only: a model class inside is refused
    /// before anything is made of it.
    @Test func aTreeRefusesOtherClasses() throws {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        let archiver = KeyedArchiver(registry: registry)
        try archiver.encode(ArchiveArray(["fine", Airplane(model: "ASK 21", registrationNumber: "D-1234", airframeHours: 3)]), forKey: "root")
        let bytes = try archiver.finish()
        do {
            _ = try KeyedUnarchiver(bytes: bytes, registry: registry).decode(PropertyListValue.self)
            Issue.record("a model class was read as a property-list value")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.classChain.first == "Airplane")
            #expect(error.keyPath.description == "root[1]")
        }
    }

    /// An untyped collection from Foundation — mixed strings, numbers, dates, nested arrays and
    /// sets — through the typed API, keys in the archive's order.
    @Test func mixedFoundationCollectionsDecodeAsPropertyListValues() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        let dictionary: NSDictionary = ["name": "Ka 8", "seats": 1, "ratio": 27.5, "since": date,
                                        "tags": ["club", 1958] as NSArray, "flags": NSSet(array: ["solo"])]
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(dictionary, forKey: "root")
        archiver.finishEncoding()
        let value = try KeyedUnarchiver(bytes: [UInt8](archiver.encodedData), registry: ArchiveRegistry()).decode(PropertyListValue.self)
        let expected: PropertyListValue = ["name": "Ka 8", "seats": .integer(1), "ratio": .real(.float64(27.5)), "since": .date(PropertyListDate(secondsSinceReferenceDate: 12.5)),
                                           "tags": ["club", .integer(1958)], "flags": .set(["solo"])]
        #expect(Self.canonical(value) == Self.canonical(expected))
        // And back: our archive of the tree reads in Foundation as the same dictionary.
        let ours = KeyedArchiver(registry: ArchiveRegistry())
        try ours.encode(value, forKey: "root")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(try ours.finish()))
        unarchiver.requiresSecureCoding = true
        let read = try #require(unarchiver.decodeObject(of: Self.plistClasses + [NSSet.self], forKey: "root") as? NSDictionary)
        #expect(read == dictionary)
    }

    /// Numbers at the top level are inline, as Apple's archiver writes them and as Foundation's
    /// `decodeInteger(forKey:)` requires — in both directions.
    @Test func topLevelNumbersAreInlineBothWays() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(42, forKey: "count")
        try archiver.encode(2.5, forKey: "ratio")
        try archiver.encode(true, forKey: "flag")
        try archiver.encode(UInt64.max, forKey: "big")
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(try archiver.finish()))
        #expect(unarchiver.decodeInteger(forKey: "count") == 42)
        #expect(unarchiver.decodeDouble(forKey: "ratio") == 2.5)
        #expect(unarchiver.decodeBool(forKey: "flag"))

        let foundation = NSKeyedArchiver(requiringSecureCoding: true)
        foundation.encode(42, forKey: "count")
        foundation.encode(2.5, forKey: "ratio")
        foundation.encode(true, forKey: "flag")
        foundation.encode(NSNumber(value: 7), forKey: "boxed")
        foundation.finishEncoding()
        let ours = try KeyedUnarchiver(bytes: [UInt8](foundation.encodedData), registry: ArchiveRegistry())
        #expect(try ours.decode(Int.self, forKey: "count") == 42)
        #expect(try ours.decode(Double.self, forKey: "ratio") == 2.5)
        #expect(try ours.decode(Bool.self, forKey: "flag"))
        #expect(try ours.decode(Int.self, forKey: "boxed") == 7)
        #expect(try ours.decodeIfPresent(Int.self, forKey: "absent") == nil)
    }
}

@Suite struct LocalizedErrorTests {
    /// Foundation's `localizedDescription` shows our description, not the generic sentence.
    @Test func localizedDescriptionIsTheDescription() throws {
        do {
            _ = try KeyedUnarchiver(bytes: [0x62, 0x70], registry: ArchiveRegistry())
            Issue.record("two bytes were read as an archive")
        } catch {
            let bridged: any Error = error
            #expect(bridged.localizedDescription == error.description)
            #expect(bridged.localizedDescription.contains("invalidPropertyList"))
            let underlying: any Error = try #require(error.propertyListError)
            #expect(underlying.localizedDescription == error.propertyListError?.description)
        }
    }
}

@Suite struct FoundationRootRemedyTests {
    /// An array decoded as one model: the refusal says to decode a collection, not to register
    /// the model under the name `NSArray` (which would admit any array as an airplane).
    @Test func aCollectionAskedForAsAModelGetsCollectionAdvice() throws {
        var registry = ArchiveRegistry()
        registry.register(Airplane.self)
        let bytes = try KeyedArchiver.archive([Airplane(model: "ASK 21", registrationNumber: "D-1234", airframeHours: 3)], registry: registry)
        do {
            _ = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: registry)
            Issue.record("an array was decoded as an airplane")
        } catch {
            #expect(error.code == .classNotAllowed)
            let remedy = try #require(error.remedy)
            #expect(remedy.contains("[Airplane]"))
            #expect(!remedy.contains("register("))
        }
    }
}

@Suite struct FloatRangeTests {
    /// A double beyond `Float`'s range is refused, as field and as number object, instead of
    /// becoming infinity; an infinite double stays infinite and an ordinary one is rounded.
    @Test func doublesBeyondFloatRangeAreRefused() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.topLevelEncoder.encode(1e300, forKey: "large")
        try archiver.topLevelEncoder.encode(Double.infinity, forKey: "infinite")
        try archiver.topLevelEncoder.encode(0.1, forKey: "tenth")
        try archiver.encode([1e300], forKey: "objects")
        let bytes = try archiver.finish()
        let decoder = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).topLevelDecoder
        #expect(throws: ArchiveError.self) { try decoder.decode(Float.self, forKey: "large") }
        #expect(try decoder.decode(Float.self, forKey: "infinite") == .infinity)
        #expect(try decoder.decode(Float.self, forKey: "tenth") == Float(0.1))
        do {
            _ = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).decode([Float].self, forKey: "objects")
            Issue.record("1e300 became a Float")
        } catch {
            #expect(error.code == .valueOutOfRange)
            #expect(error.keyPath.description == "objects[0]")
        }
    }
}

@Suite struct PropertyListTreeBudgetTests {
    /// `levels` arrays, each holding the next twice, the last two copies of one string: a tree
    /// of 2^(levels+1) − 1 values in an archive of levels + 3 objects.
    static func doublingArchive(levels: Int) throws -> [UInt8] {
        try arrayArchive(levels: levels) { next in [next, next] }
    }

    /// An archive of `$null`, then `levels` NSArrays, array `level` holding `elements(next)`
    /// with `next` the reference to the one after it, then the string "leaf", then NSArray's
    /// class dictionary; the root is the first array.
    static func arrayArchive(levels: Int, first: [PropertyListValue]? = nil, elements: (PropertyListValue) -> [PropertyListValue]) throws -> [UInt8] {
        let classUID = PropertyListValue.uid(PropertyListUID(UInt64(levels + 2)))
        var objects: [PropertyListValue] = ["$null"]
        for level in 1...levels {
            let next = PropertyListValue.uid(PropertyListUID(UInt64(level + 1)))
            let members = level == 1 ? (first ?? elements(next)) : elements(next)
            objects.append(["$class": classUID, "NS.objects": .array(members)])
        }
        objects.append("leaf")
        objects.append(["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]])
        let root: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": .integer(100000),
                                       "$top": ["root": .uid(PropertyListUID(1))], "$objects": .array(objects)]
        return try BinaryPropertyListWriter().write(root)
    }

    /// The expanded size is checked as the tree is built: exactly the tree's size passes, one
    /// less is `budgetExceeded`; 64 levels (2^65 values) stop at once under the default.
    @Test func sharedContainersCannotExpandPastTheBudget() throws {
        let bytes = try Self.doublingArchive(levels: 20)
        var options = ArchiveReadingOptions()
        options.propertyList.maximumExpandedValueCount = (1 << 21) - 1
        let tree = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry(), options: options).decode(PropertyListValue.self)
        guard case .array(let top) = tree else { Issue.record("not an array"); return }
        #expect(top.count == 2)
        options.propertyList.maximumExpandedValueCount = (1 << 21) - 2
        #expect(throws: ArchiveError.self) {
            try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry(), options: options).decode(PropertyListValue.self)
        }
        let laughs = try Self.doublingArchive(levels: 64)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            do {
                _ = try KeyedUnarchiver(bytes: laughs, registry: ArchiveRegistry()).decodeDecodable([[[String]]].self)
                Issue.record("a tree of 2^65 values was accepted")
            } catch let error as ArchiveError {
                #expect(error.code == .budgetExceeded)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(elapsed < .seconds(5))
    }

    /// The corpus's 64-level reference explosion, the typed fuzz target's first input to time out
    /// once it decoded trees (Docs/Development/Fuzzing.md, F8): refused under the default budget.
    @Test func corpusReferenceExplosionIsRefusedAsATree() throws {
        for file in ["reference-explosion-64.plist", "reference-explosion-64-typed.plist"] {
            let bytes = try HostileArchiveTests.bytes(file)
            do {
                _ = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).decode(PropertyListValue.self)
                Issue.record("\(file): a 2^64-value tree was accepted")
            } catch {
                #expect(error.code == .budgetExceeded, "\(file)")
            }
        }
    }
}

@Suite struct TopLevelFamilyArrayTests {
    /// A top-level array of struct family members, written and read without the top-level
    /// encoder or decoder.
    @Test func topLevelArraysOfAFamilyRoundTrip() throws {
        let base = AirplaneValue(model: "ASK 21", registrationNumber: "D-1234", airframeHours: 3)
        let records: [any AirplaneRecord] = [base, GliderValue(base: base, aerotowLaunchCount: 4, winchLaunchCount: .max)]
        let archiver = KeyedArchiver(registry: Fleet.valueRegistry)
        try archiver.encode(records)
        let bytes = try archiver.finish()
        let decoded = try KeyedUnarchiver(bytes: bytes, registry: Fleet.valueRegistry).decodeArray(of: (any AirplaneRecord).self)
        #expect(decoded.count == 2)
        #expect(decoded.first as? AirplaneValue == base)
        #expect((decoded.last as? GliderValue)?.winchLaunchCount == .max)
    }
}

/// The review's cases: containers asked for again, absent super decoders, default keys, budgets
/// over many trees, deep trees and integer-backed keys.
@Suite struct CodableBridgeReviewTests {
    enum Keys: String, CodingKey { case a, b }

    struct TwiceNested: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var first = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
            try first.encode(1, forKey: .a)
            var second = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
            try second.encode(2, forKey: .b)
            var list = container.nestedUnkeyedContainer(forKey: .b)
            try list.encode(1)
            var again = container.nestedUnkeyedContainer(forKey: .b)
            try again.encode(2)
        }
    }

    /// A nested container asked for twice at one key continues the first, as in Foundation.
    @Test func nestedContainersAskedForTwiceContinue() throws {
        let ours = try PropertyListValueEncoder().encode(TwiceNested())
        let foundations = try BinaryPropertyListReader.readValue([UInt8](try PropertyListEncoder().encode(TwiceNested())))
        #expect(CodableBridgeTests.canonical(ours) == CodableBridgeTests.canonical(foundations))
        #expect(ours == ["a": ["a": .integer(1), "b": .integer(2)], "b": [.integer(1), .integer(2)]])
    }

    struct OptionalSuper: Decodable {
        var inherited: Int?
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            inherited = try Int?(from: container.superDecoder(forKey: .a))
        }
    }

    /// A super decoder whose key is absent reads as nil, as Foundation's does.
    @Test func absentSuperDecoderIsNil() throws {
        #expect(try PropertyListValueDecoder().decode(OptionalSuper.self, from: ["b": .integer(1)]).inherited == nil)
        #expect(try PropertyListDecoder().decode(OptionalSuper.self, from: try PropertyListEncoder().encode(["b": 1])).inherited == nil)
        #expect(try PropertyListValueDecoder().decode(OptionalSuper.self, from: ["a": .integer(4)]).inherited == 4)
    }

    /// The top-level number overloads take the default key `root` like the generic ones.
    @Test func topLevelNumbersDefaultToRoot() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(5)
        let bytes = try archiver.finish()
        #expect(try ArchiveGraph(bytes: bytes).topFields["root"] == .integer(5))
        #expect(try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).decode(Int.self) == 5)
    }

    /// Many references to one large tree: each is a copy for the caller, so together they are
    /// held to the budget too.
    @Test func manyCopiesOfOneTreeShareTheBudget() throws {
        // The root holds a thousand references to array 2, the top of a 16-level doubling chain.
        let copies = (0..<1000).map { _ in PropertyListValue.uid(PropertyListUID(2)) }
        let bytes = try PropertyListTreeBudgetTests.arrayArchive(levels: 17, first: copies) { next in [next, next] }
        var options = ArchiveReadingOptions()
        options.propertyList.maximumExpandedValueCount = 1 << 20
        // One tree is 2^17 − 1 values, within the budget; a thousand copies are not.
        let one = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry(), options: options)
        _ = try one.topLevelDecoder.decode(PropertyListValue.self, reference: ArchiveReference(uid: PropertyListUID(2)))
        do {
            _ = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry(), options: options).decode([PropertyListValue].self)
            Issue.record("a thousand copies of a 2^17-value tree were accepted")
        } catch {
            #expect(error.code == .budgetExceeded)
        }
    }

    /// Trees nest as deep as `maximumDepth` without recursion: 511 levels decode (in a debug
    /// build too), 513 are `depthLimitExceeded`.
    @Test(arguments: [511, 513])
    func deepTreesDoNotRecurse(levels: Int) throws {
        let bytes = try PropertyListTreeBudgetTests.arrayArchive(levels: levels) { next in [next] }
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        if levels < 512 {
            var value = try unarchiver.decode(PropertyListValue.self)
            var depth = 0
            while case .array(let elements) = value, let first = elements.first { value = first; depth += 1 }
            #expect(depth == levels)
            #expect(value == "leaf")
        } else {
            do {
                _ = try unarchiver.decode(PropertyListValue.self)
                Issue.record("\(levels) levels were accepted")
            } catch {
                #expect(error.code == .depthLimitExceeded)
            }
        }
    }

    struct Numbered: Codable {
        enum CodingKeys: Int, CodingKey { case name = 7 }
        var name: Int
    }

    /// An integer-backed coding key is a key in the error's key path, not an index.
    @Test func integerBackedKeysAreKeysInPaths() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encodeEncodable(["name": "seven"], forKey: "root")
        do {
            _ = try KeyedUnarchiver(bytes: try archiver.finish(), registry: ArchiveRegistry()).decodeDecodable(Numbered.self)
            Issue.record("a string was decoded as an Int")
        } catch {
            #expect(error.keyPath.description == "root.name")
        }
    }
}
