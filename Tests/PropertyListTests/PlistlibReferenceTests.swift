import Foundation
import Testing
@testable import PropertyList

/// Python's plistlib, an independent reader, must see the same values we do.
@Suite struct PlistlibReferenceTests {
    /// Files plistlib cannot read at all (raw U+0001 inside <string>, which XML 1.0 forbids and
    /// Core Foundation wrote anyway).
    static let plistlibRejects: Set<String> = [
        "fixtures/apple/xcuserstate/lancemc85_Trainme.xcuserstate",
        "fixtures/apple/xcuserstate/PeyloW_Screen-Grabber.xcuserstate",
        "fixtures/apple/xcuserstate/TermiT_Flycut.xcuserstate",
    ]

    @Test(.enabled(if: AppleFixtureCorpus.isAvailable && ReferenceTools.isPythonAvailable, Comment(rawValue: AppleFixtureCorpus.skipMessage)))
    func binaryFixturesAgreeWithPlistlib() throws {
        var comparisons: [ReferenceTools.Comparison] = []
        for entry in AppleFixtureCorpus.entries(format: "binary") {
            let value = try BinaryPropertyListReader.read(try AppleFixtureCorpus.bytes(entry)).value()
            comparisons.append(.init(plistPath: entry.url.path, ourJSON: try PropertyListJSONRenderer.render(value), format: "binary"))
        }
        let result = try ReferenceTools.compareWithPlistlib(comparisons)
        #expect(result.status == 0, "\(result.report)")
        #expect(result.matched == 186)
    }

    /// What we write, plistlib reads back as the same values.
    @Test(.enabled(if: ReferenceTools.isPythonAvailable))
    func plistlibReadsWhatWeWrite() throws {
        let directory = try ReferenceTools.temporaryDirectory("ours")
        defer { try? FileManager.default.removeItem(at: directory) }
        var comparisons: [ReferenceTools.Comparison] = []
        var generator = RandomPropertyListGenerator(seed: 0x5EED_0001)
        var values = EdgeCaseValues.all
        for _ in 0..<40 { values.append(generator.value(depth: 0, allowSets: false)) }
        for (index, value) in values.enumerated() {
            let url = directory.appendingPathComponent("\(index).plist")
            try Data(try BinaryPropertyListWriter().write(value)).write(to: url)
            comparisons.append(.init(plistPath: url.path, ourJSON: try PropertyListJSONRenderer.render(value), format: "binary"))
        }
        let result = try ReferenceTools.compareWithPlistlib(comparisons)
        #expect(result.status == 0, "\(result.report)")
        #expect(result.matched == values.count)
    }
}
