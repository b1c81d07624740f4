import Foundation
import Testing
import PropertyList

/// The public builders take counts and depths from their caller. A wrong one must end in a
/// thrown error or a malformed document, never in a trap, an out-of-bounds store or an
/// allocation sized by the bad number.
@Suite struct BuilderMisuseTests {
    private func invalidLengthError(_ body: (inout BinaryPropertyListBuilder) throws(PropertyListError) -> Void) -> PropertyListError.Code? {
        var builder = BinaryPropertyListBuilder(referenceSize: 1)
        do {
            try body(&builder)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func binaryContainerCountsOutOfRangeThrow() {
        #expect(invalidLengthError { builder throws(PropertyListError) in _ = try builder.beginArray(count: -1, depth: 0) } == .invalidLength)
        #expect(invalidLengthError { builder throws(PropertyListError) in _ = try builder.beginArray(count: Int.max, depth: 0, isSet: true) } == .invalidLength)
        #expect(invalidLengthError { builder throws(PropertyListError) in _ = try builder.beginDictionary(count: -1, depth: 0) } == .invalidLength)
        // Twice this overflows Int: the check must not.
        #expect(invalidLengthError { builder throws(PropertyListError) in _ = try builder.beginDictionary(count: Int.max / 2 + 1, depth: 0) } == .invalidLength)
        var limited = BinaryPropertyListWriter()
        limited.maximumObjectCount = 10
        var builder = BinaryPropertyListBuilder(referenceSize: 1, writer: limited)
        #expect(throws: PropertyListError.self) { _ = try builder.beginArray(count: 11, depth: 0) }
        #expect(throws: Never.self) { _ = try builder.beginArray(count: 10, depth: 0) }
    }

    /// References past a container's count, or through another builder's slots, are dropped.
    @Test func referencesOutsideTheContainerAreDropped() throws {
        var large = BinaryPropertyListBuilder(referenceSize: 2)
        var farSlots = try large.beginArray(count: 400, depth: 0)
        for _ in 0..<399 { large.append(try large.addBool(true), to: &farSlots) }
        var slots = try large.beginArray(count: 1, depth: 1)

        var small = BinaryPropertyListBuilder(referenceSize: 1)
        var top = try small.beginArray(count: 1, depth: 0)
        let element = try small.addString("only")
        small.append(element, to: &top)
        small.append(element, to: &top)  // one more than the count
        small.append(element, to: &slots)  // positions of the large builder, beyond this one's bytes
        let bytes = small.finish()
        #expect(try BinaryPropertyListReader.readValue(bytes) == .array(["only"]))
        _ = large.finish()
    }

    @Test func xmlDepthsOutOfRangeAreRefusedOrHeldToTheLimit() throws {
        var writer = XMLPropertyListWriter()
        writer.maximumDepth = 4
        var builder = XMLPropertyListBuilder(writer: writer)
        #expect(throws: PropertyListError.self) { try builder.add("negative", depth: -1) }
        #expect(throws: PropertyListError.self) { try builder.add("deep", depth: Int.max) }
        #expect(throws: PropertyListError.self) { try builder.beginDictionary(count: 1, depth: 1 << 40) }
        // The calls that cannot throw indent no deeper than one past the limit.
        try builder.beginArray(count: 0, depth: Int.max)
        builder.addKey("key", depth: 1 << 40)
        builder.addKey(XMLPropertyListBuilder.keyLine("line"), depth: Int.max)
        builder.endDictionary(depth: Int.max)
        builder.endArray(depth: 1 << 50)
        let text = String(decoding: builder.finish(), as: UTF8.self)
        let lines = text.split(separator: "\n" as Character)
        let longestIndent = lines.map { line in line.prefix { $0 == "\t" }.count }.max() ?? 0
        #expect(longestIndent == writer.maximumDepth + 1)
        #expect(text.count < 1_000)
    }
}
