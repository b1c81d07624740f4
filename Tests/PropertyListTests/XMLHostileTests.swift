import Foundation
import Testing
@testable import PropertyList

/// Inputs built to hurt: nesting far past any limit, containers of absurd size, every corpus
/// file cut short, random damage. Each must end in a thrown error (never a crash, a hang or a
/// stack overflow), or, when the damage left a valid file, in a value that survives a rewrite.
@Suite struct XMLHostileTests {
    static func code(_ bytes: [UInt8], options: PropertyListReadingOptions = .default) -> PropertyListError.Code? {
        do {
            _ = try XMLPropertyListReader.read(bytes, options: options)
            return nil
        } catch {
            return error.code
        }
    }

    /// 100 000 levels of every container, alone and mixed: the depth limit stops them (the
    /// parser has no recursion, so even a huge limit cannot overflow the stack).
    @Test func deepNestingIsRefused() {
        let depth = 100_000
        let arrays = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        let dicts = String(repeating: "<dict><key>k</key>", count: depth) + "<true/>" + String(repeating: "</dict>", count: depth)
        let mixed = String(repeating: "<array><dict><key>k</key>", count: depth / 2)
        let unclosed = String(repeating: "<array>", count: depth)
        for text in [arrays, dicts, mixed, unclosed] {
            #expect(Self.code(Array(text.utf8)) == .depthLimitExceeded)
        }
        // With the limit raised past the input, the parser itself still copes.
        var options = PropertyListReadingOptions()
        options.maximumDepth = 20_000
        let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
        let deepBytes = Array(deep.utf8), raised = options
        #expect(onBigStack { Self.code(deepBytes, options: raised) } == nil)
    }

    /// `<plist>` wrappers do not count toward the depth (as in Core Foundation), and 100 000
    /// of them cost a frame each, not a stack frame.
    @Test func deeplyWrappedPlistElements() throws {
        let depth = 100_000
        let text = String(repeating: "<plist>", count: depth) + "<integer>7</integer>" + String(repeating: "</plist>", count: depth)
        #expect(try XMLPropertyListReader.read(Array(text.utf8)).value == 7)
    }

    /// 512 nested containers read, 513 do not; an empty `<array/>` at level 513 is not a level.
    @Test func depthBoundary() {
        func nested(_ depth: Int, innermost: String = "") -> [UInt8] {
            Array((String(repeating: "<array>", count: depth) + innermost + String(repeating: "</array>", count: depth)).utf8)
        }
        #expect(Self.code(nested(512)) == nil)
        #expect(Self.code(nested(512, innermost: "<array/><dict/>")) == nil)
        #expect(Self.code(nested(513)) == .depthLimitExceeded)
        #expect(Self.code(nested(512, innermost: "<dict></dict>")) == .depthLimitExceeded)
    }

    /// Containers beyond `maximumCollectionElementCount`, and strings and data beyond
    /// `maximumValueLength`, on both sides of the limit.
    @Test func sizeLimits() {
        var options = PropertyListReadingOptions()
        options.maximumCollectionElementCount = 1000
        func array(_ count: Int) -> [UInt8] { Array(("<array>" + String(repeating: "<true/>", count: count) + "</array>").utf8) }
        func dictionary(_ count: Int) -> [UInt8] { Array(("<dict>" + (0..<count).map { "<key>\($0)</key><true/>" }.joined() + "</dict>").utf8) }
        #expect(Self.code(array(1000), options: options) == nil)
        #expect(Self.code(array(1001), options: options) == .sizeLimitExceeded)
        #expect(Self.code(dictionary(1000), options: options) == nil)
        #expect(Self.code(dictionary(1001), options: options) == .sizeLimitExceeded)
        // A million elements at the default limit: linear time, no quadratic behaviour.
        let start = Date()
        #expect(Self.code(array(1_000_000)) == nil)
        #expect(Date().timeIntervalSince(start) < 10)

        options = PropertyListReadingOptions()
        options.maximumValueLength = 64
        #expect(Self.code(Array("<string>\(String(repeating: "x", count: 64))</string>".utf8), options: options) == nil)
        #expect(Self.code(Array("<string>\(String(repeating: "x", count: 65))</string>".utf8), options: options) == .sizeLimitExceeded)
        #expect(Self.code(Array("<string>\(String(repeating: "&amp;", count: 65))</string>".utf8), options: options) == .sizeLimitExceeded)
        let base64 = Data(repeating: 0xAB, count: 64).base64EncodedString()
        #expect(Self.code(Array("<data>\(base64)</data>".utf8), options: options) == nil)
        #expect(Self.code(Array("<data>\(base64)AAAA</data>".utf8), options: options) == .sizeLimitExceeded)
    }

    /// Numbers far too long for any field: refused in linear time.
    @Test func hugeNumbers() throws {
        let digits = String(repeating: "9", count: 1_000_000)
        #expect(Self.code(Array("<integer>\(digits)</integer>".utf8)) == .invalidNumber)
        #expect(try XMLPropertyListReader.read(Array("<real>\(digits)</real>".utf8)).value == .double(.infinity))
        #expect(try XMLPropertyListReader.read(Array("<real>0.\(digits)e-999999</real>".utf8)).value == .double(0))
        // A 32-bit year that wraps, as in Core Foundation: not an error.
        #expect(Self.code(Array("<date>\(digits)-01-01T00:00:00Z</date>".utf8)) == nil)
    }

    /// Cut points spread over every Apple XML file: each prefix that stops before the root
    /// element's end is refused as truncated.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func truncatedCorpusFiles() throws {
        var wrong: [String] = []
        for entry in AppleFixtureCorpus.entries(format: "xml") {
            let bytes = try AppleFixtureCorpus.bytes(entry)
            let end = bytes.count - "</plist>\n".utf8.count
            let step = max(1, end / 300)
            for cut in stride(from: 0, to: end, by: step) + Array(max(0, end - 40)..<end) {
                let code = Self.code(Array(bytes[..<cut]))
                if code != .truncated { wrong.append("\(entry) cut at \(cut): \(String(describing: code))") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
    }

    /// Random bytes changed in a file with every element type: never a crash; whatever is still
    /// accepted writes and reads back to the same value.
    @Test(arguments: [UInt64(71), 72, 73])
    func randomDamage(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        let value: PropertyListValue = [
            "string": "a & b < c > d \r\n \u{1} é 😀", "integer": -42, "big": .integer(PropertyListInteger(UInt64.max)), "real": 0.1,
            "date": .date(PropertyListDate(secondsSinceReferenceDate: 12345)), "data": .data(Array(0..<100)), "true": true, "false": false,
            "uid": .uid(PropertyListUID(7)), "array": [1, "two", [3.5]], "empty": [:],
        ]
        let base = try XMLPropertyListWriter().write(value)
        let replacements = Array("<>/&;#!-?[]=\"' \t\n\r0x9aZ\u{0}".utf8) + [0x80, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<2000 {
            var bytes = base
            for _ in 0..<(1 + generator.below(3)) {
                let position = generator.below(bytes.count)
                switch generator.below(3) {
                case 0: bytes[position] = replacements[generator.below(replacements.count)]
                case 1: bytes.remove(at: position)
                default: bytes.insert(replacements[generator.below(replacements.count)], at: position)
                }
            }
            guard let document = try? XMLPropertyListReader.read(bytes) else { continue }
            accepted += 1
            // Anything accepted is a value our writer can write (or refuses as XML cannot hold
            // it), and what it writes reads back unchanged.
            guard let written = try? XMLPropertyListWriter(doctype: document.doctype).write(document.value) else { continue }
            let again = try XMLPropertyListReader.read(written)
            #expect(XMLComparable(again.value) == XMLComparable(afterTrip: document.value), "seed \(seed)")
        }
        #expect(accepted > 0)
    }
}
