import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Issue 51: shapes Apple's software writes that no earlier fixture held. Each archive is made
/// by a script of ours with Python's plistlib (Fixtures/apple-shapes/) or built here, in the
/// shape the issue quotes, and checked against plistlib's reading where a file is written.
@Suite struct AppleShapesRound3Tests {
    static let inspecting: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        return registry
    }()

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("apple-shapes/\(name)")))
    }

    /// plistlib's reading of `bytes` and ours of the graph, in the reference's canonical text.
    static func plistlibAgrees(_ bytes: [UInt8]) throws -> Bool? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-issue51-\(UUID().uuidString).plist")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        guard let theirs = try PlistlibArchiveReference.read([url.path]) else { return nil }
        return theirs[url.path] == PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: bytes))
    }

    // MARK: 1. A class dictionary of `$classname` alone (Xcode's SpriteKit scene editor)

    final class HealthComponent: KeyedArchivable {
        let maxHealth: Int
        let name: String
        init(from decoder: KeyedArchiveDecoder) throws {
            maxHealth = try decoder.decode(Int.self, forKey: "maxHealth")
            name = try decoder.decode(String.self, forKey: "name")
        }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(maxHealth, forKey: "maxHealth")
            try encoder.encode(name, forKey: "name")
        }
    }

    @Test func aClassDictionaryWithoutClassesReadsEverywhere() throws {
        let bytes = try Self.fixture("classname-only-components.plist")
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.classDescriptor(of: PropertyListUID(3)) == ArchiveGraph.ClassDescriptor(nameOnly: "MyGame.HealthComponent"))
        #expect(graph.classDescriptor(of: PropertyListUID(3))?.storesClasses == false)
        if let agrees = try Self.plistlibAgrees(bytes) { #expect(agrees) }

        let dump = try ArchiveDumper.dump(bytes)
        #expect(dump.contains("MyGame.HealthComponent (no $classes)"))
        let json = try ArchiveJSONRenderer.render(bytes)
        #expect(json.contains(#"{"$classname": "MyGame.HealthComponent"}"#))

        // ArchiveValue under inspection: the instance says it has no `$classes`.
        let value = try KeyedUnarchiver(bytes: bytes, registry: Self.inspecting).decode(ArchiveValue.self, forKey: "root")
        guard case .instance(let entity) = value.unshared, case .object(let components)? = entity["components"],
              case .array(let elements, _) = components, case .instance(let health)? = elements.first?.unshared else {
            Issue.record("unexpected shape: \(value)")
            return
        }
        #expect(health.className == "MyGame.HealthComponent" && health.classes.isEmpty && !health.storesClasses)
        #expect(entity.storesClasses && entity.classes == ["GKEntity", "NSObject"])

        // The schema names the class.
        let schema = try ArchiveSchema(archives: [bytes])
        #expect(schema.class(named: "MyGame.HealthComponent")?.instanceCount == 1)

        // Typed decoding through the registry, by `$classname` as Apple's unarchiver looks it up.
        let health2 = try KeyedUnarchiver(bytes: bytes, registry: Self.inspectingWith(HealthComponent.self, "MyGame.HealthComponent"))
            .decode(ArchiveValue.self, forKey: "root")
        guard case .instance(let entity2) = health2.unshared, case .object(let models)? = entity2["components"],
              case .array(let modelElements, _) = models, case .model(let model)? = modelElements.first?.unshared,
              let component = model.object as? HealthComponent else {
            Issue.record("the registered class did not decode: \(health2)")
            return
        }
        #expect(component.maxHealth == 100 && component.name == "hero")
    }

    /// A model decoded from a class dictionary without `$classes` is written back with one, by
    /// `roundTrip` (an identity table) as generated models do.
    @Test func aModelOfAClassWithoutClassesIsWrittenBackAsStored() throws {
        let bytes = try Self.fixture("classname-only-components.plist")
        let registry = Self.inspectingWith(HealthComponent.self, "MyGame.HealthComponent")
        let rewritten = try KeyedArchiver.roundTrip(bytes, registry: registry)
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: rewritten))
        #expect(diff.isEqual, "\(diff.differences.prefix(3).map(\.description))")
        let nameOnly = try ArchiveGraph(bytes: rewritten).objects.compactMap { object -> String? in
            if case .classDescriptor(let descriptor) = object, !descriptor.storesClasses { return descriptor.name } else { return nil }
        }
        #expect(nameOnly.sorted() == ["MyGame.HealthComponent", "MyGame.MoveComponent"])
    }

    static func inspectingWith<T: KeyedArchivable>(_ type: T.Type, _ name: String) -> ArchiveRegistry {
        var registry = inspecting
        registry.register(type, className: name)
        registry.decodesModelsInArchiveValues = true
        return registry
    }

    @Test func aClassDictionaryWithoutClassesIsWrittenBackAsStored() throws {
        let bytes = try Self.fixture("classname-only-components.plist")
        let plainly = try ArchiveValueInspectionTests.rewrite(bytes)
        let identities = try ArchiveValueInspectionTests.rewrite(bytes, identities: ArchiveIdentityTable())
        let roundTrip = try KeyedArchiver.roundTrip(bytes, registry: Self.inspecting)
        // Without inspection, roundTrip copies the objects of unregistered classes as stored.
        let copied = try KeyedArchiver.roundTrip(bytes, registry: ArchiveRegistry())
        for (path, rewritten) in [("plainly", plainly), ("identity table", identities), ("roundTrip", roundTrip), ("copied", copied)] {
            // plistlib reads the same objects, class dictionaries included, from both files.
            let ours = PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: rewritten))
            // (The copy numbers objects in the order of their stored keys: the same graph.)
            if path != "copied" { #expect(ours == PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: bytes)), "\(path): \(ours)") }
            #expect(try ArchiveGraph(bytes: rewritten).objects.filter { if case .classDescriptor(let d) = $0 { !d.storesClasses } else { false } }.count == 2, "\(path)")
            if let agrees = try Self.plistlibAgrees(rewritten) { #expect(agrees, "\(path)") }
            let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: rewritten))
            #expect(diff.isEqual, "\(path): \(diff.differences.prefix(3).map(\.description))")
            // Rewriting our own rewrite the same way changes no byte.
            let again = switch path {
            case "roundTrip": try KeyedArchiver.roundTrip(rewritten, registry: Self.inspecting)
            case "copied": try KeyedArchiver.roundTrip(rewritten, registry: ArchiveRegistry())
            default: try ArchiveValueInspectionTests.rewrite(rewritten)
            }
            #expect(again == rewritten, "\(path)")
        }
        // Byte for byte: the fixture in Core Foundation's binary layout comes back unchanged.
        let inCFLayout = try PropertyListCodec.encode(try PropertyListCodec.decode(bytes), format: .binary)
        #expect(try KeyedArchiver.roundTrip(inCFLayout, registry: Self.inspecting) == inCFLayout)
        // In XML too.
        let xml = try ArchiveValueInspectionTests.rewrite(bytes, format: .xml)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: xml)).isEqual)
        if let agrees = try Self.plistlibAgrees(xml) { #expect(agrees) }
        #expect(String(decoding: xml, as: UTF8.self).contains("<dict>\n\t\t\t<key>$classname</key>\n\t\t\t<string>MyGame.HealthComponent</string>\n\t\t</dict>"))
    }

    @Test func diffTellsAMissingClassesChain() throws {
        let bytes = try Self.fixture("classname-only-components.plist")
        guard case .dictionary(var root) = try PropertyListCodec.decode(bytes), case .array(var objects)? = root["$objects"] else {
            Issue.record("not an archive")
            return
        }
        objects[5] = .dictionary(PropertyListDictionary(entries: [
            .init(key: "$classname", value: .string("MyGame.HealthComponent")),
            .init(key: "$classes", value: .array([.string("MyGame.HealthComponent"), .string("GKComponent"), .string("NSObject")])),
        ]))
        root["$objects"] = .array(objects)
        let changed = try PropertyListCodec.encode(.dictionary(root), format: .binary)
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: changed))
        #expect(diff.differences.map(\.kind) == [.classChainChanged])
        #expect(diff.differences.first?.a == "no $classes")
    }
}

/// Issue 51, item 2: SceneKit's archiver name and a root dictionary with `$top` first.
@Suite struct SceneKitHeaderTests {
    final class Node: KeyedArchivable {
        let name: String
        let childNodes: [Node]
        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            childNodes = try decoder.decode([Node].self, forKey: "childNodes")
        }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(childNodes, forKey: "childNodes")
        }
    }

    final class Scene: KeyedArchivable {
        let rootNode: Node
        init(from decoder: KeyedArchiveDecoder) throws { rootNode = try decoder.decode(Node.self, forKey: "rootNode") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(rootNode, forKey: "rootNode") }
    }

    @Test func anotherArchiversNameAndTopFirstRead() throws {
        let bytes = try AppleShapesRound3Tests.fixture("scenekit-archiver-top-first.plist")
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(graph.archiver == "SCNKeyedArchiver")
        #expect(graph.classDescriptor(of: PropertyListUID(1))?.name == "SCNScene")
        if let agrees = try AppleShapesRound3Tests.plistlibAgrees(bytes) { #expect(agrees) }
        #expect(try ArchiveDumper.dump(bytes).hasPrefix("SCNKeyedArchiver, version 100000, 8 objects\n"))
        #expect(try ArchiveJSONRenderer.render(bytes).contains(#""$archiver": "SCNKeyedArchiver""#))
        #expect(try ArchiveSchema(archives: [bytes]).class(named: "SCNNode")?.instanceCount == 1)
        #expect(ArchiveDiff(graph, try ArchiveGraph(bytes: bytes)).isEqual)

        let value = try KeyedUnarchiver(bytes: bytes, registry: AppleShapesRound3Tests.inspecting).decode(ArchiveValue.self, forKey: "root")
        guard case .instance(let scene) = value.unshared, case .object(let node)? = scene["rootNode"], case .instance(let root) = node.unshared else {
            Issue.record("unexpected shape: \(value)")
            return
        }
        #expect(root.className == "SCNNode" && root["name"]?.value == .string("ship"))

        // Typed decoding reads it, as Apple's NSKeyedUnarchiver does (it never reads `$archiver`).
        var registry = ArchiveRegistry()
        registry.register(Scene.self, className: "SCNScene")
        registry.register(Node.self, className: "SCNNode")
        let decoded = try KeyedUnarchiver.unarchive(Scene.self, from: bytes, registry: registry)
        #expect(decoded.rootNode.name == "ship" && decoded.rootNode.childNodes.isEmpty)

        // roundTrip keeps the archiver's name.
        let again = try KeyedArchiver.roundTrip(bytes, registry: AppleShapesRound3Tests.inspecting)
        #expect(try ArchiveGraph(bytes: again).archiver == "SCNKeyedArchiver")
        #expect(ArchiveDiff(graph, try ArchiveGraph(bytes: again)).isEqual)
    }

    @Test func aMissingOrNonStringArchiverIsStillRefused() throws {
        for archiver: PropertyListValue? in [nil, .integer(1)] {
            var root = PropertyListDictionary()
            root["$version"] = .integer(100000)
            if let archiver { root["$archiver"] = archiver }
            root["$top"] = .dictionary(PropertyListDictionary())
            root["$objects"] = .array([.string("$null")])
            let bytes = try PropertyListCodec.encode(.dictionary(root), format: .binary)
            #expect(throws: ArchiveError.self) { try ArchiveGraph(bytes: bytes) }
        }
    }
}

/// Issue 51, item 5 of the issue: `$classhints` kept by `ArchiveInstance` and every rewrite, and
/// compared by `diff`.
@Suite struct ClassHintsTests {
    @Test func classHintsAreKeptByEveryRewrite() throws {
        let bytes = try AppleShapesRound3Tests.fixture("classhints.plist")
        if let agrees = try AppleShapesRound3Tests.plistlibAgrees(bytes) { #expect(agrees) }
        #expect(try ArchiveGraph(bytes: bytes).classDescriptor(of: PropertyListUID(1))?.hints == ["NSMutableArray"])
        let value = try KeyedUnarchiver(bytes: bytes, registry: AppleShapesRound3Tests.inspecting).decode(ArchiveValue.self, forKey: "root")
        guard case .instance(let list) = value.unshared else {
            Issue.record("unexpected shape: \(value)")
            return
        }
        #expect(list.classHints == ["NSMutableArray"] && list.storesClasses && list.classes.count == 4)
        var hintless = list
        hintless.classHints = nil
        #expect(ArchiveValue.instance(hintless) != .instance(list))

        let expected = PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: bytes))
        let rewrites = [
            ("plainly", try ArchiveValueInspectionTests.rewrite(bytes)),
            ("identity table", try ArchiveValueInspectionTests.rewrite(bytes, identities: ArchiveIdentityTable())),
            ("roundTrip", try KeyedArchiver.roundTrip(bytes, registry: AppleShapesRound3Tests.inspecting)),
            ("xml", try ArchiveValueInspectionTests.rewrite(bytes, format: .xml)),
        ]
        for (path, rewritten) in rewrites {
            if path != "xml" { #expect(PlistlibArchiveReference.canonicalText(try ArchiveGraph(bytes: rewritten)) == expected, "\(path)") }
            if let agrees = try AppleShapesRound3Tests.plistlibAgrees(rewritten) { #expect(agrees, "\(path)") }
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: rewritten)).isEqual, "\(path)")
            #expect(try ArchiveGraph(bytes: rewritten).classDescriptor(of: PropertyListUID(1))?.hints == ["NSMutableArray"], "\(path)")
        }
        let inCFLayout = try PropertyListCodec.encode(try PropertyListCodec.decode(bytes), format: .binary)
        #expect(try KeyedArchiver.roundTrip(inCFLayout, registry: AppleShapesRound3Tests.inspecting) == inCFLayout)
    }

    @Test func diffComparesClassHints() throws {
        let bytes = try AppleShapesRound3Tests.fixture("classhints.plist")
        guard case .dictionary(var root) = try PropertyListCodec.decode(bytes), case .array(var objects)? = root["$objects"],
              case .dictionary(var descriptor) = objects[4] else {
            Issue.record("not the fixture")
            return
        }
        descriptor["$classhints"] = .array([.string("NSArray")])
        objects[4] = .dictionary(descriptor)
        root["$objects"] = .array(objects)
        let changed = try PropertyListCodec.encode(.dictionary(root), format: .binary)
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: changed))
        #expect(diff.differences.map(\.kind) == [.classChainChanged])
        #expect(diff.differences.first?.description == "root: class chain changed: MyApp.TagList < NSMutableArray < NSArray < NSObject ($classhints: NSMutableArray) → MyApp.TagList < NSMutableArray < NSArray < NSObject ($classhints: NSArray)")
        var valuesOnly = ArchiveDiff.Options()
        valuesOnly.valuesOnly = true
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: changed), options: valuesOnly).isEqual)
    }
}

/// Issue 51, item 3 of the issue: an object reached through a field-mapped value's stored fields
/// (an `NSFont` that is an attributed string's `NSOriginalFont` attribute and a cell's
/// `NSSupport`, as a compiled nib holds it) stays one object on every rewrite.
@Suite struct SharingThroughMappedValuesTests {
    static func uid(_ value: UInt64) -> PropertyListValue { .uid(PropertyListUID(value)) }
    static func classDictionary(_ chain: [String]) -> PropertyListValue {
        ["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })]
    }

    /// Objects in NSKeyedArchiver's order (an object's UID before its fields', its class after).
    static func fontSharedByAttributeAndCell() throws -> [UInt8] {
        try BinaryPropertyListWriter().write([
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["root": uid(1)],
            "$objects": [
                "$null",
                ["NS.objects": [uid(2), uid(11)], "$class": uid(14)],                                     // 1 NSMutableArray
                ["NSString": uid(3), "NSAttributes": uid(4), "$class": uid(10)],                          // 2 NSAttributedString
                "Hello",                                                                                    // 3
                ["NS.keys": [uid(5)], "NS.objects": [uid(6)], "$class": uid(9)],                          // 4 NSDictionary
                "NSOriginalFont",                                                                           // 5
                ["NSName": uid(7), "NSSize": 12.0, "NSfFlags": 16, "$class": uid(8)],                 // 6 NSFont
                "Helvetica",                                                                                // 7
                classDictionary(["NSFont", "NSObject"]),                                                   // 8
                classDictionary(["NSDictionary", "NSObject"]),                                             // 9
                classDictionary(["NSAttributedString", "NSObject"]),                                       // 10
                ["NSContents": uid(12), "NSSupport": uid(6), "$class": uid(13)],                          // 11 NSTextFieldCell
                "Hello",                                                                                    // 12
                classDictionary(["NSTextFieldCell", "NSActionCell", "NSCell", "NSObject"]),                // 13
                classDictionary(["NSMutableArray", "NSArray", "NSObject"]),                                // 14
            ],
        ])
    }

    @Test func aFontSharedThroughAnAttributeStaysOneObject() throws {
        let bytes = try Self.fontSharedByAttributeAndCell()
        let graph = try ArchiveGraph(bytes: bytes)
        let rewrites = [
            ("plainly", try ArchiveValueInspectionTests.rewrite(bytes)),
            ("identity table", try ArchiveValueInspectionTests.rewrite(bytes, identities: ArchiveIdentityTable())),
            ("roundTrip", try KeyedArchiver.roundTrip(bytes, registry: AppleShapesRound3Tests.inspecting)),
        ]
        for (path, rewritten) in rewrites {
            let diff = ArchiveDiff(graph, try ArchiveGraph(bytes: rewritten))
            #expect(diff.isEqual, "\(path): \(diff.differences.prefix(3).map(\.description))")
            let fonts = try ArchiveGraph(bytes: rewritten).objects.indices.filter { try ArchiveGraph(bytes: rewritten).className(of: PropertyListUID(UInt64($0))) == "NSFont" }
            #expect(fonts.count == 1, "\(path): \(fonts)")
        }
    }
}

/// Issue 51, item 6: shapes Apple's decoder accepts that ours refused, read as Apple reads them
/// (Docs/KeyedArchiveFormat.md §1), and written back as stored.
@Suite struct AppleLenientReadTests {
    static func uid(_ value: UInt64) -> PropertyListValue { .uid(PropertyListUID(value)) }
    static func classDictionary(_ chain: [String]) -> PropertyListValue {
        ["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })]
    }
    static func archive(_ root: PropertyListValue, _ more: [PropertyListValue] = [], classes chain: [String]) throws -> [UInt8] {
        let count = UInt64(2 + more.count)
        guard case .dictionary(var object) = root else { return [] }
        object["$class"] = uid(count)
        return try BinaryPropertyListWriter().write([
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["root": uid(1)],
            "$objects": .array(["$null", .dictionary(object)] + more + [classDictionary(chain)]),
        ])
    }

    /// 12.34: the mantissa 1234 (0x04D2) with the exponent −2, its word stored big-endian.
    @Test func aDecimalNumberWithoutByteOrderOrSignIsBigEndianAndPositive() throws {
        let bytes = try Self.archive([
            "NS.exponent": -2, "NS.length": 1, "NS.compact": true,
            "NS.mantissa": .data([0x04, 0xD2] + [UInt8](repeating: 0, count: 14)),
        ], classes: ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"])
        let number = try KeyedUnarchiver.unarchive(ArchiveDecimalNumber.self, from: bytes, registry: ArchiveRegistry())
        #expect(number.mantissa == [1234] && number.exponent == -2 && !number.isNegative)
        #expect(number.decimalValue == Decimal(string: "12.34"))
        // Written back as stored: still no NS.mantissa.bo, no NS.negative.
        let again = try ArchiveValueInspectionTests.rewrite(bytes)
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: again)).isEqual)
    }

    @Test func anAttributedStringWithoutAttributesIsPlain() throws {
        let bytes = try Self.archive(["NSString": Self.uid(2)], ["Hello"], classes: ["NSAttributedString", "NSObject"])
        let text = try KeyedUnarchiver.unarchive(ArchiveAttributedString.self, from: bytes, registry: ArchiveRegistry())
        #expect(text.string == "Hello" && text.runs.count == 1 && text.runs[0].length == 5 && text.runs[0].attributes.isEmpty)
        for rewritten in [try ArchiveValueInspectionTests.rewrite(bytes), try KeyedArchiver.roundTrip(bytes, registry: AppleShapesRound3Tests.inspecting)] {
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: rewritten)).isEqual)
        }
    }
}

/// Issue 51, item 4 of the issue: generated models keep the class chain of every collection,
/// those held without a key (`root.Layers[0].$0`, `contextRepresentation.$2`) included. The
/// models are compiled and round-tripped by Tests/SchemaGeneration/run.sh, which takes this
/// fixture; here the generated writes are checked.
@Suite struct NestedMutableSchemaTests {
    @Test func unkeyedCollectionsAreWrittenWithTheirChains() throws {
        let bytes = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("schema/nested-mutable.plist")))
        let source = try ArchiveSchema(archives: [bytes]).swiftSource()
        #expect(source.contains(#"try encoder.encodeRaw(.uid(try encoder.reference(for: self.unkeyed0, classes: ["NSMutableDictionary", "NSDictionary", "NSObject"]).uid), forStoredKey: "$0")"#))
        #expect(source.contains(#"try encoder.encodeRaw(.uid(try encoder.reference(for: self.unkeyed0, mutable: true).uid), forStoredKey: "$0")"#))
        #expect(source.contains(#"try encoder.encodeRaw(.uid(try encoder.reference(for: self.unkeyed1, classes: ["NSMutableArray", "NSArray", "NSObject"]).uid), forStoredKey: "$1")"#))
        #expect(source.contains(#"try encoder.encodeRaw(.uid(try encoder.reference(for: self.unkeyed2, classes: ["NSMutableDictionary", "NSDictionary", "NSObject"]).uid), forStoredKey: "$2")"#))
    }

    /// The encoder's references with a chain write what the keyed forms write.
    @Test func referencesWithAChainWriteTheChain() throws {
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        let encoder = archiver.topLevelEncoder
        let dictionary = try encoder.reference(for: ["rate": "fast"], classes: ["NSMutableDictionary", "NSDictionary", "NSObject"])
        let array = try encoder.reference(for: ["cpu"], classes: ["NSMutableArray", "NSArray", "NSObject"])
        let string = try encoder.reference(for: "Template", mutable: true)
        try encoder.encodeRaw(.uid(dictionary.uid), forStoredKey: "$0")
        try encoder.encodeRaw(.uid(array.uid), forStoredKey: "$1")
        try encoder.encodeRaw(.uid(string.uid), forStoredKey: "$2")
        let graph = try ArchiveGraph(bytes: try archiver.finish())
        #expect(graph.className(of: dictionary.uid) == "NSMutableDictionary")
        #expect(graph.className(of: array.uid) == "NSMutableArray")
        #expect(graph.className(of: string.uid) == "NSMutableString")
    }
}

/// Issue 51, item 6: `NSValue`'s UIKit structures, in the keys Foundation's `NSConcreteValue`
/// writes on iOS (`NS.special` 10, 11, 13, 14, then the numbers with `encodeDouble:forKey:`).
@Suite struct UIKitValueTests {
    static func archive(_ fields: PropertyListDictionary) throws -> [UInt8] {
        var object = fields
        object["$class"] = .uid(PropertyListUID(2))
        return try BinaryPropertyListWriter().write([
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["root": .uid(PropertyListUID(1))],
            "$objects": ["$null", .dictionary(object), ["$classname": "NSValue", "$classes": ["NSValue", "NSObject"]]],
        ])
    }

    static let cases: [(PropertyListDictionary, ArchiveSpecialValue)] = [
        (["NS.special": 10, "NS.atval.a": 1.0, "NS.atval.b": 0.5, "NS.atval.c": -0.5, "NS.atval.d": 1.0, "NS.atval.tx": 20.0, "NS.atval.ty": -4.25],
         .cgAffineTransform(ArchiveCGAffineTransform(a: 1, b: 0.5, c: -0.5, d: 1, tx: 20, ty: -4.25))),
        (["NS.special": 11, "NS.edgeval.top": 8.0, "NS.edgeval.left": 16.0, "NS.edgeval.bottom": 8.0, "NS.edgeval.right": 16.0],
         .uiEdgeInsets(ArchiveEdgeInsets(top: 8, left: 16, bottom: 8, right: 16))),
        (["NS.special": 13, "NS.offset.h": 2.0, "NS.offset.v": -3.5], .offset(ArchiveOffset(horizontal: 2, vertical: -3.5))),
        (["NS.special": 14, "NS.dirEdgeVal.top": 1.0, "NS.dirEdgeVal.leading": 2.0, "NS.dirEdgeVal.bottom": 3.0, "NS.dirEdgeVal.trailing": 4.0],
         .directionalEdgeInsets(ArchiveDirectionalEdgeInsets(top: 1, leading: 2, bottom: 3, trailing: 4))),
    ]

    @Test func uiKitStructuresReadAndWriteAsFoundationDoes() throws {
        for (fields, expected) in Self.cases {
            let bytes = try Self.archive(fields)
            let value = try KeyedUnarchiver.unarchive(ArchiveSpecialValue.self, from: bytes, registry: ArchiveRegistry())
            #expect(value == expected)
            #expect(fields["NS.special"] == .integer(PropertyListInteger(Int64(value.specialCode))))
            // Written from Swift: the same keys and numbers (compared through the graph).
            let archiver = KeyedArchiver(registry: ArchiveRegistry())
            try archiver.encode(expected, forKey: "root")
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try archiver.finish())).isEqual, "\(expected)")
            // Read as an ArchiveValue under inspection: the structure, written back equal.
            let rewritten = try ArchiveValueInspectionTests.rewrite(bytes)
            #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: rewritten)).isEqual, "\(expected)")
            #expect(try KeyedUnarchiver(bytes: bytes, registry: AppleShapesRound3Tests.inspecting).decode(ArchiveValue.self, forKey: "root") == .special(expected))
        }
    }
}

/// Issue 51, item 7: a `UInt64` of 2^63 or more (a 16-byte integer, as Core Foundation writes
/// it) is read in place like any other integer, from the bytes Foundation's archiver writes.
@Suite struct SixteenByteIntegerTests {
    @Test func foundationsLargeUnsignedNumbersDecodeInPlace() throws {
        let values: [UInt64] = [1 << 63, UInt64.max, (1 << 63) + 12345, 42]
        let data = try NSKeyedArchiver.archivedData(withRootObject: values.map { NSNumber(value: $0) } as NSArray, requiringSecureCoding: true)
        let bytes = [UInt8](data)
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
        #expect(unarchiver.readsInPlace)
        #expect(try unarchiver.decode([UInt64].self, forKey: "root") == values)
        // A value that does not fit the type asked for is still refused.
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive([Int64].self, from: bytes, registry: ArchiveRegistry()) }
    }
}
