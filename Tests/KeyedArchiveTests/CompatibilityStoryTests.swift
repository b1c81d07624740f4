import Foundation
import Testing
@testable import KeyedArchive

// The versioning story of Docs/Compatibility.md: five versions of an app's model, the archives
// each writes (Fixtures/compat/story/vN, made here by our archiver), and — for every break
// `compat` reports — the decode that really fails, and the fix that makes it pass.

/// Version 1: `Pilot` in the app's module, as NSKeyedArchiver names a Swift class.
enum StoryV1 {
    struct Pilot: KeyedArchivable, Equatable {
        var name: String
        var hours: Int

        init(name: String, hours: Int) {
            self.name = name
            self.hours = hours
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            hours = try decoder.decode(Int.self, forKey: "hours")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(hours, forKey: "hours")
        }
    }

    static var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Pilot.self, className: "FleetApp.Pilot")
        return registry
    }

    static let pilots = [Pilot(name: "Amelia", hours: 1200), Pilot(name: "Bessie", hours: 800)]
}

/// Version 2: every pilot has a rank. `decodeIfPresent` with a default is the fix that lets it
/// read version 1's archives; `NaivePilot` decodes it as required, and fails on them.
enum StoryV2 {
    struct Pilot: KeyedArchivable, Equatable {
        var name: String
        var hours: Int
        var rank: String

        init(name: String, hours: Int, rank: String) {
            self.name = name
            self.hours = hours
            self.rank = rank
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            hours = try decoder.decode(Int.self, forKey: "hours")
            rank = try decoder.decodeIfPresent(String.self, forKey: "rank") ?? "pilot"
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(hours, forKey: "hours")
            try encoder.encode(rank, forKey: "rank")
        }
    }

    struct NaivePilot: KeyedArchivable {
        var rank: String
        init(from decoder: KeyedArchiveDecoder) throws { rank = try decoder.decode(String.self, forKey: "rank") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(rank, forKey: "rank") }
    }

    static var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Pilot.self, className: "FleetApp.Pilot")
        return registry
    }

    static let pilots = [Pilot(name: "Amelia", hours: 1200, rank: "captain"), Pilot(name: "Bessie", hours: 800, rank: "first officer")]
}

/// Version 3: `Pilot` renamed `Aviator`. Its readers take the old name as an alias.
enum StoryV3 {
    struct Aviator: KeyedArchivable, Equatable {
        var name: String
        var hours: Int
        var rank: String

        init(name: String, hours: Int, rank: String) {
            self.name = name
            self.hours = hours
            self.rank = rank
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            hours = try decoder.decode(Int.self, forKey: "hours")
            rank = try decoder.decodeIfPresent(String.self, forKey: "rank") ?? "pilot"
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(hours, forKey: "hours")
            try encoder.encode(rank, forKey: "rank")
        }
    }

    static var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Aviator.self, className: "FleetApp.Aviator", aliases: ["FleetApp.Pilot"])
        return registry
    }

    static let aviators = StoryV2.pilots.map { Aviator(name: $0.name, hours: $0.hours, rank: $0.rank) }
}

/// Version 4: the models move into the framework `FleetCore`. Archived under the new
/// module-qualified name, old readers refuse it and its readers refuse old archives unless
/// they take the old name; the fix keeps archiving the old name and takes both.
enum StoryV4 {
    typealias Aviator = StoryV3.Aviator

    static var movedRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Aviator.self, className: "FleetCore.Aviator")
        return registry
    }

    static var fixedRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Aviator.self, className: "FleetApp.Aviator", aliases: ["FleetCore.Aviator", "FleetApp.Pilot"])
        return registry
    }
}

/// Version 5: the free-text rank becomes an enum, archived as its integer. A migration in
/// `init(from:)` reads the old text.
enum StoryV5 {
    enum Rank: Int, Equatable {
        case pilot = 0, firstOfficer = 1, captain = 2

        init(title: String) {
            switch title {
            case "captain": self = .captain
            case "first officer": self = .firstOfficer
            default: self = .pilot
            }
        }
    }

    struct Aviator: KeyedArchivable, Equatable {
        var name: String
        var hours: Int
        var rank: Rank

        init(name: String, hours: Int, rank: Rank) {
            self.name = name
            self.hours = hours
            self.rank = rank
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            hours = try decoder.decode(Int.self, forKey: "hours")
            if let code = try? decoder.decodeIfPresent(Int.self, forKey: "rank") {
                rank = Rank(rawValue: code) ?? .pilot
            } else {
                // Archives before version 5 store the rank as text.
                rank = Rank(title: try decoder.decodeIfPresent(String.self, forKey: "rank") ?? "pilot")
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(hours, forKey: "hours")
            try encoder.encode(rank.rawValue, forKey: "rank")
        }
    }

    static var registry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Aviator.self, className: "FleetApp.Aviator", aliases: ["FleetCore.Aviator", "FleetApp.Pilot"])
        return registry
    }

    static let aviators = [Aviator(name: "Amelia", hours: 1200, rank: .captain), Aviator(name: "Bessie", hours: 800, rank: .firstOfficer)]
}

@Suite struct CompatibilityStoryTests {
    static let root = ArchiveFixtures.projectFixtures.appendingPathComponent("compat/story")
    static let names = ["amelia.plist", "bessie.plist"]

    /// What each version's folder holds, as this file's models archive it.
    static func versions() throws -> [(folder: String, archives: [[UInt8]])] {
        [
            ("v1", try StoryV1.pilots.map { try KeyedArchiver.archive($0, registry: StoryV1.registry) }),
            ("v2", try StoryV2.pilots.map { try KeyedArchiver.archive($0, registry: StoryV2.registry) }),
            ("v3", try StoryV3.aviators.map { try KeyedArchiver.archive($0, registry: StoryV3.registry) }),
            ("v4", try StoryV3.aviators.map { try KeyedArchiver.archive($0, registry: StoryV4.movedRegistry) }),
            ("v4-fixed", try StoryV3.aviators.map { try KeyedArchiver.archive($0, registry: StoryV4.fixedRegistry) }),
            ("v5", try StoryV5.aviators.map { try KeyedArchiver.archive($0, registry: StoryV5.registry) }),
        ]
    }

    static func archives(_ folder: String) throws -> [[UInt8]] {
        try names.map { [UInt8](try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent($0))) }
    }

    /// The story's folders hold exactly what the models archive (written when missing, and
    /// the test fails once, saying so).
    @Test func storyFixturesAreWhatTheModelsWrite() throws {
        var written: [String] = []
        for (folder, archives) in try Self.versions() {
            let directory = Self.root.appendingPathComponent(folder)
            for (name, bytes) in zip(Self.names, archives) {
                let url = directory.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path) {
                    #expect([UInt8](try Data(contentsOf: url)) == bytes, "\(url.path)")
                } else {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    try Data(bytes).write(to: url)
                    written.append(url.path)
                }
            }
        }
        #expect(written.isEmpty, "wrote the missing story fixtures \(written); check them in")
    }

    static func failure<T: ArchiveObjectDecodable>(_ type: T.Type, _ bytes: [UInt8], _ registry: ArchiveRegistry) -> ArchiveError? {
        do {
            _ = try KeyedUnarchiver.unarchive(type, from: bytes, registry: registry)
            return nil
        } catch {
            return error
        }
    }

    /// v1 → v2: compat says the new key breaks backward, not forward. A reader that requires it
    /// does fail on v1's archives; `decodeIfPresent` with a default reads them; v1's reader reads v2's.
    @Test func step2AddedKey() throws {
        let v1 = try Self.archives("v1"), v2 = try Self.archives("v2")
        #expect(Self.failure(StoryV2.NaivePilot.self, v1[0], { var r = ArchiveRegistry(); r.register(StoryV2.NaivePilot.self, className: "FleetApp.Pilot"); return r }())?.code == .valueNotFound)
        #expect(try v1.map { try KeyedUnarchiver.unarchive(StoryV2.Pilot.self, from: $0, registry: StoryV2.registry) }
                == [StoryV2.Pilot(name: "Amelia", hours: 1200, rank: "pilot"), StoryV2.Pilot(name: "Bessie", hours: 800, rank: "pilot")])
        #expect(try v2.map { try KeyedUnarchiver.unarchive(StoryV1.Pilot.self, from: $0, registry: StoryV1.registry) } == StoryV1.pilots)
    }

    /// v2 → v3: the rename breaks both ways. v2's readers refuse "FleetApp.Aviator"; v3's alias
    /// reads v2's archives.
    @Test func step3RenamedClass() throws {
        let v2 = try Self.archives("v2"), v3 = try Self.archives("v3")
        #expect(Self.failure(StoryV2.Pilot.self, v3[0], StoryV2.registry)?.code == .classNotAllowed)
        #expect(try v2.map { try KeyedUnarchiver.unarchive(StoryV3.Aviator.self, from: $0, registry: StoryV3.registry) } == StoryV3.aviators)
        var noAlias = ArchiveRegistry()
        noAlias.register(StoryV3.Aviator.self, className: "FleetApp.Aviator")
        #expect(Self.failure(StoryV3.Aviator.self, v2[0], noAlias)?.code == .classNotAllowed)
    }

    /// v3 → v4: moved into a module, the classic crash both ways; the fixed registry archives the
    /// old name and reads both, and v3's readers read its archives.
    @Test func step4MovedIntoAModule() throws {
        let v3 = try Self.archives("v3"), v4 = try Self.archives("v4"), fixed = try Self.archives("v4-fixed")
        #expect(Self.failure(StoryV4.Aviator.self, v3[0], StoryV4.movedRegistry)?.code == .classNotAllowed)
        #expect(Self.failure(StoryV3.Aviator.self, v4[0], StoryV3.registry)?.code == .classNotAllowed)
        for archives in [v3, v4, fixed] {
            #expect(try archives.map { try KeyedUnarchiver.unarchive(StoryV4.Aviator.self, from: $0, registry: StoryV4.fixedRegistry) } == StoryV3.aviators)
        }
        #expect(try fixed.map { try KeyedUnarchiver.unarchive(StoryV3.Aviator.self, from: $0, registry: StoryV3.registry) } == StoryV3.aviators)
        #expect(fixed == v3, "keeping the old name keeps the archives")
    }

    /// v4 → v5: the rank's kind changes. v4's readers fail on v5's integers; v5's migration reads
    /// v4's text.
    @Test func step5ChangedKind() throws {
        let fixed = try Self.archives("v4-fixed"), v5 = try Self.archives("v5")
        #expect(Self.failure(StoryV3.Aviator.self, v5[0], StoryV4.fixedRegistry)?.code == .typeMismatch)
        #expect(try fixed.map { try KeyedUnarchiver.unarchive(StoryV5.Aviator.self, from: $0, registry: StoryV5.registry) } == StoryV5.aviators)
        #expect(try v5.map { try KeyedUnarchiver.unarchive(StoryV5.Aviator.self, from: $0, registry: StoryV5.registry) } == StoryV5.aviators)
    }
}
