import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `NSUnitConverterReciprocal` stores its value as `NS.reciprocalValue` in Apple's Foundation
/// (its `-encodeWithCoder:`/`-initWithCoder:`, as every disassembly of it shows) and as
/// `NS.reciprocal` in Foundation on Linux. Both are read; Apple's is written, so that a Mac reads
/// the fuel efficiency we write (with Linux's key it would read 0).
@Suite struct UnitConverterFormTests {
    static func converter(_ key: String, _ value: Double) throws -> [UInt8] {
        try FoundationIndexMappingTests.hostile(["NSUnitConverterReciprocal", "NSUnitConverter", "NSObject"], [(key, .inline(.real(.float64(value))))])
    }

    @Test func applesKeyAndLinuxsAreBothRead() throws {
        #expect(try FoundationDecoding.decode(ArchiveValue.self, Self.converter("NS.reciprocalValue", 235.214583)) == .unitConverter(.reciprocal(235.214583)))
        #expect(try FoundationDecoding.decode(ArchiveValue.self, Self.converter("NS.reciprocal", 235.214583)) == .unitConverter(.reciprocal(235.214583)))
    }

    @Test func foundationOnLinuxsFuelEfficiencyIsRead() throws {
        // Foundation on Linux in this process, with its own key.
        let measurement = NSMeasurement(doubleValue: 6.5, unit: UnitFuelEfficiency.milesPerGallon)
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(measurement, forKey: "root")
        archiver.finishEncoding()
        let bytes = [UInt8](archiver.encodedData)
        let graph = try ArchiveGraph(bytes: bytes)
        let stored = graph.objects.compactMap { object -> String? in
            guard case .instance(let instance) = object, instance.value(forKey: "NS.reciprocal") != nil || instance.value(forKey: "NS.reciprocalValue") != nil else { return nil }
            return instance.value(forKey: "NS.reciprocal") != nil ? "NS.reciprocal" : "NS.reciprocalValue"
        }
#if canImport(Darwin)
        #expect(stored == ["NS.reciprocalValue"])
#else
        #expect(stored == ["NS.reciprocal"])
#endif
        let decoded = try FoundationDecoding.decode(ArchiveMeasurement.self, bytes)
        #expect(decoded.value == 6.5 && decoded.unit.className == "NSUnitFuelEfficiency")
        guard case .reciprocal(let reciprocal)? = decoded.unit.converter else {
            Issue.record("not a reciprocal converter: \(String(describing: decoded.unit.converter))")
            return
        }
        #expect(abs(reciprocal - 235.215) < 0.001, "\(reciprocal)")
    }

    @Test func applesKeyIsWritten() throws {
        let bytes = try FoundationObjectMappingTests.archive(ArchiveValue.unitConverter(.reciprocal(235.215)))
        let graph = try ArchiveGraph(bytes: bytes)
        let root = try #require(graph.topUID(forKey: "root"))
        guard case .instance(let instance)? = graph.object(root) else {
            Issue.record("the root is not an object")
            return
        }
        #expect(instance.value(forKey: "NS.reciprocalValue") == .real(.float64(235.215)))
        #expect(instance.value(forKey: "NS.reciprocal") == nil)
    }
}

/// `NSSortDescriptor` as current releases of Apple's Foundation write it: `NSReverseNullOrder`
/// beside `NSKey`, `NSAscending` and `NSSelector`. A descriptor read keeps it when written back.
@Suite struct SortDescriptorFormTests {
    @Test func reverseNullOrderIsKeptWhenWrittenBack() throws {
        let bytes = try FoundationIndexMappingTests.hostile(["NSSortDescriptor", "NSObject"], [
            ("NSKey", .object("name")), ("NSAscending", .inline(.bool(true))), ("NSSelector", .object("compare:")),
            ("NSReverseNullOrder", .inline(.bool(true))),
        ])
        let decoded = try FoundationDecoding.decode(ArchiveSortDescriptor.self, bytes)
        #expect(decoded == ArchiveSortDescriptor(key: "name", ascending: true, selector: "compare:"))
        let written = try ArchiveGraph(bytes: try FoundationObjectMappingTests.archive(decoded))
        let root = try #require(written.topUID(forKey: "root"))
        guard case .instance(let instance)? = written.object(root) else {
            Issue.record("the root is not an object")
            return
        }
        #expect(instance.value(forKey: "NSReverseNullOrder") == .bool(true))
        #expect(ArchiveDiff(try ArchiveGraph(bytes: bytes), written).isEqual)
    }
}
