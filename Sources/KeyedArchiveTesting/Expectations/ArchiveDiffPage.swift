#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The diff page a failed snapshot or reference expectation writes beside its fixture when
/// asked: `KEYEDARCHIVE_DIFF_PAGE=1` in the environment (off by default). The page is
/// `keyedarchive diff --html`'s: the fixture (A) and what was encoded now (B) side by side,
/// each difference marked at its key path. It is written at `FIXTURE.diff.html` only where no
/// file is or where the file there is such a page (it names itself in its first bytes);
/// any other file is left alone and the failure says so.
enum ArchiveDiffPage {
    /// The environment variable that asks for the page.
    static let variable = "KEYEDARCHIVE_DIFF_PAGE"

    static var isRequested: Bool {
        guard let value = ProcessInfo.processInfo.environment[variable] else { return false }
        return value == "1" || value.lowercased() == "true" || value.lowercased() == "yes"
    }

    /// Writes the page for `diff` of `a` (the fixture at `fixturePath`) and `b` (encoded now)
    /// when asked; the line to add to the failure, or nil when not asked.
    static func writeIfRequested(_ a: ArchiveGraph, _ b: ArchiveGraph, diff: ArchiveDiff, fixturePath: String) -> String? {
        guard isRequested else { return nil }
        let path = fixturePath + ".diff.html"
        if FileManager.default.fileExists(atPath: path) {
            // Mapped, not read: only its first bytes are looked at.
            guard let existing = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) else {
                return "diff page not written: \(path) exists and cannot be read"
            }
            guard String(decoding: existing.prefix(1024), as: UTF8.self).contains(ArchiveGraphPage.signature) else {
                return "diff page not written: \(path) exists and is not a page keyedarchive made (remove it to get one)"
            }
        }
        let page = ArchiveGraphPage.diffPage(ArchiveGraphModel(a), ArchiveGraphModel(b), diff: diff,
                                             titles: ("A: \(fixturePath)", "B: encoded now"))
        do {
            try Data(page).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            return "diff page not written: \(path): \(error.localizedDescription)"
        }
        return "diff page (\(variable)): \(path)"
    }
}
