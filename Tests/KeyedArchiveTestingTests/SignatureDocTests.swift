import Foundation
import Testing

/// The signature listings of Docs/Testing.md and Docs/Compatibility.md are the declarations, word
/// for word (spacing aside): a renamed label or a changed default fails here, not in a reader's
/// build.
@Suite struct SignatureDocTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func normalized(_ text: some StringProtocol) -> String {
        var out = "", space = false
        for character in text {
            if character == " " || character == "\n" { space = true; continue }
            if space, !out.isEmpty, !"(<[,".contains(out.last ?? " "), !")>],:".contains(character) { out.append(" ") }
            space = false
            out.append(character)
        }
        return out
    }

    /// Every `public func` / `public static func` of KeyedArchiveTesting, up to its body.
    static func declarations() throws -> Set<String> {
        var found: Set<String> = []
        let root = packageRoot.appendingPathComponent("Sources/KeyedArchiveTesting")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            var search = text.startIndex..<text.endIndex
            while let start = text.range(of: "public ", range: search) {
                search = start.upperBound..<text.endIndex
                let rest = text[start.upperBound...]
                guard rest.hasPrefix("func ") || rest.hasPrefix("static func ") else { continue }
                guard let body = rest.range(of: " {\n") ?? rest.range(of: " {") else { continue }
                found.insert(normalized(rest[..<body.lowerBound]))
            }
        }
        return found
    }

    /// The `func` lines of the documents' Swift listings, each signature up to the next.
    static func listed(in document: String) throws -> [String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent(document), encoding: .utf8)
        var signatures: [String] = []
        for block in text.components(separatedBy: "```swift\n").dropFirst() {
            let code = block.components(separatedBy: "\n```").first ?? ""
            guard code.hasPrefix("func ") || code.hasPrefix("static func ") else { continue }
            var current = ""
            for line in code.split(separator: "\n") {
                if line.hasPrefix("func ") || line.hasPrefix("static func ") {
                    if !current.isEmpty { signatures.append(current) }
                    current = String(line)
                } else {
                    current += "\n" + line
                }
            }
            if !current.isEmpty { signatures.append(current) }
        }
        return signatures.map { normalized($0.replacingOccurrences(of: "ArchiveExpectations.", with: "")) }
    }

    @Test(arguments: ["Docs/Testing.md", "Docs/Compatibility.md"])
    func listingsAreTheDeclarations(_ document: String) throws {
        let declarations = try Self.declarations()
        let listed = try Self.listed(in: document)
        #expect(listed.count >= 3)
        for signature in listed {
            #expect(declarations.contains(signature), "\(document) lists a signature that is not declared: \(signature)")
        }
    }
}
