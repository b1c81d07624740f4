import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// The renderers' streamed forms, which the command-line tool prints with, and the limits a new
/// user's trial showed they need: the same text as the whole-string forms, in bounded chunks;
/// shared strings that print long (escapes counted) printed once; the plist JSON's byte budget.
@Suite struct StreamedRenderingTests {
    static func streamed(_ render: ((ArraySlice<UInt8>) -> Void) throws -> Void) rethrows -> (text: [UInt8], largestChunk: Int) {
        var text: [UInt8] = []
        var largest = 0
        try render { chunk in
            text.append(contentsOf: chunk)
            largest = max(largest, chunk.count)
        }
        return (text, largest)
    }

    /// A large archive: 20,000 objects, so the text spans many chunks.
    static func largeArchive() throws -> [UInt8] {
        var elements: [any ArchiveObjectEncodable] = []
        for index in 0..<20_000 {
            elements.append(ArchiveGenericObject(classes: ["Item", "NSObject"], fields: [("name", .object("item \(index)")), ("n", .inline(.integer(PropertyListInteger(Int64(index)))))]))
        }
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray(elements))
        return try archiver.finish()
    }

    @Test func streamedDumpAndJSONAreTheWholeTextInBoundedChunks() throws {
        let fleet = [UInt8](try Data(contentsOf: ArchiveFixtures.projectFixtures.appendingPathComponent("fleet.plist")))
        for bytes in [fleet, try Self.largeArchive()] {
            let dump = try Self.streamed { output in try ArchiveDumper.dump(bytes, output: output) }
            #expect(dump.text == Array(try ArchiveDumper.dump(bytes).utf8))
            let json = try Self.streamed { output in try ArchiveJSONRenderer.render(bytes, output: output) }
            #expect(json.text == Array(try ArchiveJSONRenderer.render(bytes).utf8))
            // A chunk is handed on once it passes 64 KiB; one step adds at most a few hundred bytes.
            #expect(dump.largestChunk < (1 << 16) + 4096 && json.largestChunk < (1 << 16) + 4096, "\(dump.largestChunk) \(json.largestChunk)")
            if bytes.count > 100_000 { #expect(dump.text.count > 4 << 16) }
        }
        // A budget failure comes after the text made until then, as the streamed form documents.
        var options = ArchiveReadingOptions.default
        options.maximumExpansionCount = 1_000
        var partial = 0
        #expect(throws: ArchiveError.self) { try ArchiveDumper.dump(try Self.largeArchive(), options: options) { partial += $0.count } }
        #expect(partial > 0)
    }

    /// The trial's 1.5 GB dump of a 1 MB file: a million references to one string of 256
    /// control characters, each printed in full (1,536 bytes escaped). Counted by its escaped
    /// length, such a string is printed once and referred to afterwards.
    @Test func sharedStringsThatPrintLongArePrintedOnce() throws {
        let controls = String(repeating: "\u{1}", count: 256)
        let plain = String(repeating: "a", count: 256)
        let archiver = KeyedArchiver(registry: ArchiveRegistry())
        try archiver.encode(ArchiveArray([controls, controls, controls, plain, plain]))
        let dump = try ArchiveDumper.dump(try archiver.finish())
        let escaped = String(repeating: "\\u0001", count: 256)
        #expect(dump.components(separatedBy: escaped).count - 1 == 1, "\(dump.prefix(400))")
        // 256 plain characters still print inline wherever they are referenced.
        #expect(dump.components(separatedBy: plain).count - 1 == 2)
        #expect(ArchiveGraphWalker.printsInline(plain))
        #expect(!ArchiveGraphWalker.printsInline(String(repeating: "\u{1}", count: 43)))
        #expect(ArchiveGraphWalker.printsInline(String(repeating: "\u{1}", count: 42)))
        #expect(!ArchiveGraphWalker.printsInline(String(repeating: "é", count: 43)))
        // C1 controls print as six bytes each (a review's finding: they were counted as four).
        #expect(!ArchiveGraphWalker.printsInline(String(repeating: "\u{85}", count: 43)))
        #expect(ArchiveGraphWalker.printsInline(String(repeating: "\u{85}", count: 42)))
    }

    /// The plist JSON writes a shared value at every reference: its byte budget stops a small
    /// file standing for a huge text, in both forms, before a long string is copied.
    @Test func plistJSONHasAByteBudget() throws {
        let shared = PropertyListValue.string(String(repeating: "A", count: 100_000))
        let value = PropertyListValue.array(Array(repeating: shared, count: 50))
        let whole = try PropertyListJSONRenderer.render(value)
        #expect(whole.count > 5_000_000)
        let streamed = try Self.streamed { output in try PropertyListJSONRenderer.render(value, output: output) }
        #expect(streamed.text == whole)
        #expect(streamed.largestChunk < (1 << 16) + 100_100)
        do {
            _ = try PropertyListJSONRenderer.render(value, maximumByteCount: 1_000_000)
            Issue.record("rendered past the budget")
        } catch {
            #expect(error.code == .sizeLimitExceeded)
        }
        var written = 0
        #expect(throws: PropertyListError.self) {
            try PropertyListJSONRenderer.render(value, maximumByteCount: 1_000_000) { written += $0.count }
        }
        #expect(written <= 1_000_000)
        // What the contract cannot express is refused before any output (no partial JSON).
        var printed = 0
        let withSet = PropertyListValue.array([shared, .array([.set([1])])])
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(withSet) { printed += $0.count } }
        var deep = PropertyListValue.array([])
        for _ in 0..<20 { deep = .array([shared, deep]) }
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(deep, maximumDepth: 10) { printed += $0.count } }
        #expect(printed == 0)
        #expect(try Self.streamed { try PropertyListJSONRenderer.render(deep, maximumDepth: 21, output: $0) }.text == PropertyListJSONRenderer.render(deep, maximumDepth: 21))
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(deep, maximumDepth: 20) }
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(deep, maximumDepth: 20) { printed += $0.count } }
    }

    /// A review's findings: a string of control characters passed the budget check by its raw
    /// length and printed six times that, and the bytes buffered when the budget stopped the
    /// text were printed anyway; and the streamed form's pre-check met faults in another order
    /// than rendering, so the two forms named different errors for one value.
    @Test func theByteBudgetIsACapAndBothFormsNameTheSameFault() throws {
        let controls = PropertyListValue.string(String(repeating: "\u{1}", count: 900))
        var written = 0
        var code: PropertyListError.Code?
        do {
            try PropertyListJSONRenderer.render(controls, maximumByteCount: 1000) { written += $0.count }
        } catch {
            code = error.code
        }
        #expect(code == .sizeLimitExceeded && written == 0, "\(String(describing: code)) \(written)")
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(controls, maximumByteCount: 1000) }
        #expect(try PropertyListJSONRenderer.render(controls, maximumByteCount: 5_500).count == 5_403)
        // A long text of many values: everything handed on stays within the budget.
        let many = PropertyListValue.array(Array(repeating: controls, count: 100))
        written = 0
        #expect(throws: PropertyListError.self) { try PropertyListJSONRenderer.render(many, maximumByteCount: 200_000) { written += $0.count } }
        #expect(written > 0 && written <= 200_000, "\(written)")

        var deep = PropertyListValue.array([])
        for _ in 0..<10 { deep = .array([deep]) }
        for (value, expected) in [(PropertyListValue.array([.set([]), deep]), PropertyListError.Code.unsupportedValue), (.array([deep, .set([])]), .depthLimitExceeded)] {
            var whole: PropertyListError.Code?
            var streamed: PropertyListError.Code?
            do { _ = try PropertyListJSONRenderer.render(value, maximumDepth: 5) } catch { whole = error.code }
            do { try PropertyListJSONRenderer.render(value, maximumDepth: 5) { _ in } } catch { streamed = error.code }
            #expect(whole == expected && streamed == expected, "\(String(describing: whole)) \(String(describing: streamed))")
        }
    }
}
