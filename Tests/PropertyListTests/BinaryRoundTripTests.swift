import Foundation
import Testing
@testable import PropertyList

@Suite struct BinaryRoundTripTests {
    /// value -> binary -> value keeps every value, for random nested values (seed in the message).
    @Test(arguments: [UInt64(1), 2, 3, 0xDEAD_BEEF])
    func randomValuesRoundTrip(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        for index in 0..<200 {
            let value = generator.value(depth: 0, allowSets: true)
            let bytes = try BinaryPropertyListWriter().write(value)
            #expect(try BinaryPropertyListReader.readValue(bytes) == value, "seed \(seed), value \(index)")
            #expect(try BinaryPropertyListReader.read(bytes).value() == value, "seed \(seed), value \(index)")
        }
    }

    /// The one-pass value writer and the object-table writer are two routes to the same bytes.
    @Test(arguments: [UInt64(7), 8])
    func valueWriterMatchesDocumentWriter(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        var values = EdgeCaseValues.all
        for _ in 0..<200 { values.append(generator.value(depth: 0, allowSets: true)) }
        for (index, value) in values.enumerated() {
            let direct = try BinaryPropertyListWriter().write(value)
            let viaDocument = try BinaryPropertyListWriter().write(try BinaryPropertyListDocument(value: value))
            #expect(direct == viaDocument, "seed \(seed), value \(index)")
        }
    }

    /// The value writer sizes references from an upper bound of the object count (every node
    /// and key once) and narrows them when sharing brings the count under 256 or 65,536. The
    /// object-table writer sizes them from the exact count: the bytes must agree, with containers
    /// whose counts take the one-byte form, a following 1-, 2- or 4-byte integer, and sets.
    @Test(arguments: [300, 70_000])
    func referencesNarrowedWhenSharingCrossesAWidth(repeats: Int) throws {
        let record: PropertyListValue = ["name": "same", "flag": true, "count": 7, "when": .date(PropertyListDate(secondsSinceReferenceDate: 5))]
        let longDictionary = PropertyListValue.dictionary(PropertyListDictionary(entries: (0..<20).map {
            PropertyListDictionary.Entry(key: "k\($0 % 5)\($0)", value: .string("v\($0 % 3)"))
        }))
        let values: [PropertyListValue] = [
            .array(Array(repeating: .string("same"), count: repeats)),
            .array(Array(repeating: record, count: repeats / 4)),
            .array([.set(Array(repeating: .integer(1), count: 40)), longDictionary] + Array(repeating: .data([1, 2, 3]), count: repeats)),
            ["outer": .array(Array(repeating: .array(Array(repeating: .real(.float64(0.5)), count: 16)), count: repeats / 16))],
        ]
        for (index, value) in values.enumerated() {
            let direct = try BinaryPropertyListWriter().write(value)
            let viaDocument = try BinaryPropertyListWriter().write(try BinaryPropertyListDocument(value: value))
            // Compared first, so that a failure names the sizes rather than printing the bytes.
            let same = direct == viaDocument
            #expect(same, "value \(index), \(repeats) repeats: \(direct.count) against \(viaDocument.count) bytes")
            #expect(try BinaryPropertyListReader.readValue(direct) == value, "value \(index)")
        }
    }

    /// Canonically equivalent strings are different plist strings: never merged, never equal.
    @Test func canonicallyEquivalentStringsStayDistinct() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(composed == decomposed) // Swift's String equality, the trap we avoid
        let value: PropertyListValue = [.string(composed), .string(decomposed)]
        #expect(value != [.string(composed), .string(composed)])
        let bytes = try BinaryPropertyListWriter().write(value)
        let back = try BinaryPropertyListReader.readValue(bytes)
        #expect(back[1]?.stringValue?.unicodeScalars.count == 2)
        #expect(back[0]?.stringValue?.unicodeScalars.count == 1)
        var dictionary = PropertyListDictionary()
        dictionary.append(key: composed, value: 1)
        dictionary.append(key: decomposed, value: 2)
        #expect(dictionary[composed] == 1)
        #expect(dictionary[decomposed] == 2)
    }

    /// The era variants of format-notes §6: Leopard's exact offset width, shared booleans/UIDs.
    @Test func eraVariantsAreRecognisedFromTheDocument() throws {
        let value = PropertyListValue.array((0..<30_000).map { .string("value number \($0)") } + [true, true, .uid(PropertyListUID(3))])
        var leopard = BinaryPropertyListWriter()
        leopard.offsetSizeRule = .minimal
        let leopardBytes = try leopard.write(value)
        let trailer = leopardBytes.count - 32
        #expect(leopardBytes[trailer + 6] == 3)
        let document = try BinaryPropertyListReader.read(leopardBytes)
        #expect(BinaryPropertyListWriter.matching(document).offsetSizeRule == .minimal)
        #expect(try BinaryPropertyListWriter.matching(document).write(document) == leopardBytes)

        var sharing = BinaryPropertyListWriter()
        sharing.uniquesBooleansAndUIDs = true
        let sharedBytes = try sharing.write(value)
        let sharedDocument = try BinaryPropertyListReader.read(sharedBytes)
        #expect(sharedDocument.objects.count == 30_003)
        #expect(BinaryPropertyListWriter.matching(sharedDocument).uniquesBooleansAndUIDs)
        #expect(try BinaryPropertyListWriter.matching(sharedDocument).write(sharedDocument) == sharedBytes)
        // The default writer appends the second `true` again, as Core Foundation does.
        #expect(try BinaryPropertyListReader.read(try BinaryPropertyListWriter().write(value)).objects.count == 30_004)
    }
}

@Suite struct BinaryAliasingTests {
    /// Objects whose bytes overlap (an offset table aliasing one region many times) cannot
    /// multiply the decoded size: decoded contents never exceed the file's size.
    @Test func overlappingUnreachableArraysAreRejectedByTheTableReader() throws {
        let url = AppleFixtureCorpus.fixturesRoot.appendingPathComponent("hostile/plist/overlapping-array-objects.bplist")
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect { try BinaryPropertyListReader.read(bytes) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }
        // Only `[true]` is reachable: the value reader decodes just that.
        #expect(try BinaryPropertyListReader.readValue(bytes) == [true])
    }
}
