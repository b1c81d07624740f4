import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Typed decoding takes shortcuts on binary archives read in place: a field that is a reference
/// to a plain string or integer, or an inline integer, is read straight from the table, and a
/// back-reference keeps its object's key path as a range of a shared log. Each shortcut must
/// give exactly what the general path gives — the same value, or the same error at the same
/// place — so every case decodes one archive both ways: through the table, and through the graph
/// (which never takes the shortcuts).
@Suite struct TypedFastPathTests {
    /// A model with a field of each shape the shortcuts read.
    struct Gauge: KeyedArchivable, Equatable {
        var label: String
        /// Stored inline (`encodeInt64:`).
        var inline: Int64
        /// Stored as a reference to a number object, as Foundation stores `UInt64`.
        var counter: UInt64

        init(label: String, inline: Int64, counter: UInt64) {
            self.label = label
            self.inline = inline
            self.counter = counter
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            label = try decoder.decode(String.self, forKey: "label")
            inline = try decoder.decode(Int64.self, forKey: "inline")
            counter = try decoder.decode(UInt64.self, forKey: "counter")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(label, forKey: "label")
            try encoder.encode(inline, forKey: "inline")
            try encoder.encode(counter, forKey: "counter")
        }
    }

    /// Reads a `Gauge` archive the wrong way, one field at a time: each mode is a fault the
    /// shortcuts must hand to the general path.
    enum Misreading: Int, CaseIterable {
        case inlineAsInt8, counterAsUInt8, inlineAsUInt64, labelAsInteger, counterAsString, inlineAsString, missingKey, escapedKey
    }

    struct GaugeMisreader: KeyedArchivable {
        @TaskLocal static var mode = Misreading.inlineAsInt8

        init(from decoder: KeyedArchiveDecoder) throws {
            switch Self.mode {
            case .inlineAsInt8: _ = try decoder.decode(Int8.self, forKey: "inline")
            case .counterAsUInt8: _ = try decoder.decode(UInt8.self, forKey: "counter")
            case .inlineAsUInt64: _ = try decoder.decode(UInt64.self, forKey: "inline")
            case .labelAsInteger: _ = try decoder.decode(Int.self, forKey: "label")
            case .counterAsString: _ = try decoder.decode(String.self, forKey: "counter")
            case .inlineAsString: _ = try decoder.decode(String.self, forKey: "inline")
            case .missingKey: _ = try decoder.decode(String.self, forKey: "lable")
            case .escapedKey: _ = try decoder.decode(String.self, forKey: "$label")
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {}
    }

    /// A note whose `next` is read as a back-reference: every note after the first is decoded
    /// while back-references resolve, and registers the following one from there.
    final class ChainNote: KeyedArchivable {
        var text: String
        var next: ChainNote?

        init(text: String, next: ChainNote?) {
            self.text = text
            self.next = next
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            text = try decoder.decode(String.self, forKey: "text")
            next = nil
            // A model may catch a field's error and go on: `count` is a number, not a string,
            // and the path of what is decoded next must not keep its key.
            _ = try? decoder.decode(String.self, forKey: "count")
            decoder.decode(ChainNote.self, forKey: "next") { [self] next in self.next = next }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(text, forKey: "text")
            try encoder.encode(UInt64(text.utf8.count), forKey: "count")
            try encoder.encode(next, forKey: "next")
        }
    }

    /// Writes a `ChainNote` chain whose last note stores its text as a number.
    final class FaultyNote: KeyedArchivable {
        let number: Int64
        let next: FaultyNote?

        init(number: Int64, next: FaultyNote?) {
            self.number = number
            self.next = next
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            number = 0
            next = nil
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            if next == nil {
                try encoder.encode(number, forKey: "text")
            } else {
                try encoder.encode("note \(number)", forKey: "text")
            }
            try encoder.encode(UInt64(number), forKey: "count")
            try encoder.encode(next, forKey: "next")
        }
    }

    /// Fields under keys built at run time, all of one length, each read with a key made anew:
    /// a freed key's storage is soon reused for the next key, with another text. The table's
    /// key memo is keyed by a String's words, so only its check of the text keeps these apart.
    struct Readings: KeyedArchivable, Equatable {
        static let channels = 8
        var values: [Int64]

        init(values: [Int64]) { self.values = values }

        static func key(_ channel: Int) -> String {
            // Longer than 15 bytes, so not a small string: its words are its storage's address.
            "sensor channel number \(channel)"
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            var values = [Int64](repeating: 0, count: Self.channels)
            // Read in an order unlike the file's, and each channel twice.
            for channel in (0..<Self.channels).reversed() + Array(0..<Self.channels) {
                values[channel] = try decoder.decode(Int64.self, forKey: Self.key(channel))
            }
            self.values = values
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            for (channel, value) in values.enumerated() { try encoder.encode(value, forKey: Self.key(channel)) }
        }
    }

    /// Class models handed out as their own class, as a superclass, and as a protocol: a model
    /// kept as `AnyObject` is cast by walking its class chain, and by the runtime otherwise.
    protocol Instrument: AnyObject {
        var name: String { get }
    }

    class Dial: KeyedArchivable, Instrument {
        let name: String
        init(name: String) { self.name = name }
        required init(from decoder: KeyedArchiveDecoder) throws { name = try decoder.decode(String.self, forKey: "name") }
        func encode(to encoder: KeyedArchiveEncoder) throws { try encoder.encode(name, forKey: "name") }
    }

    final class Altimeter: Dial {}

    struct Panel: KeyedArchivable {
        var main: Dial
        var altimeter: Altimeter
        var backup: any Instrument

        init(main: Dial, altimeter: Altimeter, backup: any Instrument) {
            self.main = main
            self.altimeter = altimeter
            self.backup = backup
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            main = try decoder.decode(Dial.self, forKey: "main")
            altimeter = try decoder.decode(Altimeter.self, forKey: "altimeter")
            backup = try decoder.decodeObject(of: (any Instrument).self, forKey: "backup")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(main, forKey: "main")
            try encoder.encode(altimeter, forKey: "altimeter")
            guard let backup = backup as? Dial else { return }
            try encoder.encode(backup, forKey: "backup")
        }
    }

    /// Writes one dial under every key of a `Panel`.
    struct DialPanel: KeyedArchivable {
        var dial: Dial
        init(dial: Dial) { self.dial = dial }
        init(from decoder: KeyedArchiveDecoder) throws { dial = try decoder.decode(Dial.self, forKey: "main") }
        func encode(to encoder: KeyedArchiveEncoder) throws {
            for key in ["main", "altimeter", "backup"] { try encoder.encode(dial, forKey: key) }
        }
    }

    /// Back-references decoded with `decode(_:forKey:for:assign:)`: the child is handed to a
    /// closure that captures nothing.
    final class Hangar: KeyedArchivable {
        var gliders: [Glider] = []
        var code: Int64 = 0

        init() {}

        init(from decoder: KeyedArchiveDecoder) throws {
            gliders = try decoder.decode([Glider].self, forKey: "gliders")
            code = try decoder.decode(Int64.self, forKey: "code")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(gliders, forKey: "gliders")
            try encoder.encode(code, forKey: "code")
        }

        /// Writes `code` as text, so that a decode fails after the gliders have registered
        /// their back-references.
        struct WithTextCode: KeyedArchivable {
            var gliders: [Glider]
            init(gliders: [Glider]) { self.gliders = gliders }
            init(from decoder: KeyedArchiveDecoder) throws { gliders = [] }
            func encode(to encoder: KeyedArchiveEncoder) throws {
                try encoder.encode(gliders, forKey: "gliders")
                try encoder.encode("seven", forKey: "code")
            }
        }
    }

    final class Glider: KeyedArchivable {
        weak var hangar: Hangar?
        /// Asks for its hangar as a `Gauge`, which it is not.
        var misreadsHangar = false

        init(hangar: Hangar?) { self.hangar = hangar }

        init(from decoder: KeyedArchiveDecoder) throws {
            misreadsHangar = try decoder.decodeIfPresent(Bool.self, forKey: "misreads") ?? false
            if misreadsHangar {
                decoder.decode(Gauge.self, forKey: "hangar", for: self) { _, _ in }
            } else {
                decoder.decode(Hangar.self, forKey: "hangar", for: self) { glider, hangar in glider.hangar = hangar }
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encodeConditional(hangar, forKey: "hangar")
            if misreadsHangar { try encoder.encode(true, forKey: "misreads") }
        }
    }

    static var hangarRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Hangar.self)
        registry.register(Glider.self)
        registry.register(Gauge.self)
        return registry
    }

    /// A roster whose members may fail to decode; it catches their errors and goes on. Each
    /// member registers a back-reference to the roster before it fails, with either API.
    final class Roster: KeyedArchivable {
        var names: [String] = []
        var delivered: [String] = []
        var failures: [ArchiveError] = []

        init(names: [String]) { self.names = names }

        init(from decoder: KeyedArchiveDecoder) throws {
            for key in ["first", "second", "third", "firstAgain"] where decoder.contains(key) {
                do {
                    _ = try decoder.decode(Member.self, forKey: key)
                } catch {
                    failures.append(error)
                }
            }
            // A collection that fails, asked for twice: the same error both times.
            for _ in 0..<2 where decoder.contains("broken") {
                do {
                    _ = try decoder.decode([Int].self, forKey: "broken")
                } catch {
                    failures.append(error)
                }
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            let members = names.map { Member(name: $0, roster: self) }
            for (key, member) in zip(["first", "second", "third"], members) { try encoder.encode(member, forKey: key) }
            if let first = members.first { try encoder.encode(first, forKey: "firstAgain") }
            try encoder.encode(["one", "two"], forKey: "broken")
        }
    }

    struct Refusal: Error, CustomStringConvertible {
        let name: String
        var description: String { "member \(name) is refused" }
    }

    final class Member: KeyedArchivable {
        @TaskLocal static var usesClosureCapture = false
        let name: String
        let roster: Roster?

        init(name: String, roster: Roster?) {
            self.name = name
            self.roster = roster
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            roster = nil
            if Self.usesClosureCapture {
                // A strong capture: the closure itself would keep a failed member alive.
                decoder.decode(Roster.self, forKey: "roster") { [self] roster in roster?.delivered.append(self.name) }
            } else {
                decoder.decode(Roster.self, forKey: "roster", for: self) { member, roster in roster?.delivered.append(member.name) }
            }
            if name.hasPrefix("bad") { throw Refusal(name: name) }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encodeConditional(roster, forKey: "roster")
        }
    }

    static var rosterRegistry: ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(Roster.self)
        registry.register(Member.self)
        return registry
    }

    static func registry<T: KeyedArchivable>(_ type: T.Type, as className: String) -> ArchiveRegistry {
        var registry = ArchiveRegistry()
        registry.register(type, className: className)
        return registry
    }

    /// Decodes `bytes` both ways; the table must take the file.
    static func bothWays<T: ArchiveObjectDecodable>(_ type: T.Type, _ bytes: [UInt8], registry: ArchiveRegistry,
                                                    options: ArchiveReadingOptions = .default) throws -> (direct: Result<T, ArchiveError>, usual: Result<T, ArchiveError>) {
        #expect(BinaryArchiveTable.read(bytes, options: options) != nil, "the table should read this archive in place")
        let direct = Result { () throws(ArchiveError) in try KeyedUnarchiver(bytes: bytes, registry: registry, options: options).decode(type) }
        let usual = Result { () throws(ArchiveError) in
            try KeyedUnarchiver(graph: try ArchiveGraph(bytes: bytes, options: options), registry: registry, options: options).decode(type)
        }
        return (direct, usual)
    }

    /// Both failed with the same error (code, UID, key path and message), which is returned.
    @discardableResult
    static func sameFailure<T>(_ outcome: (direct: Result<T, ArchiveError>, usual: Result<T, ArchiveError>), _ context: String) -> ArchiveError? {
        guard case .failure(let direct) = outcome.direct, case .failure(let usual) = outcome.usual else {
            Issue.record("\(context): expected both paths to fail, got \(outcome.direct) and \(outcome.usual)")
            return nil
        }
        #expect(direct == usual, "\(context)")
        #expect(direct.message == usual.message, "\(context)")
        return direct
    }

    static let gauges = [Gauge(label: "oil pressure", inline: 300, counter: 70_000),
                         Gauge(label: "a label longer than fifteen bytes", inline: -5, counter: 5_000_000_000)]

    @Test func fieldsReadByShortcutsMatchTheGeneralPath() throws {
        let registry = Self.registry(Gauge.self, as: "Gauge")
        let bytes = try KeyedArchiver.archive(Self.gauges, registry: registry)
        let outcome = try Self.bothWays([Gauge].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == Self.gauges)
        #expect(try outcome.usual.get() == Self.gauges)
    }

    @Test func runtimeKeysAreMatchedByTheirText() throws {
        let registry = Self.registry(Readings.self, as: "Readings")
        let readings = (0..<40).map { object in Readings(values: (0..<Readings.channels).map { Int64(object * 100 + $0) }) }
        let bytes = try KeyedArchiver.archive(readings, registry: registry)
        let outcome = try Self.bothWays([Readings].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == readings)
        #expect(try outcome.usual.get() == readings)
    }

    /// Apple's and our writers store each key text once; a file may store it once per object
    /// (Foundation on Linux does). The key memo then meets one text in many key objects.
    @Test func keysStoredOncePerObjectAreFound() throws {
        let registry = Self.registry(Readings.self, as: "Readings")
        let readings = (0..<12).map { object in Readings(values: (0..<Readings.channels).map { Int64(object * 10 + $0) }) }
        var document = try BinaryPropertyListReader.read(try KeyedArchiver.archive(readings, registry: registry))
        let original = document.objects
        var copied = 0
        for (index, object) in original.enumerated() {
            guard case .dictionary(let keys, let values) = object, keys.count == Readings.channels + 1 else { continue }
            let ownKeys = keys.map { key -> Int in
                document.objects.append(original[key])
                return document.objects.count - 1
            }
            document.objects[index] = .dictionary(keys: ownKeys, values: values)
            copied += 1
        }
        #expect(copied == readings.count)
        let bytes = try BinaryPropertyListWriter().write(document)
        let outcome = try Self.bothWays([Readings].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == readings)
        #expect(try outcome.usual.get() == readings)
    }

    @Test func classModelsAreHandedOutAsEveryTypeTheyAre() throws {
        var registry = ArchiveRegistry()
        registry.register(Panel.self)
        registry.register(Dial.self)
        registry.register(Altimeter.self, superclass: Dial.self)
        registry.registerFamily((any Instrument).self, root: Dial.self)
        // One altimeter, asked for as `Dial`, as `Altimeter` and as `any Instrument`.
        let shared = Altimeter(name: "altimeter")
        let bytes = try KeyedArchiver.archive(Panel(main: shared, altimeter: shared, backup: shared), registry: registry)
        let outcome = try Self.bothWays(Panel.self, bytes, registry: registry)
        for panel in [try outcome.direct.get(), try outcome.usual.get()] {
            #expect(panel.main === panel.altimeter)
            #expect(panel.backup === panel.altimeter)
            #expect(panel.main is Altimeter)
            #expect(panel.backup.name == "altimeter")
        }
        // A plain dial where an altimeter is asked for is refused alike on both paths.
        var writing = ArchiveRegistry()
        writing.register(DialPanel.self, className: "Panel")
        writing.register(Dial.self)
        let dialBytes = try KeyedArchiver.archive(DialPanel(dial: Dial(name: "dial")), registry: writing)
        let error = Self.sameFailure(try Self.bothWays(Panel.self, dialBytes, registry: registry), "a dial as an altimeter")
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath.description == "root.altimeter")
    }

    @Test func backReferencesHandedToTheirObject() throws {
        let registry = Self.hangarRegistry
        let hangar = Hangar()
        hangar.gliders = [Glider(hangar: hangar), Glider(hangar: hangar), Glider(hangar: nil)]
        hangar.code = 7
        let outcome = try Self.bothWays(Hangar.self, try KeyedArchiver.archive(hangar, registry: registry), registry: registry)
        for decoded in [try outcome.direct.get(), try outcome.usual.get()] {
            #expect(decoded.code == 7)
            #expect(decoded.gliders.map { $0.hangar === decoded } == [true, true, false])
            #expect(decoded.gliders[2].hangar == nil)
        }
        // A glider archived without its hangar: the conditional reference is `$null`.
        let alone = try Self.bothWays([Glider].self, try KeyedArchiver.archive([Glider(hangar: hangar)], registry: registry), registry: registry)
        #expect(try alone.direct.get().first?.hangar == nil)
        #expect(try alone.usual.get().first?.hangar == nil)
    }

    @Test func handedBackReferencesFailAndFreeAlike() throws {
        let registry = Self.hangarRegistry
        let hangar = Hangar()
        let misreading = Glider(hangar: hangar)
        misreading.misreadsHangar = true
        hangar.gliders = [Glider(hangar: hangar), misreading]
        let bytes = try KeyedArchiver.archive(hangar, registry: registry)
        let error = Self.sameFailure(try Self.bothWays(Hangar.self, bytes, registry: registry), "a hangar asked for as a gauge")
        #expect(error?.code == .classNotAllowed)
        #expect(error?.keyPath.description == "root.gliders[1].hangar")
        // A decode that fails after the gliders registered their back-references frees them,
        // and the session they hold.
        var writing = ArchiveRegistry()
        writing.register(Hangar.WithTextCode.self, className: "Hangar")
        writing.register(Glider.self)
        let failing = try KeyedArchiver.archive(Hangar.WithTextCode(gliders: [Glider(hangar: hangar)]), registry: writing)
        #expect(try ArchiveFuzzFindingTests.sessionIsFreedAfterFailure(Hangar.self, bytes: failing, registry: registry))
    }

    @Test(arguments: [false, true])
    func objectsThatFailAreNeitherHandedOverNorRetried(usesClosureCapture: Bool) throws {
        let registry = Self.rosterRegistry
        // Five failures caught under a depth limit of 4: each failed decode gives its depth back.
        var options = ArchiveReadingOptions.default
        options.maximumDepth = 4
        let bytes = try KeyedArchiver.archive(Roster(names: ["bad one", "good", "bad two"]), registry: registry)
        try Member.$usesClosureCapture.withValue(usesClosureCapture) {
            let outcome = try Self.bothWays(Roster.self, bytes, registry: registry, options: options)
            for roster in [try outcome.direct.get(), try outcome.usual.get()] {
                // Only the member that decoded is handed to the roster.
                #expect(roster.delivered == ["good"])
                // "first" and "firstAgain" are one object: the second request fails with the
                // first's error, not as a cycle and not by running the initializer again.
                #expect(roster.failures.count == 5)
                #expect(roster.failures.first == roster.failures.dropFirst(2).first)
                #expect(roster.failures.first?.code == .modelError)
                #expect(roster.failures.first?.underlyingDescription == "member bad one is refused")
                #expect(roster.failures.first?.keyPath.description == "root.first")
                // The broken array fails the same way twice.
                #expect(roster.failures.suffix(2).map(\.code) == [.typeMismatch, .typeMismatch])
                #expect(roster.failures.suffix(2).map(\.message).allSatisfy { $0 == roster.failures.last?.message })
            }
        }
    }

    /// Work registered through `topLevelDecoder` directly is never resolved; freeing the
    /// unarchiver frees it, the session and the objects it held.
    @Test func unresolvedWorkIsFreedWithTheUnarchiver() throws {
        let registry = Self.hangarRegistry
        let hangar = Hangar()
        hangar.gliders = [Glider(hangar: hangar)]
        let bytes = try KeyedArchiver.archive(hangar, registry: registry)
        weak var session: ArchiveDecodingSession?
        weak var decoded: Hangar?
        try {
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: registry)
            session = unarchiver.session
            let value = try unarchiver.topLevelDecoder.decode(Hangar.self, forKey: "root")
            decoded = value
            #expect(value.gliders.first?.hangar == nil)
        }()
        #expect(session == nil)
        #expect(decoded == nil)
    }

    @Test(arguments: Misreading.allCases)
    func misreadFieldsFailAlike(mode: Misreading) throws {
        let bytes = try KeyedArchiver.archive(Self.gauges, registry: Self.registry(Gauge.self, as: "Gauge"))
        let registry = Self.registry(GaugeMisreader.self, as: "Gauge")
        let error = try GaugeMisreader.$mode.withValue(mode) {
            Self.sameFailure(try Self.bothWays([GaugeMisreader].self, bytes, registry: registry), "\(mode)")
        }
        let expected: (ArchiveError.Code, String) = switch mode {
        case .inlineAsInt8: (.valueOutOfRange, "root[0].inline")
        case .counterAsUInt8: (.valueOutOfRange, "root[0].counter")
        // The first gauge's inline value (300) fits; the second's (-5) does not.
        case .inlineAsUInt64: (.valueOutOfRange, "root[1].inline")
        case .labelAsInteger: (.typeMismatch, "root[0].label")
        case .counterAsString: (.typeMismatch, "root[0].counter")
        case .inlineAsString: (.typeMismatch, "root[0].inline")
        case .missingKey: (.valueNotFound, "root[0].lable")
        case .escapedKey: (.valueNotFound, "root[0].$label")
        }
        #expect(error?.code == expected.0, "\(mode)")
        #expect(error?.keyPath.description == expected.1, "\(mode)")
    }

    /// A shortcut counts a visit only when it succeeds, so the budget runs out at the same
    /// reference on both paths, whatever its size.
    @Test func everyVisitBudgetEndsAlike() throws {
        let registry = Self.registry(Gauge.self, as: "Gauge")
        let bytes = try KeyedArchiver.archive(Self.gauges, registry: registry)
        var firstSuccess: Int?
        for budget in 0...12 {
            var options = ArchiveReadingOptions.default
            options.maximumVisitCount = budget
            let outcome = try Self.bothWays([Gauge].self, bytes, registry: registry, options: options)
            switch (outcome.direct, outcome.usual) {
            case (.success(let direct), .success(let usual)):
                #expect(direct == Self.gauges && usual == Self.gauges)
                firstSuccess = firstSuccess ?? budget
            default:
                let error = Self.sameFailure(outcome, "budget \(budget)")
                #expect(error?.code == .budgetExceeded, "budget \(budget)")
                #expect(firstSuccess == nil, "budget \(budget) failed after a smaller one succeeded")
            }
        }
        // The array, then per gauge the gauge, its label and its counter: 1 + 2 × 3 references.
        #expect(firstSuccess == 7)
    }

    /// The same for each misreading: a shortcut that declines (a number that does not fit, a
    /// string that is a number) must not have counted the visit the general path counts again.
    @Test(arguments: Misreading.allCases)
    func everyVisitBudgetFailsAlikeWhenMisread(mode: Misreading) throws {
        let bytes = try KeyedArchiver.archive(Self.gauges, registry: Self.registry(Gauge.self, as: "Gauge"))
        let registry = Self.registry(GaugeMisreader.self, as: "Gauge")
        try GaugeMisreader.$mode.withValue(mode) {
            for budget in 0...12 {
                var options = ArchiveReadingOptions.default
                options.maximumVisitCount = budget
                Self.sameFailure(try Self.bothWays([GaugeMisreader].self, bytes, registry: registry, options: options), "\(mode), budget \(budget)")
            }
        }
    }

    /// Refusing a primitive refuses it on the shortcut too.
    @Test(arguments: ArchivePrimitivePolicy.names.map(\.name))
    func primitivePolicyRefusesAlike(name: String) throws {
        let bytes = try KeyedArchiver.archive(Self.gauges, registry: Self.registry(Gauge.self, as: "Gauge"))
        var registry = Self.registry(Gauge.self, as: "Gauge")
        let kind = try #require(ArchivePrimitivePolicy.names.first { $0.name == name }?.kind)
        registry.primitives.remove(kind)
        let outcome = try Self.bothWays([Gauge].self, bytes, registry: registry)
        if kind == .strings || kind == .integers {
            let error = Self.sameFailure(outcome, name)
            #expect(error?.code == .classNotAllowed)
            #expect(error?.keyPath.description == (kind == .strings ? "root[0].label" : "root[0].counter"))
        } else {
            #expect(try outcome.direct.get() == Self.gauges)
            #expect(try outcome.usual.get() == Self.gauges)
        }
    }

    /// A back-reference resolved while others resolve reports the whole path of its object,
    /// however deep the chain of deferred decodes that reached it.
    @Test func deferredDecodesKeepTheirKeyPaths() throws {
        let good = ChainNote(text: "one", next: ChainNote(text: "two", next: ChainNote(text: "three", next: nil)))
        let registry = Self.registry(ChainNote.self, as: "ChainNote")
        let outcome = try Self.bothWays(ChainNote.self, try KeyedArchiver.archive(good, registry: registry), registry: registry)
        for note in [try outcome.direct.get(), try outcome.usual.get()] {
            #expect(note.text == "one" && note.next?.text == "two" && note.next?.next?.text == "three" && note.next?.next?.next == nil)
        }

        let faulty = FaultyNote(number: 1, next: FaultyNote(number: 2, next: FaultyNote(number: 3, next: nil)))
        let bytes = try KeyedArchiver.archive(faulty, registry: Self.registry(FaultyNote.self, as: "ChainNote"))
        let error = Self.sameFailure(try Self.bothWays(ChainNote.self, bytes, registry: registry), "faulty chain")
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath.description == "root.next.next.text")
    }

    /// Two fields whose keys only look alike (a precomposed and a decomposed "é"): each child's
    /// back-reference keeps its own key's spelling in its path.
    final class Parent: KeyedArchivable {
        static let precomposed = "\u{E9}"
        static let decomposed = "e\u{301}"
        var first: Child?
        var second: WrongOwnerChild?

        init() {}

        init(from decoder: KeyedArchiveDecoder) throws {
            first = try decoder.decode(Child.self, forKey: Self.precomposed)
            second = try decoder.decode(WrongOwnerChild.self, forKey: Self.decomposed)
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(first, forKey: Self.precomposed)
            try encoder.encode(second, forKey: Self.decomposed)
        }
    }

    class Child: KeyedArchivable {
        weak var owner: Parent?

        init(owner: Parent?) { self.owner = owner }

        required init(from decoder: KeyedArchiveDecoder) throws {
            decoder.decode(Parent.self, forKey: "owner") { [weak self] owner in self?.owner = owner }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encodeConditional(owner, forKey: "owner")
        }
    }

    /// Asks for its owner as a `Gauge`, which the owner is not: its back-reference fails.
    final class WrongOwnerChild: Child {
        required init(from decoder: KeyedArchiveDecoder) throws {
            super.init(owner: nil)
            decoder.decode(Gauge.self, forKey: "owner") { _ in }
        }

        override init(owner: Parent?) { super.init(owner: owner) }
    }

    @Test func lookalikeKeysKeepTheirOwnPaths() throws {
        var registry = ArchiveRegistry()
        registry.register(Parent.self)
        registry.register(Child.self)
        registry.register(WrongOwnerChild.self, superclass: Child.self)
        registry.register(Gauge.self)
        let parent = Parent()
        parent.first = Child(owner: parent)
        parent.second = WrongOwnerChild(owner: parent)
        let bytes = try KeyedArchiver.archive(parent, registry: registry)
        let error = Self.sameFailure(try Self.bothWays(Parent.self, bytes, registry: registry), "look-alike keys")
        #expect(error?.code == .classNotAllowed)
        // By scalars: `==` on the key path would take either spelling of "é".
        let keys = (error?.keyPath.components ?? []).map { component -> [Unicode.Scalar] in
            if case .key(let key) = component { return Array(key.unicodeScalars) }
            return []
        }
        #expect(keys == [Array("root".unicodeScalars), Array(Parent.decomposed.unicodeScalars), Array("owner".unicodeScalars)])
    }

    /// Members that point back at their squad. Many back-references are registered under
    /// paths that share all but their last levels; each keeps its own whole path.
    final class Squad: KeyedArchivable {
        var members: [SquadMember] = []

        init() {}

        init(from decoder: KeyedArchiveDecoder) throws {
            members = try decoder.decode([SquadMember].self, forKey: "members")
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(members, forKey: "members")
        }
    }

    class SquadMember: KeyedArchivable {
        weak var squad: Squad?

        init(squad: Squad?) { self.squad = squad }

        required init(from decoder: KeyedArchiveDecoder) throws {
            decoder.decode(Squad.self, forKey: "squad", for: self) { member, squad in member.squad = squad }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encodeConditional(squad, forKey: "squad")
        }
    }

    /// Asks for its squad as a `Gauge`, which the squad is not.
    final class LostMember: SquadMember {
        required init(from decoder: KeyedArchiveDecoder) throws {
            super.init(squad: nil)
            decoder.decode(Gauge.self, forKey: "squad") { _ in }
        }

        override init(squad: Squad?) { super.init(squad: squad) }
    }

    /// Three squads of four; with `lost`, the member at that place asks for the wrong type.
    static func squads(lost: (squad: Int, member: Int)?) -> [Squad] {
        (0..<3).map { squadIndex in
            let squad = Squad()
            squad.members = (0..<4).map { memberIndex in
                lost.map { $0 == (squadIndex, memberIndex) } == true ? LostMember(squad: squad) : SquadMember(squad: squad)
            }
            return squad
        }
    }

    @Test func backReferencesOfSiblingsKeepTheirOwnPaths() throws {
        var registry = ArchiveRegistry()
        registry.register(Squad.self)
        registry.register(SquadMember.self)
        registry.register(LostMember.self, superclass: SquadMember.self)
        registry.register(Gauge.self)

        let outcome = try Self.bothWays([Squad].self, try KeyedArchiver.archive(Self.squads(lost: nil), registry: registry), registry: registry)
        for squads in [try outcome.direct.get(), try outcome.usual.get()] {
            #expect(squads.count == 3)
            for squad in squads {
                #expect(squad.members.count == 4)
                #expect(squad.members.allSatisfy { $0.squad === squad })
            }
        }

        for lost in [(0, 0), (1, 2), (2, 3)] {
            let bytes = try KeyedArchiver.archive(Self.squads(lost: lost), registry: registry)
            let error = Self.sameFailure(try Self.bothWays([Squad].self, bytes, registry: registry), "lost member \(lost)")
            #expect(error?.code == .classNotAllowed)
            #expect(error?.keyPath.description == "root[\(lost.0)].members[\(lost.1)].squad")
        }
    }

    /// An object whose keys depend on its number: bags of different numbers have different key
    /// layouts, bags of one number the same. Long keys (over 15 bytes) are strings with storage,
    /// made anew for every lookup.
    struct KeyBag: KeyedArchivable, Equatable {
        static let keysPerBag = 30
        var number: Int
        var values: [Int]

        static func key(bag: Int, field: Int) -> String {
            field.isMultiple(of: 3) ? "a-long-key-of-bag-\(bag)-field-\(field)" : "b\(bag)k\(field)"
        }

        init(number: Int, values: [Int]) {
            self.number = number
            self.values = values
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            let number = try decoder.decode(Int.self, forKey: "number")
            self.number = number
            // Backwards, then forwards: the second pass finds every key where the first put it.
            var backwards: [Int] = []
            for field in (0..<Self.keysPerBag).reversed() {
                backwards.append(try decoder.decode(Int.self, forKey: Self.key(bag: number, field: field)))
            }
            let values = (0..<Self.keysPerBag).map { field in (try? decoder.decode(Int.self, forKey: Self.key(bag: number, field: field))) ?? -1 }
            self.values = values
            guard values == backwards.reversed() else { throw ArchiveError(.modelError, "two reads of one field differ") }
            // Another bag's keys: absent here, and asked for twice.
            for _ in 0..<2 {
                for field in [0, 1] {
                    let foreign = Self.key(bag: number + 1, field: field)
                    let present = try decoder.decodeIfPresent(Int.self, forKey: foreign)
                    if decoder.contains(foreign) || present != nil {
                        throw ArchiveError(.modelError, "bag \(number) has a key of bag \(number + 1)")
                    }
                }
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(number, forKey: "number")
            for (field, value) in values.enumerated() { try encoder.encode(value, forKey: Self.key(bag: number, field: field)) }
        }
    }

    /// More key layouts than the table numbers (16) and more keys than its key memo holds (256
    /// slots), long keys among them (whose memo slots depend on addresses): a broad check that
    /// every field still reads right. The two tests after it pin the cache's two rules down
    /// deterministically.
    @Test func keyPositionsAreRememberedPerLayout() throws {
        let registry = Self.registry(KeyBag.self, as: "KeyBag")
        // Every bag number twice (same layout, other values), in an order that interleaves layouts.
        let bags = (0..<2).flatMap { round in
            (0..<24).map { number in KeyBag(number: number, values: (0..<KeyBag.keysPerBag).map { number * 1000 + $0 * 7 + round }) }
        }
        let bytes = try KeyedArchiver.archive(bags, registry: registry)
        let outcome = try Self.bothWays([KeyBag].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == bags)
        #expect(try outcome.usual.get() == bags)
    }

    /// Bags of two kinds whose key sets overlap, with short keys (a short key's words are its
    /// text, so its memo slot does not depend on an address).
    struct KindBag: KeyedArchivable, Equatable {
        static let keys = [["ka", "kb", "kc", "kd"], ["kc", "kd", "ke", "kf", "kg"]]
        var kind: Int
        var serial: Int

        static func value(serial: Int, field: Int) -> Int { serial * 100 + field }

        init(kind: Int, serial: Int) {
            self.kind = kind
            self.serial = serial
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            let kind = try decoder.decode(Int.self, forKey: "kind")
            let serial = try decoder.decode(Int.self, forKey: "serial")
            (self.kind, self.serial) = (kind, serial)
            guard Self.keys.indices.contains(kind) else { throw ArchiveError(.modelError, "kind \(kind)") }
            for (field, key) in Self.keys[kind].enumerated() where try decoder.decode(Int.self, forKey: key) != Self.value(serial: serial, field: field) {
                throw ArchiveError(.modelError, "bag \(serial): \(key) read wrong")
            }
            let foreign = Self.keys[1 - kind].filter { !Self.keys[kind].contains($0) } + ["kz"]
            for key in foreign where try decoder.decodeIfPresent(Int.self, forKey: key) != nil {
                throw ArchiveError(.modelError, "bag \(serial): \(key) read as present")
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(kind, forKey: "kind")
            try encoder.encode(serial, forKey: "serial")
            for (field, key) in Self.keys[kind].enumerated() { try encoder.encode(Self.value(serial: serial, field: field), forKey: key) }
        }
    }

    /// The stored keys of each instance of `className` in `bytes`, in file order.
    static func storedKeys(of className: String, in bytes: [UInt8]) throws -> [[String]] {
        let graph = try ArchiveGraph(bytes: bytes)
        return graph.objects.indices.compactMap { uid -> [String]? in
            guard graph.className(of: PropertyListUID(UInt64(uid))) == className,
                  case .instance(let instance) = graph.objects[uid] else { return nil }
            return instance.storage.keys
        }
    }

    /// A key shared by two layouts at different places is found at its own place in each, and a
    /// key one layout lacks is absent there, however the layouts alternate. Taking one layout's
    /// remembered position for the other reads another field (or one that is not there).
    @Test func keyPositionsAreNotSharedBetweenLayouts() throws {
        let registry = Self.registry(KindBag.self, as: "KindBag")
        let bags = [0, 1, 0, 1, 0].enumerated().map { KindBag(kind: $0.element, serial: $0.offset) }
        let bytes = try KeyedArchiver.archive(bags, registry: registry)
        // The premise: the two layouts hold a shared key at different places.
        let layouts = try Self.storedKeys(of: "KindBag", in: bytes)
        let first = try #require(layouts.first { $0.contains("ka") }), second = try #require(layouts.first { $0.contains("ke") })
        #expect(["kc", "kd"].contains { first.firstIndex(of: $0) != second.firstIndex(of: $0) }, "\(first) \(second)")
        let outcome = try Self.bothWays([KindBag].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == bags)
        #expect(try outcome.usual.get() == bags)
    }

    /// Five keys whose memo slots collide (found with the table's own hash), so that the fifth
    /// takes the first one's slot: the positions remembered for the first key, in every layout,
    /// must go with it. A bag of kind 2 asks for `c3`, which it lacks, after a bag of kind 1 gave
    /// `c3` the slot where `c0`'s position in kind 2 was remembered.
    struct CollidingBag: KeyedArchivable, Equatable {
        static let keys: [String] = {
            let fixed = ["kind", "serial"].compactMap { $0.representationWords.map(BinaryArchiveTable.keyMemoHome) }
            func near(_ slot: Int, _ other: Int) -> Bool {
                let distance = (slot - other + BinaryArchiveTable.keyMemoSlots) % BinaryArchiveTable.keyMemoSlots
                return distance < 8 || distance > BinaryArchiveTable.keyMemoSlots - 8
            }
            var bySlot: [Int: [String]] = [:]
            for index in 0..<10_000 {
                let key = "c\(index)"
                guard let words = key.representationWords else { return [] }
                let slot = BinaryArchiveTable.keyMemoHome(words)
                guard !fixed.contains(where: { near(slot, $0) }) else { continue }
                bySlot[slot, default: []].append(key)
                if let group = bySlot[slot], group.count == 5 { return group }
            }
            return []
        }()
        /// The keys each kind stores, and the order it asks for them in (kind 2 first asks for
        /// `keys[3]`, which it lacks).
        static func stored(kind: Int) -> [Int] { kind == 1 ? [0, 1, 2, 3, 4] : [0, 4] }
        static func asked(kind: Int) -> [Int] { kind == 1 ? [0, 1, 2, 3, 4] : [3, 0, 4] }
        var kind: Int
        var serial: Int

        init(kind: Int, serial: Int) {
            self.kind = kind
            self.serial = serial
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            let kind = try decoder.decode(Int.self, forKey: "kind")
            let serial = try decoder.decode(Int.self, forKey: "serial")
            (self.kind, self.serial) = (kind, serial)
            for field in Self.asked(kind: kind) {
                let value = try decoder.decodeIfPresent(Int.self, forKey: Self.keys[field])
                let expected = Self.stored(kind: kind).contains(field) ? serial * 100 + field : nil
                guard value == expected else {
                    throw ArchiveError(.modelError, "bag \(serial): \(Self.keys[field]) read as \(value.map(String.init) ?? "absent")")
                }
            }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            try encoder.encode(kind, forKey: "kind")
            try encoder.encode(serial, forKey: "serial")
            for field in Self.stored(kind: kind) { try encoder.encode(serial * 100 + field, forKey: Self.keys[field]) }
        }
    }

    @Test func aMemoSlotGivenToAnotherKeyForgetsItsPositions() throws {
        // The premises: the trace above assumes four probes and five colliding keys.
        #expect(BinaryArchiveTable.keyMemoProbes == 4)
        try #require(CollidingBag.keys.count == 5)
        let registry = Self.registry(CollidingBag.self, as: "CollidingBag")
        let bags = [2, 1, 2].enumerated().map { CollidingBag(kind: $0.element, serial: $0.offset) }
        let bytes = try KeyedArchiver.archive(bags, registry: registry)
        let outcome = try Self.bothWays([CollidingBag].self, bytes, registry: registry)
        #expect(try outcome.direct.get() == bags)
        #expect(try outcome.usual.get() == bags)
    }
}
