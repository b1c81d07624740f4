import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `ArchiveSchema`: checked against the fleet's model source (what the classes really are) and,
/// over the Apple corpus, against Python's plistlib counting instances and keys on its own.
@Suite struct ArchiveSchemaTests {
    static func fleet() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
    }

    /// The fleet's classes as `Models/FleetModels.swift` and the Tutorial declare them.
    @Test func fleetMatchesItsModels() throws {
        let schema = try ArchiveSchema(archives: [try Self.fleet()])
        let pilot = try #require(schema.class(named: "Pilot"))
        let airplane = try #require(schema.class(named: "Airplane"))
        let glider = try #require(schema.class(named: "Glider"))
        let powered = try #require(schema.class(named: "PoweredAirplane"))
        #expect(glider.superclass == "Airplane" && powered.superclass == "Airplane" && airplane.superclass == "NSObject")
        #expect(Set(airplane.subclasses) == ["Glider", "PoweredAirplane"])
        let array = try #require(schema.class(named: "NSArray"))
        #expect(pilot.isModel && !array.isModel)
        // The shared keys are declared once, by Airplane; each subclass declares its own.
        #expect(Set(airplane.declaredKeys.map(\.storedKey)) == ["model", "registrationNumber", "airframeHours", "owner"])
        #expect(Set(glider.declaredKeys.map(\.storedKey)) == ["aerotowLaunchCount", "winchLaunchCount"])
        #expect(Set(powered.declaredKeys.map(\.storedKey)) == ["engineHorsepower", "engineHours"])
        // engineHorsepower is an Int32 (inline); engineHours a UInt64 (an NSNumber object).
        let horsepower = try #require(powered.declaredKeys.first { $0.storedKey == "engineHorsepower" })
        #expect(horsepower.kinds.kinds.allSatisfy { if case .inlineInteger = $0 { return true } else { return false } })
        let hours = try #require(powered.declaredKeys.first { $0.storedKey == "engineHours" })
        #expect(hours.kinds.kinds.allSatisfy { if case .integer = $0 { return true } else { return false } })
        // The owner refers back to the pilot that is still being decoded.
        let owner = try #require(airplane.declaredKeys.first { $0.storedKey == "owner" })
        #expect(owner.isBackReference && owner.cycleCount > 0)
        #expect(owner.kinds.kinds == [.object("Pilot")])
        // licenseDate is a Date? (nil archived as $null); airplanes an NSArray of the family.
        let license = try #require(pilot.declaredKeys.first { $0.storedKey == "licenseDate" })
        #expect(Set(license.kinds.kinds) == [.object("NSDate"), .null])
        let airplanes = try #require(pilot.declaredKeys.first { $0.storedKey == "airplanes" })
        let contents = try #require(airplanes.contents.first)
        #expect(contents.className == "NSArray")
        #expect(Set(contents.elements.kinds).isSubset(of: [.object("Airplane"), .object("Glider"), .object("PoweredAirplane")]))
        let notes = try #require(pilot.declaredKeys.first { $0.storedKey == "notes" })
        #expect(notes.contents.first?.keys.kinds.allSatisfy { $0 == .string } == true)
        // Generated Swift follows the same shapes.
        let source = schema.swiftSource(name: "Fleet")
        #expect(source.contains("class Glider: Airplane {"))
        #expect(source.contains("weak var owner: Pilot?"))
        #expect(source.contains("var licenseDate: Date?"))
        #expect(source.contains("var airplanes: [Airplane]"))
        #expect(source.contains("registry.register(Glider.self, className: \"Glider\", superclass: Airplane.self)"))
    }

    /// Instance counts and key presence per class, as plistlib counts them, for every Apple
    /// archive plistlib can read.
    @Test func corpusCountsMatchPlistlib() throws {
        guard ArchiveFixtures.isCorpusAvailable else {
            print(ArchiveFixtures.skipMessage)
            return
        }
        let script = #"""
import json, plistlib, sys
for path in sys.argv[1:]:
    try:
        with open(path, 'rb') as f: p = plistlib.load(f)
    except Exception:
        continue
    objects = p['$objects']
    counts, keys = {}, {}
    for o in objects:
        if isinstance(o, dict) and '$class' in o:
            u = o['$class']
            # plistlib's XML reader may leave {CF$UID: n} as a dictionary.
            c = objects[u.data if hasattr(u, 'data') else u['CF$UID']]['$classname']
            counts[c] = counts.get(c, 0) + 1
            for k in o:
                if k != '$class':
                    keys.setdefault(c, {})
                    keys[c][k] = keys[c].get(k, 0) + 1
    print(path + '\t' + json.dumps({'counts': counts, 'keys': keys}))
"""#
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("python3 not found; skipping the plistlib comparison")
            return
        }
        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("schema-counts-\(UUID().uuidString).py")
        try Data(script.utf8).write(to: scriptURL)
        defer { try? FileManager.default.removeItem(at: scriptURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scriptURL.path] + ArchiveFixtures.entries.map(\.url.path)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var compared = 0
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2,
                  let reference = try JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any],
                  let countObjects = reference["counts"] as? [String: Any], let keyObjects = reference["keys"] as? [String: Any] else {
                Issue.record("unreadable plistlib line: \(line.prefix(200))")
                continue
            }
            func integers(_ object: Any?) -> [String: Int] {
                var result: [String: Int] = [:]
                for (key, value) in (object as? [String: Any]) ?? [:] { result[key] = (value as? NSNumber)?.intValue }
                return result
            }
            let counts = integers(countObjects)
            var keys: [String: [String: Int]] = [:]
            for (name, presence) in keyObjects { keys[name] = integers(presence) }
            let schema = try ArchiveSchema(archives: [[UInt8](try Data(contentsOf: URL(fileURLWithPath: String(parts[0]))))])
            let ours = Dictionary(uniqueKeysWithValues: schema.classes.filter { $0.instanceCount > 0 }.map { ($0.name, $0.instanceCount) })
            #expect(ours == counts, "\(parts[0])")
            for (name, presence) in keys {
                let observed = schema.class(named: name)?.keys ?? []
                let ourPresence = Dictionary(uniqueKeysWithValues: observed.map { ($0.storedKey, $0.presentCount) })
                #expect(ourPresence == presence, "\(parts[0]) \(name)")
            }
            compared += 1
        }
        // plistlib reads all but the 3 XML state files with raw U+0001 (corpus README).
        #expect(compared >= ArchiveFixtures.entries.count - 3)
    }

    /// Class chains that loop, and names and keys that would break out of a Swift literal or
    /// comment: the schema ends, and the generated file keeps them as escaped literals.
    @Test func hostileNamesAndChains() throws {
        let looped = ArchiveGenericObject(classes: ["Loop\"A", "LoopB", "NSObject"], fields: [("k\"}\nfunc x() {", .inline(.integer(1)))])
        let other = ArchiveGenericObject(classes: ["LoopB", "Loop\"A", "NSObject"], fields: [("next", .object(looped)), ("$$weird", .inline(.bool(true)))])
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode([other as any ArchiveObjectEncodable, looped], forKey: "root")
        let schema = try ArchiveSchema(archives: [try archiver.finish()])
        #expect(schema.class(named: "Loop\"A")?.instanceCount == 1)
        let source = schema.swiftSource(name: "Hostile")
        #expect(source.contains(#"className: "Loop\"A""#))
        #expect(source.contains(#"rawValue(forStoredKey: "k\"}\nfunc x() {")"#) || source.contains(#"forKey: "k\"}\nfunc x() {""#))
        #expect(!source.contains("\nfunc x() {"))
        // A stored `$$weird` is the user key `$weird`, which the decoder escapes again.
        #expect(source.contains(#"forKey: "$weird""#))
        #expect(ArchiveSchema.isValidTypeName("Fleet") && !ArchiveSchema.isValidTypeName("1x") && !ArchiveSchema.isValidTypeName("a-b"))
    }

    /// A field holding objects of a Foundation class no type maps (`NSTextStorage`, a private
    /// subclass of `NSMutableAttributedString`): generated as an `ArchiveValue` kept as stored,
    /// and the generated registry inspects unknown classes, saying which; a schema without such
    /// objects (the fleet) does not. A registry set as the generated one reads the field as an
    /// `.instance` and writes the same graph back.
    @Test func unmappedFoundationFieldsAreArchiveValuesReadAsStored() throws {
        let storage = ArchiveValue.instance(ArchiveInstance(classes: ["NSTextStorage", "NSMutableAttributedString", "NSAttributedString", "NSObject"], fields: [
            .init(key: "NSString", value: .object(.string("hello", mutable: true))),
        ]))
        let document = ArchiveValue.instance(ArchiveInstance(classes: ["MyDocument", "NSObject"], fields: [.init(key: "NSTextStorage", value: .object(storage))]))
        let bytes = try KeyedArchiver.archive(document, registry: ArchiveRegistry())
        let source = try ArchiveSchema(archives: [bytes]).swiftSource(name: "Documents")
        #expect(source.contains("var nsTextStorage: ArchiveValue\n"), "\(source)")
        #expect(source.contains("nsTextStorage = try decoder.decode(ArchiveValue.self, forKey: \"NSTextStorage\")"))
        #expect(source.contains("// NSTextStorage: Foundation classes no Swift type maps, read as stored"))
        #expect(source.contains("registry.inspectsUnknownClasses = true"))
        #expect(!(try ArchiveSchema(archives: [try Self.fleet()]).swiftSource(name: "Fleet")).contains("inspectsUnknownClasses"))

        var registry = ArchiveRegistry()
        registry.decodesModelsInArchiveValues = true
        registry.inspectsUnknownClasses = true
        let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
        let read = try unarchiver.decode(ArchiveValue.self)
        #expect(read.instanceValue?["NSTextStorage"]?.value?.instanceValue?.className == "NSTextStorage")
        let diff = ArchiveDiff(try ArchiveGraph(bytes: bytes), try ArchiveGraph(bytes: try KeyedArchiver.archive(read, registry: registry)))
        #expect(diff.isEqual, "\(diff.differences.map(\.description))")
    }

    /// Property names as Swift's API guidelines write them, from keys as archives spell them.
    @Test func propertyNamesFollowTheAPIGuidelines() {
        let expected: [(String, String)] = [
            ("NSFrameSize", "nsFrameSize"), ("NSRGB", "nsRGB"), ("NSvScroller", "nsVScroller"), ("NS.objects", "nsObjects"),
            ("URL", "url"), ("$$name", "name"), ("$0", "unkeyed0"), ("$12", "unkeyed12"), ("NSIBObjectData", "nsIBObjectData"),
            ("XDPMEntity", "xdPMEntity"), ("IDEWorkspaceTabController", "ideWorkspaceTabController"), ("documentURL", "documentURL"),
            ("NS.object.0", "nsObject0"), ("_P", "p"), ("default", "default_"), ("3D", "_3D"), ("NSTextColor", "nsTextColor"),
            ("NSCellFlags2", "nsCellFlags2"), ("NSMaxSize", "nsMaxSize"), ("UIOriginalClassName", "uiOriginalClassName"),
        ]
        for (key, name) in expected {
            #expect(SwiftSourceWriter.propertyName(for: key) == name, "\(key)")
        }
    }

    /// The fleet's file holds its models, the registry and the round trip, and no type of its
    /// own besides but the private API version check (Docs/Schema.md); with `public`, everything a library exports is public, initializers included.
    @Test func theFleetsFileHoldsOnlyItsModels() throws {
        let schema = try ArchiveSchema(archives: [try Self.fleet()])
        let source = schema.swiftSource(name: "Fleet")
        let declarations = source.split(separator: "\n").filter { $0.contains("class ") || $0.contains("struct ") || $0.contains("enum ") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("//") }
        #expect(declarations == ["private struct GeneratedCodeVersionCheck: ArchiveGeneratedCodeVersion2 {}", "enum Fleet {", "class NSObject: KeyedArchivable, Hashable {", "final class Pilot: NSObject {",
                                 "class Airplane: NSObject {", "final class PoweredAirplane: Airplane {", "final class Glider: Airplane {"], "\(declarations)")
        #expect(source.contains("try KeyedArchiver.roundTrip(bytes, registry: registry)"))
        #expect(source.contains("""
                    init(
                        owner: Pilot? = nil,
                        registrationNumber: String,
                        model: String,
                        airframeHours: Int,
                        aerotowLaunchCount: Int,
                        winchLaunchCount: Int
                    ) {
                        self.aerotowLaunchCount = aerotowLaunchCount
                        self.winchLaunchCount = winchLaunchCount
                        super.init(owner: owner, registrationNumber: registrationNumber, model: model, airframeHours: airframeHours)
                    }
            """))
        #expect(!source.contains("public "))
        let published = schema.swiftSource(name: "Fleet", public: true)
        #expect(published.contains("public enum Fleet {") && published.contains("public static var registry: ArchiveRegistry {"))
        #expect(published.contains("public static func roundTrip(_ bytes: [UInt8]) throws -> [UInt8] {"))
        #expect(published.contains("public final class Glider: Airplane {") && published.contains("public var winchLaunchCount: Int"))
        #expect(published.contains("public init(\n            owner: Pilot? = nil,\n            registrationNumber: String,"))
        #expect(published.contains("public required init(from decoder: KeyedArchiveDecoder) throws {"))
    }

    /// What each kind of stored value becomes: archives built object by object (generic
    /// objects, so the kinds are known by construction), and the declarations generated.
    @Test func storedKindsBecomeThePackagesTypes() throws {
        func object(_ classes: [String], _ fields: [(String, ArchiveGenericObject.Field)]) -> ArchiveGenericObject {
            ArchiveGenericObject(classes: classes, fields: fields.map { (key: $0.0, value: $0.1) })
        }
        func set(_ elements: [any ArchiveObjectEncodable], mutable: Bool) -> ArchiveGenericObject {
            object(mutable ? ArchiveArray.mutableSetClasses : ArchiveArray.setClasses, [("NS.objects", .objects(elements))])
        }
        let leaf = object(["Leaf", "NSObject"], [])
        let other = object(["Other", "NSObject"], [])
        let mutableTitle = object(["NSMutableString", "NSString", "NSObject"], [("NS.string", .inline("b"))])
        let counted = object(["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], [("NS.objects", .objects([]))])
        func item(flag: Bool, title: any ArchiveObjectEncodable, mixed: any ArchiveObjectEncodable, big: Int64) -> ArchiveGenericObject {
            object(["Item", "NSObject"], [
                ("small", .inline(.integer(PropertyListInteger(Int64(3))))),
                ("big", .inline(.integer(PropertyListInteger(big)))),
                ("flag", .inline(.bool(flag))),
                ("unsigned", .inline(.integer(PropertyListInteger(UInt64.max)))),
                ("tags", .object(set(["a", "b"], mutable: true))),
                ("members", .object(set([leaf], mutable: false))),
                ("path", .object(IndexPath(indexes: [1, 2]))),
                ("indexes", .object(ArchiveIndexSet(integers: [1, 2, 5], archivesAsMutable: true))),
                ("frame", .object(ArchiveSpecialValue.rect(ArchiveRect(x: 0, y: 0, width: 10, height: 5)))),
                ("title", .object(title)),
                ("either", .object(mixed)),
                ("counted", .object(counted)),
            ])
        }
        let items: [any ArchiveObjectEncodable] = [
            item(flag: true, title: "a", mixed: leaf, big: 1 << 40),
            item(flag: false, title: mutableTitle, mixed: other, big: 7),
            item(flag: false, title: "c", mixed: "text", big: 8),
        ]
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(items, forKey: "root")
        let source = try ArchiveSchema(archives: [try archiver.finish()]).swiftSource(name: "Kinds")
        for declaration in [
            "var small: Int", "var big: Int64", "var flag: Bool", "var unsigned: UInt64", "var tags: Set<String>",
            "var members: [Leaf]", "var path: IndexPath", "var indexes: ArchiveIndexSet", "var frame: ArchiveSpecialValue",
            "var title: String", "var titleIsMutable = false", "var either: ArchiveValue", "var counted: ArchiveCountedSet",
        ] {
            #expect(source.contains("        \(declaration)\n"), "\(declaration)")
        }
        #expect(source.contains("tags = try decoder.decode(Set<String>.self, forKey: \"tags\")"))
        #expect(source.contains("try encoder.encode(self.tags, forKey: \"tags\", classes: [\"NSMutableSet\", \"NSSet\", \"NSObject\"])"))
        #expect(source.contains("members = try decoder.decodeSetElements(Leaf.self, forKey: \"members\")"))
        #expect(source.contains("try encoder.encode(self.title, forKey: \"title\", mutable: self.titleIsMutable)"))
        // Each object says which class it was: a plain string (no class) is not mutable.
        #expect(source.contains("titleIsMutable = try decoder.archivedClassName(forKey: \"title\") == \"NSMutableString\""))
        // The comment says what the values are: strings and objects, not "plain values".
        #expect(source.contains("// Not more specific: strings and objects of Leaf, Other: no one Swift type holds them all."))
    }

    /// The one quoter behind JSON strings and Swift literals: what Foundation's JSON reader reads
    /// back is the text itself, and the invisible scalars are spelled as escapes in both.
    @Test func quotedTextReadsBackAndShowsInvisibleScalars() throws {
        let texts = ["plain", "quote \" back\\slash", "tab\tline\nreturn\r", "\u{0}\u{1F}\u{7F}\u{9F}",
                     "sep\u{2028}\u{2029}", "bidi\u{202E}\u{2066}\u{2069}", "\u{FEFF}bom", "joiner\u{200D}é😀", ""]
        for text in texts {
            let json = ArchiveSchema.jsonString(text)
            let back = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
            #expect(back == text, "\(json)")
            #expect(!json.unicodeScalars.contains { ArchiveSchema.isInvisible($0) })
        }
        #expect(ArchiveSchema.jsonString("a\u{202E}\u{1}\u{FEFF}") == #""a\u202e\u0001\ufeff""#)
        #expect(SwiftSourceWriter.literal("a\u{202E}\u{1}\t\u{200D}é") == #""a\u{202e}\u{1}\t\u{200d}é""#)
        #expect(ArchiveSchema.jsonString("\u{200D}") == "\"\u{200D}\"")
    }

    /// Deep nesting and hostile files: every walk is iterative, so the schema of a 10,000-deep
    /// archive is made on a small thread, and no file in Fixtures/hostile crashes it.
    @Test func deepAndHostileFiles() throws {
        let deep = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("deep/nested-arrays-10000.plist")))
        let schema = try ArchiveSchema(archives: [deep])
        #expect(schema.class(named: "NSArray")?.instanceCount ?? 0 >= 10_000)
        let hostile = ArchiveFixtures.projectFixtures.appendingPathComponent("hostile")
        let files = FileManager.default.enumerator(at: hostile, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where !file.hasDirectoryPath {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            if let schema = try? ArchiveSchema(archives: [[UInt8](bytes)]) {
                _ = schema.textDescription
                _ = schema.jsonDescription
                _ = schema.swiftSource()
            }
        }
    }
}
