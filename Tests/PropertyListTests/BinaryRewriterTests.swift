import Foundation
import Testing
@testable import PropertyList

/// The rewriter that `keyedarchive convert --to binary` uses for binary input
/// (`BinaryPropertyListRewriter`, through `PropertyListCodec.convert(_:to:options:output:)`) against
/// the usual path (`readFile`, then `convert`): the same bytes, or the same refusal, on the Apple
/// corpus, on generated files, on hand-made files in every encoding Core Foundation's writer
/// would not use, and on damaged copies.
@Suite struct BinaryRewriterTests {
    /// A conversion's outcome: the bytes written, or the refusal's text.
    enum Outcome: Equatable {
        case written([UInt8])
        case refused(String)
    }

    /// What the usual path makes of `bytes`: the rewritten file, or the error's text.
    static func usual(_ bytes: [UInt8]) -> Outcome {
        do {
            return .written(try PropertyListCodec.convert(try PropertyListCodec.readFile(bytes), to: .binary))
        } catch {
            return .refused("\(error)")
        }
    }

    /// What the streaming entry point makes of `bytes`, and the chunks it handed over.
    static func streamed(_ bytes: [UInt8]) -> (result: Outcome, chunks: Int) {
        var output: [UInt8] = []
        var chunks = 0
        let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { raw in
            do throws(PropertyListError) {
                return .success(try PropertyListCodec.convert(raw, to: .binary) { chunk in
                    chunks += 1
                    output.append(contentsOf: chunk)
                })
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success: return (.written(output), chunks)
        case .failure(let error): return (.refused("\(error)"), chunks)
        }
    }

    /// Whether the rewriter itself takes `bytes` (rather than leaving them to the usual path).
    static func isPlanned(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { BinaryPropertyListRewriter.plan($0) != nil }
    }

    /// Both paths agree on `bytes`; a refusal hands over no output at all.
    static func expectAgreement(_ bytes: [UInt8], _ comment: @autoclosure () -> String) {
        let expected = usual(bytes)
        let (actual, chunks) = streamed(bytes)
        #expect(actual == expected, Comment(rawValue: comment()))
        if case .refused = expected {
            #expect(chunks == 0, Comment(rawValue: comment()))
            #expect(!isPlanned(bytes), Comment(rawValue: comment()))
        }
    }

    /// A binary file assembled by hand: `objects` as their encoded bytes, references of
    /// `referenceSize` bytes (already inside the objects), offsets of `offsetSize` bytes.
    static func handMade(_ objects: [[UInt8]], top: Int = 0, referenceSize: Int = 1, offsetSize: Int = 1) -> [UInt8] {
        HostileBinary.build(objects, top: top, refSize: referenceSize, offsetSize: offsetSize)
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) }
    }

    /// Every Apple-made binary file comes out as Apple wrote it, and the rewriter itself takes
    /// all but the files whose writer shared booleans and UIDs.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func appleBinaryFilesComeOutAsAppleWroteThem() throws {
        var planned = 0
        let entries = AppleFixtureCorpus.entries(format: "binary")
        #expect(entries.count == 186)
        for entry in entries {
            let bytes = try AppleFixtureCorpus.bytes(entry)
            let (result, _) = Self.streamed(bytes)
            #expect(result == .written(bytes), "\(entry)")
            if Self.isPlanned(bytes) { planned += 1 }
        }
        // The one 2008 nib with shared booleans and UIDs is the usual path's.
        #expect(planned >= entries.count - 1, "\(planned) of \(entries.count) taken by the rewriter")
    }

    /// Generated values of every kind, written by our writer, then rewritten.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func generatedFilesAgree(seed: UInt64) throws {
        var generator = RandomPropertyListGenerator(seed: seed)
        for index in 0..<60 {
            let value = generator.value(depth: 4, allowSets: true)
            let bytes = try BinaryPropertyListWriter().write(value)
            #expect(Self.isPlanned(bytes), "seed \(seed), value \(index)")
            Self.expectAgreement(bytes, "seed \(seed), value \(index)")
        }
    }

    /// Encodings Core Foundation's writer never makes, each rewritten as it would make them:
    /// wide integers and UIDs, ASCII text stored as UTF-16, counts in an integer object, wide
    /// references and 3-byte offsets.
    @Test func unusualEncodingsAreRewrittenAsTheUsualPathRewritesThem() throws {
        let cases: [(String, [UInt8])] = [
            ("1 stored in 8 bytes", Self.handMade([[0x13, 0, 0, 0, 0, 0, 0, 0, 1]])),
            ("300 stored in 4 bytes", Self.handMade([[0x12, 0, 0, 1, 0x2C]])),
            ("-2 in 8 bytes", Self.handMade([[0x13] + Self.bigEndian(UInt64(bitPattern: -2), width: 8)])),
            ("a 16-byte integer", Self.handMade([[0x14] + [UInt8](repeating: 0, count: 15) + [7]])),
            ("ASCII text as UTF-16", Self.handMade([[0x62, 0, 0x61, 0, 0x62]])),
            ("empty UTF-16 text", Self.handMade([[0x60]])),
            ("non-ASCII UTF-16 with a pair", Self.handMade([[0x63, 0, 0xE9, 0xD8, 0x3D, 0xDE, 0x00]])),
            ("a short count in an integer", Self.handMade([[0x5F, 0x10, 3, 0x61, 0x62, 0x63]])),
            ("data with a wide count", Self.handMade([[0x4F, 0x11, 0, 2, 9, 8]])),
            ("a UID in 4 bytes", Self.handMade([[0xA1, 1], [0x83, 0, 0, 0, 5]])),
            ("a UID in 16 bytes", Self.handMade([[0xA1, 1], [0x8F] + [UInt8](repeating: 0, count: 15) + [5]])),
            ("2-byte references", Self.handMade([[0xA2, 0, 1, 0, 2], [0x09], [0x51, 0x78]], referenceSize: 2)),
            ("3-byte offsets", Self.handMade([[0xA2, 1, 2], [0x08], [0x51, 0x78]], offsetSize: 3)),
            ("a set", Self.handMade([[0xC2, 1, 2], [0x10, 1], [0x10, 2]])),
            ("a dictionary", Self.handMade([[0xD1, 1, 2], [0x51, 0x6B], [0x23, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]])),
            ("a shared string", Self.handMade([[0xA2, 1, 1], [0x51, 0x73]])),
            ("a shared boolean (re-appended)", Self.handMade([[0xA2, 1, 1], [0x09]])),
            ("a shared UID", Self.handMade([[0xA3, 1, 1, 2], [0x80, 3], [0x80, 4]])),
            ("an unreferenced object", Self.handMade([[0xA1, 1], [0x09], [0x51, 0x7A]])),
            ("a date and a 4-byte real", Self.handMade([[0xA2, 1, 2], [0x33, 0x41, 0, 0, 0, 0, 0, 0, 0], [0x22, 0x3F, 0x80, 0, 0]])),
            ("a shared array (the usual path's)", Self.handMade([[0xA2, 1, 1], [0xA1, 2], [0x09]])),
            ("booleans shared by the writer", Self.handMade([[0xA3, 1, 1, 1], [0x09]])),
            ("a scalar top", Self.handMade([[0x10, 5]])),
        ]
        for (name, bytes) in cases {
            if case .refused(let reason) = Self.usual(bytes) { Issue.record("\(name): the usual path refuses it: \(reason)") }
            Self.expectAgreement(bytes, name)
        }
        #expect(!Self.isPlanned(Self.handMade([[0xA2, 1, 1], [0xA1, 2], [0x09]])), "a container reached twice is the usual path's")
        // A 4-byte UID holding 1 comes out in one byte, as Core Foundation writes it.
        if case .written(let bytes) = Self.usual(Self.handMade([[0xA1, 1], [0x83, 0, 0, 0, 5]])) { #expect(bytes[10...11] == [0x80, 5]) }
    }

    /// Faults anywhere, reachable or not, are the usual path's refusals, with no output.
    @Test func faultyFilesAreRefusedAsTheUsualPathRefusesThem() {
        let cases: [(String, [UInt8])] = [
            ("a cycle", Self.handMade([[0xA1, 0]])),
            ("a non-string key", Self.handMade([[0xD1, 1, 1], [0x10, 1]])),
            ("a reference out of range", Self.handMade([[0xA1, 5]])),
            ("a broken unreachable object", Self.handMade([[0x09], [0x71]])),
            ("an unpaired surrogate", Self.handMade([[0x61, 0xD8, 0x00]])),
            ("a byte above 0x7F in ASCII text", Self.handMade([[0x51, 0xC3]])),
            ("a UID above 2^32 - 1", Self.handMade([[0xA1, 1], [0x84, 1, 0, 0, 0, 0]])),
            ("an integer of 32 bytes", Self.handMade([[0x15, 0]])),
            ("a fill byte", Self.handMade([[0x0F]])),
            ("a count past the end", Self.handMade([[0x5F, 0x10, 200, 0x61]])),
            ("overlapping payloads", Self.aliased()),
        ]
        for (name, bytes) in cases {
            guard case .refused = Self.usual(bytes) else {
                Issue.record("\(name): the usual path accepts it")
                continue
            }
            Self.expectAgreement(bytes, name)
        }
        // Nesting past maximumDepth.
        var deep: [[UInt8]] = (0..<600).map { _ in [0xA1, 0x00] }
        for index in 0..<599 { deep[index] = [0xA1] + Self.bigEndian(UInt64(index + 1), width: 2) }
        deep[599] = [0xA0]
        let nested = Self.handMade(deep, referenceSize: 2, offsetSize: 2)
        Self.expectAgreement(nested, "600 levels")
        if case .written = Self.usual(nested) { Issue.record("600 levels: the usual path accepts them") }
    }

    /// Two objects whose offsets point at the same 64-byte string: more payload than the file holds.
    static func aliased() -> [UInt8] {
        var bytes = Array("bplist00".utf8) + [0xA2, 1, 2, 0x5F, 0x10, 0x40] + [UInt8](repeating: 0x61, count: 64)
        let tableOffset = bytes.count
        bytes += [8, 11, 11]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(3, width: 8) + bigEndian(0, width: 8) + bigEndian(UInt64(tableOffset), width: 8)
        return bytes
    }

    /// Damaged copies of Apple files (bytes changed, files cut): whatever the usual path makes
    /// of each, the rewriter makes too.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func damagedAppleFilesAgree() throws {
        var generator = RandomPropertyListGenerator(seed: 36)
        let originals = try AppleFixtureCorpus.entries(format: "binary").map { ($0, try AppleFixtureCorpus.bytes($0)) }.filter { $0.1.count < 20_000 }
        #expect(originals.count > 50)
        var refused = 0, accepted = 0
        for (entry, original) in originals.prefix(60) {
            for trial in 0..<25 {
                var bytes = original
                if trial == 24 {
                    bytes.removeLast(1 + generator.below(min(40, bytes.count - 1)))
                } else {
                    for _ in 0...generator.below(3) {
                        bytes[generator.below(bytes.count)] = UInt8(truncatingIfNeeded: generator.next())
                    }
                }
                if case .refused = Self.usual(bytes) { refused += 1 } else { accepted += 1 }
                Self.expectAgreement(bytes, "\(entry), trial \(trial)")
            }
        }
        // Both kinds were exercised.
        #expect(refused > 100 && accepted > 100, "\(refused) refused, \(accepted) accepted")
    }

    /// `PropertyListCodec.fileValue` (every object checked, then the value tree read directly)
    /// against `readFile` then `value()`: the same value or the same refusal, on Apple files,
    /// damaged copies and the hand-made faults.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func fileValueIsTheDocumentsValue() throws {
        enum Read: Equatable {
            case value(PropertyListValue)
            case refused(String)
        }
        func usualValue(_ bytes: [UInt8]) -> Read {
            do {
                switch try PropertyListCodec.readFile(bytes) {
                case .binary(let document): return .value(try document.value())
                case .xml(let document): return .value(document.value)
                }
            } catch {
                return .refused("\(error)")
            }
        }
        func directValue(_ bytes: [UInt8]) -> Read {
            let result: Result<PropertyListValue, PropertyListError> = bytes.withUnsafeBytes { raw in
                do throws(PropertyListError) { return .success(try PropertyListCodec.fileValue(raw)) } catch { return .failure(error) }
            }
            switch result {
            case .success(let value): return .value(value)
            case .failure(let error): return .refused("\(error)")
            }
        }
        var generator = RandomPropertyListGenerator(seed: 3636)
        var samples: [[UInt8]] = [Self.handMade([[0xA1, 0]]), Self.handMade([[0xD1, 1, 1], [0x10, 1]]), Self.handMade([[0x09], [0x71]]), Self.aliased()]
        for entry in AppleFixtureCorpus.entries(format: "binary").prefix(80) {
            let original = try AppleFixtureCorpus.bytes(entry)
            samples.append(original)
            guard original.count < 20_000 else { continue }
            for _ in 0..<10 {
                var bytes = original
                bytes[generator.below(bytes.count)] = UInt8(truncatingIfNeeded: generator.next())
                samples.append(bytes)
            }
        }
        var refused = 0
        for (index, bytes) in samples.enumerated() {
            let expected = usualValue(bytes)
            if case .refused = expected { refused += 1 }
            #expect(directValue(bytes) == expected, "sample \(index)")
        }
        #expect(refused > 20, "\(refused) refusals among \(samples.count) samples")
    }

    /// A file of several megabytes comes out in chunks of about a mebibyte, the same bytes.
    @Test func largeFilesComeOutInChunks() throws {
        let value = PropertyListValue.array((0..<120_000).map { .string("string number \($0)") })
        let bytes = try BinaryPropertyListWriter().write(value)
        #expect(bytes.count > 3 << 20)
        let (result, chunks) = Self.streamed(bytes)
        #expect(result == .written(bytes))
        #expect(chunks >= 3)
        #expect(Self.isPlanned(bytes))
    }
}
