import Foundation
import Testing
@testable import PropertyList

/// Core Foundation's binary writer ships in Foundation on Linux (`PropertyListSerialization`
/// calls the C `CFPropertyListCreateData`). Whatever it writes, we must read and write back to
/// the same bytes, and Python's plistlib must read the same values we read.
@Suite struct FoundationDifferentialTests {
    /// Our value as the Foundation object graph `PropertyListSerialization` takes.
    /// UIDs, sets and 16-byte small integers have no public Foundation form and are skipped.
    static func foundationObject(_ value: PropertyListValue) -> Any? {
        switch value {
        case .string(let string): return NSString(string: string)
        case .integer(let integer):
            if integer.isStoredAs128Bit {
                guard let unsigned = integer.uint64Value, unsigned > UInt64(Int64.max) else { return nil }
                return NSNumber(value: unsigned)
            }
            return integer.int64Value.map { NSNumber(value: $0) }
        case .real(.float32(let float)): return NSNumber(value: float)
        case .real(.float64(let double)): return NSNumber(value: double)
        case .bool(let flag): return NSNumber(value: flag)
        case .date(let date): return NSDate(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
        case .data(let bytes): return NSData(bytes: bytes, length: bytes.count)
        case .uid, .set: return nil
        case .array(let elements):
            let array = NSMutableArray()
            for element in elements {
                if let object = foundationObject(element) { array.add(object) }
            }
            return array
        case .dictionary(let dictionary):
            let result = NSMutableDictionary()
            for entry in dictionary.entries {
                if let object = foundationObject(entry.value) { result[NSString(string: entry.key)] = object }
            }
            return result
        }
    }

    static func foundationBinary(_ value: PropertyListValue) throws -> [UInt8]? {
        guard let object = foundationObject(value) else { return nil }
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
    }

    static func assertRoundTrip(_ bytes: [UInt8], _ label: String) throws {
        let document = try BinaryPropertyListReader.read(bytes)
        let written = try BinaryPropertyListWriter.matching(document).write(document)
        #expect(written == bytes, "\(label): \(written.count) vs \(bytes.count) bytes")
    }

    /// A review's finding: a binary UID above 2^32 − 1 was read (and then cut to 32 bits by a
    /// trip through XML), where Core Foundation refuses the file. Core Foundation reads a UID of
    /// 1 to 16 bytes while its value fits 32 bits; so do we, case for case.
    @Test func uidWidthsAndValuesAsCoreFoundationReadsThem() throws {
        for width in 1...16 {
            for value in [UInt64(5), UInt64(UInt32.max), UInt64(UInt32.max) + 1, UInt64.max] {
                guard width >= 8 || value < (UInt64(1) << (8 * width)) else { continue }
                var payload = [UInt8](repeating: 0, count: width)
                for index in 0..<min(width, 8) { payload[width - 1 - index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
                // A one-element array holding the UID.
                var bytes = Array("bplist00".utf8) + [0xA1, 0x01, 0x80 | UInt8(width - 1)] + payload
                let table = UInt8(bytes.count)
                bytes += [8, 10] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, table]
                let foundationReads = (try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)) != nil
                let ours = Result { () throws(PropertyListError) in try BinaryPropertyListReader.readValue(bytes) }
                switch ours {
                case .success(let read):
                    #expect(foundationReads, "width \(width), value \(value)")
                    #expect(read == .array([.uid(PropertyListUID(value))]), "width \(width), value \(value)")
                case .failure(let error):
                    #expect(!foundationReads, "width \(width), value \(value): \(error)")
                    #expect(error.code == .invalidNumber, "width \(width), value \(value): \(error)")
                }
            }
        }
    }

    @Test func edgeCaseValuesWrittenByCoreFoundationRoundTrip() throws {
        for (index, value) in EdgeCaseValues.all.enumerated() {
            guard let bytes = try Self.foundationBinary(value) else { continue }
            try Self.assertRoundTrip(bytes, "edge case \(index)")
        }
    }

    @Test func randomValuesWrittenByCoreFoundationRoundTrip() throws {
        let seed: UInt64 = 0xC0FFEE
        var generator = RandomPropertyListGenerator(seed: seed)
        for index in 0..<300 {
            let value = generator.value(depth: 0, allowSets: false)
            guard let bytes = try Self.foundationBinary(value) else { continue }
            try Self.assertRoundTrip(bytes, "seed \(seed), value \(index)")
        }
    }

    /// Core Foundation's own reader sees in our output what we put in.
    @Test func coreFoundationReadsWhatWeWrite() throws {
        var generator = RandomPropertyListGenerator(seed: 0xFACADE)
        for index in 0..<200 {
            let value = generator.value(depth: 0, allowSets: false)
            guard let expected = Self.foundationObject(value) as? NSObject else { continue }
            // Write the value as Foundation sees it (UIDs dropped) and let CF read ours.
            let ours = try BinaryPropertyListWriter().write(try BinaryPropertyListReader.read(try #require(try Self.foundationBinary(value))).value())
            let readBack = try PropertyListSerialization.propertyList(from: Data(ours), options: [], format: nil)
            #expect((readBack as? NSObject)?.isEqual(expected) == true || Self.containsNaN(value), "value \(index)")
        }
    }

    static func containsNaN(_ value: PropertyListValue) -> Bool {
        switch value {
        case .real(let real): return real.doubleValue.isNaN
        case .array(let elements): return elements.contains(where: containsNaN)
        case .dictionary(let dictionary): return dictionary.values.contains(where: containsNaN)
        default: return false
        }
    }

    /// Reference widths grow at 256 and 65536 objects, offsets at 256 and 65536 bytes.
    @Test func referenceAndOffsetWidthsGrowLikeCoreFoundation() throws {
        for count in [10, 254, 255, 256, 300, 65_534, 65_535, 65_536, 70_000] {
            let value = PropertyListValue.array((0..<count).map { .string("s\($0)") })
            let bytes = try #require(try Self.foundationBinary(value))
            try Self.assertRoundTrip(bytes, "\(count) strings")
            // A new value with distinct strings has no instance question: our bytes equal CF's.
            #expect(try BinaryPropertyListWriter().write(value) == bytes, "\(count) strings written fresh")
        }
    }

    /// Documents of several megabytes in both formats, byte for byte as Core Foundation writes
    /// them: the writers' buffers grow by `realloc` and are moved into the returned array from the
    /// end, 4 MiB at a time, shrinking as they go (`OutputMemory`). Every byte of the blobs
    /// depends on its position, so a slice copied to the wrong place changes the document.
    @Test func multiMegabyteDocumentsMatchCoreFoundation() throws {
        let blobs = (0..<3).map { blob in
            PropertyListValue.data((0..<(4_500_000 + blob * 12_345)).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 9) ^ blob) })
        }
        let names = (0..<20_000).map { PropertyListValue.string("name \($0)") }
        let value = PropertyListValue.array(blobs + names)
        let object = try #require(Self.foundationObject(value))

        let binary = try BinaryPropertyListWriter().write(value)
        #expect(binary.count > 13_000_000)
        #expect(binary == [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)))

        let xml = try XMLPropertyListWriter().write(value)
        #expect(xml.count > 18_000_000)
        #expect(xml == [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)))
    }
}
