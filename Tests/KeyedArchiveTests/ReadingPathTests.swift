import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Which archives typed decoding reads in place (issue 31): every binary archive our writer
/// makes, under every writing option, and every well-formed binary archive of the Apple corpus
/// but the ones listed here with their reasons; and one hand-made file for each reason the
/// in-place reader leaves a file to the usual path.
@Suite struct ReadingPathTests {
    /// A fleet whose counters cover the whole `UInt64` range: 2^63 and above are stored as
    /// 16-byte integers (as Core Foundation stores them), inline and as NSNumber objects.
    static func fullRangeFleet() -> [Pilot] {
        let fleet = FleetFixtureTests.makeFleet()
        let counters: [UInt64] = [0, 1 << 63, UInt64.max, UInt64(Int64.max), (1 << 63) + 12_345]
        var position = 0
        for pilot in fleet {
            for airplane in pilot.airplanes {
                airplane.airframeHours = counters[position % counters.count]
                position += 1
                if let glider = airplane as? Glider { glider.winchLaunchCount = UInt64.max - UInt64(position) }
                if let powered = airplane as? PoweredAirplane { powered.engineHours = 1 << 63 }
            }
        }
        return fleet
    }

    @Test func everyBinaryArchiveOurWriterMakesIsReadInPlace() throws {
        let fleet = Self.fullRangeFleet()
        for era in [ArchiveWritingOptions.Era.current, .classic] {
            for sharing in [ArchiveWritingOptions.Sharing.byValue, .appleInstances] {
                var options = ArchiveWritingOptions()
                options.era = era
                options.sharing = sharing
                let archiver = KeyedArchiver(registry: Fleet.registry, options: options)
                try archiver.encode(fleet)
                // Top-level inline integers of the 16-byte form too.
                try archiver.encode(UInt64.max, forKey: "largest")
                try archiver.encode([UInt64.max, 1 << 63, 7] as [UInt64], forKey: "counters")
                let bytes = try archiver.finish(format: .binary)
                let label = "era \(era), sharing \(sharing)"
                #expect(KeyedUnarchiver.readingPath(of: bytes) == .inPlace, "\(label)")
                let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: Fleet.registry)
                #expect(unarchiver.readsInPlace, "\(label)")
                let decoded = try unarchiver.decode([Pilot].self)
                #expect(try unarchiver.decode(UInt64.self, forKey: "largest") == UInt64.max)
                #expect(try unarchiver.decode([UInt64].self, forKey: "counters") == [UInt64.max, 1 << 63, 7])
                // The values read in place are the ones written, to the last bit.
                let written = fleet.flatMap(\.airplanes).map(\.airframeHours)
                #expect(decoded.flatMap(\.airplanes).map(\.airframeHours) == written, "\(label)")
                #expect(DirectBinaryDecodingTests.compare(bytes, label))
            }
        }
    }

    @Test func foundationValuesOurWriterMakesAreReadInPlace() throws {
        let values: [ArchiveValue] = [
            .array([.integer(PropertyListInteger(UInt64.max)), .string("é"), .data([1, 2, 3]), .date(Date(timeIntervalSinceReferenceDate: 1))]),
            .dictionary([ArchiveValue.Entry(key: .string("k"), value: .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))))]),
            .set([.integer(PropertyListInteger(Int64(-1))), .real(.float64(2.5))]),
            .url(URL(string: "https://example.com/a")!),
        ]
        for value in values {
            let bytes = try KeyedArchiver.archive(value, registry: ArchiveRegistry())
            #expect(KeyedUnarchiver.readingPath(of: bytes) == .inPlace, "\(value)")
        }
    }

    /// The corpus archives read through the graph, each with its reason. A file that moves to
    /// the fast path, or one that leaves it, fails this test until the list says so.
    static let corpusExceptions: [String: ArchiveReadingPath.Reason] = [:]

    @Test(.enabled(if: ArchiveFixtures.isCorpusAvailable, Comment(rawValue: ArchiveFixtures.skipMessage)))
    func everyWellFormedCorpusArchiveIsReadInPlace() throws {
        var found: [String: ArchiveReadingPath.Reason] = [:]
        var inPlace = 0
        for entry in ArchiveFixtures.entries {
            let bytes = try ArchiveFixtures.bytes(entry)
            guard bytes.starts(with: Array("bplist00".utf8)) else { continue }
            switch KeyedUnarchiver.readingPath(of: bytes) {
            case .inPlace: inPlace += 1
            case .graph(let reason): found[entry.relativePath] = reason
            }
        }
        print("Reading paths of the corpus's binary files: \(inPlace) in place; through the graph: \(found.sorted { $0.key < $1.key })")
        #expect(!found.values.contains(.unclassified))
        // Faulty files are the corpus's hostile ones; every other exception is listed.
        #expect(found.filter { $0.value != .faulty } == Self.corpusExceptions)
        #expect(inPlace > 180)
    }

    // MARK: One file for each reason

    static func classDescriptor(_ name: String) -> PropertyListValue {
        var descriptor = PropertyListDictionary()
        descriptor.append(key: "$classname", value: .string(name))
        descriptor.append(key: "$classes", value: .array([.string(name), .string("NSObject")]))
        return .dictionary(descriptor)
    }

    /// A valid archive of one `Airplane` under `root` (objects 0–4), changed by `edit`.
    static func archive(_ edit: (inout PropertyListDictionary, inout [PropertyListValue], inout PropertyListDictionary) -> Void) throws -> [UInt8] {
        var airplane = PropertyListDictionary()
        airplane.append(key: "$class", value: .uid(PropertyListUID(2)))
        airplane.append(key: "model", value: .uid(PropertyListUID(3)))
        airplane.append(key: "registrationNumber", value: .uid(PropertyListUID(4)))
        airplane.append(key: "airframeHours", value: .integer(PropertyListInteger(UInt64.max)))
        var objects: [PropertyListValue] = [.string("$null"), .dictionary(airplane), classDescriptor("Airplane"), .string("Cub"), .string("N1")]
        var top = PropertyListDictionary()
        top.append(key: "root", value: .uid(PropertyListUID(1)))
        var root = PropertyListDictionary()
        root.append(key: "$version", value: .integer(PropertyListInteger(100_000)))
        root.append(key: "$archiver", value: .string("NSKeyedArchiver"))
        edit(&root, &objects, &top)
        root.append(key: "$top", value: .dictionary(top))
        root.append(key: "$objects", value: .array(objects))
        return try BinaryPropertyListWriter().write(.dictionary(root))
    }

    static func fields(_ objects: inout [PropertyListValue], _ edit: (inout PropertyListDictionary) -> Void) {
        guard case .dictionary(var fields) = objects[1] else { return }
        edit(&fields)
        objects[1] = .dictionary(fields)
    }

    /// The unedited archive is read in place and decodes, its 16-byte integer included.
    @Test func theBaseFileIsReadInPlace() throws {
        let bytes = try Self.archive { _, _, _ in }
        #expect(KeyedUnarchiver.readingPath(of: bytes) == .inPlace)
        let airplane = try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry)
        #expect(airplane.airframeHours == UInt64.max)
    }

    static let cases: [(ArchiveReadingPath.Reason, @Sendable () throws -> [UInt8])] = [
        (.notBinary, { try XMLPropertyListWriter().write(PropertyListCodec.decode(archive { _, _, _ in })) }),
        (.faulty, { Array(try archive { _, _, _ in }.dropLast(3)) }),
        (.rootKeys, { try archive { root, _, _ in root.append(key: "$extra", value: .bool(true)) } }),
        (.containerInTop, { try archive { _, _, top in top.append(key: "list", value: .array([.integer(PropertyListInteger(Int64(1)))])) } }),
        (.classlessContainer, { try archive { _, objects, _ in objects.append(.array([.uid(PropertyListUID(3))])) } }),
        (.nestedContainerInField, { try archive { _, objects, _ in fields(&objects) { $0.append(key: "extra", value: .dictionary(PropertyListDictionary())) } } }),
        (.nestedContainerInField, { try archive { _, objects, _ in fields(&objects) { $0.append(key: "extra", value: .array([.array([])])) } } }),
        (.duplicateKey, { try archive { _, objects, _ in fields(&objects) { $0.append(key: "model", value: .uid(PropertyListUID(4))) } } }),
    ]

    @Test(arguments: cases.indices)
    func eachReasonIsNamedAndDecodesAsTheGraphDoes(index: Int) throws {
        let (reason, make) = Self.cases[index]
        let bytes = try make()
        #expect(BinaryArchiveTable.read(bytes, options: .default) == nil)
        #expect(KeyedUnarchiver.readingPath(of: bytes) == .graph(reason))
        // The usual path reads it (or names its fault) exactly as the graph does.
        let direct = Result { () throws(ArchiveError) in try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry).registrationNumber }
        let viaGraph = Result { () throws(ArchiveError) in
            try KeyedUnarchiver(graph: try ArchiveGraph(bytes: bytes), registry: Fleet.registry).decode(Airplane.self).registrationNumber
        }
        switch (direct, viaGraph) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a.code == b.code && a.message == b.message)
        default: Issue.record("\(reason): \(direct) against \(viaGraph)")
        }
    }

    @Test func aShallowDepthLimitIsNamed() throws {
        let bytes = try Self.archive { _, _, _ in }
        var options = ArchiveReadingOptions()
        options.propertyList.maximumDepth = 3
        #expect(KeyedUnarchiver.readingPath(of: bytes, options: options) == .graph(.depthLimitBelowFour))
        #expect(throws: ArchiveError.self) { try KeyedUnarchiver.unarchive(Airplane.self, from: bytes, registry: Fleet.registry, options: options) }
    }
}
