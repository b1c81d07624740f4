import Foundation
import BenchmarkSupport
import PropertyList

// Benchmark: our property-list codec against Foundation's PropertyListSerialization on the
// same inputs, in one run. Release builds only: `swift run -c release keyedarchive-benchmark`.
// Each case runs in a fresh child process so its peak memory (VmHWM) is its own.

struct Measurement {
    /// Best wall-clock time, seconds.
    var wall: Double
    /// Best thread CPU time, seconds: the figure the tables use.
    var cpu: Double
    var peakBytes: Int
}

/// Best wall and best thread-CPU time of one operation.
struct Timing {
    var wall = Double.infinity
    var cpu = Double.infinity

    mutating func measure(_ body: () throws -> Void) rethrows {
        let wallStart = now(), cpuStart = threadCPUTime()
        try body()
        let cpuTime = threadCPUTime() - cpuStart, wallTime = now() - wallStart
        cpu = min(cpu, cpuTime)
        wall = min(wall, wallTime)
    }
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

/// How to assemble a value tree from scratch, flattened in post-order: leaves as they are,
/// containers as their kind and size (and a dictionary's keys).
enum AssemblyStep {
    case leaf(PropertyListValue)
    case array(count: Int)
    case set(count: Int)
    case dictionary(keys: [String])
}

func assemblyPlan(_ value: PropertyListValue) -> [AssemblyStep] {
    var plan: [AssemblyStep] = []
    func visit(_ value: PropertyListValue) {
        switch value {
        case .array(let elements):
            elements.forEach(visit)
            plan.append(.array(count: elements.count))
        case .set(let elements):
            elements.forEach(visit)
            plan.append(.set(count: elements.count))
        case .dictionary(let dictionary):
            dictionary.entries.forEach { visit($0.value) }
            plan.append(.dictionary(keys: dictionary.keys))
        default:
            plan.append(.leaf(value))
        }
    }
    visit(value)
    return plan
}

/// The value tree assembled from its plan: every array and dictionary allocated and filled
/// afresh, the strings and data shared with the plan (a reader may share them too).
///
/// Any reader that returns a ``PropertyListValue`` must at least allocate, fill and (when the
/// result is dropped) free every container of the tree, and this does only that, reading the
/// plan front to back with a stack of finished values, as a one-pass reader would. So its time
/// is a floor under the binary read time of *this value model*, however fast the parsing: the
/// benchmark reports it beside the read so that a read target can be checked against what the
/// model itself costs.
func assembled(_ plan: [AssemblyStep]) -> PropertyListValue {
    var finished: [PropertyListValue] = []
    for step in plan {
        switch step {
        case .leaf(let value):
            finished.append(value)
        case .array(let count), .set(let count):
            let elements = Array(finished[(finished.count - count)...])
            finished.removeLast(count)
            if case .set = step { finished.append(.set(elements)) } else { finished.append(.array(elements)) }
        case .dictionary(let keys):
            let base = finished.count - keys.count
            var entries: [PropertyListDictionary.Entry] = []
            entries.reserveCapacity(keys.count)
            for (offset, key) in keys.enumerated() {
                entries.append(PropertyListDictionary.Entry(key: key, value: finished[base + offset]))
            }
            finished.removeLast(keys.count)
            finished.append(.dictionary(PropertyListDictionary(entries: entries)))
        }
    }
    return finished.last ?? false
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
func runCase(_ name: String, binaryPath: String, xmlPath: String, runs: Int, budgetSeconds: Double = 20) throws {
    let binary = [UInt8](try Data(contentsOf: URL(fileURLWithPath: binaryPath)))
    let xml = [UInt8](try Data(contentsOf: URL(fileURLWithPath: xmlPath)))
    var value: PropertyListValue = false
    var foundationGraph: Any = 0
    var plan: [AssemblyStep] = []
    if name == "ours-value-floor" {
        let tree = try PropertyListCodec.decode(binary)
        plan = assemblyPlan(tree)
        // The floor must build the very tree the read returns, or it measures something else.
        guard assembled(plan) == tree else { throw CocoaError(.fileReadCorruptFile) }
    }
    if name.hasSuffix("-write") {
        value = try PropertyListCodec.decode(binary)
        if name.hasPrefix("foundation-") { foundationGraph = foundationObject(value) }
    }
    // Reset the peak to the current size (Linux: writing 5 to clear_refs resets VmHWM).
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let baseline = processStatusBytes("VmRSS:")
    let operation: () throws -> Void
    switch name {
    case "ours-binary-read": operation = { _ = try PropertyListCodec.decode(binary) }
    case "ours-value-floor": operation = { _ = assembled(plan) }
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
    // The first run is the warm-up and the one whose peak memory is reported. It is timed
    // too, so that an operation that takes many seconds (Foundation writing 50 MB) needs to
    // run only once; further runs follow while they fit the time budget.
    var timing = Timing()
    try timing.measure(operation)
    let peak = max(0, processStatusBytes("VmHWM:") - baseline)
    var spent = timing.wall
    var done = 0
    while done < runs, spent < budgetSeconds {
        let start = now()
        try timing.measure(operation)
        spent += now() - start
        done += 1
    }
    print(timing.wall, timing.cpu, peak)
}

func measureInChild(_ name: String, binaryPath: String, xmlPath: String, runs: Int) throws -> Measurement {
    let fields = try runSelf(["--case", name, binaryPath, xmlPath, String(runs)])
    guard fields.count == 3, let wall = Double(fields[0]), let cpu = Double(fields[1]), let peak = Int(fields[2]) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return Measurement(wall: wall, cpu: cpu, peakBytes: peak)
}

/// The best of several measurements (each already a best of runs); peak from the first.
func best(_ measurements: [Measurement]) -> Measurement {
    var result = measurements[0]
    for measurement in measurements.dropFirst() {
        result.wall = min(result.wall, measurement.wall)
        result.cpu = min(result.cpu, measurement.cpu)
    }
    return result
}

let arguments = CommandLine.arguments
if arguments.count == 6, arguments[1] == "--case", let runs = Int(arguments[5]) {
    try runCase(arguments[2], binaryPath: arguments[3], xmlPath: arguments[4], runs: runs)
    exit(0)
}

// `--profile OPERATION FILE [REPEAT]`: one operation of ours on a file, for callgrind.
if arguments.count >= 4, arguments[1] == "--profile" {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[3])))
    let repeats = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
    switch arguments[2] {
    case "read":
        for _ in 0..<repeats { _ = try PropertyListCodec.decode(bytes) }
    case "write-binary", "write-xml":
        let value = try PropertyListCodec.decode(bytes)
        for _ in 0..<repeats {
            _ = arguments[2] == "write-binary" ? try BinaryPropertyListWriter().write(value) : try XMLPropertyListWriter().write(value)
        }
    default:
        break
    }
    exit(0)
}
// `--write-inputs DIRECTORY [SCALE]`: the generated inputs as files (binary and XML), for profiling.
// `--foundation-convert IN binary|xml OUT`: what `keyedarchive convert` does, with Foundation's
// PropertyListSerialization (read the file, convert, write it): the whole-process anchor of
// Benchmarks/tool/run.sh.
if arguments.count == 5, arguments[1] == "--foundation-convert", arguments[3] == "binary" || arguments[3] == "xml" {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let value = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    let format: PropertyListSerialization.PropertyListFormat = arguments[3] == "binary" ? .binary : .xml
    try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0).write(to: URL(fileURLWithPath: arguments[4]))
    exit(0)
}

if arguments.count >= 3, arguments[1] == "--write-inputs" {
    let scale = arguments.count > 3 ? Double(arguments[3]) ?? 1 : 1
    let directory = URL(fileURLWithPath: arguments[2])
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, value) in [("archive", Workloads.keyedArchiveShape(objectCount: Int(640_000 * scale))), ("plist", Workloads.generalPlist(records: Int(230_000 * scale)))] {
        try Data(try BinaryPropertyListWriter().write(value)).write(to: directory.appendingPathComponent("\(name).bplist"))
        try Data(try XMLPropertyListWriter().write(value)).write(to: directory.appendingPathComponent("\(name).xml"))
    }
    exit(0)
}

let inputs = try loadInputs()
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-benchmark-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
print("Property-list codec benchmark: ours vs Foundation PropertyListSerialization, release build.")
print("Time: thread CPU time (CLOCK_THREAD_CPUTIME_ID), best of the runs; wall time in brackets. Each case runs in its")
print("own child process: a timed warm-up, then up to 5 more runs within 20 s. Per row the children run interleaved,")
print("ours, Foundation, ours again; each side's best counts. Peak: growth of VmHWM during the warm-up run.")
print("")
print("| input | operation | size | ours | ours MB/s | ours peak | Foundation | Foundation peak | speed-up |")
print("|---|---|---|---|---|---|---|---|---|")
func milliseconds(_ measurement: Measurement) -> String {
    String(format: "%.1f ms (%.1f)", measurement.cpu * 1000, measurement.wall * 1000)
}
var floorRows: [String] = []
for (index, input) in inputs.enumerated() {
    let binaryPath = directory.appendingPathComponent("\(index).bplist").path
    let xmlPath = directory.appendingPathComponent("\(index).xml").path
    try Data(input.binary).write(to: URL(fileURLWithPath: binaryPath))
    try Data(input.xml ?? []).write(to: URL(fileURLWithPath: xmlPath))
    // `--binary-reads-only`: the binary read rows and their floors, without the multi-second writes.
    let operations = arguments.contains("--binary-reads-only") ? [("read", "binary")] : [("read", "binary"), ("write", "binary"), ("read", "xml"), ("write", "xml")]
    for (operation, format) in operations {
        let size = format == "binary" ? input.binary.count : (input.xml?.count ?? 0)
        let first = try measureInChild("ours-\(format)-\(operation)", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5)
        let theirs = try measureInChild("foundation-\(format)-\(operation)", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5)
        let second = try measureInChild("ours-\(format)-\(operation)", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5)
        let ours = best([first, second])
        let speed = Double(size) / ours.cpu / 1e6
        if operation == "read", format == "binary" {
            // The floor runs between two of ours as well, so that all three share the machine's mood.
            let floor = best([try measureInChild("ours-value-floor", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5),
                              try measureInChild("ours-value-floor", binaryPath: binaryPath, xmlPath: xmlPath, runs: 5)])
            let budget = theirs.cpu / 30
            floorRows.append("| \(input.name) | \(milliseconds(ours)) | \(milliseconds(floor)) | \(String(format: "%.0f %%", 100 * floor.cpu / ours.cpu)) | \(milliseconds(theirs)) | \(String(format: "%.2f ms", budget * 1000)) | \(String(format: "%.1f×", theirs.cpu / floor.cpu)) |")
        }
        print("| \(input.name) | \(format) \(operation) | \(megabytes(size)) | \(milliseconds(ours)) | \(String(format: "%.0f", speed)) | \(megabytes(ours.peakBytes)) | \(milliseconds(theirs)) | \(megabytes(theirs.peakBytes)) | \(String(format: "%.1f×", theirs.cpu / ours.cpu)) (\(String(format: "%.1f×", theirs.wall / ours.wall))) |")
        fflush(nil)
    }
}
print("")
print("Value-model floor: the same value tree assembled in one pass from a post-order plan in memory, every array and")
print("dictionary allocated and filled afresh (strings and data shared, nothing parsed), which any reader returning")
print("PropertyListValue must at least do. The last column is the largest binary-read speed-up that this value model")
print("allows against Foundation's read in this run.")
print("")
print("| input | ours binary read | value-model floor | floor / read | Foundation binary read | 30× budget | Foundation / floor |")
print("|---|---|---|---|---|---|---|")
for row in floorRows { print(row) }
