import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

// A package project as an installer tool writes it (choices of choices, each with package
// references), and a service's subset model that reads a few of its fields.
struct FullPackageReference: KeyedArchivable {
    var url: String
    var size: Int

    init(url: String, size: Int) {
        self.url = url
        self.size = size
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        url = try decoder.decode(String.self, forKey: "URL")
        size = try decoder.decode(Int.self, forKey: "size")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(url, forKey: "URL")
        try encoder.encode(size, forKey: "size")
    }
}

struct FullChoice: KeyedArchivable {
    var title: String
    var model: String
    var choices: [FullChoice]
    var packageReferences: [FullPackageReference]

    init(title: String, model: String, choices: [FullChoice], packageReferences: [FullPackageReference]) {
        self.title = title
        self.model = model
        self.choices = choices
        self.packageReferences = packageReferences
    }

    init(from decoder: KeyedArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        model = try decoder.decode(String.self, forKey: "model")
        choices = try decoder.decode([FullChoice].self, forKey: "choices")
        packageReferences = try decoder.decode([FullPackageReference].self, forKey: "packageReferences")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(model, forKey: "model")
        try encoder.encode(choices, forKey: "choices")
        try encoder.encode(packageReferences, forKey: "packageReferences")
    }
}

struct SubsetPackageReference: KeyedArchivable {
    var size: Int
    init(from decoder: KeyedArchiveDecoder) throws { size = try decoder.decode(Int.self, forKey: "size") }
    func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(size, forKey: "size") }
}

struct SubsetChoice: KeyedArchivable {
    var title: String
    var choices: [SubsetChoice]
    var packageReferences: [SubsetPackageReference]

    init(from decoder: KeyedArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        choices = try decoder.decode([SubsetChoice].self, forKey: "choices")
        packageReferences = try decoder.decode([SubsetPackageReference].self, forKey: "packageReferences")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(choices, forKey: "choices")
        try encoder.encode(packageReferences, forKey: "packageReferences")
    }
}

enum PackageProject {
    /// Root, 4 choices of 4 choices each, 7 package references in each of those 16: 21
    /// `model` and 112 `URL` fields the subset model leaves unread.
    static func archive() throws -> [UInt8] {
        var registry = ArchiveRegistry()
        registry.register(FullPackageReference.self, className: "PackageReference")
        registry.register(FullChoice.self, className: "DChoice")
        let choices = (0..<4).map { outer in
            FullChoice(title: "choice \(outer)", model: "m\(outer)", choices: (0..<4).map { inner in
                FullChoice(title: "choice \(outer).\(inner)", model: "m\(outer).\(inner)", choices: [],
                           packageReferences: (0..<7).map { FullPackageReference(url: "file:pkg-\(outer)-\(inner)-\($0).pkg", size: $0) })
            }, packageReferences: [])
        }
        return try KeyedArchiver.archive(FullChoice(title: "root", model: "m", choices: choices, packageReferences: []), registry: registry)
    }

    static var subsetRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(SubsetPackageReference.self, className: "PackageReference")
        registry.register(SubsetChoice.self, className: "DChoice")
        return registry
    }

    static func fixture() throws -> String {
        let url = try Fixtures.directory().appendingPathComponent("project.plist")
        try Data(archive()).write(to: url)
        return url.path
    }
}

@Suite struct IgnorePatternTests {
    /// 133 unread fields: 100 listed, the other 33 counted, then the list to paste.
    @Test func failureListsAHundredCountsTheRestAndSuggestsTheIgnoringList() throws {
        let fixture = try PackageProject.fixture()
        let message = try #require(ArchiveExpectations.checkNoUnreadFields(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry))
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "\(fixture) holds 133 fields no init(from:) read:")
        #expect(lines[1] == "  root.model (DChoice, object #1)")
        #expect(lines.filter { $0.hasPrefix("  root.") }.count == 100)
        #expect(lines[101] == "  … and 33 more")
        #expect(Array(lines[102...]) == [
            "to leave them unread on purpose, pass (grouped by Class.key, with counts):",
            "  ignoring: [",
            "    \"DChoice.model\",  // 21 fields",
            "    \"PackageReference.URL\",  // 112 fields",
            "  ]",
        ])
        // The list pasted silences them all.
        #expect(ArchiveExpectations.checkNoUnreadFields(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry,
                                                      ignoring: ["DChoice.model", "PackageReference.URL"]) == nil)
    }

    /// Each form of pattern, and what it leaves.
    @Test(arguments: [
        (["model", "URL"], 0, 0),
        (["*.model", "*.URL"], 0, 0),
        (["DChoice.model"], 0, 112),
        (["DChoice.*"], 0, 112),
        (["NSObject.URL"], 21, 0),  // a superclass in the archived $classes chain
        (["root.model", "root.choices[*].model", "root.choices[*].choices[*].model"], 0, 112),
        (["root.choices[*].choices[*].packageReferences[*].URL"], 21, 0),
        (["root.choices[2].choices[*].packageReferences[*].URL"], 21, 84),
        (["root.*.*.*.*.*.URL"], 21, 112),  // `*` is one key: this path has indices where the stars are
        (["root.choices[*].*"], 17, 112),  // the four outer choices' unread field (model)
        (["*"], 0, 0),
        (["PackageReference.model", "DChoice.URL"], 21, 112),
    ])
    func patternForms(patterns: [String], models: Int, urls: Int) throws {
        let fixture = try PackageProject.fixture()
        let message = ArchiveExpectations.checkNoUnreadFields(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry,
                                                            ignoring: patterns)
        let listed = message?.split(separator: "\n").filter { $0.hasPrefix("  root.") } ?? []
        if models + urls == 0 {
            #expect(message == nil)
        } else {
            #expect(message?.hasPrefix("\(fixture) holds \(models + urls) fields no init(from:) read:") == true)
            if models + urls <= 100 {
                #expect(listed.filter { $0.contains(".model (DChoice, object #") }.count == models)
                #expect(listed.filter { $0.contains(".URL (PackageReference,") }.count == urls)
            }
            // The given patterns lead the suggestion.
            for pattern in patterns { #expect(message?.contains("    \"\(pattern)\",  // given already") == true) }
        }
    }

    @Test func patternsMatchKeyPathsAndClassChains() throws {
        let path = ArchiveKeyPath([.key("root"), .key("notes"), .key("medical"), .index(2), .key("NS.frame")])
        let chain = ["MyApp.Note", "NSObject"]
        func matches(_ text: String) throws -> Bool { try ArchiveFieldPattern(text).matches(keyPath: path, classChain: chain) }
        #expect(try matches("NS.frame"))                        // a bare key with a dot in it
        #expect(try matches("MyApp.Note.NS.frame"))             // a module-qualified class, a dotted key
        #expect(try matches("NSObject.NS.frame"))
        #expect(try matches("root.notes[*][*].NS.frame") == false)   // the key path's last step is `NS`, then `frame`
        #expect(try matches("root.notes[*][2].*"))              // [*] is a dictionary key too
        #expect(try matches("root.notes.medical[2].*"))
        #expect(try matches("root.notes.medical[3].*") == false)
        #expect(try matches("root.*.*[*].*"))
        #expect(try matches("root.notes[*]") == false)          // a path names the field, not an object above it
        #expect(try matches("Other.NS.frame") == false)
        #expect(try matches("frame") == false)
    }

    @Test(arguments: [
        ("", "ignoring: a pattern is empty; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)"),
        ("root.choices[x].model", "ignoring: the pattern \"root.choices[x].model\" has [x]: a bracket holds an index or *; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)"),
        ("root.choices[0", "ignoring: the pattern \"root.choices[0\" has a [ that is not closed; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)"),
        ("root.choices[0]model", "ignoring: the pattern \"root.choices[0]model\" has a key right after ]: write a dot before it; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)"),
        ("root.[0]", "ignoring: the pattern \"root.[0]\" has an empty component; patterns are a key (model), Class.key (DChoice.model) or a key path with * and [*] (root.choices[*].model)"),
    ])
    func invalidPatternsFailTheExpectation(pattern: String, message: String) throws {
        let fixture = try PackageProject.fixture()
        #expect(throws: ArchiveFixtureError(message)) { try ArchiveFieldPattern(pattern) }
        #expect(ArchiveExpectations.checkNoUnreadFields(SubsetChoice.self, fixture: fixture, registry: PackageProject.subsetRegistry,
                                                      ignoring: ["model", pattern]) == message)
    }
}
