import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// ``ArchiveRegistry/inspectsUnknownClasses``: every class as an ``ArchiveInstance`` of its
/// fields, shared objects and cycles kept. Every archive of the Apple corpus and of `Fixtures/`
/// decodes and encodes back to a graph ``ArchiveDiff`` (the `keyedarchive diff` engine, sharing
/// and class chains included) calls equal; without the opt-in the registry refuses as before;
/// every budget holds; and what decoding makes is freed when released, however the archive
/// shares and cycles.
@Suite struct ArchiveValueInspectionTests: HandBuiltArchives {
    static let inspecting: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        return registry
    }()

    /// Decodes every top-level key under inspection and encodes the values again, unkeyed
    /// values (`$0`, `$1`, …) first in their order, as `bytes` holds them.
    static func rewrite(_ bytes: [UInt8], registry: ArchiveRegistry = inspecting, format: ArchiveFormat? = nil,
                        identities: ArchiveIdentityTable? = nil) throws -> [UInt8] {
        let graph = try ArchiveGraph(bytes: bytes)
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
        unarchiver.identities = identities
        var options = ArchiveWritingOptions.appleFaithful
        options.era = GraphRebuilder.era(of: graph) ?? .current
        let archiver = KeyedArchiver(registry: registry, options: options)
        archiver.identities = identities
        func unkeyedPosition(_ key: String) -> Int? { key.hasPrefix("$") ? Int(key.dropFirst()) : nil }
        let unkeyed = graph.top.compactMap { top in unkeyedPosition(top.key).map { ($0, top.key) } }.sorted { $0.0 < $1.0 }
        for (position, _) in unkeyed {
            try archiver.encodeUnkeyed(try unarchiver.decodeUnkeyed(ArchiveValue.self, at: position))
        }
        for top in graph.top where unkeyedPosition(top.key) == nil {
            guard case .uid = top.value else {
                // A number stored in `$top` itself (compiled nibs do), copied as `roundTrip`
                // copies it: an ArchiveValue would write it as an object of `$objects`.
                try archiver.topLevelEncoder.encodeRaw(top.value, forStoredKey: top.key)
                continue
            }
            let key = ArchiveKeys.unescape(top.key) ?? top.key
            try archiver.encode(try unarchiver.decodeIfPresent(ArchiveValue.self, forKey: key), forKey: key)
        }
        let isXML = bytes.starts(with: Array("<?xml".utf8)) || bytes.starts(with: Array("<plist".utf8))
        return try archiver.finish(format: format ?? (isXML ? .xml : .binary))
    }

    /// Files the corpus test expects to be refused even under inspection, and why: none.
    static let expectedRefusals: [String: ArchiveError.Code] = [:]

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyCorpusArchiveEncodesBackToAnEqualGraph() throws {
        var equal = 0, instances = 0, shared = 0, back = 0
        var refused: [String: ArchiveError.Code] = [:]
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            let ours: [UInt8]
            // A nib's view hierarchy nests deep: rewritten on a stack of the test's choosing
            // (Swift Testing's threads have 512 KiB on Darwin).
            switch onThread(stackSize: 8 << 20, { Result { try Self.rewrite(bytes) } }) {
            case .success(let rewritten):
                ours = rewritten
            case .failure(let error as ArchiveError):
                refused[entry.relativePath] = error.code
                continue
            case .failure(let error):
                throw error
            }
            let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: ours))
            #expect(diff.isEqual, "\(entry.relativePath): \(diff.differences.prefix(5).map(\.description))")
            if diff.isEqual { equal += 1 }
            let counts = try Self.kinds(bytes)
            instances += counts.instances
            shared += counts.shared
            back += counts.back
        }
        print("Inspection over the corpus: \(equal) of \(ArchiveFixtures.entries.count) archives encode back to an equal graph; \(instances) instances, \(shared) shared objects, \(back) back-references; refused: \(refused)")
        #expect(refused == Self.expectedRefusals)
        #expect(equal == ArchiveFixtures.entries.count - Self.expectedRefusals.count)
        #expect(instances > 10_000 && shared > 1_000 && back > 100)
    }

    /// How many instances, shared objects and back-references the top-level values hold.
    static func kinds(_ bytes: [UInt8]) throws -> (instances: Int, shared: Int, back: Int) {
        let graph = try ArchiveGraph(bytes: bytes)
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: inspecting)
        var pending: [ArchiveValue] = []
        for top in graph.top {
            if top.key.hasPrefix("$"), let position = Int(top.key.dropFirst()) {
                pending.append(try unarchiver.decodeUnkeyed(ArchiveValue.self, at: position))
            } else if let value = try unarchiver.decodeIfPresent(ArchiveValue.self, forKey: ArchiveKeys.unescape(top.key) ?? top.key) {
                pending.append(value)
            }
        }
        var seen: Set<ObjectIdentifier> = []
        var counts = (instances: 0, shared: 0, back: 0)
        while let value = pending.popLast() {
            switch value {
            case .shared(let object):
                guard seen.insert(ObjectIdentifier(object)).inserted else { continue }
                counts.shared += 1
                pending.append(object.value)
            case .backReference:
                counts.back += 1
            case .instance(let instance):
                counts.instances += 1
                pending.append(contentsOf: instance.fields.compactMap(\.value.value))
            case .array(let elements, _), .set(let elements, _): pending.append(contentsOf: elements)
            case .orderedSet(let set): pending.append(contentsOf: set.elements)
            case .dictionary(let entries, _): for entry in entries { pending.append(entry.key); pending.append(entry.value) }
            default: break
            }
        }
        return counts
    }

    /// The project's own archives: the fleet fixtures encode back to equal graphs; every other
    /// archive the generic view accepts (hostile by design, or deeper than the default limits)
    /// either does too or is refused with the typed error of a fault in the input.
    @Test func everyFixtureArchiveEncodesBackOrIsRefusedWithATypedError() throws {
        var equal: [String] = [], refused: [String: ArchiveError.Code] = [:]
        let enumerator = FileManager.default.enumerator(at: ArchiveFixtures.projectFixtures, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard let data = try? Data(contentsOf: url), let graph = try? ArchiveGraph(bytes: [UInt8](data)) else { continue }
            let name = url.path.replacingOccurrences(of: ArchiveFixtures.projectFixtures.path + "/", with: "")
            do {
                let ours = try Self.rewrite([UInt8](data))
                let diff = ArchiveDiff(graph, try ArchiveGraph(bytes: ours))
                #expect(diff.isEqual, "\(name): \(diff.differences.prefix(5).map(\.description))")
                equal.append(name)
            } catch let error as ArchiveError {
                #expect(![.modelError, .invalidState, .typeNotRegistered].contains(error.code), "\(name): \(error)")
                refused[name] = error.code
            }
        }
        print("Inspection over Fixtures/: equal graphs: \(equal.sorted()); refused: \(refused.sorted { $0.key < $1.key })")
        #expect(equal.contains("fleet.plist") && equal.contains("fleet.xml"))
        #expect(refused.keys.allSatisfy { $0.hasPrefix("hostile/") || $0.hasPrefix("deep/") || $0.hasPrefix("fuzz-findings/") }, "\(refused)")
    }

    /// An object of a class nobody mapped (#1) whose field holds an inline array of references:
    /// to an NSDate (#3), a plain string (#5) and a number (#6). Written back, the date is an
    /// NSDate object again, not a date stored in the array (what a fuzz run of the typed fuzzer
    /// found: "type changed: NSDate object → date"), and the graph is the same: the array is
    /// ``ArchiveInstance/FieldValue/objects(_:)``, every element a reference again.
    @Test func aDateInAnInlineArrayIsWrittenBackAsItsObject() throws {
        let bytes = try Self.archiveBytes([
            /* 1 */ Self.instance(2, [("items", .array([Self.uid(3), Self.uid(5), Self.uid(6)])), ("when", .date(PropertyListDate(secondsSinceReferenceDate: 7)))]),
            /* 2 */ Self.classDictionary(["AppState", "NSObject"]),
            /* 3 */ Self.instance(4, [("NS.time", .double(620737053.76402))]),
            /* 4 */ Self.classDictionary(["NSDate", "NSObject"]),
            /* 5 */ "Spotlight",
            /* 6 */ .integer(1231),
        ])
        let graph = try ArchiveGraph(bytes: bytes)
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
        guard case .instance(let state) = value.unshared, case .objects(let items)? = state["items"] else {
            Issue.record("expected an AppState with an array of references, found \(value)")
            return
        }
        #expect(items == [.date(Date(timeIntervalSinceReferenceDate: 620737053.76402)), .string("Spotlight"), .integer(1231)])
        let diff = ArchiveDiff(graph, try ArchiveGraph(bytes: try Self.rewrite(bytes)))
        #expect(diff.isEqual, "\(diff.differences.map(\.description))")
        // A date stored in the object itself stays there.
        #expect(state["when"] == .inline(.date(Date(timeIntervalSinceReferenceDate: 7))))
    }

    /// An NSMeasurement (#1) whose unit's converter (#4) names a superclass no Mac writes
    /// (`NQUnitConverter`, a fuzz run's mutation of Foundation's chain). A converter keeps no
    /// stored fields, so it is read as what it holds, and so are the unit and the measurement
    /// that hold it; the rewrite is the same graph. Its canonical twin still reads as typed values.
    @Test func aConverterStoredOtherwiseIsWrittenBackAsStored() throws {
        func measurement(converterChain: [String]) throws -> [UInt8] {
            try Self.archiveBytes([
                /* 1 */ Self.instance(7, [("NS.unit", Self.uid(2)), ("NS.value", .double(45))]),
                /* 2 */ Self.instance(6, [("NS.specifier", .integer(1287)), ("NS.converter", Self.uid(4)), ("NS.symbol", Self.uid(3))]),
                /* 3 */ "mi",
                /* 4 */ Self.instance(5, [("NS.coefficient", .double(1609.34)), ("NS.constant", .double(0))]),
                /* 5 */ Self.classDictionary(converterChain),
                /* 6 */ Self.classDictionary(["NSUnitLength", "NSDimension", "NSUnit", "NSObject"]),
                /* 7 */ Self.classDictionary(["NSMeasurement", "NSObject"]),
            ])
        }
        let odd = try measurement(converterChain: ["NSUnitConverterLinear", "NQUnitConverter", "NSObject"])
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: odd, registry: Self.inspecting)
        let stored = try #require(value.unshared.instanceValue, "expected the measurement shown as stored, found \(value)")
        #expect(stored.className == "NSMeasurement")
        let unit = try #require(stored["NS.unit"]?.value?.unshared.instanceValue)
        #expect(unit["NS.converter"]?.value?.unshared.instanceValue?.classes == ["NSUnitConverterLinear", "NQUnitConverter", "NSObject"])
        let diff = ArchiveDiff(try ArchiveGraph(bytes: odd), try ArchiveGraph(bytes: try Self.rewrite(odd)))
        #expect(diff.isEqual, "\(diff.differences.map(\.description))")

        let usual = try measurement(converterChain: ["NSUnitConverterLinear", "NSUnitConverter", "NSObject"])
        guard case .measurement(let typed) = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: usual, registry: Self.inspecting).unshared else {
            Issue.record("Foundation's own chain should read as an NSMeasurement")
            return
        }
        #expect(typed.unit.converter == .linear(coefficient: 1609.34, constant: 0))
        #expect(ArchiveDiff(try ArchiveGraph(bytes: usual), try ArchiveGraph(bytes: try Self.rewrite(usual))).isEqual)
    }

    /// An NSMutableOrderedSet (#1) that stores the number 1 (#2) twice, which no ordered set
    /// holds (a fuzz run's mutation). Under inspection it is shown as its fields, all five, and
    /// written back as the same graph; read as a value it keeps each element once, as
    /// `NSOrderedSet` does.
    @Test func anOrderedSetStoringAnElementTwiceIsWrittenBackAsStored() throws {
        let bytes = try Self.archiveBytes([
            /* 1 */ Self.instance(3, [("NS.object.0", Self.uid(2)), ("NS.object.1", Self.uid(2)), ("NS.object.2", Self.uid(4)), ("NS.object.3", Self.uid(5))]),
            /* 2 */ .integer(1),
            /* 3 */ Self.classDictionary(["NSMutableOrderedSet", "NSOrderedSet", "NSObject"]),
            /* 4 */ .integer(3),
            /* 5 */ .integer(4),
        ])
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
        let stored = try #require(value.instanceValue, "expected the ordered set shown as stored, found \(value)")
        #expect(stored.classes == ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"])
        #expect(stored.fields.map(\.key) == ["NS.object.0", "NS.object.1", "NS.object.2", "NS.object.3"])
        #expect(stored.fields.map(\.value) == [.object(.integer(1)), .object(.integer(1)), .object(.integer(3)), .object(.integer(4))])
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try Self.rewrite(bytes)))
        #expect(diff.isEqual, "\(diff.differences.map(\.description))")

        var plain = ArchiveRegistry()
        plain.inspectsUnknownClasses = false
        guard case .orderedSet(let set) = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: plain).unshared else {
            Issue.record("without inspection it should read as an ordered set")
            return
        }
        #expect(set.elements == [.integer(1), .integer(3), .integer(4)])
    }

    /// An object of an unmapped class (#1) whose `path` is an NSIndexPath (#2) whose packed data
    /// (#4, an NSMutableData) its `blob` refers to as well, and whose `link` is an NSURL (#6)
    /// whose base (#8) its `home` refers to as well (a fuzz run's mutation of an Xcode state
    /// file shared the data so). Read as typed values, the index path and the URL would be
    /// written back with objects of their own, and the sharing lost; under inspection each is
    /// shown as its fields, and the rewrite is the same graph.
    @Test func aValueWhosePartIsSharedIsWrittenBackAsStored() throws {
        let bytes = try Self.archiveBytes([
            /* 1 */ Self.instance(3, [("path", Self.uid(2)), ("blob", Self.uid(4)), ("link", Self.uid(6)), ("home", Self.uid(8))]),
            /* 2 */ Self.instance(10, [("NSIndexPathLength", .integer(2)), ("NSIndexPathData", Self.uid(4))]),
            /* 3 */ Self.classDictionary(["LogState", "NSObject"]),
            /* 4 */ Self.instance(5, [("NS.data", .data([1, 4]))]),
            /* 5 */ Self.classDictionary(["NSMutableData", "NSData", "NSObject"]),
            /* 6 */ Self.instance(7, [("NS.base", Self.uid(8)), ("NS.relative", Self.uid(9))]),
            /* 7 */ Self.classDictionary(["NSURL", "NSObject"]),
            /* 8 */ Self.instance(7, [("NS.base", Self.uid(0)), ("NS.relative", Self.uid(11))]),
            /* 9 */ "log.txt",
            /* 10 */ Self.classDictionary(["NSIndexPath", "NSObject"]),
            /* 11 */ "file:///tmp/",
        ])
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
        let state = try #require(value.instanceValue, "expected a LogState, found \(value)")
        #expect(state["path"]?.value?.instanceValue?.className == "NSIndexPath")
        #expect(state["link"]?.value?.instanceValue?.className == "NSURL")
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try Self.rewrite(bytes)))
        #expect(diff.isEqual, "\(diff.differences.map(\.description))")
        // Not shared, the same values read as an index path and a URL.
        let alone = try Self.archiveBytes([
            /* 1 */ Self.instance(3, [("path", Self.uid(2)), ("link", Self.uid(6))]),
            /* 2 */ Self.instance(10, [("NSIndexPathLength", .integer(2)), ("NSIndexPathData", Self.uid(4))]),
            /* 3 */ Self.classDictionary(["LogState", "NSObject"]),
            /* 4 */ Self.instance(5, [("NS.data", .data([1, 4]))]),
            /* 5 */ Self.classDictionary(["NSMutableData", "NSData", "NSObject"]),
            /* 6 */ Self.instance(7, [("NS.base", Self.uid(8)), ("NS.relative", Self.uid(9))]),
            /* 7 */ Self.classDictionary(["NSURL", "NSObject"]),
            /* 8 */ Self.instance(7, [("NS.base", Self.uid(0)), ("NS.relative", Self.uid(11))]),
            /* 9 */ "log.txt",
            /* 10 */ Self.classDictionary(["NSIndexPath", "NSObject"]),
            /* 11 */ "file:///tmp/",
        ])
        let typed = try #require(try KeyedUnarchiver.unarchive(ArchiveValue.self, from: alone, registry: Self.inspecting).instanceValue)
        #expect(typed["path"]?.value == .indexPath(IndexPath(indexes: [1, 4])))
        #expect(typed["link"]?.value == .url(try #require(URL(string: "log.txt", relativeTo: URL(string: "file:///tmp/")))))
        #expect(ArchiveDiff(try ArchiveGraph(bytes: alone), try ArchiveGraph(bytes: try Self.rewrite(alone))).isEqual)
    }

    /// The tutorial's example (§10), on a nib of the corpus.
    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func tutorialExampleReadsAndRewritesANib() throws {
        let nib = try ArchiveFixtures.bytes("apple-sample-code/CocoaSlides_SlideTableNode.keyedobjects.nib")
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        let unarchiver = try KeyedUnarchiver(bytes: nib, registry: registry)
        let objects = try unarchiver.decode(ArchiveValue.self, forKey: "IB.objectdata")
        let data = try #require(objects.instanceValue)
        #expect(data.className == "NSIBObjectData")
        #expect(data["NSRoot"]?.value?.instanceValue?.className == "NSCustomObject")
        let archiver = KeyedArchiver(registry: registry, options: .appleFaithful)
        try archiver.encode(objects, forKey: "IB.objectdata")
        let rewritten = try archiver.finish()
        #expect(ArchiveDiff(try ArchiveGraph(bytes: nib), try ArchiveGraph(bytes: rewritten)).isEqual)
    }

    // MARK: Off by default

    static func archive(_ objects: [any ArchiveObjectEncodable], format: ArchiveFormat = .binary) throws -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray(objects), forKey: "root")
        return try archiver.finish(format: format)
    }

    @Test func theAllowlistStaysTheDefault() throws {
        let pilot = ArchiveGenericObject(classes: ["MyApp.Pilot", "NSObject"], fields: [("name", .object("Amelia"))])
        let bytes = try Self.archive([pilot, "note"])
        #expect(ArchiveRegistry().inspectsUnknownClasses == false)
        do {
            _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: ArchiveRegistry())
            Issue.record("an unregistered class was admitted by default")
        } catch {
            #expect(error.code == .classNotAllowed)
            #expect(error.keyPath.description == "root[0]")
            #expect(error.remedy?.contains("inspectsUnknownClasses") == true, "\(error)")
        }
        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
        #expect(value == [.instance(ArchiveInstance(classes: ["MyApp.Pilot", "NSObject"], fields: [.init(key: "name", value: .object("Amelia"))])), "note"])
        // Typed decoding is not affected: a model type still has to be registered.
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive([String].self, from: bytes, registry: Self.inspecting) }
    }

    // MARK: Fields as stored

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func fieldsKeepHowTheyWereStored(format: ArchiveFormat) throws {
        let friend = ArchiveGenericObject(classes: ["Friend", "NSObject"], fields: [("n", .inline(.integer(1)))])
        let object = ArchiveGenericObject(classes: ["Widget", "Gadget", "NSObject"], fields: [
            ("count", .inline(.integer(-7))),
            ("ratio", .inline(.real(.float32(0.5)))),
            ("on", .inline(.bool(true))),
            ("bytes", .inline(.data([1, 2, 3]))),
            ("nothing", .object(nil)),
            ("title", .object("Hello")),
            ("list", .object(ArchiveArray(["a", 2], classes: ArchiveArray.mutableArrayClasses))),
            ("friend", .object(friend)),
            ("$0", .object("unkeyed")),
            ("$$dollar", .inline(.string("escaped"))),
            ("pairs", .inline(.array([.uid(PropertyListUID(0)), .integer(5)]))),
        ])
        let bytes = try Self.archive([object], format: format)
        // `pairs` holds a reference to the friend, as an inline array of references does: the
        // writer cannot know the friend's UID beforehand, so the file is patched.
        let original = try ArchiveGraph(bytes: bytes)
        guard let widgetUID = original.objects.indices.first(where: { original.className(of: PropertyListUID(UInt64($0))) == "Widget" }),
              let friendUID = original.objects.indices.first(where: { original.className(of: PropertyListUID(UInt64($0))) == "Friend" }),
              case .dictionary(let top) = try PropertyListCodec.decode(bytes), case .array(var objects)? = top["$objects"],
              case .dictionary(let widgetFields) = objects[widgetUID] else {
            Issue.record("no widget")
            return
        }
        objects[widgetUID] = .dictionary(PropertyListDictionary(entries: widgetFields.entries.map { entry in
            entry.key == "pairs" ? .init(key: "pairs", value: .array([.uid(PropertyListUID(UInt64(friendUID))), .integer(5)])) : entry
        }))
        let patched = try PropertyListCodec.encode(.dictionary(PropertyListDictionary(entries: top.entries.map { entry in
            entry.key == "$objects" ? .init(key: "$objects", value: .array(objects)) : entry
        })), format: format == .xml ? .xml : .binary)
        let graph = try ArchiveGraph(bytes: patched)

        let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: patched, registry: Self.inspecting)
        let friendValue = ArchiveValue.instance(ArchiveInstance(classes: ["Friend", "NSObject"], fields: [.init(key: "n", value: .inline(1))]))
        let expected = ArchiveInstance(classes: ["Widget", "Gadget", "NSObject"], fields: [
            .init(key: "count", value: .inline(-7)),
            // XML keeps no real's width.
            .init(key: "ratio", value: .inline(format == .xml ? .double(0.5) : .float(0.5))),
            .init(key: "on", value: .inline(true)),
            .init(key: "bytes", value: .inline(.data([1, 2, 3]))),
            .init(key: "nothing", value: .null),
            .init(key: "title", value: .object("Hello")),
            .init(key: "list", value: .object(.array(["a", 2], mutable: true))),
            .init(key: "friend", value: .object(.shared(ArchiveSharedObject(friendValue)))),
            .init(key: "$0", value: .object("unkeyed")),
            .init(key: "$$dollar", value: .inline("escaped")),
            .init(key: "pairs", value: .inline([.shared(ArchiveSharedObject(friendValue)), 5])),
        ])
        guard case .instance(let widget)? = value[0] else {
            Issue.record("not an instance: \(value)")
            return
        }
        // The friend is referred to twice (a field and the inline array): one shared object.
        #expect(widget["friend"]?.value?.sharedObject === widget["pairs"]?.value?[0]?.sharedObject)
        #expect(widget["friend"]?.value?.sharedObject != nil)
        #expect(widget.className == "Widget" && widget.classes == expected.classes)
        #expect(widget.fields.map(\.key).sorted() == expected.fields.map(\.key).sorted())
        for field in expected.fields {
            switch (field.value, widget[storedKey: field.key]) {
            case (.object(.shared(let a)), .object(.shared(let b))?): #expect(a.value == b.value, "\(field.key)")
            case (.inline(.array(let a, _)), .inline(.array(let b, _))?):
                #expect(a.count == b.count && a[1] == b[1] && a[0].unshared == b[0].unshared, "\(field.key)")
            default: #expect(widget[storedKey: field.key] == field.value, "\(field.key)")
            }
        }
        #expect(widget["$dollar"] == .inline("escaped"))
        #expect(widget["title"]?.value?.stringValue == "Hello")

        // Encoded again: the same graph.
        let again = try Self.rewrite(patched, format: format)
        #expect(ArchiveDiff(graph, try ArchiveGraph(bytes: again)).isEqual)
    }

    // MARK: Sharing and cycles

    @Test func sharingAndCyclesSurviveAndAreFreed() throws {
        let node = ArchiveGenericObject(classes: ["Node", "NSObject"])
        node.fields = [("me", .object(node)), ("label", .object("n"))]
        let loop = ArchiveGenericObject(classes: ArchiveArray.mutableArrayClasses)
        loop.fields = [("NS.objects", .objects(["x", loop]))]
        let bytes = try Self.archive([node, node, loop])
        weak var released: ArchiveSharedObject?
        try {
            let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
            guard let first = value[0]?.sharedObject, let loopObject = value[2]?.sharedObject else {
                Issue.record("not shared: \(value)")
                return
            }
            #expect(value[1]?.sharedObject === first)
            guard case .backReference(let back)? = first.value.instanceValue?["me"]?.value else {
                Issue.record("no back-reference: \(first.value)")
                return
            }
            #expect(back.object === first)
            #expect(first.value.instanceValue?["me"]?.value?.instanceValue?["label"]?.value == "n")
            #expect(loopObject.value.isMutable)
            #expect(loopObject.value[1]?.sharedObject === loopObject)
            #expect(value.description.contains("shared#1"), "\(value.description)")
            released = first
            let again = try Self.rewrite(bytes)
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: again)).isEqual)
        }()
        // Back-references are weak: nothing decoded keeps itself alive.
        #expect(released == nil)
    }

    /// A hundred thousand shared objects, each holding the next, decoded shallowly (the archive
    /// lists them last first): releasing the chain takes no stack per object, on a small thread.
    @Test func aLongChainOfSharedObjectsIsReleasedWithoutRecursion() throws {
        let count = 100_000
        var nodes: [ArchiveGenericObject] = []
        var next: ArchiveGenericObject?
        for index in 0..<count {
            let node = ArchiveGenericObject(classes: ["Link", "NSObject"], fields: [("n", .inline(.integer(PropertyListInteger(Int64(index)))))])
            if let next { node.fields.append(("next", .object(next))) }
            nodes.append(node)
            next = node
        }
        let bytes = try Self.archive(nodes)
        // Unlinked before they go: released from the tail, the chain would free itself recursively.
        next = nil
        for node in nodes { node.fields = [] }
        nodes.removeAll()
        let outcome = onThread(stackSize: 256 << 10) { () -> StackSafetyTests.Outcome<Int> in
            do {
                let value = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting)
                var length = 0
                var link = value[count - 1]
                while let current = link?.instanceValue {
                    length += 1
                    link = current["next"]?.value
                }
                return .success(length)
            } catch {
                return .caught(error)
            }
        }
        switch outcome {
        case .success(let length): #expect(length == count)
        case .failure(let error): Issue.record("\(error)")
        }
    }

    // MARK: Budgets

    @Test func everyBudgetHolds() throws {
        func chain(_ levels: Int) -> ArchiveGenericObject {
            var inner = ArchiveGenericObject(classes: ["Leaf", "NSObject"])
            for _ in 0..<levels { inner = ArchiveGenericObject(classes: ["Box", "NSObject"], fields: [("child", .object(inner))]) }
            return inner
        }
        func code(_ bytes: [UInt8], _ change: (inout ArchiveReadingOptions) -> Void) -> ArchiveError.Code? {
            var options = ArchiveReadingOptions.default
            change(&options)
            do {
                _ = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: Self.inspecting, options: options)
                return nil
            } catch {
                return error.code
            }
        }
        let deep = try Self.archive([chain(60)])
        #expect(code(deep) { $0.maximumDepth = 50 } == .depthLimitExceeded)
        #expect(code(deep) { $0.maximumDepth = 70 } == nil)
        let wide = try Self.archive([ArchiveGenericObject(classes: ["Wide", "NSObject"], fields: (0..<40).map { ("f\($0)", .inline(.integer(PropertyListInteger(Int64($0))))) })])
        #expect(code(wide) { $0.maximumTotalElementCount = 30 } == .budgetExceeded)
        #expect(code(wide) { $0.maximumTotalElementCount = 50 } == nil)
        let many = try Self.archive((0..<40).map { _ in ArchiveGenericObject(classes: ["Item", "NSObject"], fields: [("s", .object("x"))]) })
        #expect(code(many) { $0.maximumVisitCount = 50 } == .budgetExceeded)
        #expect(code(many) { $0.maximumVisitCount = 100 } == nil)
        // An inline array counts its elements against the element budget too.
        let inline = try Self.archive([ArchiveGenericObject(classes: ["Packed", "NSObject"], fields: [("list", .inline(.array((0..<40).map { .integer(PropertyListInteger(Int64($0))) })))])])
        #expect(code(inline) { $0.maximumTotalElementCount = 30 } == .budgetExceeded)
    }

    /// 10,000 nested objects of an unknown class on small stacks: refused at the depth limit by
    /// default; with the limit lifted, decoded or stopped with `stackExhausted` — never a crash,
    /// in the walk or in releasing what it built.
    @Test(arguments: StackSafetyTests.stackSizes)
    func deepObjectsStopWithATypedError(stackSize: Int) throws {
        let bytes = try StackSafetyTests.fixture("node-chain-10000.plist")
        for options in [ArchiveReadingOptions.default, StackSafetyTests.deepReading] {
            let outcome = ArchiveValueAPITests.depthOnThread(bytes, registry: Self.inspecting, options: options, stackSize: stackSize) { $0.instanceValue?["child"]?.value }
            ArchiveValueAPITests.expectDeepOutcome(outcome, options: options, stackSize: stackSize)
        }
    }

    // MARK: Encoding what cannot be written

    @Test func encodingRefusesWhatNoArchiveCanHold() throws {
        func refusal(_ value: ArchiveValue) -> ArchiveError.Code? {
            do {
                _ = try KeyedArchiver.archive(value, registry: ArchiveRegistry())
                return nil
            } catch {
                return error.code
            }
        }
        #expect(refusal(.instance(ArchiveInstance(classes: ["A"], fields: [.init(key: "$class", value: .inline(1))]))) == .duplicateKey)
        #expect(refusal(.instance(ArchiveInstance(classes: ["A"], fields: [.init(key: "k", value: .inline(1)), .init(key: "k", value: .inline(2))]))) == .duplicateKey)
        #expect(refusal(.instance(ArchiveInstance(classes: ["A"], fields: [.init(key: "k", value: .inline(.url(URL(fileURLWithPath: "/"))))]))) == .typeMismatch)
        var back: ArchiveValue?
        do {
            let object = ArchiveSharedObject(["kept while this scope lasts"])
            back = .backReference(ArchiveBackReference(object))
            #expect(refusal(back ?? .null) == nil)
        }
        #expect(refusal(back ?? .null) == .valueNotFound)
        #expect(refusal(.instance(ArchiveInstance(classes: ["A", "NSObject"], fields: [.init(key: "k", value: .inline(1))]))) == nil)
    }
}
