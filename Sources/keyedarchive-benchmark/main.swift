import Foundation
import PropertyList

// Benchmark: our property-list codec against Foundation's PropertyListSerialization on the
// same inputs, in one run. Release builds only: `swift run -c release keyedarchive-benchmark`.
// Each case runs in a fresh child process so its peak memory (VmHWM) is its own.

struct Measurement {
    var seconds: Double
    var peakBytes: Int
}

func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

func currentResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
    return 0
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Best of `runs` after one warm-up: the least disturbed run on a shared machine.
func time(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var best = Double.infinity
    for _ in 0..<runs {
        let start = now()
        try body()
        best = min(best, now() - start)
    }
    return best
}

func foundationObject(_ value: PropertyListValue) -> Any {
    switch value {
    case .string(let string): return NSString(string: string)
    case .integer(let integer): return NSNumber(value: integer.int64Value ?? 0)
    case .real(.float32(let float)): return NSNumber(value: float)
    case .real(.float64(let double)): return NSNumber(value: double)
    case .bool(let flag): return NSNumber(value: flag)
    case .date(let date): return NSDate(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate)
    case .data(let bytes): return NSData(bytes: bytes, length: bytes.count)
    // PropertyListSerialization has no public UID type; an archive's UIDs become small dicts,
    // as its XML form has them, which costs Foundation about the same to read and write.
    case .uid(let uid): return NSDictionary(object: NSNumber(value: uid.value), forKey: NSString(string: "CF$UID"))
    case .array(let elements), .set(let elements): return NSArray(array: elements.map(foundationObject))
    case .dictionary(let dictionary):
        let result = NSMutableDictionary(capacity: dictionary.count)
        for entry in dictionary.entries { result[NSString(string: entry.key)] = foundationObject(entry.value) }
        return result
    }
}

struct Input {
    var name: String
    var binary: [UInt8]
    var xml: [UInt8]?
}

func loadInputs() throws -> [Input] {
    var inputs: [Input] = []
    let arguments = CommandLine.arguments
    let sharedCorpus = URL(fileURLWithPath: "../shared/fixtures/apple")
    // The largest Apple fixtures of each format, when the corpus is beside the project.
    if FileManager.default.fileExists(atPath: sharedCorpus.path), !arguments.contains("--generated-only") {
        let manifest = try String(contentsOf: sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var rows: [(path: String, bytes: Int, format: String)] = []
        for line in manifest.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > 3, let size = Int(columns[2]) else { continue }
            rows.append((String(columns[0]), size, String(columns[3])))
        }
        for format in ["binary", "xml"] {
            if let largest = rows.filter({ $0.format == format }).max(by: { $0.bytes < $1.bytes }) {
                let bytes = [UInt8](try Data(contentsOf: sharedCorpus.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(largest.path)))
                let value = try PropertyListCodec.decode(bytes)
                let name = "largest \(format) fixture (\(largest.path.split(separator: "/").last ?? ""))"
                inputs.append(Input(name: name, binary: try BinaryPropertyListWriter().write(value), xml: try XMLPropertyListWriter().write(value)))
            }
        }
    }
    let archive = Workloads.keyedArchiveShape(objectCount: 640_000)
    inputs.append(Input(name: "generated keyed archive", binary: try BinaryPropertyListWriter().write(archive), xml: try XMLPropertyListWriter().write(archive)))
    let general = Workloads.generalPlist(records: 230_000)
    inputs.append(Input(name: "generated plist", binary: try BinaryPropertyListWriter().write(general), xml: try XMLPropertyListWriter().write(general)))
    return inputs
}

func megabytes(_ count: Int) -> String { String(format: "%.1f MB", Double(count) / 1e6) }

/// Runs one case in this process on the input files and prints "seconds peakBytes".
/// Inputs are read from files so that nothing but the input bytes (and, for writes, the value
/// to write) is allocated before the peak-memory baseline is taken.
func runCase(_ name: String, binaryPath: String, xmlPath: String, runs: Int) throws {
    let binary = [UInt8](try Data(contentsOf: URL(fileURLWithPath: binaryPath)))
    let xml = [UInt8](try Data(contentsOf: URL(fileURLWithPath: xmlPath)))
    var value: PropertyListValue = false
    var foundationGraph: Any = 0
    if name.hasSuffix("-write") {
        value = try PropertyListCodec.decode(binary)
        if name.hasPrefix("foundation-") { foundationGraph = foundationObject(value) }
    }
    // Reset the peak to the current size (Linux: writing 5 to clear_refs resets VmHWM).
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let baseline = currentResidentBytes()
    let operation: () throws -> Void
    switch name {
    case "ours-binary-read": operation = { _ = try PropertyListCodec.decode(binary) }
    case "ours-binary-write": operation = { _ = try BinaryPropertyListWriter().write(value) }
    case "ours-xml-read": operation = { _ = try PropertyListCodec.decode(xml) }
    case "ours-xml-write": operation = { _ = try XMLPropertyListWriter().write(value) }
    case "foundation-binary-read":
        let data = Data(binary)
        operation = { _ = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) }
    case "foundation-binary-write":
        operation = { _ = try PropertyListSerialization.data(fromPropertyList: foundationGraph, format: .binary, options: 0) }
    case "foundation-xml-read":
        let data = Data(xml)
        operation = { _ = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) }
    case "foundation-xml-write":
        operation = { _ = try PropertyListSerialization.data(fromPropertyList: foundationGraph, format: .xml, options: 0) }
    default:
        throw CocoaError(.featureUnsupported)
    }
    // The first run is the warm-up and the one whose peak memory is reported.
    try operation()
    let peak = max(0, peakResidentBytes() - baseline)
    var best = Double.infinity
    for _ in 0..<runs {
        let start = now()
        try operation()
        best = min(best, now() - start)
    }
    print(best, peak)
}

func measureInChild(_ name: String, binaryPath: String, xmlPath: String, runs: Int) throws -> Measurement {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--case", name, binaryPath, xmlPath, String(runs)]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let fields = output.split(whereSeparator: \.isWhitespace)
    guard fields.count == 2, let seconds = Double(fields[0]), let peak = Int(fields[1]) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return Measurement(seconds: seconds, peakBytes: peak)
}

let arguments = CommandLine.arguments
if arguments.count == 6, arguments[1] == "--case", let runs = Int(arguments[5]) {
    try runCase(arguments[2], binaryPath: arguments[3], xmlPath: arguments[4], runs: runs)
    exit(0)
}

let inputs = try loadInputs()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
print("Property-list codec benchmark: ours vs Foundation PropertyListSerialization, release build.")
print("Time: best of N runs after a warm-up (ours N = 5; Foundation N = 3, or 1 above 5 MB). Peak: growth of VmHWM during the warm-up run, in a fresh process per case.")
print("")
print("| input | operation | size | ours | ours MB/s | ours peak | Foundation | Foundation peak | speed-up |")
print("|---|---|---|---|---|---|---|---|---|")
for (index, input) in inputs.enumerated() {
    let binaryPath = directory.appendingPathComponent("\(index).bplist").path
    let xmlPath = directory.appendingPathComponent("\(index).xml").path
    try Data(input.binary).write(to: URL(fileURLWithPath: binaryPath))
    try Data(input.xml ?? []).write(to: URL(fileURLWithPath: xmlPath))
    for (operation, format) in [("read", "binary"), ("write", "binary"), ("read", "xml"), ("write", "xml")] {
        let size = format == "binary" ? input.binary.count : (input.xml?.count ?? 0)
        let ours = try measureInChild("ours-\(format)-\(operation)", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5)
        let theirs = try measureInChild("foundation-\(format)-\(operation)", binaryPath: binaryPath, xmlPath: xmlPath, runs: size > 5_000_000 ? 1 : 3)
        let speed = Double(size) / ours.seconds / 1e6
        print("| \(input.name) | \(format) \(operation) | \(megabytes(size)) | \(String(format: "%.1f ms", ours.seconds * 1000)) | \(String(format: "%.0f", speed)) | \(megabytes(ours.peakBytes)) | \(String(format: "%.0f ms", theirs.seconds * 1000)) | \(megabytes(theirs.peakBytes)) | \(String(format: "%.1f×", theirs.seconds / ours.seconds)) |")
    }
}
