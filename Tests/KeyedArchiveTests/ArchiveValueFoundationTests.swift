import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// ``ArchiveValue`` against Foundation on Linux in this process: random acyclic value graphs
/// archived by `NSKeyedArchiver` decode to the values they were made of, and ours, archived from
/// those values, decode with `NSKeyedUnarchiver` to objects `isEqual:` to Foundation's own; a
/// class the registry does not admit is refused inside such a graph.
@Suite struct ArchiveValueFoundationTests {
    /// SplitMix64: a seeded generator, so that a failing graph can be made again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let strings = ["", "a", "hello", "Grüße", "日本語", "🛩️ N3918K", "line\nbreak", "$class", "NS.objects", String(repeating: "long ", count: 60)]

    /// One random value twice: as the Foundation object that holds it and as the ArchiveValue it
    /// is, made side by side from the same choices.
    static func scalar(_ generator: inout Generator) -> (NSObject, ArchiveValue) {
        switch Int.random(in: 0..<16, using: &generator) {
        case 0, 1:
            let string = strings.randomElement(using: &generator) ?? ""
            return (string as NSString, .string(string))
        case 2, 3:
            let integer = [Int64.min, -1, 0, 1, 42, Int64(Int32.max) + 1, Int64.max, Int64.random(in: -1_000_000...1_000_000, using: &generator)].randomElement(using: &generator) ?? 0
            return (NSNumber(value: integer), .integer(PropertyListInteger(integer)))
        case 4:
            let real = [0.5, 1e300, .leastNonzeroMagnitude, Double.random(in: -1e6...1e6, using: &generator)].randomElement(using: &generator) ?? 0
            return (NSNumber(value: real), .real(.float64(real)))
        case 5:
            let real = Float.random(in: -1000...1000, using: &generator)
            return (NSNumber(value: real), .real(.float32(real)))
        case 6:
            let flag = Bool.random(using: &generator)
            return (NSNumber(value: flag), .bool(flag))
        case 7:
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            return (Data(bytes) as NSData, .data(bytes))
        case 8:
            let date = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &generator)) + 0.25)
            return (date as NSDate, .date(date))
        case 9:
            let b = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let uuid = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            return (uuid as NSUUID, .uuid(uuid))
        case 10:
            // NSURL made as such: bridging a Swift URL on Linux drops its base.
            let relative = Bool.random(using: &generator)
            let text = relative ? "page\(Int.random(in: 0..<100, using: &generator)).xml" : "file:///tmp/a%20b/\(Int.random(in: 0..<100, using: &generator))"
            let base = relative ? URL(string: "https://example.com/docs/") : nil
            guard let url = URL(string: text, relativeTo: base), let object = NSURL(string: text, relativeTo: base) else { return (NSNull(), .null) }
            return (object, .url(url))
        case 11:
            return (NSNull(), .null)
        case 12:
            let ranges = [0..<3, 10..<12, 1000..<1001].filter { _ in Bool.random(using: &generator) }
            let set = NSMutableIndexSet()
            for range in ranges { set.add(in: NSRange(location: range.lowerBound, length: range.count)) }
            return (set.copy() as? NSIndexSet ?? NSIndexSet(), .indexSet(ArchiveIndexSet(ranges: ranges)))
        case 13:
            let indexes = (0..<Int.random(in: 0..<5, using: &generator)).map { _ in Int.random(in: 0..<300, using: &generator) }
            return (NSIndexPath(indexes: indexes, length: indexes.count), .indexPath(IndexPath(indexes: indexes)))
        case 14:
            let special: ArchiveSpecialValue = [
                .point(ArchivePoint(x: 1.5, y: -2)), .size(ArchiveSize(width: 0.1, height: 300)),
                .rect(ArchiveRect(x: 1.0 / 3.0, y: 0, width: 20, height: 40)), .range(ArchiveRange(location: 7, length: 3)),
            ].randomElement(using: &generator) ?? .range(ArchiveRange(location: 0, length: 0))
            return (FoundationValueMappingTests.foundationValue(special), .special(special))
        default:
            let elements = Array(Set((0..<Int.random(in: 0..<4, using: &generator)).map { _ in strings.randomElement(using: &generator) ?? "" })).sorted()
            return (NSOrderedSet(array: elements), .orderedSet(ArchiveOrderedSet(elements.map { ArchiveValue.string($0) })))
        }
    }

    static func graph(_ generator: inout Generator, depth: Int) -> (NSObject, ArchiveValue) {
        guard depth > 0, Int.random(in: 0..<3, using: &generator) > 0 else { return scalar(&generator) }
        let count = Int.random(in: 0..<5, using: &generator)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            let children = (0..<count).map { _ in graph(&generator, depth: depth - 1) }
            let mutable = Bool.random(using: &generator)
            let array: NSArray = mutable ? NSMutableArray(array: children.map(\.0)) : NSArray(array: children.map(\.0))
            return (array, .array(children.map(\.1), mutable: mutable))
        case 1:
            // Distinct strings or integers as members: Foundation merges equal members.
            var members: [String: ArchiveValue] = [:]
            for _ in 0..<count {
                let string = strings.randomElement(using: &generator) ?? ""
                members[string] = .string(string)
            }
            let set = NSSet(array: members.keys.map { $0 as NSString })
            return (set, .set(Array(members.values)))
        default:
            var keys: Set<String> = []
            var entries: [ArchiveValue.Entry] = []
            let dictionary = NSMutableDictionary()
            for position in 0..<count {
                let (object, value) = graph(&generator, depth: depth - 1)
                if Bool.random(using: &generator) {
                    let key = "k\(position)-\(strings.randomElement(using: &generator) ?? "")"
                    guard keys.insert(key).inserted else { continue }
                    dictionary[key as NSString] = object
                    entries.append(ArchiveValue.Entry(key: .string(key), value: value))
                } else {
                    // An integer key, Foundation's other common kind (device payloads' uint64 keys).
                    let key = Int64(position) * 1_000_003
                    dictionary[NSNumber(value: key)] = object
                    entries.append(ArchiveValue.Entry(key: .integer(PropertyListInteger(key)), value: value))
                }
            }
            return (dictionary, .dictionary(entries, mutable: true))
        }
    }

    /// The value as Foundation on Linux archives it: its booleans as the integers 0 and 1 (with a
    /// `1` and a `true` of one archive merged into one object), its reals widened to 64 bits, and
    /// a URL inside a collection as its absolute string (bridging drops an `NSURL`'s base there;
    /// a URL at the root keeps it, and the corpus and Foundation's reading of ours check bases).
    static func normalized(_ value: ArchiveValue) -> ArchiveValue {
        switch value {
        case .url(let url): return URL(string: url.absoluteString).map { .url($0) } ?? value
        case .bool(let flag): return .integer(PropertyListInteger(Int64(flag ? 1 : 0)))
        case .real(let real): return .real(.float64(real.doubleValue))
        case .array(let elements, let mutable): return .array(elements.map(normalized), mutable: mutable)
        case .set(let elements, let mutable): return .set(elements.map(normalized), mutable: mutable)
        case .orderedSet(let set): return .orderedSet(ArchiveOrderedSet(set.map(normalized), archivesAsMutable: set.archivesAsMutable))
        case .dictionary(let entries, let mutable):
            return .dictionary(entries.map { ArchiveValue.Entry(key: normalized($0.key), value: normalized($0.value)) }, mutable: mutable)
        default: return value
        }
    }

    /// Where two values first differ (for messages; recursive, on small test values).
    static func difference(_ a: ArchiveValue, _ b: ArchiveValue, path: String = "root") -> String? {
        switch (a, b) {
        case let (.array(x, _), .array(y, _)) where x.count == y.count:
            return zip(x, y).enumerated().lazy.compactMap { difference($0.element.0, $0.element.1, path: "\(path)[\($0.offset)]") }.first
        case let (.dictionary(x, _), .dictionary(y, _)) where x.count == y.count:
            for entry in x {
                guard let other = y.first(where: { $0.key == entry.key }) else { return "\(path): key \(entry.key) only in ours" }
                if let found = difference(entry.value, other.value, path: "\(path).\(entry.key)") { return found }
            }
            return nil
        default:
            return a == b ? nil : "\(path): ours \(a) (\(a.kindName)), made of \(b) (\(b.kindName))"
        }
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func foundationArchivedGraphsDecodeToTheirValues(format: PropertyListSerialization.PropertyListFormat) throws {
        var generator = Generator(state: format == .binary ? 2027 : 2028)
        for round in 0..<150 {
            let (object, expected) = Self.graph(&generator, depth: 4)
            let archiver = NSKeyedArchiver(requiringSecureCoding: false)
            archiver.outputFormat = format
            archiver.encode(object, forKey: NSKeyedArchiveRootObjectKey)
            archiver.finishEncoding()
            let decoded = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: [UInt8](archiver.encodedData), registry: ArchiveRegistry())
            #expect(Self.normalized(decoded) == Self.normalized(expected), "round \(round): \(Self.difference(Self.normalized(decoded), Self.normalized(expected)) ?? "")")
        }
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func foundationDecodesOurArchivesOfTheValues(format: ArchiveFormat) throws {
        var generator = Generator(state: format == .binary ? 4051 : 4052)
        for round in 0..<150 {
            let (object, value) = Self.graph(&generator, depth: 4)
            let bytes = try KeyedArchiver.archive(value, registry: ArchiveRegistry(), format: format)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
            unarchiver.requiresSecureCoding = false
            let read = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSObject
            #expect(read?.isEqual(object) == true, "round \(round): Foundation read \(String(describing: read)), made of \(object)")
        }
    }

    // MARK: Classes that are not Foundation's

    /// A Foundation-made payload holding one of the app's objects: refused until the registry
    /// names the class, then a reference the model decodes from.
    @Test func aClassTheRegistryDoesNotNameIsRefused() throws {
        let pilot = FPilot(name: "Amelia", airplanes: [], licenseDate: nil, notes: [:])
        let payload: NSDictionary = ["count": NSNumber(value: 2), "items": NSArray(array: ["a", NSNull(), pilot])]
        let bytes = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: payload, requiringSecureCoding: false))
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
            Issue.record("an unregistered class was admitted")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.keyPath.description == "root.items[2]")
            #expect(error.classChain.first == "KeyedArchiveTests.FPilot")
            #expect(error.remedy?.contains("className: \"KeyedArchiveTests.FPilot\"") == true, "\(error)")
        }

        // Registered, it is a reference; the value's other members are decoded as usual.
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: FoundationInteropTests.mirrorRegistry)
        let value = try unarchiver.decode(ArchiveValue.self)
        #expect(value["count"] == 2)
        let items = try #require(value["items"]?.arrayValue)
        #expect(items.prefix(2) == ["a", .null])
        let reference = try #require(items.last?.objectReference)
        #expect(reference.className == "KeyedArchiveTests.FPilot")
        #expect(reference.classes == ["KeyedArchiveTests.FPilot", "NSObject"])
        #expect(try unarchiver.topLevelDecoder.decode(Pilot.self, reference: reference.reference).name == "Amelia")

        // A reference is not a value: encoding it is refused, naming it.
        #expect(throws: ArchiveError.self) { try KeyedArchiver.archive(value, registry: ArchiveRegistry()) }
    }

    /// The primitive policy applies inside a value as anywhere else.
    @Test func plainValuesFollowThePrimitivePolicy() throws {
        let value: ArchiveValue = ["a", 1]
        let bytes = try KeyedArchiver.archive(value, registry: ArchiveRegistry())
        var registry = ArchiveRegistry()
        registry.primitives = [.strings]
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
            Issue.record("a plain integer was admitted")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.keyPath.description == "root[1]")
        }
    }
}
