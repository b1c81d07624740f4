import Foundation
import Testing
import KeyedArchive
import PropertyList

/// Values and options that come from the caller, not from a file: hand-made fields (raw values,
/// generic objects) and reading limits. Whatever they hold, archiving and reading end in bytes
/// or a thrown error, never in a trap or a stack overflow.
@Suite struct CallerInputTests {
    private static func nested(_ depth: Int) -> PropertyListValue {
        var value: PropertyListValue = "bottom"
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    private static func archive(field: PropertyListValue, topLevel: Bool, options: ArchiveWritingOptions, format: ArchiveFormat = .binary) throws(ArchiveError) -> [UInt8] {
        let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        if topLevel {
            try archiver.topLevelEncoder.encodeRaw(field, forStoredKey: "raw")
        } else {
            try archiver.encode(ArchiveGenericObject(classes: ["Holder", "NSObject"], fields: [(key: "raw", value: .inline(field))]))
        }
        return try archiver.finish(format: format)
    }

    /// A UID in a hand-made field: up to 2^32 − 1 written as given in every mode (it then fails
    /// validation when read, as a reference out of range); above it refused, in both formats,
    /// since Core Foundation reads no larger UID (its binary reader refuses one, its XML reader
    /// cuts it to 32 bits).
    @Test(arguments: [false, true])
    func uidsAreWrittenUpTo32Bits(topLevel: Bool) throws {
        let largest = PropertyListValue.uid(PropertyListUID(PropertyListUID.maximumValue))
        for options in [ArchiveWritingOptions.appleFaithful, .default] {
            let bytes = try Self.archive(field: largest, topLevel: topLevel, options: options)
            let plist = try PropertyListCodec.decode(bytes)
            let written: PropertyListValue?
            if topLevel {
                written = plist["$top"]?["raw"]
            } else {
                written = plist["$objects"]?[1]?["raw"]
            }
            #expect(written == largest, "topLevel \(topLevel), sharing \(options.sharing)")
            #expect(throws: ArchiveError.self) { _ = try ArchiveGraph(bytes: bytes) }
            for format in [ArchiveFormat.binary, .xml] {
                for value in [PropertyListUID.maximumValue + 1, UInt64.max] {
                    do {
                        _ = try Self.archive(field: .uid(PropertyListUID(value)), topLevel: topLevel, options: options, format: format)
                        Issue.record("wrote UID \(value), \(format)")
                    } catch {
                        #expect(error.propertyListError?.code == .unsupportedValue, "\(error)")
                    }
                }
            }
        }
    }

    /// An object whose keys an XML reader would take for one (`a` and `\u{FEFF}a`) is written
    /// as binary, where they stay apart, and refused as XML, where one value would be lost:
    /// for its leading U+FEFF by default, and for the merge even when XML's losses are accepted.
    @Test func keysAnXMLReaderWouldMergeAreRefusedInXML() throws {
        let object = ArchiveGenericObject(classes: ["Holder", "NSObject"], fields: [("a", .inline(.integer(1))), ("\u{FEFF}a", .inline(.integer(2)))])
        let binary = KeyedArchiver(registry: ArchiveRegistry())
        try binary.encode(object)
        let graph = try ArchiveGraph(bytes: try binary.finish(format: .binary))
        #expect(graph.objects.count == 3)
        let strict = KeyedArchiver(registry: ArchiveRegistry())
        try strict.encode(object)
        let refusal = #expect(throws: ArchiveError.self) { try strict.finish(format: .xml) }
        #expect(refusal?.code == .unrepresentableValue, "\(String(describing: refusal))")
        var options = ArchiveWritingOptions()
        options.xmlValueLoss = .acceptAsCoreFoundation
        let xml = KeyedArchiver(registry: ArchiveRegistry(), options: options)
        try xml.encode(object)
        do {
            _ = try xml.finish(format: .xml)
            Issue.record("wrote an XML archive that loses a field")
        } catch {
            #expect(error.propertyListError?.code == .unsupportedValue, "\(error)")
        }
    }

    /// Raw values nested past the writer's depth limit throw in every mode and format; the
    /// Apple-faithful table used to recurse without a limit and overflow the stack.
    @Test(arguments: [false, true])
    func deeplyNestedRawValuesThrow(topLevel: Bool) throws {
        let deep = Self.nested(20_000)
        for (options, format) in [(ArchiveWritingOptions.appleFaithful, ArchiveFormat.binary), (.default, .binary), (.default, .xml)] {
            #expect(throws: ArchiveError.self, "topLevel \(topLevel), sharing \(options.sharing), \(format)") {
                _ = try Self.archive(field: deep, topLevel: topLevel, options: options, format: format)
            }
        }
        // Within the limit, the Apple-faithful mode writes what the by-value mode writes.
        let shallow = Self.nested(100)
        let faithful = try PropertyListCodec.decode(try Self.archive(field: shallow, topLevel: topLevel, options: .appleFaithful))
        let byValue = try PropertyListCodec.decode(try Self.archive(field: shallow, topLevel: topLevel, options: .default))
        #expect(faithful == byValue)
    }

    @Test func negativeObjectCountLimitRefusesInsteadOfTrapping() throws {
        let bytes = try BinaryPropertyListWriter().write(["a": 1])
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = -1
        #expect(throws: PropertyListError.self) { _ = try BinaryPropertyListReader.readValue(bytes, options: options) }
        #expect(throws: PropertyListError.self) { _ = try BinaryPropertyListReader.read(bytes, options: options) }
        var archiveOptions = ArchiveReadingOptions()
        archiveOptions.propertyList.maximumObjectCount = -1
        let archive = try Self.archive(field: 1, topLevel: true, options: .default)
        #expect(throws: ArchiveError.self) { _ = try ArchiveGraph(bytes: archive, options: archiveOptions) }
    }

    @Test func xmlBuilderHoldsDepthsEvenWithoutAWriterLimit() throws {
        var writer = XMLPropertyListWriter()
        writer.maximumDepth = Int.max
        var builder = XMLPropertyListBuilder(writer: writer)
        #expect(throws: PropertyListError.self) { try builder.add(true, depth: 1 << 28) }
        #expect(throws: PropertyListError.self) { try builder.add(.uid(PropertyListUID(1)), depth: Int.max) }
        builder.endArray(depth: Int.max)
        let bytes = builder.finish()
        #expect(bytes.count < 100_000)
    }
}
