import Foundation
import Testing

/// Docs/Security.md's code is the code the tests compile: its recipe for decoding deeper data
/// (issue 31: no unchecked `Sendable` in it) is `Support/BigStackRecipe.swift`, to the character.
@Suite struct SecurityDocsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theDeepDataRecipeIsTheCompiledOne() throws {
        let docs = try String(contentsOf: Self.root.appendingPathComponent("Docs/Security.md"), encoding: .utf8)
        let recipe = try String(contentsOf: Self.root.appendingPathComponent("Tests/KeyedArchiveTests/Support/BigStackRecipe.swift"), encoding: .utf8)
        let section = try #require(docs.range(of: "**Decoding deeper data.**"))
        let open = try #require(docs.range(of: "```swift\n", range: section.upperBound..<docs.endIndex))
        let close = try #require(docs.range(of: "```\n", range: open.upperBound..<docs.endIndex))
        #expect(String(docs[open.upperBound..<close.lowerBound]) == recipe)
        #expect(!recipe.contains("@unchecked"))
    }
}
