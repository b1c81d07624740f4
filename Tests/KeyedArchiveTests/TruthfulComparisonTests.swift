import Foundation
import PropertyList
import KeyedArchiveTesting
import Testing
@testable import KeyedArchive

/// What the comparisons say is true (issue 50): a change that breaks a reader is never a pass.
/// Each test reproduces a shape a new-user trial met, on `Fixtures/fleet.plist` or a few-line
/// model, and failed on the `main` of before.
@Suite struct TruthfulComparisonTests {
    // MARK: A number stored inline vs as an object of $objects

    /// `Fixtures/fleet.plist` with the first pilot's powered airplane's `engineHorsepower`
    /// moved out of the object into an `$objects` entry of its own and referred to by UID: what
    /// a model that archived the field as an `NSNumber` object writes. Built with Python's
    /// `plistlib` where it is available (an independent writer), else with ours.
    static func fleetWithHorsepowerAsObject() throws -> (original: [UInt8], moved: [UInt8], uid: Int) {
        let original = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
        guard case .dictionary(let top) = try PropertyListCodec.decode(original), case .array(var objects)? = top["$objects"] else {
            throw ArchiveFixtureError("fleet.plist is not a keyed archive")
        }
        guard let index = objects.firstIndex(where: { object in
            guard case .dictionary(let fields) = object, fields["engineHorsepower"] != nil else { return false }
            return true
        }), case .dictionary(var fields) = objects[index], let horsepower = fields["engineHorsepower"] else {
            throw ArchiveFixtureError("no engineHorsepower in fleet.plist")
        }
        let uid = objects.count
        objects.append(horsepower)
        fields["engineHorsepower"] = .uid(PropertyListUID(UInt64(uid)))
        objects[index] = .dictionary(fields)
        var archive = top
        archive["$objects"] = .array(objects)
        let moved = try PropertyListCodec.encode(.dictionary(archive), format: .binary)
        return (original, moved, uid)
    }

    /// A folder of this test's own, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-truthful-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func inlineNumberVersusObjectIsATypeChange() throws {
        let (original, moved, uid) = try Self.fleetWithHorsepowerAsObject()
        // plistlib confirms the edit: the field is a UID to a plain integer, 65 as before.
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("moved.plist")
        try Data(moved).write(to: url)
        let script = """
        import plistlib, sys
        for path in sys.argv[1:]:
            objs = plistlib.loads(open(path, 'rb').read())['$objects']
            field = [o for o in objs if isinstance(o, dict) and 'engineHorsepower' in o][0]['engineHorsepower']
            print(path + '\\t' + type(field).__name__ + ' ' + str(field.data) + ' ' + repr(objs[field.data]))
        """
        if let read = try PlistlibArchiveReference.runPython(script, over: [url.path]) {
            #expect(read[url.path] == "UID \(uid) 65", "\(read)")
        }
        for valuesOnly in [false, true] {
            var options = ArchiveDiff.Options()
            options.valuesOnly = valuesOnly
            let diff = ArchiveDiff(try ArchiveGraph(bytes: original), try ArchiveGraph(bytes: moved), options: options)
            #expect(diff.differences.map(\.description) == [
                "root[0].airplanes[0].engineHorsepower: type changed: integer 65 stored inline → integer 65 as an object in $objects",
            ], "valuesOnly: \(valuesOnly)")
            #expect(diff.differences.first?.kind == .typeChanged)
            // And the other way round.
            let back = ArchiveDiff(try ArchiveGraph(bytes: moved), try ArchiveGraph(bytes: original), options: options)
            #expect(back.differences.map(\.kind) == [.typeChanged])
        }
    }

    /// `expectArchiveReference` fails, under graph and values comparisons, when the reference
    /// stores the number as an object and the model writes it inline.
    @Test(arguments: [ArchiveSnapshotComparison.graph, .values])
    func referenceExpectationSeesInlineVersusObject(comparison: ArchiveSnapshotComparison) throws {
        let (_, moved, _) = try Self.fleetWithHorsepowerAsObject()
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = directory.appendingPathComponent("fleet-object.plist")
        try Data(moved).write(to: reference)
        let message = ArchiveExpectations.checkArchiveReference(of: FleetFixtureTests.makeFleet(), registry: Fleet.registry,
                                                                reference: reference.path, comparison: comparison)
        #expect(message?.contains("engineHorsepower: type changed: integer 65 as an object in $objects → integer 65 stored inline") == true,
                "\(message ?? "passed")")
        // The untouched fixture still matches: the check is not failing everything.
        #expect(ArchiveExpectations.checkArchiveReference(of: FleetFixtureTests.makeFleet(), registry: Fleet.registry,
                                                          reference: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist").path,
                                                          comparison: comparison) == nil)
    }

    // MARK: Double vs Float in a JSON snapshot

    struct Reading: KeyedArchivable, Equatable {
        var celsius: Double
        init(celsius: Double) { self.celsius = celsius }
        init(from decoder: KeyedArchiveDecoder) throws { celsius = try decoder.decode(Double.self, forKey: "celsius") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(celsius, forKey: "celsius") }
    }

    /// The same model after a change to `Float`: a reader that decodes the other width breaks.
    struct NarrowReading: KeyedArchivable, Equatable {
        var celsius: Float
        init(celsius: Float) { self.celsius = celsius }
        init(from decoder: KeyedArchiveDecoder) throws { celsius = try decoder.decode(Float.self, forKey: "celsius") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(celsius, forKey: "celsius") }
    }

    static var readingRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Reading.self, className: "Reading")
        return registry
    }

    static var narrowRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(NarrowReading.self, className: "Reading")
        return registry
    }

    /// No snapshot format hides what the binary one shows: a JSON snapshot of a `Double` fails
    /// for the `Float` model, as the binary one does, and names the width.
    @Test(arguments: [ArchiveFixtureFormat.binary, .json])
    func snapshotSeesDoubleBecomingFloat(format: ArchiveFixtureFormat) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = directory.appendingPathComponent("reading.\(format.fileExtension)")
        try Data(format.archive(Reading(celsius: 34), registry: Self.readingRegistry)).write(to: fixture)
        let message = ArchiveExpectations.checkArchiveSnapshot(of: NarrowReading(celsius: 34), registry: Self.narrowRegistry, fixture: fixture.path,
                                                               format: format, record: .never)
        #expect(message?.contains("root.celsius: type changed: real 34.0 → 32-bit real 34.0") == true, "\(message ?? "passed")")
        // The same width passes, so the failure is the width's.
        #expect(ArchiveExpectations.checkArchiveSnapshot(of: Reading(celsius: 34), registry: Self.readingRegistry, fixture: fixture.path,
                                                         format: format, record: .never) == nil)
    }

    /// The JSON keeps the width as the contract's version 2 writes it, `{"$real32": N}` with N
    /// the shortest decimal of the float (not of the double it widens to), and reads it back.
    @Test func jsonWritesAndReadsThirtyTwoBitReals() throws {
        let json = try PropertyListJSONRenderer.renderString(.array([.real(.float32(34.1)), .real(.float64(34.1)), .real(.float32(.infinity)),
                                                                    .real(.float32(1e-7))]))
        #expect(json.contains(#"{"$real32": 34.1}"#), "\(json)")
        #expect(json.contains(#"{"$real": 34.1}"#), "\(json)")
        #expect(json.contains(#"{"$real32": "inf"}"#), "\(json)")
        #expect(json.contains(#"{"$real32": 1e-07}"#), "\(json)")
        let back = try PropertyListJSONReader.read(Array(json.utf8))
        #expect(back == .array([.real(.float32(34.1)), .real(.float64(34.1)), .real(.float32(.infinity)), .real(.float32(1e-7))]))
        // Version 1 text still reads, as 64-bit reals; an integer payload is a float too.
        #expect(try PropertyListJSONReader.read(Array(#"[{"$real": 34.0}, {"$real32": 3}]"#.utf8)) == .array([.real(.float64(34)), .real(.float32(3))]))
        // A decimal beyond a float's range is refused, not read as infinity.
        #expect(throws: PropertyListError.self) { try PropertyListJSONReader.read(Array(#"{"$real32": 1e39}"#.utf8)) }
        #expect(throws: PropertyListError.self) { try PropertyListJSONReader.read(Array(#"{"$real32": "x"}"#.utf8)) }
        // A dictionary whose one key is "$real32" is wrapped, so that it is not read as a real.
        let dictionary = PropertyListValue.dictionary(PropertyListDictionary(entries: [.init(key: "$real32", value: 1)]))
        let wrapped = try PropertyListJSONRenderer.renderString(dictionary)
        #expect(wrapped.contains("$dict"), "\(wrapped)")
        #expect(try PropertyListJSONReader.read(Array(wrapped.utf8)) == dictionary)
    }
}
