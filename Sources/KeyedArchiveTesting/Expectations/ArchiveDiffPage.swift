#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The diff page a failed snapshot or reference expectation writes beside its fixture when
/// asked: `KEYEDARCHIVE_DIFF_PAGE=1` in the environment (off by default). The page is
/// `keyedarchive diff --html`'s: the fixture (A) and what was encoded now (B) side by side,
/// each difference marked at its key path. A failed compatibility expectation writes
/// `keyedarchive graph --html`'s page of the new archive where the change shows, opened there. It is written at `FIXTURE.diff.html` only where no
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
        let page = ArchiveGraphPage.diffPage(ArchiveGraphModel(a), ArchiveGraphModel(b), diff: diff,
                                             titles: ("A: \(fixturePath)", "B: encoded now"))
        return write(page, at: fixturePath + ".diff.html")
    }

    /// For a failed compatibility expectation, when asked: the page of the new side's archive
    /// where the first breaking change shows, opened at its key path (a contract is a schema,
    /// with no graph to set beside it), at `CONTRACT.diff.html`; the line to add to the
    /// failure, or nil when not asked.
    static func writeIfRequested(_ report: ArchiveCompatibilityReport, new current: ArchiveSchemaSource, contractPath: String) -> String? {
        guard isRequested else { return nil }
        let breaking = report.comparisons.flatMap(\.changes).filter { $0.isBreaking(under: report.mode) }
        guard let change = breaking.first(where: { $0.exampleIsNew && $0.exampleArchive != nil }),
              let archive = current.archives.first(where: { $0.name == change.exampleArchive }) else {
            return "diff page not written: no breaking change shows in an archive of the new side"
        }
        let model = ArchiveGraphModel(archive.graph)
        let start = change.exampleKeyPath.flatMap(ArchiveGraphModel.parseKeyPath).flatMap { model.node(at: $0) }
        let title = "\(archive.name): \(change.rule.rawValue) \(change.location) at \(change.exampleKeyPath ?? "$top")"
        return write(ArchiveGraphPage.page(model, title: title, start: start), at: contractPath + ".diff.html")
    }

    /// Writes `page` at `path` where no file is or where the file there is such a page; the
    /// line that says what was done.
    private static func write(_ page: [UInt8], at path: String) -> String {
        if FileManager.default.fileExists(atPath: path) {
            // Mapped, not read: only its first bytes are looked at.
            guard let existing = try? Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) else {
                return "diff page not written: \(path) exists and cannot be read"
            }
            guard String(decoding: existing.prefix(1024), as: UTF8.self).contains(ArchiveGraphPage.signature) else {
                return "diff page not written: \(path) exists and is not a page keyedarchive made (remove it to get one)"
            }
        }
        do {
            try Data(page).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            return "diff page not written: \(path): \(error.localizedDescription)"
        }
        return "diff page (\(variable)): \(path)"
    }
}
