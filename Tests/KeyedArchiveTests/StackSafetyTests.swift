import Foundation
import PropertyList
import Testing
@testable import KeyedArchive

/// Deep data on threads with small stacks: every decode and encode either succeeds or throws a
/// typed error, never a signal. The inputs are made by `Fixtures/deep/make_deep.py` (Python's
/// plistlib and hand-written bytes, not our encoder) or, for 100,000 levels, by hand here as flat
/// property lists. These tests run in the debug build, where a level costs several times the
/// stack it costs optimized; `keyedarchive-stack-benchmark` measures both (Docs/Security.md).
@Suite struct StackSafetyTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/deep")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// 256 KiB, 512 KiB (Apple's secondary threads), and 8 MiB (a main thread's).
    static let stackSizes = [256 << 10, 512 << 10, 8 << 20]

    /// Limits raised far past any stack, so that the stack guard is what stops the recursion.
    static let deepReading: ArchiveReadingOptions = {
        var options = ArchiveReadingOptions()
        options.maximumDepth = 1 << 20
        return options
    }()
    static let deepWriting: ArchiveWritingOptions = {
        var options = ArchiveWritingOptions()
        options.maximumDepth = 1 << 20
        return options
    }()

    static let registry: ArchiveRegistry = {
        var registry = ArchiveRegistry()
        registry.register(ChainNode.self, className: "Node")
        return registry
    }()

    /// The end of a decode or encode: success with a result, or the error it threw.
    enum Outcome<Value: Sendable>: Sendable {
        case success(Value)
        case failure(ArchiveError)

        /// Any error as an `ArchiveError` (one of another type fails the test's code checks).
        static func caught(_ error: any Error) -> Outcome {
            .failure(error as? ArchiveError ?? ArchiveError(.modelError, "not an ArchiveError: \(error)"))
        }

        var error: ArchiveError? {
            if case .failure(let error) = self { return error }
            return nil
        }
    }

    // MARK: Models

    @Test(arguments: [10, 100, 1_000, 10_000, 100_000], stackSizes)
    func modelChainDecodesOrStops(levels: Int, stackSize: Int) throws {
        let bytes = levels == 10_000 ? try Self.fixture("node-chain-10000.plist") : try Self.nodeChainArchive(levels: levels)
        let outcome = onThread(stackSize: stackSize) { () -> Outcome<Int> in
            do {
                let head = try KeyedUnarchiver.unarchive(ChainNode.self, from: bytes, registry: Self.registry, options: Self.deepReading)
                return .success(ChainNode.unlinkCounting(head))
            } catch {
                return .caught(error)
            }
        }
        switch outcome {
        case .success(let length):
            #expect(length == levels)
        case .failure(let error):
            #expect(error.code == .stackExhausted, "\(error)")
            // The stop names where it is: root.child.child…, as deep as it got.
            #expect(error.keyPath.components.first == .key("root"))
            #expect(error.keyPath.components.dropFirst().allSatisfy { $0 == .key("child") })
            #expect(error.keyPath.components.count > 5)
            // The stack the thread really has: glibc may hand a thread a cached stack larger
            // than the one asked for, never a smaller one.
            let reported = Self.reportedStackKiB(error.message)
            #expect(reported.map { $0 >= stackSize >> 10 } == true, "\(error.message)")
        }
        // Shallow chains fit every thread, even in a debug build.
        if levels <= 10 { #expect(outcome.error == nil) }
        if levels <= 100 && stackSize >= 8 << 20 { #expect(outcome.error == nil) }
        if levels >= 10_000 { #expect(outcome.error?.code == .stackExhausted) }
    }

    @Test func defaultDepthLimitStillStopsFirstOnABigStack() throws {
        let bytes = try Self.fixture("node-chain-10000.plist")
        let outcome = onThread(stackSize: 64 << 20) { () -> Outcome<Int> in
            do {
                let head = try KeyedUnarchiver.unarchive(ChainNode.self, from: bytes, registry: Self.registry)
                return .success(ChainNode.unlinkCounting(head))
            } catch {
                return .caught(error)
            }
        }
        #expect(outcome.error?.code == .depthLimitExceeded)
    }

    /// Docs/Security.md's recipe for deeper data: its function, as written there, decodes the
    /// 10,000-level fixture that every small thread refuses. (On Apple platforms the recipe's
    /// Mutex needs macOS 15 / iOS 18; Swift Testing reports the test as skipped below those.)
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func deepDataDecodesOnABigStack() throws {
        let bytes = try Self.fixture("node-chain-10000.plist")
        let head = try unarchiveOnBigStack(ChainNode.self, from: bytes, registry: Self.registry, maximumDepth: 100_000, stackSize: 256 << 20)
        #expect(ChainNode.unlinkCounting(head) == 10_000)
    }

    @Test(arguments: [10, 1_000, 100_000], stackSizes)
    func callerChainEncodesOrStops(levels: Int, stackSize: Int) throws {
        let outcome = onThread(stackSize: stackSize) { () -> Outcome<[UInt8]> in
            guard let head = ChainNode.chain(levels) else { return .caught(ArchiveError(.invalidState, "no chain")) }
            defer { _ = ChainNode.unlinkCounting(head) }
            do {
                return .success(try KeyedArchiver.archive(head, registry: Self.registry, options: Self.deepWriting))
            } catch {
                return .caught(error)
            }
        }
        switch outcome {
        case .success(let bytes):
            // What we wrote is what plistlib would read: a chain of `levels` Node objects.
            let graph = try ArchiveGraph(bytes: bytes)
            #expect(graph.objects.count == 2 + 2 * levels)
        case .failure(let error):
            #expect(error.code == .stackExhausted, "\(error)")
            #expect(error.keyPath.components.first == .key("root"))
            #expect(error.message.contains("while encoding"))
        }
        if levels <= 10 { #expect(outcome.error == nil) }
        if levels >= 100_000 { #expect(outcome.error?.code == .stackExhausted) }
    }

    /// A chain made of shared objects: the top array lists 100,000 nodes, each node's child
    /// the node before it, so no decode nests more than two levels while the graph is one
    /// chain 100,000 long. The decode then fails on the array's last element, and what was
    /// built is freed on the small thread.
    @Test(arguments: [256 << 10, 512 << 10])
    func longChainOfSharedObjectsIsFreedWithoutRecursion(stackSize: Int) throws {
        let bytes = try Self.sharedNodeChainArchive(levels: 100_000, endingInRefusedClass: true)
        let outcome = onThread(stackSize: stackSize) { () -> Outcome<Int> in
            do {
                let nodes = try KeyedUnarchiver.unarchive([ChainNode].self, from: bytes, registry: Self.registry)
                return .success(nodes.count)
            } catch {
                return .caught(error)
            }
        }
        #expect(outcome.error?.code == .classNotAllowed)
        #expect(outcome.error?.keyPath == ArchiveKeyPath([.key("root"), .index(100_000)]))
    }

    /// The same on a thread whose stack size is left to the system's default.
    @Test func deepChainsOnADefaultThread() throws {
        let bytes = try Self.nodeChainArchive(levels: 100_000)
        let outcome = onThread(stackSize: 0) { () -> [String] in
            var report: [String] = []
            do {
                let head = try KeyedUnarchiver.unarchive(ChainNode.self, from: bytes, registry: Self.registry, options: Self.deepReading)
                report.append("decoded \(ChainNode.unlinkCounting(head))")
            } catch {
                report.append("decode \((error as? ArchiveError)?.code.rawValue ?? "\(error)")")
            }
            let chain = ChainBox.chain(100_000)
            defer { _ = ChainBox.unlinkCounting(chain) }
            do {
                let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: Self.deepWriting)
                try archiver.encodeEncodable(chain, forKey: "root")
                report.append("encoded")
            } catch {
                report.append("encode \((error as? ArchiveError)?.code.rawValue ?? "\(error)")")
            }
            return report
        }
        #expect(outcome == ["decode stackExhausted", "encode stackExhausted"])
    }

    // MARK: The Codable bridge

    @Test(arguments: stackSizes)
    func codableTreeDecodesOrStops(stackSize: Int) throws {
        let bytes = try Self.fixture("codable-tree-3000.plist")
        for options in [ArchiveReadingOptions.default, Self.deepReading] {
            let outcome = onThread(stackSize: stackSize) { () -> Outcome<Int> in
                do {
                    let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry(), options: options)
                    let box = try unarchiver.decodeDecodable(ChainBox.self, forKey: "root")
                    return .success(ChainBox.unlinkCounting(box))
                } catch {
                    return .caught(error)
                }
            }
            switch outcome {
            case .success(let length):
                #expect(length == 3000)
            case .failure(let error):
                if options.maximumDepth == ArchiveReadingOptions.default.maximumDepth {
                    // The tree is 3,000 dictionaries deep: the policy stops it before any stack is at risk.
                    #expect(error.code == .depthLimitExceeded, "\(error)")
                } else {
                    #expect(error.code == .stackExhausted, "\(error)")
                    // The key path runs on through the Codable coding path.
                    #expect(error.keyPath.components.first == .key("root"))
                    #expect(error.keyPath.components.dropFirst().allSatisfy { $0 == .key("child") })
                    #expect(error.keyPath.components.count > 5)
                }
            }
            if stackSize < 8 << 20 { #expect(outcome.error != nil) }
        }
    }

    @Test(arguments: [10, 100_000], stackSizes)
    func codableChainEncodesOrStops(levels: Int, stackSize: Int) throws {
        let outcome = onThread(stackSize: stackSize) { () -> Outcome<[UInt8]> in
            guard let head = ChainBox.chain(levels) else { return .caught(ArchiveError(.invalidState, "no chain")) }
            defer { _ = ChainBox.unlinkCounting(head) }
            do {
                let archiver = KeyedArchiver(registry: ArchiveRegistry(), options: Self.deepWriting)
                try archiver.encodeEncodable(head, forKey: "root")
                return .success(try archiver.finish())
            } catch {
                return .caught(error)
            }
        }
        switch outcome {
        case .success(let bytes):
            #expect(levels == 10)
            let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
            let box = try unarchiver.decodeDecodable(ChainBox.self, forKey: "root")
            #expect(ChainBox.unlinkCounting(box) == levels)
        case .failure(let error):
            #expect(error.code == .stackExhausted, "\(error)")
            #expect(error.keyPath.components.first == .key("root"))
            #expect(error.keyPath.components.dropFirst().allSatisfy { $0 == .key("child") })
        }
        if levels >= 100_000 { #expect(outcome.error?.code == .stackExhausted) }
    }

    // MARK: Collections and property lists

    @Test(arguments: stackSizes)
    func nestedArraysStopAtTheDepthLimit(stackSize: Int) throws {
        let bytes = try Self.fixture("nested-arrays-10000.plist")
        let outcome = onThread(stackSize: stackSize) { () -> Outcome<Int> in
            do {
                let unarchiver = try KeyedUnarchiver(bytes: bytes, registry: ArchiveRegistry())
                _ = try unarchiver.decode(PropertyListValue.self, forKey: "root")
                return .success(0)
            } catch {
                return .caught(error)
            }
        }
        #expect(outcome.error?.code == .depthLimitExceeded)
        // The generic view and its renderers walk with stacks of their own.
        let rendered = onThread(stackSize: stackSize) { () -> Outcome<Int> in
            do {
                let graph = try ArchiveGraph(bytes: bytes)
                return .success(ArchiveDumper.dump(graph).count)
            } catch {
                return .caught(error)
            }
        }
        if case .success(let length) = rendered { #expect(length > 10_000) } else { Issue.record("dump failed: \(String(describing: rendered.error))") }
    }

    @Test(arguments: stackSizes)
    func plistNestingPastTheLimitIsRefused(stackSize: Int) throws {
        let nested = try Self.fixture("plist-nested-arrays-100000.bplist")
        let shared = try Self.fixture("plist-shared-chain.bplist")
        let outcomes = onThread(stackSize: stackSize) { () -> [PropertyListError.Code?] in
            [nested, shared].map { bytes -> PropertyListError.Code? in
                do throws(PropertyListError) {
                    _ = try PropertyListCodec.decode(bytes)
                    return nil
                } catch {
                    return error.code
                }
            }
        }
        #expect(outcomes == [PropertyListError.Code.depthLimitExceeded, PropertyListError.Code.depthLimitExceeded])
    }

    /// Shared containers nest as deep as their deepest reference puts them: each segment of the
    /// fixture is 400 arrays deep and ends in the previous, finished one, so the walk never goes
    /// past 402 levels while the value would nest 20,000 deep.
    @Test func sharedChainDepthIsCountedWhereItIsReferenced() throws {
        let shared = try Self.fixture("plist-shared-chain.bplist")
        var options = PropertyListReadingOptions()
        options.maximumDepth = 800
        // Two segments fit 800 levels; the third reference puts the chain past it.
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode(shared, options: options) }
        do throws(PropertyListError) {
            _ = try PropertyListCodec.decode(shared, options: options)
        } catch {
            #expect(error.code == .depthLimitExceeded)
            #expect(error.message.contains("shared container"), "\(error.message)")
        }
        // The general reader's document counts the same way.
        var unlimited = PropertyListReadingOptions()
        unlimited.maximumDepth = 1 << 20
        let document = try BinaryPropertyListReader.read(shared, options: unlimited)
        #expect(throws: PropertyListError.self) { try document.value(options: options) }
        // Without the shared segments' heights, the walk alone stayed within 402 levels.
        options.maximumDepth = 402
        #expect(throws: PropertyListError.self) { try PropertyListCodec.decode(shared, options: options) }
    }

    /// Values as deep as the default limit allows can be read, compared, hashed and freed on
    /// the smallest thread the package supports (comparison and hashing keep stacks of their
    /// own); the writers, which recurse, either write them or stop with `stackExhausted`.
    @Test(arguments: stackSizes)
    func valuesAtTheDefaultDepthAreSafeOnSmallStacks(stackSize: Int) throws {
        let nested = try Self.fixture("plist-nested-arrays-100000.bplist")
        let outcome = onThread(stackSize: stackSize) { () -> [String] in
            var report: [String] = []
            var value = PropertyListValue.string("leaf")
            for _ in 0..<PropertyListReadingOptions.default.maximumDepth { value = .array([value]) }
            let copy = value
            var different = PropertyListValue.string("other")
            for _ in 0..<PropertyListReadingOptions.default.maximumDepth { different = .array([different]) }
            report.append("depth \(Self.depth(of: value)) equal \(copy == value) differs \(different != value) hash \(copy.hashValue == value.hashValue)")
            for (name, write) in [("binary", { try BinaryPropertyListWriter().write(value) }), ("xml", { try XMLPropertyListWriter().write(value) })] as [(String, () throws -> [UInt8])] {
                do {
                    let bytes = try write()
                    report.append("\(name) \(try PropertyListCodec.decode(bytes) == value)")
                } catch let error as PropertyListError {
                    report.append("\(name) \(error.code)")
                } catch {
                    report.append("\(name) \(error)")
                }
            }
            // Past the default limit, raised by the caller: read only while the thread could
            // release the value.
            var options = PropertyListReadingOptions()
            options.maximumDepth = 1 << 20
            do throws(PropertyListError) {
                report.append("raised \(Self.depth(of: try PropertyListCodec.decode(nested, options: options)))")
            } catch {
                report.append("raised \(error.code)")
            }
            return report
        }
        #expect(outcome[0] == "depth 512 equal true differs true hash true")
        for (position, name) in ["binary", "xml"].enumerated() {
            let line = outcome[position + 1]
            #expect(line == "\(name) true" || line == "\(name) stackExhausted", "\(line)")
            if stackSize >= 8 << 20 { #expect(line == "\(name) true") }
        }
        #expect(outcome[3] == "raised stackExhausted")
    }

    // MARK: Support

    /// A flat archive of a chain of `levels` Node objects, built as a property list (the nesting
    /// is in the UIDs, so nothing here recurses) and written by the property-list writer.
    static func nodeChainArchive(levels: Int) throws -> [UInt8] {
        var objects: [PropertyListValue] = [.string("$null")]
        var classDescriptor = PropertyListDictionary()
        classDescriptor.append(key: "$classname", value: .string("Node"))
        classDescriptor.append(key: "$classes", value: .array([.string("Node")]))
        objects.append(.dictionary(classDescriptor))
        for level in 0..<levels {
            let node = objects.count
            var fields = PropertyListDictionary()
            fields.append(key: "$class", value: .uid(PropertyListUID(1)))
            fields.append(key: "label", value: .uid(PropertyListUID(UInt64(node + 1))))
            if level + 1 < levels { fields.append(key: "child", value: .uid(PropertyListUID(UInt64(node + 2)))) }
            objects.append(.dictionary(fields))
            objects.append(.string("n\(level)"))
        }
        var top = PropertyListDictionary()
        top.append(key: "root", value: .uid(PropertyListUID(2)))
        var root = PropertyListDictionary()
        root.append(key: "$version", value: .integer(PropertyListInteger(100_000)))
        root.append(key: "$archiver", value: .string("NSKeyedArchiver"))
        root.append(key: "$top", value: .dictionary(top))
        root.append(key: "$objects", value: .array(objects))
        return try BinaryPropertyListWriter().write(.dictionary(root))
    }

    /// A top-level NSArray of `levels` Node objects, node i's child being node i - 1, and, if
    /// asked, one more element of an unregistered class.
    static func sharedNodeChainArchive(levels: Int, endingInRefusedClass: Bool) throws -> [UInt8] {
        func classDescriptor(_ name: String, _ chain: [String]) -> PropertyListValue {
            var descriptor = PropertyListDictionary()
            descriptor.append(key: "$classname", value: .string(name))
            descriptor.append(key: "$classes", value: .array(chain.map { .string($0) }))
            return .dictionary(descriptor)
        }
        // 0 $null, 1 Node's class, 2 NSArray's class, 3 Evil's class, 4 the Evil object, 5 the array.
        var objects: [PropertyListValue] = [.string("$null"), classDescriptor("Node", ["Node"]), classDescriptor("NSArray", ["NSArray", "NSObject"]),
                                            classDescriptor("Evil", ["Evil", "NSObject"])]
        var evil = PropertyListDictionary()
        evil.append(key: "$class", value: .uid(PropertyListUID(3)))
        objects.append(.dictionary(evil))
        let firstNode = 6
        var elements: [PropertyListValue] = []
        for level in 0..<levels {
            elements.append(.uid(PropertyListUID(UInt64(firstNode + 2 * level))))
        }
        if endingInRefusedClass { elements.append(.uid(PropertyListUID(4))) }
        var array = PropertyListDictionary()
        array.append(key: "$class", value: .uid(PropertyListUID(2)))
        array.append(key: "NS.objects", value: .array(elements))
        objects.append(.dictionary(array))
        for level in 0..<levels {
            let node = objects.count
            var fields = PropertyListDictionary()
            fields.append(key: "$class", value: .uid(PropertyListUID(1)))
            fields.append(key: "label", value: .uid(PropertyListUID(UInt64(node + 1))))
            if level > 0 { fields.append(key: "child", value: .uid(PropertyListUID(UInt64(node - 2)))) }
            objects.append(.dictionary(fields))
            objects.append(.string("n\(levels - 1 - level)"))
        }
        var top = PropertyListDictionary()
        top.append(key: "root", value: .uid(PropertyListUID(5)))
        var root = PropertyListDictionary()
        root.append(key: "$version", value: .integer(PropertyListInteger(100_000)))
        root.append(key: "$archiver", value: .string("NSKeyedArchiver"))
        root.append(key: "$top", value: .dictionary(top))
        root.append(key: "$objects", value: .array(objects))
        return try BinaryPropertyListWriter().write(.dictionary(root))
    }

    /// The thread stack size a `stackExhausted` message reports, in KiB.
    static func reportedStackKiB(_ message: String) -> Int? {
        guard let start = message.range(of: "of this thread's stack (")?.upperBound,
              let end = message[start...].range(of: " KiB)")?.lowerBound else { return nil }
        return Int(message[start..<end])
    }

    /// How many containers deep `value` nests, counted without recursion.
    static func depth(of value: PropertyListValue) -> Int {
        var deepest = 0
        var pending: [(PropertyListValue, Int)] = [(value, 0)]
        while let (next, level) = pending.popLast() {
            switch next {
            case .array(let elements), .set(let elements):
                deepest = max(deepest, level + 1)
                pending.append(contentsOf: elements.map { ($0, level + 1) })
            case .dictionary(let dictionary):
                deepest = max(deepest, level + 1)
                pending.append(contentsOf: dictionary.entries.map { ($0.value, level + 1) })
            default:
                deepest = max(deepest, level)
            }
        }
        return deepest
    }
}

/// Runs `body` on a new thread with `stackSize` bytes of stack (0: the system's default), and
/// waits for it.
func onThread<R: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> R) -> R {
    let slot = ThreadResultSlot<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        slot.value = body()
        done.signal()
    }
    if stackSize > 0 { thread.stackSize = stackSize }
    thread.start()
    done.wait()
    guard let value = slot.value else { preconditionFailure("the thread returned nothing") }
    return value
}

/// Carries a thread's result out; written by the thread before it signals, read after the wait.
final class ThreadResultSlot<R>: @unchecked Sendable {
    var value: R?
}

/// The linked-list model of issue 22: a node that decodes its child eagerly.
final class ChainNode: KeyedArchivable, ChainLink {
    static let labelPrefix = "n"
    var child: ChainNode?
    let label: String

    init(label: String, child: ChainNode?) {
        self.label = label
        self.child = child
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        label = try decoder.decode(String.self, forKey: "label")
        child = try decoder.decodeIfPresent(ChainNode.self, forKey: "child")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        try encoder.encode(label, forKey: "label")
        try encoder.encode(child, forKey: "child")
    }
}

/// A `Codable` linked list, as `encodeEncodable` stores it: dictionaries in dictionaries.
final class ChainBox: Codable, ChainLink, @unchecked Sendable {
    static let labelPrefix = "b"
    var child: ChainBox?
    let label: String

    init(label: String, child: ChainBox?) {
        self.label = label
        self.child = child
    }
}

/// A linked list of the tests: built from the tail and taken apart from the head without
/// recursion, each node's label its position from the head.
protocol ChainLink: AnyObject {
    static var labelPrefix: String { get }
    var child: Self? { get set }
    var label: String { get }
    init(label: String, child: Self?)
}

extension ChainLink {
    static func chain(_ levels: Int) -> Self? {
        var head: Self?
        for level in stride(from: levels - 1, through: 0, by: -1) { head = Self(label: "\(labelPrefix)\(level)", child: head) }
        return head
    }

    /// The chain's length, checking each label (-1 on a wrong one); the links are cut as it
    /// goes, so that nothing is left to release a whole chain at once.
    static func unlinkCounting(_ head: Self?) -> Int {
        var count = 0
        var next = head
        while let node = next {
            if node.label != "\(labelPrefix)\(count)" { return -1 }
            count += 1
            next = node.child
            node.child = nil
        }
        return count
    }
}
