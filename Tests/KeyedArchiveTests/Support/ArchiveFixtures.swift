import Foundation

/// Locates the third-party Apple corpus beside the project (`../shared/fixtures/apple`, never
/// copied in) and the project's own `Fixtures/`. Tests that need the corpus skip with
/// ``skipMessage`` when it is absent.
enum ArchiveFixtures {
    struct Entry: Sendable, CustomStringConvertible {
        let relativePath: String
        let url: URL
        let format: String
        let category: String
        var description: String { relativePath }
    }

    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let corpusRoot: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple")
    static let projectFixtures: URL = packageRoot.appendingPathComponent("Fixtures")

    static var isCorpusAvailable: Bool {
        FileManager.default.fileExists(atPath: corpusRoot.appendingPathComponent("MANIFEST.tsv").path)
    }

    static let skipMessage = "Apple corpus not found at ../shared/fixtures/apple (third-party test vectors, kept outside the repository); skipping"

    /// Every file in MANIFEST.tsv.
    static let entries: [Entry] = {
        let manifest = corpusRoot.appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        var result: [Entry] = []
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 4 else { continue }
            let path = String(columns[0])
            let relative = path.hasPrefix("fixtures/apple/") ? String(path.dropFirst("fixtures/apple/".count)) : path
            result.append(Entry(relativePath: relative, url: corpusRoot.appendingPathComponent(relative), format: String(columns[3]), category: String(columns[4])))
        }
        return result
    }()

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: corpusRoot.appendingPathComponent(relativePath)))
    }

    static func bytes(_ entry: Entry) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: entry.url))
    }
}
