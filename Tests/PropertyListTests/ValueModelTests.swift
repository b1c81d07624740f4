import Testing
@testable import PropertyList

@Suite struct ValueModelTests {
    @Test func integerDescriptionCoversFullRange() {
        #expect(PropertyListInteger(UInt64.max).description == "18446744073709551615")
        #expect(PropertyListInteger(Int64.min).description == "-9223372036854775808")
        #expect(PropertyListInteger(high: 1, low: 0, isStoredAs128Bit: true).description == "18446744073709551616")
        #expect(PropertyListInteger(high: -2, low: 0, isStoredAs128Bit: true).description == "-36893488147419103232")
    }

    @Test func realsCompareByBitPattern() {
        #expect(PropertyListReal.float64(.nan) == .float64(.nan))
        #expect(PropertyListReal.float64(0.0) != .float64(-0.0))
        #expect(PropertyListReal.float32(1) != .float64(1))
    }

    @Test func dictionaryKeepsOrderAndLastDuplicateWins() {
        var dictionary = PropertyListDictionary()
        dictionary.append(key: "b", value: 1)
        dictionary.append(key: "a", value: 2)
        dictionary.append(key: "b", value: 3)
        #expect(dictionary.keys == ["b", "a", "b"])
        #expect(dictionary["b"] == 3)
        for count in [5, 30] {
            var large = PropertyListDictionary()
            for i in 0..<count { large.append(key: "k\(i)", value: .int(i)) }
            large["k3"] = "x"
            #expect(large["k3"] == "x")
            #expect(large.keys[3] == "k3")
            large["k3"] = nil
            #expect(large["k3"] == nil)
            #expect(large.count == count - 1)
        }
    }

    /// `firstDuplicateKey` finds a key stored twice by exact scalars (not canonical
    /// equivalence), in small dictionaries (pairwise) and large ones (hashed) alike.
    @Test func firstDuplicateKeyFindsExactRepeats() {
        #expect(PropertyListDictionary().firstDuplicateKey() == nil)
        let distinct = PropertyListDictionary(entries: [.init(key: "e\u{301}", value: 1), .init(key: "\u{E9}", value: 2)])
        #expect(distinct.firstDuplicateKey() == nil, "canonically equivalent keys are different keys")
        for count in [3, 8, 9, 40] {
            var entries = (0..<count).map { PropertyListDictionary.Entry(key: "k\($0)", value: .integer(PropertyListInteger(Int64($0)))) }
            #expect(PropertyListDictionary(entries: entries).firstDuplicateKey() == nil, "\(count)")
            entries.append(.init(key: "k1", value: true))
            entries.append(.init(key: "k\(count - 1)", value: true))
            entries.append(.init(key: "k1", value: false))
            let found = PropertyListDictionary(entries: entries).firstDuplicateKey()
            #expect(found?.key == "k1" && found?.occurrences == 3, "\(count): \(String(describing: found))")
        }
    }
}
