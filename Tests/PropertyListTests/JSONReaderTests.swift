import Foundation
import Testing
@testable import PropertyList

/// `PropertyListJSONReader`: the canonical JSON of Docs/PlistJSON.md read back into the
/// property list it stands for. The round trips are checked twice: by the contract
/// (render(read(render(P))) == render(P)) and by Python's plistlib, which reads the binary
/// file made from the JSON and must find what the original JSON says.
@Suite struct JSONReaderTests {
    /// P with what the JSON text cannot carry put in its usual form: a NaN's payload, integers
    /// in the 16-byte form only above 2^63 − 1. (A real keeps its width: version 2's `$real32`.)
    static func usualForm(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        // The text says "nan" for every NaN: the payload is not carried.
        case .real(.float32(let float)): return .real(.float32(float.isNaN ? .nan : float))
        case .real(.float64(let double)): return .real(.float64(double.isNaN ? .nan : double))
        case .date(let date) where date.secondsSinceReferenceDate.isNaN: return .date(PropertyListDate(secondsSinceReferenceDate: .nan))
        case .integer(let integer):
            if let signed = integer.int64Value { return .integer(PropertyListInteger(signed)) }
            if let unsigned = integer.uint64Value { return .integer(PropertyListInteger(unsigned)) }
            return .integer(PropertyListInteger(high: integer.high, low: integer.low, isStoredAs128Bit: true))
        case .array(let elements): return .array(elements.map(usualForm))
        case .set(let elements): return .set(elements.map(usualForm))
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(entries: dictionary.entries.map { .init(key: $0.key, value: usualForm($0.value)) }))
        default: return value
        }
    }

    /// Every 32-bit real as the 64-bit real it widens to (what XML keeps of it).
    static func widened(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(.float32(let float)): return .real(.float64(Double(float)))
        case .array(let elements): return .array(elements.map(widened))
        case .set(let elements): return .set(elements.map(widened))
        case .dictionary(let dictionary):
            return .dictionary(PropertyListDictionary(entries: dictionary.entries.map { .init(key: $0.key, value: widened($0.value)) }))
        default: return value
        }
    }

    static func sortedKeys(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements): return .array(elements.map(sortedKeys))
        case .dictionary(let dictionary):
            let entries = dictionary.entries.map { PropertyListDictionary.Entry(key: $0.key, value: sortedKeys($0.value)) }
            return .dictionary(PropertyListDictionary(entries: entries.sorted { Array($0.key.utf16).lexicographicallyPrecedes(Array($1.key.utf16)) }))
        default: return value
        }
    }

    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func everyAppleFixtureRoundTripsThroughJSON() throws {
        var comparisons: [ReferenceTools.Comparison] = []
        let directory = try ReferenceTools.temporaryDirectory("json-reader")
        defer { try? FileManager.default.removeItem(at: directory) }
        var checked = 0
        for (index, entry) in AppleFixtureCorpus.entries.enumerated() {
            let original = try PropertyListCodec.decode(AppleFixtureCorpus.bytes(entry))
            // The contract has no form for a set; such a file has no JSON to read back.
            guard let json = try? PropertyListJSONRenderer.render(original) else { continue }
            let back = try PropertyListJSONReader.read(json)
            let sameValue = back == Self.usualForm(original)
            #expect(sameValue, "\(entry)")
            let binary = try PropertyListCodec.encode(back, format: .binary)
            let again = try PropertyListJSONRenderer.render(PropertyListCodec.decode(binary))
            let same = again == json
            #expect(same, "\(entry): plist(convert(plist(P))) != plist(P)")
            let url = directory.appendingPathComponent("\(index).plist")
            try Data(binary).write(to: url)
            comparisons.append(.init(plistPath: url.path, ourJSON: json, format: "binary"))
            // XML sorts keys and cannot hold everything binary can (a 128-bit integer: the
            // writer's refusal, tested elsewhere); what it holds must be the same values.
            if let xml = try? PropertyListCodec.encode(back, format: .xml) {
                // XML's <real> has no width: a 32-bit real reads back as the double it widens to.
                let sameValues = Self.sortedKeys(try PropertyListCodec.decode(xml)) == Self.sortedKeys(Self.widened(back))
                #expect(sameValues, "\(entry): the XML made from the JSON holds other values")
            }
            checked += 1
        }
        #expect(checked > 150)
        if ReferenceTools.isPythonAvailable {
            let result = try ReferenceTools.compareWithPlistlib(comparisons)
            #expect(result.status == 0, "\(result.report)")
            #expect(result.matched == comparisons.count, "\(result.report)")
        }
    }

    @Test func tagsAndFormsReadBack() throws {
        let text = """
        {"s": "a\\"b\\\\c\\n\\u00e9\\ud83d\\ude00/\\/", "i": -9223372036854775808, "u": 18446744073709551615,
         "big": 170141183460469231731687303715884105727, "neg": -170141183460469231731687303715884105728,
         "r": {"$real": 0.1}, "r1": {"$real": 1}, "e": {"$real": 1e-5}, "nan": {"$real": "nan"}, "inf": {"$real": "-inf"},
         "d": {"$date": -1.5}, "b": {"$data": "AAEC/w=="}, "b1": {"$data": ""}, "id": {"$uid": 4294967295},
         "w": {"$dict": {"$uid": 3}}, "w2": {"$dict": {"a": 1}}, "two": {"$uid": 1, "x": {"$uid": 2}},
         "dup": 1, "dup": 2, "t": true, "f": false, "empty": {}, "none": []}
        """
        let value = try PropertyListJSONReader.read(Array(text.utf8))
        let expected: PropertyListValue = .dictionary(PropertyListDictionary(entries: [
            .init(key: "s", value: .string("a\"b\\c\n\u{e9}\u{1F600}//")),
            .init(key: "i", value: .integer(PropertyListInteger(Int64.min))),
            .init(key: "u", value: .integer(PropertyListInteger(UInt64.max))),
            .init(key: "big", value: .integer(PropertyListInteger(high: Int64.max, low: UInt64.max, isStoredAs128Bit: true))),
            .init(key: "neg", value: .integer(PropertyListInteger(high: Int64.min, low: 0, isStoredAs128Bit: true))),
            .init(key: "r", value: .double(0.1)),
            .init(key: "r1", value: .double(1)),
            .init(key: "e", value: .double(1e-5)),
            .init(key: "nan", value: .double(.nan)),
            .init(key: "inf", value: .double(-.infinity)),
            .init(key: "d", value: .date(PropertyListDate(secondsSinceReferenceDate: -1.5))),
            .init(key: "b", value: .data([0, 1, 2, 255])),
            .init(key: "b1", value: .data([])),
            .init(key: "id", value: .uid(PropertyListUID(4_294_967_295))),
            .init(key: "w", value: ["$uid": 3]),
            .init(key: "w2", value: ["a": 1]),
            .init(key: "two", value: .dictionary(PropertyListDictionary(entries: [.init(key: "$uid", value: 1), .init(key: "x", value: .uid(PropertyListUID(2)))]))),
            .init(key: "dup", value: 1),
            .init(key: "dup", value: 2),
            .init(key: "t", value: true),
            .init(key: "f", value: false),
            .init(key: "empty", value: .dictionary(PropertyListDictionary())),
            .init(key: "none", value: []),
        ]))
        #expect(value == expected)
        // Rendered again, the wrapper and the duplicate come back as written.
        let rendered = try PropertyListJSONRenderer.renderString(value)
        #expect(rendered.contains("\"$dict\": {"))
        #expect(try PropertyListJSONReader.read(Array(rendered.utf8)) == expected)
    }

    /// Text Python's json module and plistlib agree on: the reader's values must match theirs.
    @Test(.enabled(if: ReferenceTools.isPythonAvailable))
    func randomValuesMatchPlistlibAfterConversion() throws {
        var generator = RandomPropertyListGenerator(seed: 0x23)
        var comparisons: [ReferenceTools.Comparison] = []
        let directory = try ReferenceTools.temporaryDirectory("json-random")
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<60 {
            let original = generator.value(depth: 0, allowSets: false)
            guard let json = try? PropertyListJSONRenderer.render(original) else { continue }
            let back = try PropertyListJSONReader.read(json)
            let sameValue = back == Self.usualForm(original)
            #expect(sameValue, "\(json.count) bytes of JSON")
            let written = try PropertyListCodec.encode(back, format: .binary)
            let url = directory.appendingPathComponent("\(index).plist")
            try Data(written).write(to: url)
            comparisons.append(.init(plistPath: url.path, ourJSON: json, format: "binary"))
        }
        let result = try ReferenceTools.compareWithPlistlib(comparisons)
        #expect(result.status == 0, "\(result.report)")
    }

    struct Bad: CustomStringConvertible {
        var text: String
        var code: PropertyListError.Code
        var line: Int
        var column: Int
        var fragment: String
        var description: String { text }
    }

    static let badInputs: [Bad] = [
        Bad(text: "", code: .jsonSyntax, line: 1, column: 1, fragment: "no JSON value"),
        Bad(text: "{\"a\": 1,}", code: .jsonSyntax, line: 1, column: 9, fragment: "member name"),
        Bad(text: "[1 2]", code: .jsonSyntax, line: 1, column: 4, fragment: "',' or ']'"),
        Bad(text: "{\n  \"a\": tru\n}", code: .jsonSyntax, line: 2, column: 8, fragment: "expected a value"),
        Bad(text: "[1]\n[2]", code: .jsonSyntax, line: 2, column: 1, fragment: "end of the input"),
        Bad(text: "\"abc", code: .jsonSyntax, line: 1, column: 1, fragment: "not closed"),
        Bad(text: "\"a\tb\"", code: .jsonSyntax, line: 1, column: 3, fragment: "control character"),
        Bad(text: "[01]", code: .jsonSyntax, line: 1, column: 2, fragment: "leading zero"),
        Bad(text: "[\"\\x\"]", code: .jsonSyntax, line: 1, column: 3, fragment: "not a JSON escape"),
        Bad(text: "[null]", code: .invalidTaggedValue, line: 1, column: 2, fragment: "null"),
        Bad(text: "{\"a\":\n 1.5}", code: .invalidTaggedValue, line: 2, column: 2, fragment: "{\"$real\": x}"),
        Bad(text: "{\"$real\": 1.5, \"b\": 1}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "{\"$real\": x}"),
        Bad(text: "{\"$uid\": -1}", code: .invalidTaggedValue, line: 1, column: 10, fragment: "$uid must hold an integer from 0 to 4294967295"),
        Bad(text: "{\"$uid\": 4294967296}", code: .invalidTaggedValue, line: 1, column: 10, fragment: "$uid"),
        Bad(text: "{\"$uid\": \"1\"}", code: .invalidTaggedValue, line: 1, column: 10, fragment: "not the string \"1\""),
        Bad(text: "[{\"$real\": \"NaN\"}]", code: .invalidTaggedValue, line: 1, column: 12, fragment: "$real must hold a number"),
        Bad(text: "{\"$date\": true}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "$date"),
        Bad(text: "{\"$data\": \"AAE\"}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "not standard base64"),
        Bad(text: "{\"$data\": \"AAF=\"}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "base64"),
        Bad(text: "{\"$data\": \"AA\\nAA==\"}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "base64"),
        Bad(text: "{\"$data\": 3}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "$data must hold a base64 string"),
        Bad(text: "{\"$dict\": [1]}", code: .invalidTaggedValue, line: 1, column: 11, fragment: "$dict must hold an object"),
        Bad(text: "{\"$real\": 1e999}", code: .invalidNumber, line: 1, column: 11, fragment: "beyond the range"),
        Bad(text: "[170141183460469231731687303715884105728]", code: .invalidNumber, line: 1, column: 2, fragment: "128-bit"),
        Bad(text: "[-170141183460469231731687303715884105729]", code: .invalidNumber, line: 1, column: 2, fragment: "128-bit"),
        Bad(text: "[\"\\ud800\"]", code: .invalidText, line: 1, column: 3, fragment: "surrogate"),
        Bad(text: "[\"\\udc00\\ud800\"]", code: .invalidText, line: 1, column: 3, fragment: "surrogate"),
    ]

    @Test(arguments: badInputs)
    func badJSONIsOneErrorAtItsLineAndColumn(_ bad: Bad) {
        #expect {
            _ = try PropertyListJSONReader.read(Array(bad.text.utf8))
        } throws: { error in
            guard let error = error as? PropertyListError else { return false }
            return error.code == bad.code && error.location == .line(bad.line, column: bad.column) && error.message.contains(bad.fragment)
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: PropertyListError(.invalidText, "", at: .line(1, column: 2))) {
            _ = try PropertyListJSONReader.read([0x5B, 0x22, 0xFF, 0x22, 0x5D])
        }
    }

    @Test func nestingIsLimitedWithoutRecursion() throws {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 4
        #expect(try PropertyListJSONReader.read(Array("[[[[1]]]]".utf8), options: options) == [[[[1]]]])
        // Wrappers add JSON levels but no property-list ones.
        #expect(try PropertyListJSONReader.read(Array("[[[{\"$dict\": {\"$uid\": 1}}]]]".utf8), options: options) == [[[["$uid": 1]]]])
        #expect(throws: PropertyListError(.depthLimitExceeded, "", at: .line(1, column: 5))) {
            _ = try PropertyListJSONReader.read(Array("[[[[[1]]]]]".utf8), options: options)
        }
        // Ten million open brackets: refused once the stack passes its bound, not by the thread's stack.
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 10_000_000)
        #expect(throws: PropertyListError.self) { _ = try PropertyListJSONReader.read(deep) }
        // At the default limit, as deep as the renderer writes.
        var value: PropertyListValue = 1
        for _ in 0..<PropertyListReadingOptions.default.maximumDepth { value = [value] }
        // The renderer recurses: on a stack the test chooses (Swift Testing's threads have 512 KiB
        // on Darwin), and the nested value compared and released there too.
        let nested = value
        let roundTrip = onBigStack { () -> Result<Bool, PropertyListError> in
            Result { () throws(PropertyListError) in try PropertyListJSONReader.read(try PropertyListJSONRenderer.render(nested)) == nested }
        }
        #expect(try roundTrip.get())
    }

    @Test func collectionAndLengthLimitsApply() {
        var options = PropertyListReadingOptions()
        options.maximumCollectionElementCount = 2
        options.maximumValueLength = 3
        #expect(throws: PropertyListError(.sizeLimitExceeded, "", at: .line(1, column: 1))) {
            _ = try PropertyListJSONReader.read(Array("[1,2,3]".utf8), options: options)
        }
        #expect(throws: PropertyListError(.sizeLimitExceeded, "", at: .line(1, column: 2))) {
            _ = try PropertyListJSONReader.read(Array("[\"abcd\"]".utf8), options: options)
        }
    }
}
