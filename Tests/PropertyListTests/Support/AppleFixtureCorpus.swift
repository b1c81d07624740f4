import Foundation

/// Locates the third-party Apple corpus beside the project (`../shared/fixtures/apple`) and
/// the project's own `Fixtures/`. The corpus is never copied into the project: tests that need
/// it skip with a message when it is absent (a user's fresh clone).
enum AppleFixtureCorpus {
    struct Entry: Sendable, CustomStringConvertible {
        let relativePath: String
        let url: URL
        let format: String
        var description: String { relativePath }
    }

    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sharedRoot: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    static let fixturesRoot: URL = packageRoot.appendingPathComponent("Fixtures")

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedRoot.appendingPathComponent("fixtures/apple/MANIFEST.tsv").path)
    }

    static let skipMessage = "Apple corpus not found at ../shared/fixtures/apple (third-party test vectors, present in CI); skipping"

    /// Every file listed in MANIFEST.tsv.
    static let entries: [Entry] = {
        let manifest = sharedRoot.appendingPathComponent("fixtures/apple/MANIFEST.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        var result: [Entry] = []
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 3 else { continue }
            let path = String(columns[0])
            result.append(Entry(relativePath: path, url: sharedRoot.appendingPathComponent(path), format: String(columns[3])))
        }
        return result
    }()

    static func entries(format: String) -> [Entry] {
        entries.filter { $0.format == format }
    }

    static func bytes(_ entry: Entry) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: entry.url))
    }
}
