import Foundation
import Testing

/// `convert --to xml` names the first value XML loses by its full path, through dictionaries
/// and arrays (the path is spelt out only for the loss reported).
@Suite struct ToolConvertLossTests {
    @Test func aNestedLossIsNamedByItsPath() throws {
        // Core Foundation's binary writer, through Foundation: a 32-bit real two levels down,
        // after values XML keeps.
        let nested: [String: Any] = ["a": [1, "two", ["b": NSNumber(value: Float(0.5)), "c": "kept"]] as [Any], "z": 3]
        let binary = try PropertyListSerialization.data(fromPropertyList: nested, format: .binary, options: 0)
        let run = try ToolEndToEndTests.run(["convert", "-", "--to", "xml"], input: binary)
        #expect(run.status == 0)
        #expect(run.error.contains("XML does not keep every value: root.a[2].b: the 32-bit real 0.5 becomes a 64-bit real"), "\(run.error)")
        // The XML written is all there, the real as a 64-bit one.
        let back = try PropertyListSerialization.propertyList(from: run.output, options: [], format: nil) as? [String: Any]
        #expect((back?["a"] as? [Any])?.count == 3)
    }
}
