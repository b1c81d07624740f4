import Foundation
import Testing
@testable import PropertyList

/// Every file in Fixtures/hostile/plist (made by make_corpus.py) raises the error its row in
/// EXPECTED.tsv names, through every entry point, quickly.
@Suite struct HostileCorpusTests {
    struct Case: CustomStringConvertible, Sendable {
        var file: String
        var code: String
        var description: String { file }
    }

    static let folder = AppleFixtureCorpus.fixturesRoot.appendingPathComponent("hostile/plist")

    static let cases: [Case] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t")
            return columns.count >= 2 ? Case(file: String(columns[0]), code: String(columns[1])) : nil
        }
    }()

    @Test func corpusIsPresent() {
        #expect(Self.cases.count >= 40)
    }

    @Test(arguments: HostileCorpusTests.cases)
    func raisesTheExpectedError(_ hostile: Case) throws {
        let bytes = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(hostile.file)))
        let start = Date()
        var codes: [String] = []
        do {
            switch try PropertyListCodec.readFile(bytes) {
            case .binary(let document): _ = try document.value()
            case .xml: break
            }
            codes.append("success")
        } catch {
            codes.append(error.code.rawValue)
        }
        do {
            _ = try PropertyListCodec.decode(bytes)
            codes.append("success")
        } catch {
            codes.append(error.code.rawValue)
        }
        #expect(codes == [hostile.code, hostile.code], "\(hostile.file)")
        #expect(Date().timeIntervalSince(start) < 5, "\(hostile.file) took too long to reject")
    }

    /// Fuzzing finding: an invalid object that nothing references. `read` keeps every table
    /// entry, so it rejects the file; `readValue` builds only what the top object reaches.
    @Test func unreachableInvalidObject() throws {
        let bytes = [UInt8](try Data(contentsOf: AppleFixtureCorpus.fixturesRoot.appendingPathComponent("fuzz-findings/unreachable-invalid-object.bplist")))
        #expect(throws: PropertyListError.self) { try BinaryPropertyListReader.read(bytes) }
        _ = try BinaryPropertyListReader.readValue(bytes)
    }

    /// Each reading limit, just below and just above.
    @Test func limitsHoldOnBothSidesOfTheBoundary() throws {
        func binary(_ value: PropertyListValue) throws -> [UInt8] { try BinaryPropertyListWriter().write(value) }
        var options = PropertyListReadingOptions()

        options = PropertyListReadingOptions()
        options.maximumDepth = 3
        #expect(throws: Never.self) { try BinaryPropertyListReader.readValue(try binary([[[1]]]), options: options) }
        #expect { try BinaryPropertyListReader.readValue(try binary([[[[1]]]]), options: options) } throws: { ($0 as? PropertyListError)?.code == .depthLimitExceeded }

        options = PropertyListReadingOptions()
        options.maximumCollectionCount = 10
        #expect(throws: Never.self) { try BinaryPropertyListReader.readValue(try binary(.array((0..<10).map { .int($0) })), options: options) }
        #expect { try BinaryPropertyListReader.readValue(try binary(.array((0..<11).map { .int($0) })), options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }
        #expect { try XMLPropertyListReader.read(try XMLPropertyListWriter().write(.array((0..<11).map { .int($0) })), options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }

        options = PropertyListReadingOptions()
        options.maximumValueLength = 8
        #expect(throws: Never.self) { try BinaryPropertyListReader.readValue(try binary(["12345678", .data([1, 2, 3, 4, 5, 6, 7, 8])]), options: options) }
        #expect { try BinaryPropertyListReader.readValue(try binary(["123456789"]), options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }
        #expect { try BinaryPropertyListReader.read(try binary([.data(Array(repeating: 0, count: 9))]), options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }

        options = PropertyListReadingOptions()
        options.maximumObjectCount = 3
        #expect(throws: Never.self) { try BinaryPropertyListReader.read(try binary(["a", "b"]), options: options) }
        #expect { try BinaryPropertyListReader.read(try binary(["a", "b", "c"]), options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }

        // A shared array referenced 4 times expands to 1 + 4 × (1 + 2) = 13 values.
        var shared = BinaryPropertyListDocument(objects: [.array([1, 1, 1, 1]), .array([2, 2]), .integer(1)], topObject: 0)
        shared.sourceLayout = nil
        let sharedBytes = try BinaryPropertyListWriter().write(shared)
        options = PropertyListReadingOptions()
        options.maximumExpandedValueCount = 13
        #expect(throws: Never.self) { try BinaryPropertyListReader.readValue(sharedBytes, options: options) }
        options.maximumExpandedValueCount = 12
        #expect { try BinaryPropertyListReader.readValue(sharedBytes, options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }
        #expect { try BinaryPropertyListReader.read(sharedBytes, options: options) } throws: { ($0 as? PropertyListError)?.code == .sizeLimitExceeded }
    }
}
