import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Cooperative cancellation and the time budget (issue 31): a decode or encode that must stop
/// does so within a bounded amount of further work, throws `cancelled` or `timeLimitExceeded`
/// with the key path it had reached, leaks nothing, and leaves the registry usable.
@Suite struct InterruptionTests {
    /// What the models of one test saw: the items made and encoded, those alive, and when to act.
    final class Tracker: @unchecked Sendable {
        private let lock = NSLock()
        private var _made = 0, _encoded = 0, _alive = 0
        /// The item whose `init(from:)` or `encode(to:)` cancels the task or sleeps.
        let actAt: Int
        let action: Action
        enum Action { case cancel, sleep(Duration) }

        init(actAt: Int, action: Action) {
            self.actAt = actAt
            self.action = action
        }

        func made() -> Int { lock.withLock { _made += 1; _alive += 1; return _made } }
        func encoded() -> Int { lock.withLock { _encoded += 1; return _encoded } }
        func released() { lock.withLock { _alive -= 1 } }
        var madeCount: Int { lock.withLock { _made } }
        var encodedCount: Int { lock.withLock { _encoded } }
        var alive: Int { lock.withLock { _alive } }

        func act(at count: Int) {
            guard count == actAt else { return }
            switch action {
            case .cancel: withUnsafeCurrentTask { $0?.cancel() }
            case .sleep(let duration): Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            }
        }

        @TaskLocal static var current: Tracker?
    }

    final class Item: KeyedArchivable, @unchecked Sendable {
        let name: String
        private let tracker: Tracker?

        init(name: String) {
            self.name = name
            tracker = nil
        }

        init(from decoder: KeyedArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            tracker = Tracker.current
            if let tracker { tracker.act(at: tracker.made()) }
        }

        func encode(to encoder: KeyedArchiveEncoder) throws {
            if let tracker = Tracker.current { tracker.act(at: tracker.encoded()) }
            try encoder.encode(name, forKey: "name")
        }

        deinit { tracker?.released() }
    }

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(Item.self)
        return registry
    }()

    static let itemCount = 20_000
    static let items = (0..<itemCount).map { Item(name: "item \($0)") }
    static let binary: [UInt8] = (try? KeyedArchiver.archive(items, registry: registry)) ?? []
    static let xml: [UInt8] = (try? KeyedArchiver.archive(items, registry: registry, format: .xml)) ?? []

    /// Each item is two references (the item and its name): a check every `interval` references
    /// lets at most `interval / 2` more items through, plus the one that acted.
    static let boundOnItemsAfterTheAct = WorkInterruption.interval / 2 + 2

    @Test(arguments: ["binary", "xml"])
    func aCancelledDecodeStopsSoonAtItsKeyPath(format: String) async throws {
        let bytes = format == "binary" ? Self.binary : Self.xml
        let tracker = Tracker(actAt: 5_000, action: .cancel)
        let outcome = await Task {
            Tracker.$current.withValue(tracker) { () -> ArchiveError? in
                do throws(ArchiveError) {
                    _ = try KeyedUnarchiver.unarchive([Item].self, from: bytes, registry: Self.registry)
                    return nil
                } catch {
                    return error
                }
            }
        }.value
        let error = try #require(outcome)
        #expect(error.code == .cancelled)
        #expect(tracker.madeCount - tracker.actAt <= Self.boundOnItemsAfterTheAct, "\(tracker.madeCount - tracker.actAt) items made after the cancellation")
        // The key path names where the decode was: an element of the root array past the act.
        #expect(error.keyPath.components.first == .key("root"))
        if case .index(let position)? = error.keyPath.components.dropFirst().first {
            #expect(position >= tracker.actAt - 1 && position <= tracker.madeCount)
        } else {
            Issue.record("key path \(error.keyPath)")
        }
        // Nothing the failed decode made is kept alive, and the registry decodes again.
        #expect(tracker.alive == 0)
        #expect(try KeyedUnarchiver.unarchive([Item].self, from: bytes, registry: Self.registry).count == Self.itemCount)
    }

    @Test func aDecodeOverItsBudgetStopsSoon() async throws {
        let tracker = Tracker(actAt: 100, action: .sleep(.milliseconds(400)))
        var options = ArchiveReadingOptions()
        options.maximumDuration = .milliseconds(300)
        let reading = options
        let outcome = Tracker.$current.withValue(tracker) { () -> ArchiveError? in
            do throws(ArchiveError) {
                _ = try KeyedUnarchiver.unarchive([Item].self, from: Self.binary, registry: Self.registry, options: reading)
                return nil
            } catch {
                return error
            }
        }
        let error = try #require(outcome)
        #expect(error.code == .timeLimitExceeded)
        #expect(error.message.contains("0.3 seconds"))
        #expect(tracker.madeCount - tracker.actAt <= Self.boundOnItemsAfterTheAct)
        #expect(tracker.alive == 0)
    }

    @Test func aCancelledEncodeStopsSoon() async throws {
        let tracker = Tracker(actAt: 3_000, action: .cancel)
        let outcome = await Task {
            Tracker.$current.withValue(tracker) { () -> ArchiveError? in
                do throws(ArchiveError) {
                    _ = try KeyedArchiver.archive(Self.items, registry: Self.registry)
                    return nil
                } catch {
                    return error
                }
            }
        }.value
        let error = try #require(outcome)
        #expect(error.code == .cancelled)
        #expect(tracker.encodedCount - tracker.actAt <= WorkInterruption.interval + 1)
        #expect(error.keyPath.components.first == .key("root"))
        // The registry encodes again.
        #expect(try KeyedArchiver.archive(Self.items, registry: Self.registry) == Self.binary)
    }

    @Test func anEncodeOverItsBudgetStops() throws {
        let tracker = Tracker(actAt: 10, action: .sleep(.milliseconds(150)))
        var options = ArchiveWritingOptions()
        options.maximumDuration = .milliseconds(100)
        let writing = options
        let outcome = Tracker.$current.withValue(tracker) { () -> ArchiveError? in
            do throws(ArchiveError) {
                _ = try KeyedArchiver.archive(Self.items, registry: Self.registry, options: writing)
                return nil
            } catch {
                return error
            }
        }
        #expect(outcome?.code == .timeLimitExceeded)
        #expect(tracker.encodedCount - tracker.actAt <= WorkInterruption.interval + 1)
    }

    /// A task cancelled before the decode starts stops in the file's checks: nothing is made.
    @Test(arguments: ["binary", "xml", "graph", "propertyList"])
    func aCancelledTaskStopsBeforeDecoding(entry: String) async throws {
        let tracker = Tracker(actAt: -1, action: .cancel)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return Tracker.$current.withValue(tracker) { () -> String in
                do throws(ArchiveError) {
                    switch entry {
                    case "binary": _ = try KeyedUnarchiver(bytes: Self.binary, registry: Self.registry)
                    case "xml": _ = try KeyedUnarchiver(bytes: Self.xml, registry: Self.registry)
                    case "graph": _ = try ArchiveGraph(bytes: Self.xml)
                    default:
                        do throws(PropertyListError) {
                            _ = try PropertyListCodec.decode(Self.xml)
                            return "read"
                        } catch {
                            return error.code.rawValue
                        }
                    }
                    return "read"
                } catch {
                    return error.code.rawValue
                }
            }
        }
        #expect(await task.value == "cancelled")
        #expect(tracker.madeCount == 0)
    }

    @Test func aDecodeThatMustFinishIgnoresCancellation() async throws {
        var options = ArchiveReadingOptions()
        options.respondsToCancellation = false
        let reading = options
        let count = await Task { () -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return (try? KeyedUnarchiver.unarchive([Item].self, from: Self.binary, registry: Self.registry, options: reading).count) ?? -1
        }.value
        #expect(count == Self.itemCount)
    }

    /// No budget, no cancellation: the decode runs as before, and the same options decode alike
    /// outside a task.
    @Test func anUnlimitedDecodeIsUnchanged() throws {
        #expect(try KeyedUnarchiver.unarchive([Item].self, from: Self.binary, registry: Self.registry).map(\.name) == Self.items.map(\.name))
        var options = ArchiveReadingOptions()
        options.maximumDuration = .seconds(3600)
        #expect(try KeyedUnarchiver.unarchive([Item].self, from: Self.xml, registry: Self.registry, options: options).count == Self.itemCount)
    }
}
