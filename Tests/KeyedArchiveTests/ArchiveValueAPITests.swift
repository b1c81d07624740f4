import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The rest of ``ArchiveValue``'s surface: inline fields, asking a decoder what a field holds,
/// existentials encoded without a helper, the conversions, and the budgets, sharing and cycle
/// checks every decode has. Archives are read back by Foundation's `NSKeyedUnarchiver` or
/// checked against the generic view where a second reader is wanted.
@Suite struct ArchiveValueAPITests {
    /// A model that stores one field of each kind, and reads its `payload` as the archive says.
    struct Envelope: KeyedArchivable {
        enum Payload { case note(Note), value(ArchiveValue) }
        var payload: Payload
        var count: ArchiveValue?
        var contents: [String: ArchiveFieldContent] = [:]

        init(payload: Payload) { self.payload = payload }

        init(from decoder: KeyedArchiveDecoder) throws {
            // Branch on the archived class before choosing how to decode.
            if try decoder.archivedClassName(forKey: "payload") == "Note" {
                payload = .note(try decoder.decode(Note.self, forKey: "payload"))
            } else {
                payload = .value(try decoder.decode(ArchiveValue.self, forKey: "payload"))
            }
            count = try decoder.decodeIfPresent(ArchiveValue.self, forKey: "count")
            for key in decoder.allKeys { contents[key] = try decoder.fieldContent(forKey: key) }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            switch payload {
            case .note(let note): try encoder.encode(note, forKey: "payload")
            case .value(let value): try encoder.encode(value, forKey: "payload")
            }
            try encoder.encode(Int32(7), forKey: "count")
            try encoder.encode(true, forKey: "flag")
            try encoder.encodeBytes([1, 2], forKey: "bytes")
            try encoder.encode(UInt64(9), forKey: "big")
            try encoder.encode(nil as String?, forKey: "none")
            try encoder.encode("text", forKey: "name")
        }
    }

    final class Note: KeyedArchivable {
        let title: String
        init(title: String) { self.title = title }
        init(from decoder: KeyedArchiveDecoder) throws { title = try decoder.decode(String.self, forKey: "title") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(title, forKey: "title") }
    }

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Envelope.self)
        registry.register(Note.self)
        return registry
    }()

    @Test func aModelAsksWhatAFieldHoldsBeforeDecodingIt() throws {
        let withNote = try KeyedArchiver.archive(Envelope(payload: .note(Note(title: "Preflight"))), registry: Self.registry)
        let decoded = try KeyedUnarchiver.unarchive(Envelope.self, from: withNote, registry: Self.registry)
        guard case .note(let note) = decoded.payload else {
            Issue.record("the Note was not recognized")
            return
        }
        #expect(note.title == "Preflight")
        // An inline Int32 is a value too.
        #expect(decoded.count == .integer(7))

        // What each field holds, against the generic view of the same archive.
        let graph = try ArchiveGraph(bytes: withNote)
        let root = try #require(graph.topUID(forKey: "root"))
        guard case .instance(let envelope)? = graph.object(root) else {
            Issue.record("no root object")
            return
        }
        for field in envelope.fields where field.key != "$class" {
            let content = try #require(decoded.contents[field.key], "\(field.key)")
            switch field.value {
            case .uid(let uid) where uid.value == 0:
                #expect(content == .null, "\(field.key)")
            case .uid(let uid):
                #expect(content.reference == ArchiveReference(uid: uid), "\(field.key)")
                #expect(content.className == graph.className(of: uid), "\(field.key)")
                #expect(!content.isInline)
            default:
                #expect(content == .inline(field.value), "\(field.key)")
            }
        }
        #expect(decoded.contents["payload"]?.classes == ["Note", "NSObject"])
        #expect(decoded.contents["name"] == .plain(try #require(decoded.contents["name"]?.reference), kindName: "string"))
        #expect(decoded.contents["big"].map { if case .plain(_, "integer") = $0 { true } else { false } } == true)

        let withDictionary = try KeyedArchiver.archive(Envelope(payload: .value(["k": [1, "two"]])), registry: Self.registry)
        let other = try KeyedUnarchiver.unarchive(Envelope.self, from: withDictionary, registry: Self.registry)
        guard case .value(let value) = other.payload else {
            Issue.record("the dictionary was read as a Note")
            return
        }
        #expect(value == ["k": [1, "two"]])
        #expect(other.contents["payload"]?.className == "NSDictionary")

        // The top level: an inline number, a missing key.
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(42, forKey: "answer")
        let unarchiver = try KeyedUnarchiver(bytes: try archiver.finish(), registry: ArchiveRegistry())
        #expect(try unarchiver.fieldContent(forKey: "answer") == .inline(.integer(42)))
        #expect(try unarchiver.fieldContent(forKey: "missing") == nil)
        #expect(try unarchiver.decode(ArchiveValue.self, forKey: "answer") == 42)
        do {
            _ = try unarchiver.decode(ArchiveValue.self, forKey: "missing")
            Issue.record("a missing key decoded")
        } catch {
            #expect(error.code == .valueNotFound)
            #expect(error.message.contains("\"answer\""), "\(error)")
        }
    }

    /// Existentials, optional existentials and dictionaries of them, encoded as their own types
    /// would be, and read by Foundation.
    @Test func existentialsEncodeWithoutAHelper() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let anything: any ArchiveObjectEncodable = ArchiveIndexSet(ranges: [2..<5])
        let nothing: (any ArchiveObjectEncodable)? = nil
        let something: (any ArchiveObjectEncodable)? = "here"
        let fields: [String: any ArchiveObjectEncodable] = ["b": 5, "a": "x", "c": date, "d": [1.5, 2.5]]
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(anything, forKey: "indexes")
        try archiver.encode(nothing, forKey: "nothing")
        try archiver.encode(something, forKey: "something")
        try archiver.encode(fields, forKey: "fields")
        let bytes = try archiver.finish()

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
        unarchiver.requiresSecureCoding = false
        #expect((unarchiver.decodeObject(forKey: "indexes") as? NSIndexSet) == NSIndexSet(indexesIn: NSRange(location: 2, length: 3)))
        #expect(unarchiver.containsValue(forKey: "nothing"))
        #expect(unarchiver.decodeObject(forKey: "nothing") == nil)
        #expect((unarchiver.decodeObject(forKey: "something") as? String) == "here")
        let expected: NSDictionary = ["a": "x", "b": 5, "c": date as NSDate, "d": [1.5, 2.5] as NSArray]
        #expect((unarchiver.decodeObject(forKey: "fields") as? NSDictionary) == expected)

        // Keys in ascending order, so that the bytes are the same on every run.
        let ours = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry()).decode(ArchiveValue.self, forKey: "fields")
        #expect(ours.dictionaryValue?.map(\.key) == ["a", "b", "c", "d"])
    }

    @Test func conversions() throws {
        // A Foundation-made tree of property-list kinds reads the same either way.
        let payload: NSDictionary = ["name": "Ka 8", "seats": 1, "since": Date(timeIntervalSinceReferenceDate: 1000) as NSDate,
                                     "tags": ["a", "b"] as NSArray, "blob": Data([1, 2, 3]) as NSData, "ratio": 0.25]
        let bytes = [UInt8](try NSKeyedArchiver.archivedData(withRootObject: payload, requiringSecureCoding: false))
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        let tree = try unarchiver.decode(PropertyListValue.self)
        let value = try unarchiver.decode(ArchiveValue.self)
        #expect(ArchiveValue(propertyList: tree) == value)
        #expect(value.propertyListValue == tree)
        #expect(PropertyListValue(value) == tree)

        // Swift's own types.
        let dictionary = try #require(value.stringKeyedValue)
        #expect(dictionary["name"]?.stringValue == "Ka 8")
        #expect(value["seats"]?.intValue == 1)
        #expect(value["ratio"]?.doubleValue == 0.25)
        #expect(value["since"]?.dateValue == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(value["tags"]?.arrayValue?.compactMap(\.stringValue) == ["a", "b"])
        #expect(value["tags"]?[1] == "b")
        #expect(value["blob"]?.dataValue == [1, 2, 3])
        #expect(value["missing"] == nil)

        // Kinds a property list has not: nil, never a lossy stand-in.
        #expect(ArchiveValue.null.propertyListValue == nil)
        #expect(ArchiveValue.array(["a", .uuid(UUID())]).propertyListValue == nil)
        #expect(ArchiveValue.dictionary([.init(key: 1, value: "one")]).propertyListValue == nil)
        #expect(ArchiveValue(propertyList: PropertyListValue.array([.uid(PropertyListUID(3))])) == nil)

        // Deep values convert without recursion.
        var deep = PropertyListValue.array([])
        for _ in 0..<300 { deep = .array([deep, "x"]) }
        let converted = try #require(ArchiveValue(propertyList: deep))
        #expect(converted.propertyListValue == deep)
    }

    @Test func equalityIsFoundations() {
        let a: ArchiveValue = .set(["x", 1, ["k": "v"]])
        let b: ArchiveValue = .set([["k": "v"], 1, "x"], mutable: true)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let d1: ArchiveValue = ["a": 1, "b": 2]
        let d2: ArchiveValue = .dictionary([.init(key: "b", value: 2), .init(key: "a", value: 1)], mutable: true)
        #expect(d1 == d2 && d1.hashValue == d2.hashValue)
        #expect(ArchiveValue.array([1, 2]) != .array([2, 1]))
        #expect(ArchiveValue.bool(true) != .integer(1))
        #expect(ArchiveValue.real(.float32(0.5)) != .real(.float64(0.5)))
        #expect(ArchiveValue.string("e\u{301}") != .string("\u{E9}"))
    }

    // MARK: The checks every decode has

    static func archive(_ object: ArchiveGenericObject) throws(ArchiveError) -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(object)
        return try archiver.finish()
    }

    /// Each array holds the next one twice: decoded once per object, the value is built in
    /// linear steps; handed out, it expands exponentially and is held to the expansion budget.
    @Test func sharedCollectionsDecodeOnce() throws {
        func chain(_ levels: Int) -> ArchiveGenericObject {
            var inner = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects(["leaf"]))])
            for _ in 0..<levels {
                inner = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects([inner, inner]))])
            }
            return inner
        }
        var options = ArchiveReadingOptions.default
        options.maximumVisitCount = 200
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(chain(12)), registry: ArchiveRegistry(), options: options)
        var leaves = 0
        var pending = [value]
        while let next = pending.popLast() {
            if let elements = next.arrayValue { pending.append(contentsOf: elements) } else { leaves += 1 }
        }
        #expect(leaves == 1 << 12)

        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(chain(40)), registry: ArchiveRegistry())
            Issue.record("an exponential value was handed out")
        } catch {
            #expect(error.code == .budgetExceeded)
        }
    }

    /// Decodes `bytes` as an `ArchiveValue` on a thread of `stackSize` and counts how deep
    /// `inner` leads, releasing the value on that thread too.
    static func depthOnThread(_ bytes: [UInt8], registry: ArchiveRegistry = ArchiveRegistry(), options: ArchiveReadingOptions = .default, stackSize: Int,
                              inner: @escaping @Sendable (ArchiveValue) -> ArchiveValue?) -> StackSafetyTests.Outcome<Int> {
        onThread(stackSize: stackSize) { () -> StackSafetyTests.Outcome<Int> in
            do {
                var depth = 0
                var value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry, options: options)
                while let next = inner(value) {
                    depth += 1
                    value = next
                }
                return .success(depth)
            } catch {
                return .caught(error)
            }
        }
    }

    /// Whether a deep decode ended as it may: deep enough with a raised limit, or stopped with
    /// the limit's error — or, where the thread is small, `stackExhausted` (a level of an
    /// ArchiveValue takes 0.6–1.7 KiB of stack to release in a debug build).
    static func expectDeepOutcome(_ outcome: StackSafetyTests.Outcome<Int>, options: ArchiveReadingOptions, stackSize: Int) {
        switch outcome {
        case .success(let depth):
            #expect(options.maximumDepth > 10_000 && depth > 9_000, "\(depth)")
        case .failure(let error):
            let expected: Set<ArchiveError.Code> = options.maximumDepth > 10_000 ? [.stackExhausted]
                : stackSize >= 8 << 20 ? [.depthLimitExceeded] : [.depthLimitExceeded, .stackExhausted]
            #expect(expected.contains(error.code), "\(error)")
        }
    }

    /// 10,000 nested arrays (made by `Fixtures/deep/make_deep.py`) on small stacks: refused at
    /// the depth limit by default, and with the limit lifted, decoded or stopped with
    /// `stackExhausted` — never a crash, in the walk or in releasing what it built.
    @Test(arguments: StackSafetyTests.stackSizes)
    func deepNestingStopsWithATypedError(stackSize: Int) throws {
        let bytes = try StackSafetyTests.fixture("nested-arrays-10000.plist")
        for options in [ArchiveReadingOptions.default, StackSafetyTests.deepReading] {
            Self.expectDeepOutcome(Self.depthOnThread(bytes, options: options, stackSize: stackSize) { $0.arrayValue?.first }, options: options, stackSize: stackSize)
        }
    }

    /// 500 nested arrays, within the default depth limit, on the smallest thread: decoded and
    /// released there, or refused with `stackExhausted` — the walk counts what releasing each
    /// level takes (until this was measured, a level was taken for a property-list value's
    /// 256 bytes, and this crashed releasing the value in a debug build).
    @Test func aValueIsBuiltOnlyWhereTheThreadCanReleaseIt() throws {
        // Built, written and released on a stack of the test's choosing (Swift Testing's threads
        // have 512 KiB on Darwin).
        let bytes = try onThread(stackSize: 8 << 20) {
            Result {
                var inner = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects([]))])
                for _ in 0..<500 { inner = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects([inner]))]) }
                return try Self.archive(inner)
            }
        }.get()
        for stackSize in StackSafetyTests.stackSizes {
            let outcome = Self.depthOnThread(bytes, stackSize: stackSize) { $0.arrayValue?.first }
            switch outcome {
            case .success(let depth): #expect(depth == 500)
            case .failure(let error): #expect(error.code == .stackExhausted && stackSize < 8 << 20, "\(stackSize): \(error)")
            }
        }
    }

    @Test func cyclesDepthAndDuplicateKeysAreRefused() throws {
        let cycle = ArchiveGenericObject(classes: ArchiveArray.mutableArrayClasses)
        cycle.fields = [("NS.objects", .objects(["a", cycle]))]
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(cycle), registry: ArchiveRegistry()) }
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(cycle), registry: ArchiveRegistry())
        } catch {
            #expect(error.code == .cyclicReference)
            #expect(error.keyPath.description == "root[1]")
        }

        var nested = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects([]))])
        for _ in 0..<60 { nested = ArchiveGenericObject(classes: ArchiveArray.arrayClasses, fields: [("NS.objects", .objects([nested]))]) }
        var shallow = ArchiveReadingOptions.default
        shallow.maximumDepth = 50
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(nested), registry: ArchiveRegistry(), options: shallow)
            Issue.record("61 levels decoded under a limit of 50")
        } catch {
            #expect(error.code == .depthLimitExceeded)
        }

        let twice = try KeyedArchiver.archive(ArchiveDictionary([(key: "a", value: 1), (key: "a", value: 2)]), registry: ArchiveRegistry())
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: twice, registry: ArchiveRegistry())
            Issue.record("a key stored twice was admitted")
        } catch {
            #expect(error.code == .duplicateKey)
        }
        var keepLast = ArchiveReadingOptions.default
        keepLast.duplicateDictionaryKeys = .keepLast
        #expect(try KeyedUnarchiver.unarchive(ArchiveValue.self, from: twice, registry: ArchiveRegistry(), options: keepLast) == ["a": 2])

        // Keys are compared as they are read, and comparing sets takes a call per level: a key
        // may nest 64 of them, not more.
        func nestedSets(_ levels: Int) -> ArchiveGenericObject {
            var set = ArchiveGenericObject(classes: ArchiveArray.setClasses, fields: [("NS.objects", .objects(["core"]))])
            for _ in 1..<levels { set = ArchiveGenericObject(classes: ArchiveArray.setClasses, fields: [("NS.objects", .objects([set]))]) }
            return set
        }
        func dictionary(keyedBy key: ArchiveGenericObject) -> ArchiveGenericObject {
            ArchiveGenericObject(classes: ArchiveDictionary.dictionaryClasses, fields: [("NS.keys", .objects([key, "plain"])), ("NS.objects", .objects([1, 2]))])
        }
        let fine = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(dictionary(keyedBy: nestedSets(64))), registry: ArchiveRegistry())
        #expect(fine.dictionaryValue?.count == 2)
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(dictionary(keyedBy: nestedSets(65))), registry: ArchiveRegistry())
            Issue.record("a key of 65 nested sets was compared")
        } catch {
            #expect(error.code == .depthLimitExceeded)
            #expect(error.message.contains("dictionary key"), "\(error)")
        }

        // An ordered set's repeated element is kept where it first occurs, as NSOrderedSet keeps it.
        let repeated = ArchiveGenericObject(classes: ArchiveOrderedSet<String>.orderedSetClasses, fields: [("NS.object.0", .object("x")), ("NS.object.1", .object("y")), ("NS.object.2", .object("x"))])
        #expect(try KeyedUnarchiver.unarchive(ArchiveValue.self, from: Self.archive(repeated), registry: ArchiveRegistry()) == .orderedSet(ArchiveOrderedSet(["x", "y"])))
    }
}
