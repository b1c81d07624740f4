import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// `ArchiveCompatibility`: every rule on its fixture pair (`Fixtures/compat/rules/`), both ways;
/// every archive of the Apple corpus and of `Fixtures/` compatible with itself in every mode;
/// schema files and archives compared alike; examples, ignores and the report's forms.
@Suite struct ArchiveCompatibilityTests {
    /// The fixture pairs on disk are exactly what `CompatibilityFixtures` makes; a missing one
    /// is written (and the test fails once, saying so).
    @Test func fixturesOnDiskAreWhatThisCodeMakes() throws {
        var written: [String] = []
        for pair in CompatibilityFixtures.pairs {
            for (side, files) in [("old", pair.old), ("new", pair.new)] {
                let folder = CompatibilityFixtures.folder(pair, side)
                for file in files {
                    let url = folder.appendingPathComponent(file.file)
                    if FileManager.default.fileExists(atPath: url.path) {
                        #expect([UInt8](try Data(contentsOf: url)) == file.bytes, "\(url.path) differs from what CompatibilityFixtures makes")
                    } else {
                        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                        try Data(file.bytes).write(to: url)
                        written.append(url.path)
                    }
                }
                // Nothing else in the folder: a stray file would change what compat reads.
                let present = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
                #expect(present == files.map(\.file).sorted(), "\(folder.path)")
            }
        }
        #expect(written.isEmpty, "wrote \(written.count) fixture archives that were missing; check them in: \(written)")
    }

    static func load(_ pair: CompatibilityFixtures.Pair, _ side: String) throws -> ArchiveSchemaSource {
        try ArchiveSchemaSource.load(path: CompatibilityFixtures.folder(pair, side).path)
    }

    static func summary(_ compatibility: ArchiveCompatibility) -> [CompatibilityFixtures.Expected] {
        compatibility.changes.map { .init(rule: $0.rule.rawValue, breaks: $0.breaks.map(\.rawValue), location: $0.location, warning: $0.isWarning) }
    }

    /// Each rule's pair gives exactly the changes stated, old → new and new → old, from the
    /// archives on disk; and the same from their schema files (contracts), without examples.
    @Test(arguments: CompatibilityFixtures.pairs)
    func ruleFixturePair(_ pair: CompatibilityFixtures.Pair) throws {
        let old = try Self.load(pair, "old")
        let new = try Self.load(pair, "new")
        let forward = ArchiveCompatibility(old: old, new: new)
        #expect(Self.summary(forward) == pair.forward, "\(pair.name): \(forward.changes.map(\.rule.rawValue))")
        let reverse = ArchiveCompatibility(old: new, new: old)
        #expect(Self.summary(reverse) == pair.reverse, "\(pair.name) reversed")
        // Every change found on archives names an archive and key path where it shows.
        for change in forward.changes + reverse.changes {
            #expect(change.exampleArchive != nil && change.exampleKeyPath?.isEmpty == false, "\(pair.name): \(change.rule) has no example")
        }
        // The contracts say the same.
        let oldFile = ArchiveSchemaSource(name: "old.json", schema: try ArchiveSchema(jsonFile: Array(old.schema.jsonDescription.utf8)))
        let newFile = ArchiveSchemaSource(name: "new.json", schema: try ArchiveSchema(jsonFile: Array(new.schema.jsonDescription.utf8)))
        let fromFiles = ArchiveCompatibility(old: oldFile, new: newFile)
        #expect(Self.summary(fromFiles) == pair.forward)
        #expect(fromFiles.changes.allSatisfy { $0.example == nil })
        // Under each mode, a pair fails exactly when one of its changes breaks that direction.
        for mode in ArchiveCompatibility.Mode.allCases {
            let breaks = pair.forward.contains { !$0.warning && $0.breaks.contains { mode.directions.map(\.rawValue).contains($0) } }
            #expect(forward.isCompatible(under: mode) == !breaks, "\(pair.name) under \(mode)")
        }
    }

    /// The examples point at what changed, in the archive that shows it.
    @Test func examplesNameTheArchiveAndKeyPath() throws {
        func pair(_ name: String) throws -> CompatibilityFixtures.Pair {
            try #require(CompatibilityFixtures.pairs.first { $0.name == name })
        }
        let keyAdded = try pair("key-added")
        let added = ArchiveCompatibility(old: try Self.load(keyAdded, "old"), new: try Self.load(keyAdded, "new"))
        #expect(added.changes.first?.example == CompatibilityFixtures.folder(keyAdded, "new").path + "/amelia.plist: root.rank")
        let optional = try pair("key-became-optional")
        let became = ArchiveCompatibility(old: try Self.load(optional, "old"), new: try Self.load(optional, "new"))
        // The archive that lacks the key: Bessie's.
        #expect(became.changes.first?.example == CompatibilityFixtures.folder(optional, "new").path + "/bessie.plist: root")
        let removed = try pair("class-removed")
        let gone = ArchiveCompatibility(old: try Self.load(removed, "old"), new: try Self.load(removed, "new"))
        #expect(gone.changes.first?.example == CompatibilityFixtures.folder(removed, "old").path + "/hangar.plist: root.planes[0]")
        #expect(gone.changes.first?.advice.contains("Hangar.planes (NSArray elements)") == true)
        let null = try pair("null-added")
        let nulled = ArchiveCompatibility(old: try Self.load(null, "old"), new: try Self.load(null, "new"))
        #expect(nulled.changes.first?.example == CompatibilityFixtures.folder(null, "new").path + "/bessie.plist: root.nickname")
        let module = try pair("class-module-changed")
        let moved = ArchiveCompatibility(old: try Self.load(module, "old"), new: try Self.load(module, "new"))
        #expect(moved.changes.first?.advice.contains(#"registry.register(Pilot.self, className: "Core.Pilot", aliases: ["MyApp.Pilot"])"#) == true)
        #expect(moved.changes.first?.old == "MyApp.Pilot" && moved.changes.first?.new == "Core.Pilot")
    }

    /// A class moved into a module is recognised by its unqualified name, Swift's mangled
    /// spelling included; `MyApp.Pilot` → `Pilot` too.
    @Test func unqualifiedNames() {
        #expect(ArchiveCompatibilityComparison.unqualified("MyApp.Pilot") == "Pilot")
        #expect(ArchiveCompatibilityComparison.unqualified("Pilot") == "Pilot")
        #expect(ArchiveCompatibilityComparison.unqualified("_TtC5MyApp5Pilot") == "Pilot")
        #expect(ArchiveCompatibilityComparison.unqualified("_TtC5MyApp99") == "_TtC5MyApp99")
        #expect(ArchiveCompatibilityComparison.unqualified("Trailing.") == "Trailing.")
    }

    /// Ignoring by rule, by class and by `Class.key` takes changes out and counts them.
    @Test func ignoringAcceptedChanges() throws {
        let pair = try #require(CompatibilityFixtures.pairs.first { $0.name == "class-changed" })
        let compatibility = ArchiveCompatibility(old: try Self.load(pair, "old"), new: try Self.load(pair, "new"))
        #expect(compatibility.changes.count == 2)
        #expect(compatibility.ignoring(["Hangar.plane"]).changes.map(\.location) == ["Hangar.spare"])
        #expect(compatibility.ignoring(["Hangar"]).changes.isEmpty)
        let byRule = compatibility.ignoring(["class-changed"])
        #expect(byRule.changes.isEmpty && byRule.ignoredCount == 2 && byRule.isCompatible(under: .full))
        #expect(compatibility.ignoring(["Hangar.plan", "class"]).changes.count == 2)
    }

    /// Every Apple archive, every archive of `Fixtures/`, and the whole corpus at once are
    /// compatible with themselves in every mode; so is each against its own schema file.
    @Test func everyArchiveIsCompatibleWithItself() throws {
        var files: [URL] = []
        if ArchiveFixtures.isCorpusAvailable {
            files += ArchiveFixtures.entries.map(\.url)
        } else {
            print(ArchiveFixtures.skipMessage)
        }
        let enumerator = FileManager.default.enumerator(at: ArchiveFixtures.projectFixtures, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { files.append(url) }
        }
        var compared = 0
        for url in files {
            let bytes = [UInt8](try Data(contentsOf: url))
            guard (try? ArchiveGraph(bytes: bytes)) != nil else { continue }
            let source = try ArchiveSchemaSource(name: url.path, files: [(url.path, bytes)])
            let contract = ArchiveSchemaSource(name: "contract", schema: try ArchiveSchema(jsonFile: Array(source.schema.jsonDescription.utf8)))
            for (old, new) in [(source, source), (contract, source), (source, contract)] {
                let compatibility = ArchiveCompatibility(old: old, new: new)
                #expect(compatibility.changes.isEmpty, "\(url.path): \(compatibility.changes.map(\.rule.rawValue))")
                for mode in ArchiveCompatibility.Mode.allCases { #expect(compatibility.isCompatible(under: mode)) }
            }
            compared += 1
        }
        #expect(compared >= (ArchiveFixtures.isCorpusAvailable ? 240 : 30), "\(compared)")
        if ArchiveFixtures.isCorpusAvailable {
            let corpus = try ArchiveSchemaSource.load(path: ArchiveFixtures.corpusRoot.path)
            #expect(corpus.archives.count == ArchiveFixtures.entries.count)
            #expect(corpus.skippedFiles.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted() == ["MANIFEST.tsv", "README.md"])
            #expect(ArchiveCompatibility(old: corpus, new: corpus).changes.isEmpty)
        }
    }

    /// Unreadable sides are typed errors naming the file.
    @Test func unreadableSides() throws {
        #expect(throws: ArchiveSchemaSourceError(.unreadable, "", file: "/no/such/path")) { try ArchiveSchemaSource.load(path: "/no/such/path") }
        let hostile = ArchiveFixtures.projectFixtures.appendingPathComponent("hostile").path
        let error = try #require(throws: ArchiveSchemaSourceError.self) { try ArchiveSchemaSource.load(path: hostile) }
        #expect(error.code == .invalidArchive && error.archiveError != nil && error.file.hasPrefix(hostile))
        let badSchema = Array(#"{"format": "keyedarchive-schema", "version": 3}"#.utf8)
        let schemaError = try #require(throws: ArchiveSchemaSourceError.self) { try ArchiveSchemaSource(name: "x", files: [("x.json", badSchema)]) }
        #expect(schemaError.code == .invalidSchemaFile && schemaError.schemaFileError?.code == .unsupportedVersion)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("compat-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        try Data("notes".utf8).write(to: empty.appendingPathComponent("README.md"))
        #expect(throws: ArchiveSchemaSourceError(.noArchives, "", file: empty.path)) { try ArchiveSchemaSource.load(path: empty.path) }
    }
}

/// Different archives compared: every valid archive of `Fixtures/` (deep, hostile, fuzz-found)
/// against the next, and each Apple archive against the next in the manifest, on a 512 KiB
/// thread; each report in its four forms stays one line per change, the JSON reads with
/// Foundation, and nothing from an archive reaches the text unescaped.
@Suite struct ArchiveCompatibilityHostileTests {
    static func sources() throws -> [ArchiveSchemaSource] {
        var urls: [URL] = []
        let enumerator = FileManager.default.enumerator(at: ArchiveFixtures.projectFixtures, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if !url.path.contains("/compat/"), (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { urls.append(url) }
        }
        urls.sort { $0.path < $1.path }
        if ArchiveFixtures.isCorpusAvailable { urls += ArchiveFixtures.entries.map(\.url) }
        return urls.compactMap { url in
            guard let bytes = try? [UInt8](Data(contentsOf: url)), (try? ArchiveGraph(bytes: bytes)) != nil else { return nil }
            return try? ArchiveSchemaSource(name: url.lastPathComponent, files: [(url.lastPathComponent, bytes)])
        }
    }

    @Test func neighboursCompareOnASmallThread() throws {
        let sources = try Self.sources()
        #expect(sources.count >= (ArchiveFixtures.isCorpusAvailable ? 240 : 30))
        let failures = onThread(stackSize: 512 << 10) { () -> [String] in
            var failures: [String] = []
            for (old, new) in zip(sources, sources.dropFirst() + sources.prefix(1)) {
                let report = ArchiveCompatibilityReport([ArchiveCompatibility(old: old, new: new)])
                let changes = report.comparisons[0].changes.count
                let text = report.textDescription
                // A line per change and the verdict, besides notes (few samples).
                if text.split(separator: "\n", omittingEmptySubsequences: false).filter({ !$0.hasPrefix("note: ") }).count != changes + 2 { failures.append("\(old.name) → \(new.name): lines") }
                if text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" }) { failures.append("\(old.name) → \(new.name): a control character") }
                if (try? JSONSerialization.jsonObject(with: Data(report.jsonDescription.utf8))) == nil { failures.append("\(old.name) → \(new.name): JSON") }
                if report.githubDescription.split(separator: "\n").count != changes + 1 { failures.append("\(old.name) → \(new.name): annotations") }
                if !report.junitDescription.hasSuffix("</testsuites>\n") { failures.append("\(old.name) → \(new.name): JUnit") }
                for change in report.comparisons[0].changes where change.example == nil {
                    failures.append("\(old.name) → \(new.name): \(change.rule) at \(change.location) has no example")
                }
            }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(20))")
    }
}
