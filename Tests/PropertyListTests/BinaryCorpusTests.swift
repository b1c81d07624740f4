import Foundation
import Testing
@testable import PropertyList

@Suite struct BinaryCorpusTests {
    /// Every Apple-made binary file, read and written back with the writer settings the
    /// document implies, is reproduced byte for byte.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func everyBinaryFixtureRoundTripsByteForByte() throws {
        let entries = AppleFixtureCorpus.entries(format: "binary")
        #expect(entries.count == 186)
        var identical = 0
        for entry in entries {
            let bytes = try AppleFixtureCorpus.bytes(entry)
            let document = try BinaryPropertyListReader.read(bytes)
            let written = try BinaryPropertyListWriter.matching(document).write(document)
            if written == bytes {
                identical += 1
            } else {
                let firstDifference = (0..<min(written.count, bytes.count)).first { written[$0] != bytes[$0] } ?? min(written.count, bytes.count)
                Issue.record("\(entry): differs at byte \(firstDifference) (\(written.count) vs \(bytes.count) bytes)")
            }
        }
        #expect(identical == entries.count)
    }

    /// Reading the document and reading its value agree with themselves across a value-based
    /// rewrite: value -> binary -> value keeps every value.
    @Test(.enabled(if: AppleFixtureCorpus.isAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func everyBinaryFixtureValueSurvivesValueRewrite() throws {
        for entry in AppleFixtureCorpus.entries(format: "binary") {
            let value = try BinaryPropertyListReader.read(try AppleFixtureCorpus.bytes(entry)).value()
            let rewritten = try BinaryPropertyListWriter().write(value)
            let reread = try BinaryPropertyListReader.read(rewritten).value()
            #expect(reread == value, "\(entry)")
        }
    }
}
