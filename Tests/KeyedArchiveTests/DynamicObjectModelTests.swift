import Foundation
import PropertyList
import Testing
import KeyedArchive

/// `ArchiveValue` as the one dynamic object model: an object of any class (`.instance`), one
/// object referred to from several places (`.shared`), a cycle (`ArchiveSharedObject(building:)`
/// and `.backReference`), an array of references stored in the object (`.objects`) and Apple's
/// conditional reference (`.conditional`) — written as Foundation's own `NSKeyedArchiver` writes
/// the same graph, and read back to the same values. (`GraphRebuilder` rebuilds Apple's archives
/// through the same model, byte for byte: AppleByteEqualityTests.)
@Suite struct DynamicObjectModelTests {
    static let pilotClasses = ["KeyedArchiveTests.FPilot", "NSObject"]
    static func airplaneClasses(_ name: String) -> [String] {
        name == "FAirplane" ? ["KeyedArchiveTests.FAirplane", "NSObject"] : ["KeyedArchiveTests.\(name)", "KeyedArchiveTests.FAirplane", "NSObject"]
    }

    /// The fleet of `FPilot.makePilots(withOwners: true)` made of values alone: each airplane
    /// names its owner with a conditional reference back to the pilot being made, and the glider
    /// both pilots fly is one shared object.
    static func fleetValue() -> ArchiveValue {
        func airplane(_ name: String, model: String, registration: String, hours: UInt64, owner: ArchiveBackReference,
                      extra: [ArchiveInstance.Field]) -> ArchiveSharedObject {
            ArchiveSharedObject(.instance(ArchiveInstance(classes: airplaneClasses(name), fields: [
                .init(key: "model", value: .object(.string(model))),
                .init(key: "registrationNumber", value: .object(.string(registration))),
                .init(key: "airframeHours", value: .object(.integer(PropertyListInteger(hours)))),
                .init(key: "owner", value: .conditional(.backReference(owner))),
            ] + extra)))
        }
        var glider: ArchiveSharedObject?
        let amelia = ArchiveSharedObject { amelia in
            let cub = airplane("FPoweredAirplane", model: "Piper J-3 Cub", registration: "N3918K", hours: 12_400, owner: amelia, extra: [
                .init(key: "engineHorsepower", value: .inline(.integer(65))),
                .init(key: "engineHours", value: .object(.integer(1_250))),
            ])
            let ask = airplane("FGlider", model: "ASK 21", registration: "D-8721", hours: 6_100, owner: amelia, extra: [
                .init(key: "aerotowLaunchCount", value: .object(.integer(4_210))),
                .init(key: "winchLaunchCount", value: .object(.integer(PropertyListInteger(UInt64.max)))),
            ])
            glider = ask
            return .instance(ArchiveInstance(classes: pilotClasses, fields: [
                .init(key: "name", value: .object(.string("Amelia"))),
                .init(key: "airplanes", value: .object(.array([.shared(cub), .shared(ask)]))),
                .init(key: "licenseDate", value: .object(.date(Fleet.referenceDate))),
                .init(key: "notes", value: .object(.dictionary([.init(key: "medical", value: "class 2"), .init(key: "rating", value: "SEP")]))),
            ]))
        }
        let bessie = ArchiveSharedObject { bessie in
            let trainer = airplane("FAirplane", model: "Cessna 152", registration: "G-BOYL", hours: UInt64(Int64.max) + 7, owner: bessie, extra: [])
            return .instance(ArchiveInstance(classes: pilotClasses, fields: [
                .init(key: "name", value: .object(.string("Bessie"))),
                .init(key: "airplanes", value: .object(.array([glider.map { .shared($0) } ?? .null, .shared(trainer)]))),
                .init(key: "licenseDate", value: .null),
                .init(key: "notes", value: .object(.dictionary([]))),
            ]))
        }
        return .array([.shared(amelia), .shared(bessie)])
    }

    /// Foundation on Linux writes the owners too: each airplane is encoded while its pilot is,
    /// so the conditional reference is to an object already in the archive. The graphs are equal
    /// (classes, values, sharing and cycles; `ArchiveDiff` compares them whatever the UIDs).
    @Test func conditionalReferencesAndCyclesAreWrittenAsFoundationWritesThem() throws {
        let pilots = FPilot.makePilots(withOwners: true)
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: pilots as NSArray, requiringSecureCoding: true)
        let fleet = Self.fleetValue()
        let ours = try KeyedArchiver.archive(fleet, registry: ArchiveRegistry())
        let diff = ArchiveDiff(try ArchiveGraph(bytes: [UInt8](theirs)), try ArchiveGraph(bytes: ours))
        #expect(diff.isEqual, "\(diff.differences.prefix(5).map(\.description))")
        withExtendedLifetime(fleet) {}
    }

    /// Docs/Tutorial.md's snippet, as written: the airplane's conditional owner is the pilot,
    /// whom the archive holds, so it is a reference to the pilot's object.
    @Test func tutorialSnippet() throws {
        let amelia = ArchiveSharedObject { amelia in
            let cub = ArchiveValue.instance(ArchiveInstance(classes: ["MyApp.Airplane", "NSObject"], fields: [
                .init(key: "model", value: .object("Piper J-3 Cub")),
                .init(key: "owner", value: .conditional(.backReference(amelia))),
            ]))
            return .instance(ArchiveInstance(classes: ["MyApp.Pilot", "NSObject"], fields: [
                .init(key: "name", value: .object("Amelia")),
                .init(key: "airplanes", value: .object(.array([cub]))),
            ]))
        }
        let bytes = try KeyedArchiver.archive(ArchiveValue.shared(amelia), registry: ArchiveRegistry())

        let graph = try ArchiveGraph(bytes: bytes)
        let pilot = try #require(graph.topUID(forKey: "root"))
        let airplane = try #require(graph.objects.indices.first { graph.className(of: PropertyListUID(UInt64($0))) == "MyApp.Airplane" })
        guard case .instance(let stored)? = graph.object(PropertyListUID(UInt64(airplane))) else {
            Issue.record("no airplane instance")
            return
        }
        #expect(stored.value(forKey: "owner") == .uid(pilot))
        #expect(graph.className(of: pilot) == "MyApp.Pilot")
    }

    /// A conditional reference to an object nothing else encodes is `$null`, as Apple's archiver
    /// writes it; one to a value with no identity is refused, naming the field.
    @Test func conditionalReferenceToAnObjectNotEncodedIsNull() throws {
        let target = ArchiveSharedObject(.instance(ArchiveInstance(classes: ["Hangar", "NSObject"])))
        let holder = ArchiveValue.instance(ArchiveInstance(classes: ["Airplane", "NSObject"], fields: [
            .init(key: "hangar", value: .conditional(.shared(target))),
        ]))
        let graph = try ArchiveGraph(bytes: try KeyedArchiver.archive(holder, registry: ArchiveRegistry()))
        let root = try #require(graph.topUID(forKey: "root"))
        guard case .instance(let airplane)? = graph.object(root) else {
            Issue.record("root is not an instance")
            return
        }
        #expect(airplane.value(forKey: "hangar") == .uid(PropertyListUID(0)))
        #expect(!graph.objects.indices.contains { graph.className(of: PropertyListUID(UInt64($0))) == "Hangar" })

        let plain = ArchiveValue.instance(ArchiveInstance(classes: ["Airplane", "NSObject"], fields: [.init(key: "hangar", value: .conditional(.string("H1")))]))
        #expect {
            try KeyedArchiver.archive(plain, registry: ArchiveRegistry())
        } throws: { error in
            guard let error = error as? ArchiveError else { return false }
            return error.code == .typeMismatch && "\(error.keyPath)".contains("hangar") && error.message.contains("identity")
        }
    }

    /// An object of a class nobody mapped whose `NS.objects` holds references to plain strings
    /// and a number, as Foundation stores an array: read under inspection as `.objects`, and
    /// written back with the references (not inline strings), as `plistlib` reads the file.
    @Test func anArrayOfReferencesIsKeptAsReferences() throws {
        let value = ArchiveValue.instance(ArchiveInstance(classes: ["MYArray", "NSArray", "NSObject"], fields: [
            .init(key: "NS.objects", value: .objects([.string("a"), .string("b"), .integer(3)])),
        ]))
        let bytes = try KeyedArchiver.archive(value, registry: ArchiveRegistry())
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        let decoded = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
        #expect(decoded == value)
        guard case .instance(let instance) = decoded else {
            Issue.record("expected an instance, found \(decoded)")
            return
        }
        #expect(instance["NS.objects"]?.value == .array([.string("a"), .string("b"), .integer(3)]))
        #expect(try KeyedArchiver.archive(decoded, registry: ArchiveRegistry()) == bytes)

        // Python's plistlib, an independent reader: NS.objects holds three UIDs.
        let script = """
            import json, plistlib, sys
            with open(sys.argv[1], 'rb') as f:
                archive = plistlib.load(f)
            objects = archive['$objects']
            root = objects[archive['$top']['root'].data]
            print(json.dumps([[type(u).__name__, objects[u.data]] for u in root['NS.objects']]))
            """
        guard let read = try EncoderFieldTableTests.pythonJSON(script: script, on: bytes) else {
            print("DynamicObjectModelTests: no python3, plistlib check skipped")
            return
        }
        #expect((read as? [[Any]])?.map { "\($0[0]) \($0[1])" } == ["UID a", "UID b", "UID 3"])
    }

    /// An array that contains itself, made with `ArchiveSharedObject(building:)`: Python's
    /// plistlib finds an `NSMutableArray` whose second element is a reference to itself. (Foundation
    /// on Linux cannot archive such an array: it recurses until the stack runs out.)
    @Test func anArrayThatContainsItself() throws {
        let value = ArchiveSharedObject { array in .array([.string("x"), .backReference(array)], mutable: true) }
        let bytes = try KeyedArchiver.archive(ArchiveValue.shared(value), registry: ArchiveRegistry())
        guard case .array(let elements, true) = value.value, case .backReference(let back) = elements.last else {
            Issue.record("expected a mutable array ending with a back-reference, found \(value.value)")
            return
        }
        #expect(back.object === value)

        let script = """
            import json, plistlib, sys
            with open(sys.argv[1], 'rb') as f:
                archive = plistlib.load(f)
            objects = archive['$objects']
            root = archive['$top']['root'].data
            array = objects[root]
            print(json.dumps({'classes': objects[array['$class'].data]['$classes'],
                              'first': objects[array['NS.objects'][0].data],
                              'selfReference': array['NS.objects'][1].data == root}))
            """
        guard let read = try EncoderFieldTableTests.pythonJSON(script: script, on: bytes) as? [String: Any] else {
            print("DynamicObjectModelTests: no python3, plistlib check skipped")
            return
        }
        #expect(read["classes"] as? [String] == ["NSMutableArray", "NSArray", "NSObject"])
        #expect(read["first"] as? String == "x")
        #expect(read["selfReference"] as? Bool == true)

        // Read back under inspection, the array holds itself again.
        var registry = ArchiveRegistry()
        registry.inspectsUnknownClasses = true
        let decoded = try KeyedUnarchiver.unarchive(ArchiveValue.self, from: bytes, registry: registry)
        guard case .shared(let object) = decoded, case .array(let again, true) = object.value, case .backReference(let loop) = again.last else {
            Issue.record("expected a shared mutable array ending with a back-reference, found \(decoded)")
            return
        }
        #expect(loop.object === object)
        #expect(again.first == .string("x"))
    }
}
