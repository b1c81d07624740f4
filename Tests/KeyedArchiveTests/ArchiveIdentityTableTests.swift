import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `ArchiveIdentityTable` and `KeyedArchiver.roundTrip`: the sharing of values (which Swift
/// holds as values, without identity) comes back where the source archive stored one object for
/// several fields, and only there. Sources are built by hand, object by object (so what is
/// shared is known by construction), or by Foundation's `NSKeyedArchiver`; results are compared
/// with `ArchiveDiff`, sharing included.
@Suite struct ArchiveIdentityTableTests: HandBuiltArchives {
    /// A dictionary (#1) of `entries`, each key a string and each value one of `objects`
    /// (numbered from #3 on), the keys' strings after them.
    static func dictionary(_ entries: [(String, Int)], objects: [PropertyListValue]) throws -> [UInt8] {
        var all: [PropertyListValue] = [.string(""), classDictionary(["NSDictionary", "NSObject"])] + objects
        var keys: [PropertyListValue] = []
        for (key, _) in entries {
            all.append(.string(key))
            keys.append(uid(all.count))
        }
        all[0] = instance(2, [("NS.keys", .array(keys)), ("NS.objects", .array(entries.map { uid($0.1) }))])
        return try archiveBytes(all)
    }

    static func strictDifferences(_ a: [UInt8], _ b: [UInt8]) throws -> [String] {
        ArchiveDiff(try ArchiveGraph(bytes: a), try ArchiveGraph(bytes: b)).differences.map(\.description)
    }

    /// Decodes `root` as `T` with (or without) a table, lets `change` modify it, and encodes it.
    static func reencode<T: ArchiveObjectCodable>(_ type: T.Type, _ bytes: [UInt8], identities: ArchiveIdentityTable?,
                                                   change: ((inout T) -> Void)? = nil) throws -> [UInt8] {
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        unarchiver.identities = identities
        var value = try unarchiver.decode(T.self, forKey: "root")
        change?(&value)
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        archiver.identities = identities
        try archiver.encode(value, forKey: "root")
        return try archiver.finish()
    }

    /// `a` and `b` one NSArray (#3), `c` an equal one of its own (#7), `e` and `f` one empty
    /// NSArray (#9), `g` another empty one (#10). Without a table every field's array is an
    /// object of its own; with one, the sharing is the source's exactly (the equal and the empty
    /// arrays that were apart stay apart); a modified array is written as what it has become.
    @Test func typedArraysKeepTheirSharing() throws {
        let bytes = try Self.dictionary([("a", 3), ("b", 3), ("c", 7), ("e", 9), ("f", 9), ("g", 10)], objects: [
            /* 3 */ Self.instance(4, [("NS.objects", .array([Self.uid(5), Self.uid(6)]))]),
            /* 4 */ Self.classDictionary(["NSArray", "NSObject"]),
            /* 5 */ "x", /* 6 */ "y",
            /* 7 */ Self.instance(4, [("NS.objects", .array([Self.uid(5), Self.uid(6)]))]),
            /* 8 */ "unused",
            /* 9 */ Self.instance(4, [("NS.objects", .array([]))]),
            /* 10 */ Self.instance(4, [("NS.objects", .array([]))]),
        ])
        let without = try Self.strictDifferences(bytes, try Self.reencode([String: [String]].self, bytes, identities: nil))
        #expect(Set(without) == ["root.b: sharing changed: in A the same object as root.a; in B another object",
                                 "root.f: sharing changed: in A the same object as root.e; in B another object"], "\(without)")
        let with = try Self.reencode([String: [String]].self, bytes, identities: ArchiveIdentityTable())
        #expect(try Self.strictDifferences(bytes, with) == [])
        let changed = try Self.reencode([String: [String]].self, bytes, identities: ArchiveIdentityTable()) { $0["a"]?.append("z") }
        let reread = try KeyedUnarchiver(bytes: changed, registry: ArchiveRegistry()).decode([String: [String]].self, forKey: "root")
        #expect(reread == ["a": ["x", "y", "z"], "b": ["x", "y"], "c": ["x", "y"], "e": [], "f": [], "g": []])
        #expect(try Self.strictDifferences(bytes, changed).contains { $0.hasPrefix("root.a: count changed") })
    }

    /// Dates, short strings and index paths are their bits: which holder had which of two equal
    /// objects cannot be told, so two equal NSDates (#5, #6) are never merged, each keeping the
    /// `$classes` its object had. An NSDate shared by two fields (#3), the only object with its
    /// bits, stays one object (issue 42; it came back as two before). A string past 15 bytes
    /// has storage of its own: an NSMutableString of one shared by two fields (#7) stays one.
    @Test func valuesThatAreTheirBitsAreNeverMerged() throws {
        let long = "a string longer than fifteen bytes"
        let bytes = try Self.dictionary([("shared1", 3), ("shared2", 3), ("alone1", 5), ("alone2", 6), ("text1", 7), ("text2", 7)], objects: [
            /* 3 */ Self.instance(4, [("NS.time", .double(1000))]),
            /* 4 */ Self.classDictionary(["NSDate", "__NSDate", "NSObject"]),
            /* 5 */ Self.instance(4, [("NS.time", .double(2000))]),
            /* 6 */ Self.instance(4, [("NS.time", .double(2000))]),
            /* 7 */ Self.instance(8, [("NS.string", .string(long))]),
            /* 8 */ Self.classDictionary(["NSMutableString", "NSString", "NSObject"]),
        ])
        let copy = try KeyedArchiver.roundTrip(bytes, registry: ArchiveRegistry())
        // Strict: #3 one object again, and #5 and #6 still two (merged, diff would say "in A
        // another object; in B the same object as root.alone1").
        #expect(try Self.strictDifferences(bytes, copy) == [])
        // Without the table the chain would be the package's own, and the long string twice.
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
        let plain = try Self.strictDifferences(bytes, try KeyedArchiver.archive(value, registry: ArchiveRegistry()))
        #expect(plain.contains { $0.contains("class chain changed: NSDate < __NSDate < NSObject → NSDate < NSObject") }, "\(plain)")
        #expect(plain.contains("root.text2: sharing changed: in A the same object as root.text1; in B another object"), "\(plain)")
    }

    /// Foundation's own archive of a dictionary whose entries share an array and a URL: the
    /// round trip keeps what Foundation shared; decoding and encoding without the table does not.
    @Test func roundTripKeepsFoundationsSharing() throws {
        let shared = NSArray(array: ["x", "y"])
        let url = NSURL(string: "file:///tmp/a.txt")!
        let dictionary = NSDictionary(dictionary: ["a": shared, "b": shared, "u": url, "v": url, "n": NSDictionary(dictionary: ["again": shared])])
        let bytes = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: false))
        #expect(try Self.strictDifferences(bytes, try KeyedArchiver.roundTrip(bytes, registry: ArchiveRegistry())) == [])
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
        let lines = try Self.strictDifferences(bytes, try KeyedArchiver.archive(value, registry: ArchiveRegistry()))
        #expect(lines.count >= 3 && lines.allSatisfy { $0.contains("sharing changed") }, "\(lines)")
    }

    /// A dictionary whose entries share an `NSDecimalNumber` (#3; laid out as a Mac writes it:
    /// Foundation on Linux's archiver cannot write one) beside one of the same value of its own
    /// (#5), and Foundation's archive of one whose entries share an `NSTimeZone`: the typed values
    /// that keep their object (`ArchiveDecimalNumber`, `ArchiveTimeZone`) and `ArchiveValue`
    /// share it again through the table, the lone equal one stays apart; a Swift `Decimal` is
    /// its bits, so it is never written as another field's object.
    @Test func fieldMappedValuesKeepTheirSharing() throws {
        let mantissa: [UInt8] = [0xFB, 0x04] + Array(repeating: 0, count: 14) // 1275
        let decimal: [(String, PropertyListValue)] = [
            ("NS.exponent", .integer(-2)), ("NS.length", .integer(1)), ("NS.negative", .bool(false)),
            ("NS.compact", .bool(true)), ("NS.mantissa", .data(mantissa)), ("NS.mantissa.bo", .integer(1)),
        ]
        let numberBytes = try Self.dictionary([("a", 3), ("b", 3), ("c", 5)], objects: [
            /* 3 */ Self.instance(4, decimal),
            /* 4 */ Self.classDictionary(["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]),
            /* 5 */ Self.instance(4, decimal),
        ])
        let sharedPair = "root.b: sharing changed: in A the same object as root.a; in B another object"
        let typedWithout = try Self.strictDifferences(numberBytes, try Self.reencode([String: ArchiveDecimalNumber].self, numberBytes, identities: nil))
        #expect(typedWithout == [sharedPair])
        let typed = try Self.reencode([String: ArchiveDecimalNumber].self, numberBytes, identities: ArchiveIdentityTable())
        let typedLines = try Self.strictDifferences(numberBytes, typed)
        #expect(typedLines == [], "\(typedLines)")
        let reread = try KeyedUnarchiver(bytes: typed, registry: ArchiveRegistry()).decode([String: Decimal].self, forKey: "root")
        #expect(reread == ["a": Decimal(string: "12.75"), "b": Decimal(string: "12.75"), "c": Decimal(string: "12.75")])
        let decimals = try Self.reencode([String: Decimal].self, numberBytes, identities: ArchiveIdentityTable())
        #expect(try Self.strictDifferences(numberBytes, decimals) == [sharedPair])
        #expect(try Self.strictDifferences(numberBytes, try KeyedArchiver.roundTrip(numberBytes, registry: ArchiveRegistry())) == [])

        // Foundation may list the keys in either order: which of a and b comes second varies.
        func isTheSharedPair(_ line: String) -> Bool {
            line == sharedPair || line == "root.a: sharing changed: in A the same object as root.b; in B another object"
        }
        let zone = try #require(NSTimeZone(name: "Europe/Paris"))
        let zones = NSDictionary(dictionary: ["a": zone, "b": zone])
        let zoneBytes = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: zones, requiringSecureCoding: false))
        let zoneWithout = try Self.strictDifferences(zoneBytes, try Self.reencode([String: ArchiveTimeZone].self, zoneBytes, identities: nil))
        #expect(zoneWithout.count == 1 && zoneWithout.allSatisfy(isTheSharedPair), "\(zoneWithout)")
        #expect(try Self.strictDifferences(zoneBytes, try Self.reencode([String: ArchiveTimeZone].self, zoneBytes, identities: ArchiveIdentityTable())) == [])
        #expect(try Self.strictDifferences(zoneBytes, try Self.reencode([String: ArchiveValue].self, zoneBytes, identities: ArchiveIdentityTable())) == [])
    }

    /// An `NSMutableArray` (#1) that contains itself cannot be a Swift value: the round trip
    /// copies it as stored (ArchiveGenericObject), and the copy's array holds itself again.
    @Test func aCollectionThatContainsItselfIsCopiedAsStored() throws {
        let bytes = try Self.archiveBytes([
            Self.instance(2, [("NS.objects", .array([Self.uid(3), Self.uid(1)]))]),
            Self.classDictionary(["NSMutableArray", "NSArray", "NSObject"]),
            "first",
        ])
        let copy = try KeyedArchiver.roundTrip(bytes, registry: ArchiveRegistry())
        #expect(try Self.strictDifferences(bytes, copy) == [])
        let graph = try ArchiveGraph(bytes: copy)
        guard let root = graph.topUID(forKey: "root"), case .instance(let instance)? = graph.object(root),
              case .array(let elements)? = instance.storage["NS.objects"] else {
            Issue.record("the copy's root is not an array")
            return
        }
        #expect(elements.count == 2 && elements.last == .uid(root))
        // An object of a class no one registered is copied as stored too; a registered
        // model's own failure is thrown, not covered up.
        let model = try Self.archiveBytes([Self.instance(2, []), Self.classDictionary(["Unknown", "NSObject"])])
        #expect(try Self.strictDifferences(model, try KeyedArchiver.roundTrip(model, registry: ArchiveRegistry())) == [])
        final class Failing: KeyedArchivable {
            init(from decoder: KeyedArchiveDecoder) throws { throw ArchiveError(.valueNotFound, "this model reads nothing") }
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        var registry = ArchiveRegistry()
        registry.register(Failing.self, className: "Unknown")
        registry.decodesModelsInArchiveValues = true
        #expect(throws: ArchiveError.self) { try KeyedArchiver.roundTrip(model, registry: registry) }
    }
}
