// Measures how much stack one nesting level costs on each recursive path (models and the
// Codable bridge, decoding and encoding), and, with --depths, how deep each path gets on
// threads of 256 KiB, 512 KiB, 1 MiB and 8 MiB before it stops with an error. Figures for
// Docs/Security.md: run it in release (`swift run -c release keyedarchive-stack-benchmark
// --depths`) and in debug (`swift run keyedarchive-stack-benchmark --depths`). --check (release
// only, run by .ci/run) fails unless a 256-level model chain decodes on a 512 KiB thread.
import Foundation
import KeyedArchive
@_spi(KeyedArchiveInternals) import PropertyList

/// Stack positions recorded at each level of the recursion being measured.
nonisolated(unsafe) var recordedPositions: [UInt] = []

@inline(never)
func recordPosition() {
    recordedPositions.append(ThreadStackLimit.currentStackPosition())
}

final class Node: KeyedArchivable, Link {
    var child: Node?
    var label: String

    required init(child: Node?, label: String) {
        self.child = child
        self.label = label
    }

    required init(from decoder: KeyedArchiveDecoder) throws {
        recordPosition()
        label = try decoder.decode(String.self, forKey: "label")
        child = try decoder.decodeIfPresent(Node.self, forKey: "child")
    }

    func encode(to encoder: KeyedArchiveEncoder) throws {
        recordPosition()
        try encoder.encode(label, forKey: "label")
        try encoder.encode(child, forKey: "child")
    }
}

final class Box: Codable, Link {
    var child: Box?
    var label: String

    required init(child: Box?, label: String) {
        self.child = child
        self.label = label
    }

    enum CodingKeys: String, CodingKey { case child, label }

    init(from decoder: any Decoder) throws {
        recordPosition()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label = try container.decode(String.self, forKey: .label)
        child = try container.decodeIfPresent(Box.self, forKey: .child)
    }

    func encode(to encoder: any Encoder) throws {
        recordPosition()
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encodeIfPresent(child, forKey: .child)
    }
}

/// The two linked lists measured, built from the tail and freed from the head without recursion.
protocol Link: AnyObject {
    var child: Self? { get set }
    init(child: Self?, label: String)
}

func makeChain<T: Link>(_ type: T.Type, _ count: Int) -> T {
    var head: T? = nil
    for level in stride(from: count - 1, through: 0, by: -1) { head = T(child: head, label: "n\(level)") }
    return head ?? T(child: nil, label: "empty")
}

func freeChain<T: Link>(_ head: T?) {
    var next = head
    while let node = next { next = node.child; node.child = nil }
}

func makeNodeChain(_ count: Int) -> Node { makeChain(Node.self, count) }
func freeNodeChain(_ head: Node?) { freeChain(head) }
func makeBoxChain(_ count: Int) -> Box { makeChain(Box.self, count) }
func freeBoxChain(_ head: Box?) { freeChain(head) }

final class ResultSlot<R>: @unchecked Sendable { var value: R? }

/// Runs `body` on a new thread with `stackSize` bytes of stack and waits for it.
func onThread<R>(stackSize: Int, _ body: @escaping @Sendable () -> R) -> R {
    let slot = ResultSlot<R>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        slot.value = body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    guard let value = slot.value else { fatalError("the thread produced nothing") }
    return value
}

let sharedRegistry: ArchiveRegistry = {
    var registry = ArchiveRegistry()
    registry.register(Node.self, className: "Node")
    return registry
}()
let deepWriting: ArchiveWritingOptions = {
    var options = ArchiveWritingOptions.default
    options.maximumDepth = 1 << 20
    return options
}()
let deepReading: ArchiveReadingOptions = {
    var options = ArchiveReadingOptions.default
    options.maximumDepth = 1 << 20
    options.propertyList.maximumDepth = 1 << 20
    return options
}()
let big = 256 << 20

/// Median per-level stack use over the middle of the recorded positions.
func perLevel(_ positions: [UInt]) -> Int {
    guard positions.count > 20 else { return -1 }
    var steps: [Int] = []
    for index in 10..<(positions.count - 10) {
        steps.append(Int(bitPattern: positions[index - 1] &- positions[index]))
    }
    steps.sort()
    return steps[steps.count / 2]
}

let levels = 200
let checkOnly = CommandLine.arguments.contains("--check")
let nodeBytes: [UInt8] = onThread(stackSize: big) {
    let head = makeNodeChain(levels)
    defer { freeNodeChain(head) }
    return (try? KeyedArchiver.archive(head, registry: sharedRegistry, options: deepWriting)) ?? []
}
let codableBytes: [UInt8] = onThread(stackSize: big) {
    let head = makeBoxChain(levels)
    defer { freeBoxChain(head) }
    let archiver = KeyedArchiver(registry: sharedRegistry, options: deepWriting)
    do {
        try archiver.encodeEncodable(head, forKey: "root")
        return try archiver.finish()
    } catch { return [] }
}

func measure(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let step: Int = onThread(stackSize: big) {
        recordedPositions = []
        body()
        return perLevel(recordedPositions)
    }
    print("\(name): \(step) bytes per level")
}

#if DEBUG
print("build: debug")
#else
print("build: release")
#endif
measure("model decode") {
    let node = try? KeyedUnarchiver.unarchive(Node.self, from: nodeBytes, registry: sharedRegistry, options: deepReading)
    freeNodeChain(node)
}
measure("model encode") {
    let head = makeNodeChain(levels)
    recordedPositions = []
    _ = try? KeyedArchiver.archive(head, registry: sharedRegistry, options: deepWriting)
    freeNodeChain(head)
}
measure("Codable decode (decodeDecodable)") {
    let unarchiver = try? KeyedUnarchiver(bytes: codableBytes, registry: sharedRegistry, options: deepReading)
    let box = try? unarchiver?.decodeDecodable(Box.self, forKey: "root")
    freeBoxChain(box ?? nil)
}
measure("Codable encode (encodeEncodable)") {
    let head = makeBoxChain(levels)
    recordedPositions = []
    let archiver = KeyedArchiver(registry: sharedRegistry, options: deepWriting)
    try? archiver.encodeEncodable(head, forKey: "root")
    freeBoxChain(head)
}

/// How a decode or encode of a chain of `count` levels ends on a thread of `stackSize` bytes.
func outcome(_ stackSize: Int, _ body: @escaping @Sendable () throws -> Void) -> String {
    onThread(stackSize: stackSize) {
        do {
            try body()
            return "ok"
        } catch let error as ArchiveError {
            return "\(error.code): \(error.message)"
        } catch {
            return "\(error)"
        }
    }
}

/// A chain of `levels` Node objects made as generic objects, the deepest one's child being an
/// object of an unregistered class (`refused`), the first node (`cycle`), or nothing (`ok`).
func genericChainArchive(levels: Int, ending: String) -> [UInt8] {
    onThread(stackSize: 1 << 30) {
        let nodes = (0..<levels).map { level in
            ArchiveGenericObject(classes: ["Node", "NSObject"], fields: [("label", .object("n\(level)"))])
        }
        for level in 0..<levels {
            let child: (any ArchiveObjectEncodable)? = level + 1 < levels ? nodes[level + 1]
                : ending == "refused" ? ArchiveGenericObject(classes: ["Evil", "NSObject"]) : ending == "cycle" ? nodes[0] : nil
            if let child { nodes[level].fields.append((key: "child", value: .object(child))) }
        }
        defer { for node in nodes { node.fields.removeAll() } }
        return (try? KeyedArchiver.archive(nodes[0], registry: sharedRegistry, options: deepWriting)) ?? []
    }
}

if CommandLine.arguments.contains("--deep-failure") {
    // Issue 31: rejecting a deep chain cost time quadratic in its depth (64,000 levels: 58.6 s).
    print("decoding chains on a 1 GiB thread, maximumDepth raised; median of 5 runs")
    for levels in [8_000, 16_000, 32_000, 64_000] {
        var line = "\(levels) levels:"
        for ending in ["ok", "refused", "cycle"] {
            let bytes = genericChainArchive(levels: levels, ending: ending)
            var times: [Double] = []
            var result = ""
            for _ in 0..<5 {
                let start = DispatchTime.now().uptimeNanoseconds
                result = outcome(1 << 30) {
                    let node = try KeyedUnarchiver.unarchive(Node.self, from: bytes, registry: sharedRegistry, options: deepReading)
                    freeNodeChain(node)
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            let code = result == "ok" ? "ok" : String(result.prefix { $0 != ":" })
            line += "  \(ending) (\(bytes.count / 1024) KiB) \(code) \(String(format: "%.1f", times[2])) ms"
        }
        print(line)
    }
    exit(0)
}

guard CommandLine.arguments.contains("--depths") || checkOnly else { exit(0) }
/// What `--check` (run by .ci/run on a release build) requires: the issue-22 target.
var failures: [String] = []
let deepCount = 100_000
let deepNodeBytes: [UInt8] = onThread(stackSize: 1 << 30) {
    let head = makeNodeChain(deepCount)
    defer { freeNodeChain(head) }
    return (try? KeyedArchiver.archive(head, registry: sharedRegistry, options: deepWriting)) ?? []
}
print("deep chain archive: \(deepNodeBytes.count) bytes")
let chain256: [UInt8] = onThread(stackSize: big) {
    let head = makeNodeChain(256)
    defer { freeNodeChain(head) }
    return (try? KeyedArchiver.archive(head, registry: sharedRegistry)) ?? []
}
for stackSize in [256 << 10, 512 << 10, 1 << 20, 8 << 20] {
    print("thread \(stackSize >> 10) KiB:")
    print("  model decode of \(deepCount): " + outcome(stackSize) {
        let node = try KeyedUnarchiver.unarchive(Node.self, from: deepNodeBytes, registry: sharedRegistry, options: deepReading)
        freeNodeChain(node)
    })
    print("  model encode of \(deepCount): " + outcome(stackSize) {
        let head = makeNodeChain(deepCount)
        defer { freeNodeChain(head) }
        _ = try KeyedArchiver.archive(head, registry: sharedRegistry, options: deepWriting)
    })
    print("  Codable encode of \(deepCount): " + outcome(stackSize) {
        let head = makeBoxChain(deepCount)
        defer { freeBoxChain(head) }
        let archiver = KeyedArchiver(registry: sharedRegistry, options: deepWriting)
        try archiver.encodeEncodable(head, forKey: "root")
    })
    let shallow = outcome(stackSize) {
        let node = try KeyedUnarchiver.unarchive(Node.self, from: chain256, registry: sharedRegistry)
        freeNodeChain(node)
    }
    print("  model decode of 256: " + shallow)
    if stackSize >= 512 << 10, shallow != "ok" { failures.append("a 256-level model chain on a \(stackSize >> 10) KiB thread: \(shallow)") }
}
#if DEBUG
if checkOnly { print("--check measures a release build (swift run -c release keyedarchive-stack-benchmark --check)"); exit(2) }
#endif
if checkOnly {
    if failures.isEmpty {
        print("check passed: a 256-level model chain decodes on a 512 KiB thread, and every deeper input stopped with an error")
    } else {
        print("check failed:\n" + failures.joined(separator: "\n"))
        exit(1)
    }
}
