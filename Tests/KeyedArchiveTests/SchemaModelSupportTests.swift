import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// What the models `keyedarchive schema --swift` writes use from the package, each tested once
/// here: models inside `ArchiveValue`, `ArchiveGenericObject` read back, collections archived
/// as a chosen class, an `NSSet`'s elements in stored order, and a registered `NSObject` root.
/// Archives are built by hand (property lists object by object) or by Foundation's
/// `NSKeyedArchiver`, never taken from our own writer on faith.
@Suite struct SchemaModelSupportTests: HandBuiltArchives {
    final class Note: KeyedArchivable {
        var text: String
        init(text: String) { self.text = text }
        init(from decoder: KeyedArchiveDecoder) throws { text = try decoder.decode(String.self, forKey: "text") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(text, forKey: "text") }
    }

    /// An NSArray (#1) holding a string, a Note (#4) and the same Note again.
    static func mixedArray() throws -> [UInt8] {
        try archiveBytes([
            /* 1 */ instance(2, [("NS.objects", .array([uid(3), uid(4), uid(4)]))]),
            /* 2 */ classDictionary(["NSArray", "NSObject"]),
            /* 3 */ "plain",
            /* 4 */ instance(5, [("text", uid(6))]),
            /* 5 */ classDictionary(["Note", "NSObject"]),
            /* 6 */ "remember",
        ])
    }

    /// By default a registered class is a reference in an `ArchiveValue`; with
    /// `decodesModelsInArchiveValues`, the model itself, one object for both references, and
    /// the value encodes again to the same graph.
    @Test func archiveValuesHoldModelsWhenAsked() throws {
        var registry = ArchiveRegistry()
        registry.register(Note.self)
        let bytes = try Self.mixedArray()
        let references = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
        #expect(references[1]?.objectReference?.className == "Note")
        #expect(throws: ArchiveError.self) { try KeyedArchiver.archive(references, registry: registry) }

        registry.decodesModelsInArchiveValues = true
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
        let first = try #require(value[1]?.modelValue as? Note)
        #expect(first.text == "remember" && value[0] == "plain")
        #expect(value[2]?.modelValue === first, "both references are one model")
        #expect(value[1] == value[2] && value[1] != .model(ArchiveModelObject(Note(text: "remember"))), "models compare by identity")
        #expect(value.description == #"["plain", <Note>, <Note>]"#)
        let copy = try KeyedArchiver.archive(value, registry: registry)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: copy)).isEqual)
    }

    /// `ArchiveGenericObject` read from an archive: classes and fields as stored, a shared
    /// object one holder, and the same graph written back (strict diff).
    @Test func genericObjectsReadBackAsStored() throws {
        let bytes = try Self.mixedArray()
        let generic = try KeyedUnarchiver.unarchive(ArchiveGenericObject.self, from: bytes, registry: ArchiveRegistry())
        #expect(generic.classes == ["NSArray", "NSObject"])
        guard case .objects(let elements)? = generic.fields.first?.value, elements.count == 3 else {
            Issue.record("NS.objects is not a list of three objects: \(generic.fields)")
            return
        }
        #expect((elements[0] as? ArchiveSharedValue)?.value == "plain")
        #expect((elements[1] as? ArchiveGenericObject) === (elements[2] as? ArchiveGenericObject))
        #expect((elements[1] as? ArchiveGenericObject)?.classes == ["Note", "NSObject"])
        let copy = try KeyedArchiver.archive(generic, registry: ArchiveRegistry())
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: copy)).isEqual)
        // A reference into an inline dictionary is refused with a typed error, not kept wrongly.
        let nested = try Self.archiveBytes([
            Self.instance(2, [("odd", .dictionary(PropertyListDictionary(entries: [.init(key: "k", value: Self.uid(3))])))]),
            Self.classDictionary(["Odd", "NSObject"]),
            "x",
        ])
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(ArchiveGenericObject.self, from: nested, registry: ArchiveRegistry()) }
    }

    /// Ten thousand arrays nested in each other: read without recursion (on a 512 KiB thread)
    /// up to the depth limit, then refused with a typed error; with the limit raised, read
    /// whole, and written back only as deep as the writer's own limit.
    @Test func deepGenericObjectsNeedNoStack() throws {
        let deep = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("deep/nested-arrays-10000.plist")))
        let outcome = onThread(stackSize: 512 << 10) { () -> String in
            do {
                _ = try KeyedUnarchiver.unarchive(ArchiveGenericObject.self, from: deep, registry: ArchiveRegistry())
                return "decoded"
            } catch {
                return "\((error as? ArchiveError)?.code.rawValue ?? "\(error)")"
            }
        }
        #expect(outcome == ArchiveError.Code.depthLimitExceeded.rawValue)
        var options = ArchiveReadingOptions()
        options.maximumDepth = 20_000
        let whole = try KeyedUnarchiver.unarchive(ArchiveGenericObject.self, from: deep, registry: ArchiveRegistry(), options: options)
        var depth = 0
        var current: ArchiveGenericObject? = whole
        while let object = current, depth < 20_000 {
            depth += 1
            if case .objects(let elements)? = object.fields.first(where: { $0.key == "NS.objects" })?.value {
                current = elements.first as? ArchiveGenericObject
            } else {
                current = nil
            }
        }
        #expect(depth >= 10_000)
        #expect(throws: ArchiveError.self) { try KeyedArchiver.archive(whole, registry: ArchiveRegistry()) }
    }

    /// Collections written as a chosen class: the chains Apple's archiver writes for the
    /// mutable collections (read from the corpus when it is there), sets sorted.
    @Test func collectionsArchiveAsTheClassesGiven() throws {
        final class Holder: KeyedArchivable {
            let list = ["b", "a"], tags: Set<String> = ["b", "a"], map = ["k": "v"]
            init() {}
            init(from decoder: KeyedArchiveDecoder) throws {}
            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode(list, forKey: "list", classes: ArchiveArray.mutableArrayClasses)
                try encoder.encode(tags, forKey: "tags", classes: ArchiveArray.mutableSetClasses)
                try encoder.encode(map, forKey: "map", classes: ArchiveDictionary.mutableDictionaryClasses)
                try encoder.encode("text", forKey: "text", mutable: true)
            }
        }
        var registry = ArchiveRegistry()
        registry.register(Holder.self)
        let ours = try ArchiveGraph(bytes: try KeyedArchiver.archive(Holder(), registry: registry))
        func chains(_ graph: ArchiveGraph) -> Set<[String]> {
            Set(graph.objects.compactMap { if case .classDescriptor(let descriptor) = $0 { return descriptor.classes } else { return nil } })
        }
        let mutableChains = [ArchiveArray.mutableArrayClasses, ArchiveArray.mutableSetClasses, ArchiveDictionary.mutableDictionaryClasses,
                             ["NSMutableString", "NSString", "NSObject"]]
        #expect(chains(ours).isSuperset(of: mutableChains))
        if ArchiveFixtures.isCorpusAvailable {
            // Apple's own: each chain is one some Apple-made archive holds.
            var apple: Set<[String]> = []
            for entry in ArchiveFixtures.entries where entry.category == "nib" {
                if let graph = try? ArchiveGraph(bytes: try ArchiveFixtures.bytes(entry)) { apple.formUnion(chains(graph)) }
            }
            for chain in mutableChains { #expect(apple.contains(chain), "\(chain)") }
        }
        // The set's elements are written in ascending order, whatever the hash seed.
        let holder = try #require(ours.objects.first { if case .instance(let instance) = $0 { return instance.storage["tags"] != nil } else { return false } })
        guard case .instance(let instance) = holder, case .uid(let set)? = instance.storage["tags"], case .instance(let setObject)? = ours.object(set),
              case .array(let elements)? = setObject.storage["NS.objects"] else {
            Issue.record("no set")
            return
        }
        #expect(elements.compactMap { if case .uid(let uid) = $0, case .string(let text)? = ours.object(uid) { return text } else { return nil } } == ["a", "b"])
    }

    /// An NSSet's elements in the order stored (Foundation's archive), as an array.
    @Test func setElementsComeInStoredOrder() throws {
        final class Holder: KeyedArchivable {
            var members: [String] = []
            init(from decoder: KeyedArchiveDecoder) throws { members = try decoder.decodeSetElements(String.self, forKey: "members") }
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        let bytes = try Self.archiveBytes([
            Self.instance(2, [("members", Self.uid(3))]),
            Self.classDictionary(["Holder", "NSObject"]),
            Self.instance(4, [("NS.objects", .array([Self.uid(5), Self.uid(6), Self.uid(7)]))]),
            Self.classDictionary(["NSSet", "NSObject"]),
            "c", "a", "b",
        ])
        var registry = ArchiveRegistry()
        registry.register(Holder.self)
        #expect(try KeyedUnarchiver.unarchive(Holder.self, from: bytes, registry: registry).members == ["c", "a", "b"])
        // An array is not a set.
        final class ArrayHolder: KeyedArchivable {
            init(from decoder: KeyedArchiveDecoder) throws { _ = try decoder.decodeSetElements(String.self, forKey: "members") }
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        let array = try Self.archiveBytes([
            Self.instance(2, [("members", Self.uid(3))]),
            Self.classDictionary(["ArrayHolder", "NSObject"]),
            Self.instance(4, [("NS.objects", .array([Self.uid(5)]))]),
            Self.classDictionary(["NSArray", "NSObject"]),
            "c",
        ])
        var arrayRegistry = ArchiveRegistry()
        arrayRegistry.register(ArrayHolder.self)
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(ArrayHolder.self, from: array, registry: arrayRegistry) }
    }

    /// Values archived without keys (`$0`, …; written by plistlib, Fixtures/schema), a
    /// back-reference among them read once the graph is built.
    @Test func unkeyedBackReferencesResolveAfterTheGraph() throws {
        final class Drawing: KeyedArchivable {
            let title: String
            var shapes: [Shape] = []
            init(from decoder: KeyedArchiveDecoder) throws {
                title = try decoder.decodeUnkeyed(String.self, at: 1)
                shapes = [try decoder.decodeUnkeyed(Shape.self, at: 2), try decoder.decodeUnkeyed(Shape.self, at: 3)]
            }
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        final class Shape: KeyedArchivable {
            let size: Int?
            weak var drawing: Drawing?
            init(from decoder: KeyedArchiveDecoder) throws {
                size = try decoder.decodeUnkeyed(ArchiveValue.self, at: 0).intValue
                decoder.decodeUnkeyed(Drawing.self, at: 1, for: self) { shape, drawing in shape.drawing = drawing }
            }
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        let bytes = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("schema/unkeyed-drawing.plist")))
        var registry = ArchiveRegistry()
        registry.register(Drawing.self)
        registry.register(Shape.self)
        let drawing = try KeyedUnarchiver.unarchive(Drawing.self, from: bytes, registry: registry)
        #expect(drawing.title == "a drawing stored without keys" && drawing.shapes.map(\.size) == [7, 8])
        #expect(drawing.shapes.allSatisfy { $0.drawing === drawing })
        // What the generator makes of it: typed fields, the back-reference put off.
        let source = try ArchiveSchema(archives: [bytes]).swiftSource()
        for expected in ["var unkeyed0: Int\n", "var unkeyed1: String\n", "var unkeyed2: Shape\n", "var unkeyed1: Drawing?\n",
                         "decoder.decodeUnkeyed(Drawing.self, at: 1, for: self) { object, value in object.unkeyed1 = value }"] {
            #expect(source.contains(expected), "\(expected)")
        }
    }

    /// A type registered as `NSObject` is the root: its subclasses' chains end in one `NSObject`.
    @Test func aRegisteredNSObjectIsTheRoot() throws {
        class Root: KeyedArchivable {
            init() {}
            required init(from decoder: KeyedArchiveDecoder) throws {}
            func encode(to encoder: KeyedArchiveEncoder) throws {}
        }
        final class Leaf: Root {}
        var registry = ArchiveRegistry()
        registry.register(Root.self, className: "NSObject")
        registry.register(Leaf.self, className: "Leaf", superclass: Root.self)
        let graph = try ArchiveGraph(bytes: try KeyedArchiver.archive([Leaf(), Root()] as [Root], registry: registry))
        let chains = graph.objects.compactMap { if case .classDescriptor(let descriptor) = $0 { return descriptor.classes } else { return nil } }
        #expect(chains.contains(["Leaf", "NSObject"]) && chains.contains(["NSObject"]))
        let decoded = try KeyedUnarchiver.unarchive([Root].self, from: try KeyedArchiver.archive([Leaf(), Root()] as [Root], registry: registry), registry: registry)
        #expect(decoded.count == 2 && decoded[0] is Leaf && !(decoded[1] is Leaf))
    }
}
