import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `Data` in and out, against Foundation on Linux: archives Foundation's `NSKeyedArchiver` made
/// are read from its `encodedData` as it is, and `archivedData` opens with its
/// `NSKeyedUnarchiver`. Slices with a non-zero start check that the readers take the `Data`'s
/// own bytes, wherever they begin.
@Suite struct DataEntryPointTests {
    /// Foundation's archive of the acyclic fleet, as `Data`.
    static func foundationFleet(_ format: PropertyListSerialization.PropertyListFormat) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(FPilot.makePilots(withOwners: false) as NSArray, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    /// The same bytes in a `Data` that is a slice of a larger one (its indices start at 5).
    static func slice(_ data: Data) -> Data {
        let padded = Data([1, 2, 3, 4, 5]) + data + Data([9, 9])
        return padded[5..<(5 + data.count)]
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func unarchiveTakesData(format: PropertyListSerialization.PropertyListFormat) throws {
        let data = Self.foundationFleet(format)
        // The README's fleet archive, the shape the binary fast reader takes, from a slice.
        let ours = try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist"))
        #expect(BinaryArchiveTable.read([UInt8](Self.slice(ours)), options: .default) != nil)
        let fromData = try KeyedUnarchiver.unarchive([Pilot].self, from: Self.slice(ours), registry: Fleet.registry)
        let fromArray = try KeyedUnarchiver.unarchive([Pilot].self, from: [UInt8](ours), registry: Fleet.registry)
        #expect(!fromData.isEmpty && fromData.map(\.name) == fromArray.map(\.name))
        #expect(fromData.map { $0.airplanes.map(\.registrationNumber) } == fromArray.map { $0.airplanes.map(\.registrationNumber) })
        for input in [data, Self.slice(data)] {
            let pilots = try KeyedUnarchiver.unarchive([Pilot].self, from: input, registry: FoundationInteropTests.mirrorRegistry)
            #expect(pilots.map(\.name) == ["Amelia", "Bessie"])
            #expect(pilots[0].airplanes[1] === pilots[1].airplanes[0])
            let unarchiver = try KeyedUnarchiver(data: input, registry: FoundationInteropTests.mirrorRegistry)
            #expect(try unarchiver.decode([Pilot].self).map(\.notes) == [["medical": "class 2", "rating": "SEP"], [:]])
            #expect(try unarchiver.graph.objects.count == ArchiveGraph(data: input).objects.count)
        }
    }

    /// `KeyedUnarchiver(data:)` reads the caller's bytes in place: it keeps that very storage
    /// (whose deallocator runs only when the unarchiver goes) rather than a copy of it (which
    /// would let the storage go as soon as the caller drops its `Data`).
    @Test func unarchiverKeepsTheCallersBytesInPlace() throws {
        final class Flag: @unchecked Sendable { var freed = false }
        let fleet = try KeyedArchiver.archive(FleetFixtureTests.makeFleet(), registry: Fleet.registry, format: .binary)
        #expect(BinaryArchiveTable.read(fleet, options: .default) != nil)
        let flag = Flag()
        let storage = UnsafeMutableRawPointer.allocate(byteCount: fleet.count, alignment: 1)
        storage.copyMemory(from: fleet, byteCount: fleet.count)
        var data: Data? = Data(bytesNoCopy: storage, count: fleet.count, deallocator: .custom { pointer, _ in
            flag.freed = true
            pointer.deallocate()
        })
        var unarchiver: KeyedUnarchiver? = try KeyedUnarchiver(data: try #require(data), registry: Fleet.registry)
        data = nil
        #expect(!flag.freed, "the unarchiver let the caller's bytes go: it must have copied them")
        let pilots = try #require(unarchiver).decode([Pilot].self)
        #expect(try KeyedArchiver.archive(pilots, registry: Fleet.registry, format: .binary) == fleet)
        unarchiver = nil
        #expect(flag.freed, "the caller's bytes outlived the unarchiver")
    }

    /// A pilot that keeps the decoder it was given, to read through it after its decode.
    final class DecoderKeeper: KeyedArchivable {
        let name: String
        let decoder: KeyedArchiveDecoder
        init(from decoder: KeyedArchiveDecoder) throws(ArchiveError) {
            name = try decoder.decode(String.self, forKey: "name")
            self.decoder = decoder
        }
        func encode(to encoder: KeyedArchiveEncoder) throws(ArchiveError) {}
    }

    /// Reads outside an unarchiver's `decode` calls (its `topLevelDecoder` used directly, a
    /// decoder kept past its decode) see the same bytes, from an array or a `Data`: the
    /// caller's storage is read in place only during a decode, and a copy serves the rest.
    @Test func readsOutsideADecodeSeeTheSameBytes() throws {
        let pilots = FleetFixtureTests.makeFleet()
        for pilot in pilots { for airplane in pilot.airplanes { airplane.owner = nil } }
        let fleet = try KeyedArchiver.archive(pilots, registry: Fleet.registry, format: .binary)
        #expect(BinaryArchiveTable.read(fleet, options: .default) != nil)
        let expected = try KeyedUnarchiver.unarchive([Pilot].self, from: fleet, registry: Fleet.registry)
        var keeping = ArchiveRegistry()
        keeping.register(DecoderKeeper.self, className: "Pilot")
        keeping.register(Airplane.self)
        keeping.register(PoweredAirplane.self, superclass: Airplane.self)
        keeping.register(Glider.self, superclass: Airplane.self)
        for makeUnarchiver in [{ try KeyedUnarchiver(bytes: fleet, registry: $0) },
                               { try KeyedUnarchiver(data: Self.slice(Data(fleet)), registry: $0) }] as [(ArchiveRegistry) throws -> KeyedUnarchiver] {
            let direct = try makeUnarchiver(Fleet.registry).topLevelDecoder.decode([Pilot].self, forKey: "root")
            #expect(direct.map(\.name) == expected.map(\.name))
            #expect(direct.map { $0.airplanes.map(\.registrationNumber) } == expected.map { $0.airplanes.map(\.registrationNumber) })

            let keepers = try makeUnarchiver(keeping).decode([DecoderKeeper].self)
            #expect(keepers.map(\.name) == expected.map(\.name))
            for (keeper, pilot) in zip(keepers, expected) {
                #expect(try keeper.decoder.decode(String.self, forKey: "name") == pilot.name)
                #expect(try keeper.decoder.decode([Airplane].self, forKey: "airplanes").map(\.model) == pilot.airplanes.map(\.model))
            }
        }
    }

    /// A fault in `Data` is reported as for the same bytes in an array.
    @Test func faultsInDataMatchFaultsInArrays() throws {
        var bytes = [UInt8](Self.foundationFleet(.binary))
        bytes[bytes.count - 40] ^= 0xFF
        func failure(_ body: () throws(ArchiveError) -> Void) -> ArchiveError? {
            do { try body(); return nil } catch { return error }
        }
        let fromArray = failure { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Pilot].self, from: bytes, registry: FoundationInteropTests.mirrorRegistry) }
        let fromData = failure { () throws(ArchiveError) in _ = try KeyedUnarchiver.unarchive([Pilot].self, from: Self.slice(Data(bytes)), registry: FoundationInteropTests.mirrorRegistry) }
        #expect(fromArray != nil)
        #expect(fromArray?.description == fromData?.description)
    }

    @Test(arguments: [ArchiveFormat.binary, .xml])
    func archivedDataOpensWithFoundation(format: ArchiveFormat) throws {
        let pilots = Fleet.makePilots()
        for pilot in pilots { for airplane in pilot.airplanes { airplane.owner = nil } }
        let data: Data = try KeyedArchiver.archivedData(pilots, registry: FoundationInteropTests.writingAsMirrors, format: format)
        #expect(data == Data(try KeyedArchiver.archive(pilots, registry: FoundationInteropTests.writingAsMirrors, format: format)))
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: FPilot.allowedClasses, from: data) as? [FPilot]
        let fleet = try #require(decoded)
        #expect(fleet.map(\.name) == ["Amelia", "Bessie"])
        #expect(fleet[1].airplanes.first === fleet[0].airplanes.last)

        let archiver = KeyedArchiver(registry: FoundationInteropTests.writingAsMirrors)
        try archiver.encode(pilots)
        #expect(try archiver.finishData(format: format) == data)
    }

    /// The renderers and the property-list readers read `Data` as they read the same bytes.
    @Test func renderersAndPlistReadersTakeData() throws {
        let data = Self.foundationFleet(.binary)
        let bytes = [UInt8](data)
        let graph = try ArchiveGraph(bytes: bytes)
        #expect(try ArchiveDumper.dump(Self.slice(data)) == ArchiveDumper.dump(graph))
        #expect(try ArchiveJSONRenderer.render(Self.slice(data)) == ArchiveJSONRenderer.render(graph))
        var streamed: [UInt8] = []
        try ArchiveDumper.dump(Self.slice(data)) { streamed += $0 }
        #expect(String(decoding: streamed, as: UTF8.self) == ArchiveDumper.dump(graph))
        streamed = []
        try ArchiveJSONRenderer.render(Self.slice(data)) { streamed += $0 }
        #expect(String(decoding: streamed, as: UTF8.self) == ArchiveJSONRenderer.render(graph))

        // The property-list readers, against Foundation's PropertyListSerialization.
        let plist: [String: Any] = ["name": "Amelia", "hours": 12_400, "tags": ["SEP", "TMG"]]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let file = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
            let expected: PropertyListValue = ["hours": 12_400, "name": "Amelia", "tags": ["SEP", "TMG"]]
            #expect(CodableBridgeTests.canonical(try PropertyListCodec.decode(Self.slice(file))) == expected)
            #expect(PropertyListCodec.detectFormat(Self.slice(file)) == (format == .binary ? .binary : .xml))
            switch try PropertyListCodec.readFile(Self.slice(file)) {
            case .binary(let document):
                #expect(format == .binary)
                #expect(CodableBridgeTests.canonical(try document.value()) == expected)
            case .xml(let document):
                #expect(format == .xml)
                #expect(CodableBridgeTests.canonical(document.value) == expected)
            }
            if format == .xml {
                #expect(CodableBridgeTests.canonical(try XMLPropertyListReader.read(Self.slice(file)).value) == expected)
            }
            let written = try PropertyListCodec.encodedData(expected, format: format == .binary ? .binary : .xml)
            let back = try PropertyListSerialization.propertyList(from: written, format: nil) as? NSDictionary
            #expect(back == plist as NSDictionary)
        }
    }
}
