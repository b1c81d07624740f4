import Foundation
import Testing
@testable import PropertyList

/// Foundation on Linux writes XML with Core Foundation's C writer: a faithful oracle for bytes.
@Suite struct XMLDifferentialTests {
    static func foundationXML(_ value: PropertyListValue) throws -> [UInt8]? {
        guard let object = FoundationDifferentialTests.foundationObject(value) else { return nil }
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0))
    }

    /// A value as Foundation's graph can carry it (no UIDs or sets, which have no public form there).
    static func foundationRepresentable(_ value: PropertyListValue) -> Bool {
        switch value {
        case .uid, .set: return false
        case .integer(let integer): return !integer.isStoredAs128Bit || (integer.uint64Value ?? 0) > UInt64(Int64.max)
        case .array(let elements): return elements.allSatisfy(foundationRepresentable)
        case .dictionary(let dictionary): return dictionary.values.allSatisfy(foundationRepresentable)
        default: return true
        }
    }

    @Test func edgeCasesMatchCoreFoundationBytes() throws {
        var values = EdgeCaseValues.all.filter(Self.foundationRepresentable)
        values.append(["b": 1, "a": 2, "B": 3, "_": 4, "$": 5, "10": 6, "2": 7, "é": 8, "e\u{301}": 9, "\u{FF5E}": 10, "\u{1F600}": 11])
        values.append(["markup": "<&>]]> \"quoted\" 'single'\t\n\r\u{01}\u{7F}\u{2028}\u{FEFF}"])
        values.append(.array((0..<12).map { depth in
            var value = PropertyListValue.data((0..<(depth * 23)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            for _ in 0..<depth { value = [value] }
            return value
        }))
        values.append(.array([1e16, 1e17, 1e300, 1e-5, 0.0001, .double(1.0 / 3), 100, -0.0, .double(.nan), .double(.infinity), .double(-.infinity), .float(0.1), .double(Double.leastNonzeroMagnitude)]))
        values.append(.array([-63_114_076_800, -0.5, 0, 1.5, 978_307_200, 63_113_904_000, -1e10].map { .date(PropertyListDate(secondsSinceReferenceDate: $0)) }))
        for (index, value) in values.enumerated() {
            let expected = try #require(try Self.foundationXML(value))
            #expect(try XMLPropertyListWriter().write(value) == expected, "edge case \(index)")
            // Core Foundation's bytes, read and written back by us, are unchanged.
            let document = try XMLPropertyListReader.read(expected)
            #expect(try XMLPropertyListWriter(doctype: document.doctype).write(document.value) == expected, "edge case \(index) rewritten")
        }
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func randomValuesMatchCoreFoundationBytes(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        var compared = 0
        for index in 0..<150 {
            let value = generator.value(depth: 0, allowSets: false)
            guard Self.foundationRepresentable(value), let expected = try Self.foundationXML(value) else { continue }
            // Foundation's graph has no duplicate keys and its dictionaries ignore our order;
            // XML sorts keys, so the bytes are comparable.
            #expect(try XMLPropertyListWriter().write(value) == expected, "seed \(seed), value \(index)")
            let reread = try XMLPropertyListReader.read(expected).value
            #expect(try XMLPropertyListWriter().write(reread) == expected, "seed \(seed), value \(index) rewritten")
            compared += 1
        }
        #expect(compared > 50)
    }

    /// value -> XML -> value keeps everything XML can express.
    @Test(arguments: [UInt64(21), 22])
    func randomValuesRoundTripThroughXML(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        for index in 0..<200 {
            let value = generator.value(depth: 0, allowSets: false)
            let back = try XMLPropertyListReader.read(try XMLPropertyListWriter().write(value)).value
            #expect(XMLComparable(back) == XMLComparable(value), "seed \(seed), value \(index)")
        }
    }

    /// Core Foundation's reader reads what we write as XML.
    @Test func coreFoundationReadsOurXML() throws {
        var generator = RandomPropertyListGenerator(seed: 31)
        for index in 0..<100 {
            let value = generator.value(depth: 0, allowSets: false)
            guard Self.foundationRepresentable(value), let expected = FoundationDifferentialTests.foundationObject(value) as? NSObject else { continue }
            let ours = try XMLPropertyListWriter().write(value)
            let object = try PropertyListSerialization.propertyList(from: Data(ours), options: [], format: nil)
            // Dates lose their fraction in XML; compare through Core Foundation's own XML rendering.
            let theirs = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
            let reference = try PropertyListSerialization.data(fromPropertyList: expected, format: .xml, options: 0)
            #expect(theirs == reference, "value \(index)")
        }
    }
}
